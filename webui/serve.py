"""Serve the app: ``python -m webui.serve [streamlit options]`` (what ``make run`` uses).

Same as ``streamlit run app.py``, with one fix. Streamlit treats a ``pages/``
folder next to the main script as a legacy multipage app until the first
``st.navigation`` call of the process, so the very first visit of a fresh
server to a deep link (``/catalog?...``) showed a "Page not found" dialog. The
app always uses ``st.navigation``, so this launcher turns the legacy mode off
before the server starts.
"""

from __future__ import annotations

import sys
from pathlib import Path

from streamlit.runtime.pages_manager import PagesManager
from streamlit.web import cli

APP = Path(__file__).resolve().parent.parent / "app.py"


def main(argv: list[str] | None = None) -> int:
    PagesManager.uses_pages_directory = False
    sys.argv = ["streamlit", "run", str(APP), *(sys.argv[1:] if argv is None else argv)]
    return cli.main()


if __name__ == "__main__":
    sys.exit(main())
