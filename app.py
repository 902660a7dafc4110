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
from webui import state

HERE = Path(__file__).resolve().parent

language = state.choose_language()  # first: every text below is in this run's language
st.set_page_config(page_title=_("Fabric planner"), layout="wide",
                   initial_sidebar_state="expanded")
state.html_lang(language)

pages = [
    st.Page(HERE / "pages" / "1_Designer.py", title=_("Designer"), default=True),
    st.Page(HERE / "pages" / "2_Catalog.py", title=_("Catalog & assumptions"),
            url_path="catalog"),
]
performance = HERE / "pages" / "3_Performance.py"
if performance.exists():
    pages.append(st.Page(performance, title=_("Performance"), url_path="performance"))
compare = HERE / "pages" / "4_Compare.py"
if compare.exists():
    pages.append(st.Page(compare, title=_("Compare"), url_path="compare"))
sweep = HERE / "pages" / "5_Sweep.py"
if sweep.exists():
    pages.append(st.Page(sweep, title=_("Sweep"), url_path="sweep"))
resilience = HERE / "pages" / "6_Resilience.py"
if resilience.exists():
    pages.append(st.Page(resilience, title=_("Resilience"), url_path="resilience"))
optimize = HERE / "pages" / "7_Optimize.py"
if optimize.exists():
    pages.append(st.Page(optimize, title=_("Optimize"), url_path="optimize"))

# Key-number cards are HTML (core.figures.keynumbers.cards_html: a wrapping grid that appears with the first text).
st.markdown("<style>" + CARDS_CSS + "</style>", unsafe_allow_html=True)

page = st.navigation(pages, position="sidebar")
st.session_state["fp_current"] = state.sidebar()
share_slot = st.sidebar.container()
try:
    page.run()
finally:  # the URL and the share box follow what this run showed (pages return early, never st.stop)
    with share_slot:
        state.share_box(page.url_path)
    state.remember_widgets()
