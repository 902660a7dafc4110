"""fabric planner web app: serve it with ``python -m webui.serve`` (what ``make run`` does).

A bare ``streamlit run app.py`` also works, but on a freshly started server the
first deep link (``/catalog?...``) shows Streamlit's "Page not found" dialog;
``webui.serve`` turns off the legacy ``pages/`` mode that causes it.

The design lives in the URL query string (see core/formats/sharelink.py), so any
number of stateless replicas can serve the app.
"""

from pathlib import Path

import streamlit as st

from core.figures.keynumbers import CARDS_CSS
from core.i18n import _
from webui import jobs, router, state, tables

HERE = Path(__file__).resolve().parent

jobs.runner()  # the server's worker pool for heavy work (webui.jobs): started once, before the first job
language = state.choose_language()  # first: every text below is in this run's language
st.set_page_config(page_title=_("Fabric planner"), layout="wide",
                   initial_sidebar_state="expanded")
state.html_lang(language)

pages = [
    st.Page(HERE / "pages" / "1_Designer.py", title=_("Designer"), default=True),
    st.Page(HERE / "pages" / "2_Catalog.py", title=_("Catalog & assumptions"),
            url_path="catalog"),
]
for file, title, path in (("3_Performance.py", _("Performance"), "performance"), ("4_Compare.py", _("Compare"), "compare"),
                          ("5_Sweep.py", _("Sweep"), "sweep"), ("6_Resilience.py", _("Resilience"), "resilience"),
                          ("7_Optimize.py", _("Optimize"), "optimize"),
                          ("8_Inference.py", _("Inference"), "inference")):
    if (HERE / "pages" / file).exists():
        pages.append(st.Page(HERE / "pages" / file, title=title, url_path=path))

# Key-number cards are HTML (core.figures.keynumbers.cards_html: a wrapping grid that appears with the first text).
# Streamlit's own metrics (Resilience, Performance) shrink with the window and wrap their labels instead of
# cutting "360 GB/s" to "360 G..." in a four-column row at 1,024 px.
METRIC_CSS = ('[data-testid="stMetricValue"] > div {font-size: clamp(1.3rem, 2.4vw, 2.25rem); overflow: visible;} '
              '[data-testid="stMetricLabel"] * {white-space: normal !important; overflow: visible; text-overflow: clip;}')
# Static tables' headers (st.table: Optimize) wrap between words only: a narrow Chinese column broke 层数 and 交换机
# inside the word ("层/数"); keep-all breaks Chinese at its punctuation and spaces, as Latin text.
TABLE_CSS = '[data-testid="stTable"] th, [data-testid="stTable"] th * {word-break: keep-all !important;} '  # the cell's text sets its own
# A radio option whose words wrap keeps its circle on its first line (Streamlit centres it on the lines, so the
# Optimize page's "Size by" option 2 at 1,280 px seemed to start on its second line and its first to end option 1).
RADIO_CSS = ('[data-testid="stRadioOption"] > div {align-items: flex-start;} '
             '[data-testid="stRadioOption"] > div > div:first-child {margin-top: 0.2rem;} '
             '[data-testid="stRadioGroup"][aria-orientation="vertical"] {row-gap: 0.4rem;} ')
st.markdown("<style>" + CARDS_CSS + METRIC_CSS + TABLE_CSS + RADIO_CSS + tables.PAGE_CONTAINER_CSS + "</style>", unsafe_allow_html=True)

page = st.navigation(pages, position="sidebar")
router.follow_case(page, pages)  # /Performance opens /performance; a path no page has says so
# the Compare page edits its own columns: its sidebar names the Designer's design instead of drawing its controls
st.session_state["fp_current"] = state.compare_sidebar() if page.url_path == state.COMPARE_PATH else state.sidebar()
share_slot = st.sidebar.container()
try:
    page.run()
finally:  # the URL and the share box follow what this run showed (pages return early, never st.stop)
    with share_slot:
        state.share_box(page.url_path)
    state.remember_widgets()
