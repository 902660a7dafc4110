"""Horizontal scale: two ``webui.serve`` replicas behind nginx (deploy/nginx.conf), driven in Chromium.

The slow test starts two replicas on free localhost ports and Debian's nginx as a foreground process
with a temporary prefix (pid, logs and temp files in one temp dir; it installs nginx first when it is
missing and the test runs as root, as ``make nginx`` does). It then drives browser sessions through
the proxy and reads nginx's access log (``$upstream_addr`` and the sticky route key) to check that

* every session stays on one replica (the route cookie nginx sets, hashed consistently),
* two sessions on different route keys are served by different replicas, and
* each session's websocket (/_stcore/stream) was upgraded through the proxy.

The quick tests above it check the template renderer and the serving defaults (webui/serve.py).
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import tomllib
import urllib.request
from pathlib import Path

import pytest

from webui.serve import mode_flags

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "test-artifacts"

_spec = importlib.util.spec_from_file_location("render_nginx", ROOT / "deploy" / "render_nginx.py")
render_nginx = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(render_nginx)

START_TIMEOUT = 60  # seconds for a replica or nginx to accept connections
UI_TIMEOUT = 45  # seconds for the page to show a number
LOG_LINE = re.compile(r'"(?P<method>[A-Z]+) (?P<path>\S+) [^"]*" (?P<status>\d{3}) \d+ '
                      r'route=(?P<route>\S+) upstream=(?P<upstream>.*?) rt=')


# --- quick checks: the template renderer and the serving defaults --------------------------------
def test_render_fills_every_placeholder():
    text = render_nginx.render("127.0.0.1:8080", "/srv/run", ["127.0.0.1:8501", "10.0.0.2:8502"])
    assert "{{" not in text
    assert "listen 127.0.0.1:8080;" in text
    assert re.findall(r"^\s*server (\S+) ", text, re.M) == ["127.0.0.1:8501", "10.0.0.2:8502"]
    assert "pid /srv/run/nginx.pid;" in text and "hash $fp_route consistent;" in text
    for needed in ("proxy_http_version 1.1;", "proxy_set_header Upgrade", "proxy_set_header Connection",
                   "proxy_read_timeout 1d;", "$upstream_addr"):
        assert needed in text


def test_an_error_never_marks_a_replica_down():
    """A failed attempt must not take a replica out of the sticky hash: with ``max_fails=1`` one kept-alive
    connection closed under a request moved every session of that replica to another one for ``fail_timeout``
    (``test_sessions_through_nginx_stick_to_their_replica`` saw a session's later requests change replica). A
    failed request still passes to the next replica (nginx's default ``proxy_next_upstream``)."""
    text = render_nginx.render("127.0.0.1:8080", "/srv/run", ["127.0.0.1:8501", "10.0.0.2:8502"])
    servers = re.findall(r"^\s*server \S+ (.*);$", text, re.M)
    assert servers == ["max_fails=0", "max_fails=0"], servers
    assert "proxy_next_upstream off" not in text


@pytest.mark.parametrize("listen, run_dir, replicas", [
    ("127.0.0.1:8080", "relative/dir", ["127.0.0.1:8501"]),
    ("127.0.0.1:8080", "/srv/run", []),
    ("127.0.0.1:8080", "/srv/run", ["127.0.0.1"]),
    ("127.0.0.1:8080; evil", "/srv/run", ["127.0.0.1:8501"]),
])
def test_render_refuses_bad_input(listen, run_dir, replicas):
    with pytest.raises(ValueError):
        render_nginx.render(listen, run_dir, replicas)


def _as_dict(flags: list[str]) -> dict[str, str]:
    return dict(zip(flags[::2], flags[1::2]))


def test_production_is_the_default_mode():
    flags = _as_dict(mode_flags([], {}))
    assert flags["--client.showErrorDetails"] == "none"
    assert flags["--server.fileWatcherType"] == "none"
    assert _as_dict(mode_flags([], {"MODE": "dev"}))["--client.showErrorDetails"] == "full"


def test_a_given_flag_or_environment_variable_wins():
    assert "--client.showErrorDetails" not in mode_flags(["--client.showErrorDetails", "type"], {})
    assert "--client.showErrorDetails" not in mode_flags(["--client.showErrorDetails=type"], {})
    env = {"STREAMLIT_CLIENT_SHOW_ERROR_DETAILS": "stacktrace"}
    assert "--client.showErrorDetails" not in mode_flags([], env)
    with pytest.raises(SystemExit, match="MODE must be one of"):
        mode_flags([], {"MODE": "staging"})


def test_config_limits_uploads_and_messages_and_skips_the_gc_per_rerun():
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    assert config["server"]["maxUploadSize"] <= 5  # MB; only small design JSON files are uploaded
    assert config["server"]["maxMessageSize"] <= 32  # MB; Streamlit's default is 200
    assert config["runner"]["postScriptGC"] is False  # a full gc.collect() per rerun cost ~70% of its CPU


# --- the slow test: replicas behind nginx ---------------------------------------------------------
def _free_port() -> int:
    from tests.serving import free_port

    return free_port()


def _nginx_binary() -> str | None:
    return shutil.which("nginx") or next((p for p in ("/usr/sbin/nginx",) if os.access(p, os.X_OK)), None)


def _ensure_nginx() -> str:
    found = _nginx_binary()
    if found:
        return found
    if os.geteuid() != 0:
        pytest.skip("nginx is not installed (make nginx installs it)")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    subprocess.run(["apt-get", "update", "-qq"], check=True, timeout=300, env=env, capture_output=True)
    subprocess.run(["apt-get", "install", "-y", "-qq", "nginx"], check=True, timeout=600, env=env,
                   capture_output=True)
    found = _nginx_binary()
    assert found, "apt-get installed nginx but there is no nginx binary"
    return found


def _wait_for_port(port: int, proc: subprocess.Popen, what: str, log: Path) -> None:
    from tests.serving import wait_for_port

    try:
        wait_for_port(port, proc, what, log, START_TIMEOUT)
    except RuntimeError as exc:
        raise AssertionError(str(exc)) from None


def _stop(proc: subprocess.Popen, sig: int = signal.SIGTERM) -> None:
    if proc.poll() is None:
        proc.send_signal(sig)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


def attempts(line: dict[str, str]) -> list[str]:
    """The upstreams nginx tried for one request, in order (``$upstream_addr``).

    nginx lists every attempt: "A, B" when the request to A failed and was passed to B
    (proxy_next_upstream: an error on a kept-alive connection, a connect failure), "A : B" after an
    internal redirect. The last one served the request.
    """
    return [part for part in re.split(r"\s*[,:]\s+", line["upstream"].strip()) if part]


class Cluster:
    def __init__(self, url: str, replicas: list[str], run_dir: Path):
        self.url, self.replicas, self.run_dir = url, replicas, run_dir

    def log(self) -> list[dict[str, str]]:
        text = (self.run_dir / "access.log").read_text(encoding="utf-8", errors="replace")
        return [m.groupdict() for m in map(LOG_LINE.search, text.splitlines()) if m]

    def upstreams(self, route: str) -> set[str]:
        """The replicas nginx chose first for this route key (its hash target)."""
        return {attempts(line)[0] for line in self.log() if line["route"] == route}

    def wait_for_log(self, predicate, timeout: float = 15) -> list[dict[str, str]]:
        deadline = time.monotonic() + timeout
        while True:
            lines = self.log()
            if predicate(lines) or time.monotonic() > deadline:
                return lines
            time.sleep(0.2)


@pytest.fixture(scope="module")
def cluster():
    """Two replicas and nginx in front of them; everything stopped in the finaliser, even on failure."""
    nginx = _ensure_nginx()
    ARTIFACTS.mkdir(exist_ok=True)
    run_dir = Path(tempfile.mkdtemp(prefix="fp-nginx-"))
    run_dir.chmod(0o755)  # nginx's workers run as nobody when the master is root
    procs: list[tuple[subprocess.Popen, int]] = []
    try:
        ports = []
        for _ in range(2):
            port = _free_port()
            log = ARTIFACTS / f"replica-{port}.log"
            proc = subprocess.Popen(
                [sys.executable, "-m", "webui.serve", "--server.headless", "true", "--server.address",
                 "127.0.0.1", "--server.port", str(port), "--browser.gatherUsageStats", "false"],
                cwd=ROOT, stdout=log.open("w"), stderr=subprocess.STDOUT, start_new_session=True,
                env={**os.environ, "PYTHONPATH": str(ROOT), "MODE": "production"})
            procs.append((proc, signal.SIGTERM))
            ports.append((port, proc, log))
        for port, proc, log in ports:
            _wait_for_port(port, proc, f"replica on {port}", log)
        replicas = [f"127.0.0.1:{port}" for port, _, _ in ports]
        listen = _free_port()
        conf = run_dir / "nginx.conf"
        conf.write_text(render_nginx.render(f"127.0.0.1:{listen}", run_dir, replicas), encoding="utf-8")
        err = run_dir / "stderr.log"
        proc = subprocess.Popen([nginx, "-p", str(run_dir), "-c", str(conf), "-e", str(run_dir / "error.log"),
                                 "-g", "daemon off;"], stdout=err.open("w"), stderr=subprocess.STDOUT,
                                start_new_session=True)
        procs.append((proc, signal.SIGQUIT))  # graceful: workers finish and write their log lines
        _wait_for_port(listen, proc, "nginx", err)
        yield Cluster(f"http://127.0.0.1:{listen}", replicas, run_dir)
    finally:
        for proc, sig in reversed(procs):
            _stop(proc, sig)
        for name in ("access.log", "error.log", "nginx.conf"):
            if (run_dir / name).exists():
                shutil.copy(run_dir / name, ARTIFACTS / f"replicas-nginx-{name}")
        shutil.rmtree(run_dir, ignore_errors=True)


def _probe(cluster: Cluster, route: str) -> None:
    """One request through nginx with this route cookie (no proxy from the environment: localhost only)."""
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    request = urllib.request.Request(cluster.url + "/_stcore/health", headers={"Cookie": f"fp_route={route}"})
    with opener.open(request, timeout=10) as response:
        assert response.status == 200


def _routes_to_each_replica(cluster: Cluster) -> dict[str, str]:
    """A route key that nginx hashes to each replica, found by probing: {replica: route}."""
    found: dict[str, str] = {}
    for i in range(40):
        route = f"probe{i}"
        _probe(cluster, route)
        lines = cluster.wait_for_log(lambda ls: any(line["route"] == route for line in ls), timeout=5)
        upstream = next(attempts(line)[0] for line in lines if line["route"] == route)
        found.setdefault(upstream, route)
        if len(found) == len(cluster.replicas):
            return found
    raise AssertionError(f"40 route keys all went to {sorted(found)}; is the upstream hash sticky on the cookie?")


def _gpus(page) -> str | None:
    labels = page.locator("[data-testid='stMetricLabel']").all_inner_texts()
    values = page.locator("[data-testid='stMetricValue']").all_inner_texts()
    shown = {label.strip(): value.strip() for label, value in zip(labels, values)}
    return shown.get("GPUs")


def _wait_for_gpus(page, expected: int | None = None) -> int:
    """The number on the GPUs key-number card once it shows (and, if given, equals ``expected``)."""
    deadline = time.monotonic() + UI_TIMEOUT
    shown = None
    while time.monotonic() < deadline:
        shown = _gpus(page)
        if shown and re.fullmatch(r"[\d,]+", shown):
            value = int(shown.replace(",", ""))
            if expected is None or value == expected:
                return value
        time.sleep(0.1)
    raise AssertionError(f"the GPUs card shows {shown!r}, expected {expected if expected else 'a number'}")


def _set_nodes(page, base_url: str, nodes: int) -> str:
    """Change the node count the way a user would: the sidebar's exact-count box, else a share link."""
    box = page.locator("[data-testid='stSidebar'] input[aria-label='Exact node count']")
    if box.count():
        box.first.fill(str(nodes))
        box.first.press("Enter")
        return "input"
    page.goto(f"{base_url}/?v=1&n={nodes}")
    return "link"


@pytest.mark.slow
@pytest.mark.e2e
def test_sessions_through_nginx_stick_to_their_replica(cluster, browser):
    route_for = _routes_to_each_replica(cluster)  # {replica: route}
    (replica_a, route_a), (replica_b, route_b) = list(route_for.items())[:2]
    host = cluster.url.split("//")[1].split(":")[0]
    contexts = []
    try:
        pages = {}
        for name, route in (("a", route_a), ("b", route_b), ("c", None)):
            context = browser.new_context(viewport={"width": 1400, "height": 1000})
            contexts.append(context)
            if route:
                context.add_cookies([{"name": "fp_route", "value": route, "domain": host, "path": "/"}])
            pages[name] = context.new_page()
        for page in pages.values():  # three sessions open at once
            page.goto(cluster.url + "/?v=1&n=16")
        base = {name: _wait_for_gpus(page) for name, page in pages.items()}
        assert len(set(base.values())) == 1 and base["a"] > 0, base

        # session a moves the node count in the sidebar (or by link); session b opens a share link
        how = _set_nodes(pages["a"], cluster.url, 32)
        _wait_for_gpus(pages["a"], base["a"] * 2)
        pages["b"].goto(cluster.url + "/?v=1&n=48")
        _wait_for_gpus(pages["b"], base["b"] * 3)
        pages["a"].screenshot(path=str(ARTIFACTS / "replicas-session-a.png"))

        # session c came without a cookie: nginx gave it a route key
        cookies = {c["name"]: c["value"] for c in contexts[2].cookies()}
        route_c = cookies.get("fp_route")
        assert route_c and re.fullmatch(r"[0-9a-f]{32}", route_c), cookies
    finally:
        for context in contexts:
            context.close()

    # websocket lines are logged when the connection closes
    def streams_logged(lines):
        return all(any(line["route"] == r and line["path"].startswith("/_stcore/stream") for line in lines)
                   for r in (route_a, route_b, route_c))
    lines = cluster.wait_for_log(streams_logged)
    assert streams_logged(lines), "a session's websocket never went through nginx"
    for route in (route_a, route_b, route_c):
        mine = [line for line in lines if line["route"] == route]
        tried = [attempts(line) for line in mine]
        assert {a for t in tried for a in t} <= set(cluster.replicas), mine
        # sticky: nginx's hash sends every request of a session to the same replica first; a plain request
        # whose attempt failed (a kept-alive connection closed under it) may be passed on (failover), but
        # the session itself, its websocket, is served by that replica
        first = {t[0] for t in tried}
        assert len(first) == 1, f"session {route} moved between replicas: {mine}"
        streams = [t for line, t in zip(mine, tried) if line["path"].startswith("/_stcore/stream")
                   and line["status"] == "101"]
        assert streams and all(t[-1] in first for t in streams), f"session {route}'s websocket moved: {mine}"
    assert cluster.upstreams(route_a) == {replica_a} and cluster.upstreams(route_b) == {replica_b}
    assert {replica_a, replica_b} == set(cluster.replicas), "both replicas served sessions"
    assert how in ("input", "link")
    assert not [line for line in lines if line["status"].startswith("5")], "nginx answered 5xx"
