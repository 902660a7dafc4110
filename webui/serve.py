"""Serve the app: ``python -m webui.serve [streamlit options]`` (what ``make run`` uses).

Same as ``streamlit run app.py``, with three additions.

* Streamlit treats a ``pages/`` folder next to the main script as a legacy multipage app until the
  first ``st.navigation`` call of the process, so the very first visit of a fresh server to a deep
  link (``/catalog?...``) showed a "Page not found" dialog. The app always uses ``st.navigation``,
  so this launcher turns the legacy mode off before the server starts.
* Deployment defaults by mode, from the ``MODE`` environment variable (``MODE=dev make run``):

  ``production`` (the default)
      uncaught errors show a generic message in the browser (``client.showErrorDetails none``;
      the traceback goes to the server log), no file watcher (``server.fileWatcherType none``:
      no polling, no reruns on save).
  ``dev``
      full error details with tracebacks in the browser, the file watcher on and a rerun on save.

  A flag given on the command line or as a ``STREAMLIT_*`` environment variable always wins.
* Streamlit drops a query string of more than 1,000 parameters or 512 KiB before the app runs
  (``sanitize_query_string``; the browser's URL the app sees has no query), so such a link silently
  showed the default design. The launcher wraps that check: a dropped query reaches the app as
  ``fp_dropped=PARAMS:CHARS`` (``core.formats.sharelink.DROPPED_KEY``), and the page says why it shows
  the default design (``mark_dropped_links``).
  Limits that hold in every mode (upload and websocket message size) live in
  ``.streamlit/config.toml`` next to ``app.py``, which Streamlit reads whatever the working
  directory.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

APP = Path(__file__).resolve().parent.parent / "app.py"

MODES: dict[str, dict[str, str]] = {
    "production": {
        "client.showErrorDetails": "none",
        "server.fileWatcherType": "none",
        "server.runOnSave": "false",
    },
    "dev": {
        "client.showErrorDetails": "full",
        "server.fileWatcherType": "auto",
        "server.runOnSave": "true",
    },
}


def _env_name(option: str) -> str:
    """Streamlit's environment variable for a config option: server.runOnSave -> STREAMLIT_SERVER_RUN_ON_SAVE."""
    section, name = option.split(".", 1)
    snake = "".join("_" + c if c.isupper() else c for c in name)
    return f"STREAMLIT_{section}_{snake}".upper()


def mode_flags(argv: Sequence[str], env: Mapping[str, str]) -> list[str]:
    """The ``--option value`` flags of the mode in ``env['MODE']`` that ``argv`` and ``env`` do not set."""
    mode = env.get("MODE", "").strip().lower() or "production"
    if mode not in MODES:
        raise SystemExit(f"webui.serve: MODE must be one of {', '.join(MODES)}, not {env['MODE']!r}")
    flags: list[str] = []
    for option, value in MODES[mode].items():
        flag = "--" + option
        given = any(arg == flag or arg.startswith(flag + "=") for arg in argv)
        if not given and _env_name(option) not in env:
            flags += [flag, value]
    return flags


def mark_dropped_links() -> bool:
    """Make Streamlit's size check of the query string leave a marker instead of nothing: a query it drops
    becomes ``fp_dropped=PARAMS:CHARS`` (counted as Streamlit counts). Returns whether it was installed (a
    Streamlit without the check, or with it elsewhere, is left alone; tests/test_link_warnings.py checks ours)."""
    from urllib.parse import urlencode

    from streamlit.runtime import app_session

    from core.formats.sharelink import DROPPED_KEY

    sanitize = getattr(app_session, "sanitize_query_string", None)
    if sanitize is None or getattr(sanitize, "marks_dropped", False):
        return sanitize is not None

    def marking(query_string: str) -> str:
        kept = sanitize(query_string)
        if query_string and not kept:
            return urlencode({DROPPED_KEY: f"{query_string.count('&') + 1}:{len(query_string)}"})
        return kept

    marking.marks_dropped = True  # type: ignore[attr-defined]
    app_session.sanitize_query_string = marking
    return True


def main(argv: list[str] | None = None) -> int:
    from streamlit.runtime.pages_manager import PagesManager
    from streamlit.web import cli

    args = list(sys.argv[1:] if argv is None else argv)
    PagesManager.uses_pages_directory = False
    mark_dropped_links()
    sys.argv = ["streamlit", "run", str(APP), *mode_flags(args, os.environ), *args]
    return cli.main()


if __name__ == "__main__":
    sys.exit(main())
