"""Serve the app: ``python -m webui.serve [streamlit options]`` (what ``make run`` uses).

Same as ``streamlit run app.py``, with two additions.

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


def main(argv: list[str] | None = None) -> int:
    from streamlit.runtime.pages_manager import PagesManager
    from streamlit.web import cli

    args = list(sys.argv[1:] if argv is None else argv)
    PagesManager.uses_pages_directory = False
    sys.argv = ["streamlit", "run", str(APP), *mode_flags(args, os.environ), *args]
    return cli.main()


if __name__ == "__main__":
    sys.exit(main())
