"""Entry point for AppTest and the app benchmark: runs ../app.py.

AppTest resets Streamlit's "uses a pages/ directory" flag before every run, so
an entry script that sits next to ``pages/`` is wrapped in the legacy (v1)
multipage runner on each run and widget reruns go to the page file directly,
skipping app.py's sidebar. The real server sets the flag once per process
(``st.navigation`` turns it off), so it is not affected. Running app.py from
here, a folder without ``pages/``, gives AppTest the server's behaviour.
"""

import runpy
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
runpy.run_path(str(ROOT / "app.py"), run_name="__main__")
