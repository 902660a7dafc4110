"""Run every benchmark script in this folder (bench_*.py), one after another.

bench_load.py (concurrent sessions against one server, also while heavy operations run; headless
Chromium, about six minutes) runs last; ``python benchmarks/bench_load.py --help`` for its own options.
"""

import subprocess
import sys
from pathlib import Path

here = Path(__file__).resolve().parent
status = 0
for script in sorted(here.glob("bench_*.py")):
    print(f"\n=== {script.name} ===", flush=True)
    status |= subprocess.call([sys.executable, str(script)], cwd=here.parent)
sys.exit(status)
