"""Render deploy/nginx.conf for a set of ``python -m webui.serve`` replicas.

    python deploy/render_nginx.py --listen 0.0.0.0:80 --run-dir /var/lib/fabric-planner-nginx \\
        127.0.0.1:8501 127.0.0.1:8502 > fabric-planner.conf

``--listen`` is what nginx's ``listen`` takes (a port, or ADDRESS:PORT); ``--run-dir`` (absolute)
holds the pid file, logs and temp files; each replica is HOST:PORT. Standard library only.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence
from pathlib import Path

TEMPLATE = Path(__file__).resolve().parent / "nginx.conf"
_REPLICA = re.compile(r"^[A-Za-z0-9.\-\[\]:]+:\d{1,5}$")
_LISTEN = re.compile(r"^([A-Za-z0-9.\-\[\]:]+:)?\d{1,5}$")


def render(listen: str, run_dir: str | Path, replicas: Sequence[str], template: str | None = None) -> str:
    """The nginx configuration text: ``listen`` on one address, a sticky upstream of ``replicas``."""
    run_dir = Path(run_dir)
    if not run_dir.is_absolute():
        raise ValueError(f"--run-dir must be an absolute path, not {str(run_dir)!r}")
    if not _LISTEN.match(listen):
        raise ValueError(f"--listen must be PORT or ADDRESS:PORT, not {listen!r}")
    if not replicas:
        raise ValueError("give at least one replica as HOST:PORT")
    bad = [r for r in replicas if not _REPLICA.match(r)]
    if bad:
        raise ValueError(f"replicas must be HOST:PORT, not {', '.join(map(repr, bad))}")
    text = TEMPLATE.read_text(encoding="utf-8") if template is None else template
    # max_fails=0: an error never marks a replica down. With max_fails=1, one failed attempt (a kept-alive
    # connection closed under a request, a slow accept under load) took the replica out of the hash for
    # fail_timeout, and every session it holds moved its later requests, its websocket included, to another
    # replica. A request that fails still passes to the next replica (proxy_next_upstream), so the browsers of a
    # replica that died still move, at the cost of one refused connection per request.
    servers = "\n".join(f"        server {r} max_fails=0;" for r in replicas)
    for name, value in (("listen", listen), ("run_dir", str(run_dir)), ("servers", servers)):
        text = text.replace("{{" + name + "}}", value)
    left = re.findall(r"\{\{\w+\}\}", text)
    assert not left, f"unfilled placeholders in the template: {left}"
    return text


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--listen", default="127.0.0.1:8080", help="nginx listen address (default %(default)s)")
    parser.add_argument("--run-dir", required=True, help="absolute directory for pid, logs and temp files")
    parser.add_argument("replicas", nargs="+", metavar="HOST:PORT", help="the webui.serve replicas")
    args = parser.parse_args(argv)
    try:
        sys.stdout.write(render(args.listen, args.run_dir, args.replicas))
    except ValueError as exc:
        parser.error(str(exc))
    return 0


if __name__ == "__main__":
    sys.exit(main())
