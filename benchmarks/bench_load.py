"""Load benchmark: one server, 1, 5 and 20 concurrent sessions changing the node count.

Run: ``python benchmarks/bench_load.py`` (``make bench`` runs every benchmark). Not a timed test;
``--help`` lists the knobs. Localhost only, bounded in time (``MAX_SECONDS``) and count.

* Starts ``python -m webui.serve`` on a free localhost port (production mode, as ``make run``) and
  one headless Chromium (Debian's ``/usr/bin/chromium``). Every session opens ``/?v=1&n=128``
  (1,024 H100 GPUs) and then changes the node count back and forth between 128 and 129
  (1,024 <-> 1,032 GPUs), back to back (closed loop, no think time).
* **browser** sessions (default 1 and 5): Playwright browser contexts. The change types the number
  into the sidebar's "Exact node count" box and presses Enter (a page without that box gets a share
  link with the other ``n`` instead; the time then includes the page load). Time-to-updated-number
  runs from the Enter keydown until the "GPUs" key-number card holds the new value, in the page's
  own clock (a MutationObserver), so Playwright's round trips do not count.
* **websocket** sessions (default 1, 5 and 20): a light client that replays, over Streamlit's
  websocket (/_stcore/stream), the very messages the browser session sent (recorded while it
  changed the node count: every widget's state, as the frontend sends them), so it needs no
  knowledge of the page. Time-to-updated-number runs from sending the change until the "GPUs"
  key number with the new value arrives (a metric element, or the HTML cards with Streamlit's
  metric test ids that the Designer draws). 20 real Chromium pages on a 2-core machine would mostly
  measure Chromium drawing 20 pages on the server's cores; each real user draws on their own.
* server CPU per rerun: the server process's utime+stime (``/proc/<pid>/stat``) over the measured
  changes divided by their number (one change is one rerun of the Designer page). For browser
  sessions the CPU of Chromium and Playwright's driver is reported separately ("browser CPU").
* "cold": one browser session typing a new node count every time (nothing cached for that design).

Prints a table and writes ``test-artifacts/bench_load.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import re
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"]
BASE_NODES, OTHER_NODES = 128, 129  # 1,024 and 1,032 H100 GPUs (8 per node)
BROWSER_LEVELS = {1: 30, 5: 8, 20: 3}  # sessions: changes per session
WS_LEVELS = {1: 40, 5: 16, 20: 6}
COLD_CHANGES = 12
MAX_SECONDS = 270  # the whole run; levels left when time is up are reported as skipped
WAIT_S = 60  # any single wait
OPEN_AT_ONCE = 4  # browser sessions loading the page at the same time
TICK = os.sysconf("SC_CLK_TCK")

INSTALL_PROBE = """() => {
  const read = () => {
    const labels = [...document.querySelectorAll("[data-testid='stMetricLabel']")];
    const i = labels.findIndex(l => l.innerText.trim() === "GPUs");
    if (i < 0) return null;
    const v = document.querySelectorAll("[data-testid='stMetricValue']")[i];
    return v ? v.innerText.trim() : null;
  };
  window.__fpRead = read;
  window.__fp = {expect: null, t0: null, t1: null};
  const check = () => {
    const f = window.__fp;
    if (f.expect !== null && f.t0 !== null && f.t1 === null && read() === f.expect) f.t1 = performance.now();
  };
  new MutationObserver(check).observe(document.body, {subtree: true, childList: true, characterData: true});
  document.addEventListener("keydown", e => {
    if (e.key === "Enter" && window.__fp.expect !== null && window.__fp.t0 === null) window.__fp.t0 = performance.now();
  }, true);
}"""
SHOWS = """(expect) => { const labels = [...document.querySelectorAll("[data-testid='stMetricLabel']")];
  const i = labels.findIndex(l => l.innerText.trim() === "GPUs");
  const v = document.querySelectorAll("[data-testid='stMetricValue']")[i];
  return i >= 0 && !!v && v.innerText.trim() === expect; }"""
EXACT_BOX = "[data-testid='stSidebar'] input[aria-label='Exact node count']"


# --- processes and CPU time ----------------------------------------------------------------------
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _cpu_seconds(pid: int) -> float:
    """utime + stime of one process (not its children), in seconds."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def _descendants(root: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            except OSError:
                continue
            children.setdefault(ppid, []).append(int(entry))
    found, todo = [], [root]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def _rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return round(int(line.split()[1]) / 1024, 1)
    return float("nan")


def _tree_cpu(pids: list[int]) -> float:
    total = 0.0
    for pid in pids:
        try:
            total += _cpu_seconds(pid)
        except OSError:
            pass  # a renderer that went away
    return total


def start_server() -> tuple[subprocess.Popen, str]:
    port = _free_port()
    ARTIFACTS.mkdir(exist_ok=True)
    log = ARTIFACTS / "bench_load_server.log"
    proc = subprocess.Popen(
        [sys.executable, "-m", "webui.serve", "--server.port", str(port), "--server.headless", "true",
         "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false"],
        cwd=ROOT, stdout=log.open("w"), stderr=subprocess.STDOUT,
        env={**os.environ, "PYTHONPATH": str(ROOT), "MODE": "production"})
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited; see {log}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return proc, f"http://127.0.0.1:{port}"
        except OSError:
            time.sleep(0.2)
    proc.kill()
    raise RuntimeError(f"the server did not start in {WAIT_S} s; see {log}")


def _gpus(nodes: int) -> str:
    return f"{nodes * 8:,}"


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered), max(1, math.ceil(len(ordered) * q))) - 1]  # nearest rank


def _summary(times: list[float], wall: float, cpu: float) -> dict:
    return {"changes": len(times), "p50_ms": round(statistics.median(times), 1),
            "p95_ms": round(_pct(times, 0.95), 1), "max_ms": round(max(times), 1),
            "wall_s": round(wall, 2), "reruns_per_s": round(len(times) / wall, 2),
            "server_cpu_ms_per_rerun": round(cpu * 1000 / len(times), 1), "server_cpu_util": round(cpu / wall, 2)}


# --- browser sessions ----------------------------------------------------------------------------
class Recorder:
    """The BackMsg frames a browser session sends: the first rerun and one per node count."""

    def __init__(self):
        self.frames: list[bytes] = []
        self.first: bytes | None = None
        self.change: dict[int, bytes] = {}

    def attach(self, page) -> None:
        page.on("websocket", lambda ws: ws.on("framesent", self._sent) if "/_stcore/stream" in ws.url else None)

    def _sent(self, payload) -> None:
        if isinstance(payload, bytes):
            self.frames.append(payload)

    def take(self, nodes: int | None) -> None:
        """Keep the rerun request among the frames sent since the last call (the first, or one to ``nodes``)."""
        from streamlit.proto.BackMsg_pb2 import BackMsg

        frames, self.frames = self.frames, []
        for raw in frames:
            msg = BackMsg.FromString(raw)
            if msg.WhichOneof("type") != "rerun_script":
                continue
            if nodes is None and self.first is None:
                self.first = raw
            elif nodes is not None and nodes not in self.change and any(
                    w.WhichOneof("value") in ("int_value", "double_value", "string_value")
                    and getattr(w, w.WhichOneof("value")) in (nodes, str(nodes))
                    for w in msg.rerun_script.widget_states.widgets):
                self.change[nodes] = raw  # the box holds the count (a number, or text in a text box)

    def complete(self) -> bool:
        return self.first is not None and {BASE_NODES, OTHER_NODES} <= set(self.change)


class PlaywrightError(Exception):
    """Playwright's error class (set when Playwright is imported, in run())."""


_METHOD: str | None = None  # how browser sessions change the node count, found by the first one


class BrowserSession:
    def __init__(self, page, url: str, recorder: Recorder | None = None):
        self.page, self.url, self.method, self.recorder = page, url, None, recorder
        if recorder:
            recorder.attach(page)

    async def open(self) -> None:
        await self.page.goto(f"{self.url}/?v=1&n={BASE_NODES}", timeout=WAIT_S * 1000)
        await self.page.wait_for_function(SHOWS, arg=_gpus(BASE_NODES), timeout=WAIT_S * 1000)
        await self.page.evaluate(INSTALL_PROBE)
        global _METHOD
        if _METHOD is None:  # the first session finds out whether the page has the box
            try:
                await self.page.locator(EXACT_BOX).first.wait_for(state="attached", timeout=20_000)
                _METHOD = "exact-node-count box"
            except PlaywrightError:
                _METHOD = "share link"
        elif _METHOD == "exact-node-count box":
            await self.page.locator(EXACT_BOX).first.wait_for(state="attached", timeout=WAIT_S * 1000)
        self.method = _METHOD
        if self.recorder:
            self.recorder.take(None)

    async def change(self, nodes: int) -> float:
        """Set the node count; milliseconds until the GPUs card shows the new number."""
        expect = _gpus(nodes)
        if self.method == "share link":
            start = time.perf_counter()
            await self.page.goto(f"{self.url}/?v=1&n={nodes}", timeout=WAIT_S * 1000)
            await self.page.wait_for_function(SHOWS, arg=expect, timeout=WAIT_S * 1000)
            return (time.perf_counter() - start) * 1000
        await self.page.evaluate("(e) => { window.__fp = {expect: e, t0: null, t1: null}; }", expect)
        box = self.page.locator(EXACT_BOX).first
        await box.fill(str(nodes))
        await box.press("Enter")
        await self.page.wait_for_function("() => window.__fp.t1 !== null", timeout=WAIT_S * 1000)
        elapsed = await self.page.evaluate("() => window.__fp.t1 - window.__fp.t0")
        if self.recorder:
            await asyncio.sleep(0.05)
            self.recorder.take(nodes)
        return elapsed


async def browser_level(browser, url: str, server_pid: int, sessions_n: int, changes: int,
                        cold: bool = False, recorder: Recorder | None = None) -> dict:
    contexts = [await browser.new_context(viewport={"width": 1400, "height": 1000}) for _ in range(sessions_n)]
    try:
        sessions = [BrowserSession(await c.new_page(), url, recorder if i == 0 else None)
                    for i, c in enumerate(contexts)]
        gate = asyncio.Semaphore(OPEN_AT_ONCE)

        async def open_one(s: BrowserSession) -> None:
            async with gate:
                await s.open()
        await asyncio.gather(*(open_one(s) for s in sessions))
        for s in sessions:  # one unmeasured round each: widgets and caches settle
            await s.change(OTHER_NODES)
            await s.change(BASE_NODES)
        browser_pids = [p for p in _descendants(os.getpid()) if p != server_pid]
        await asyncio.sleep(0.3)
        cpu0, bcpu0, wall0 = _cpu_seconds(server_pid), _tree_cpu(browser_pids), time.perf_counter()

        async def drive(s: BrowserSession) -> list[float]:
            return [await s.change(200 + k if cold else (OTHER_NODES if k % 2 == 0 else BASE_NODES))
                    for k in range(changes)]
        per_session = await asyncio.gather(*(drive(s) for s in sessions))
        wall = time.perf_counter() - wall0
        cpu, bcpu = _cpu_seconds(server_pid) - cpu0, _tree_cpu(browser_pids) - bcpu0
        rss = _rss_mb(server_pid)
    finally:
        for c in contexts:
            await c.close()
    times = [t for ts in per_session for t in ts]
    return {"client": "browser", "sessions": sessions_n, "kind": "cold" if cold else "warm",
            "method": " and ".join(sorted({s.method for s in sessions})), **_summary(times, wall, cpu), "server_rss_mb": rss,
            "browser_cpu_ms_per_rerun": round(bcpu * 1000 / len(times), 1)}


# --- websocket sessions (replaying the browser's messages) ---------------------------------------
_CARD = re.compile(r'data-testid="stMetricLabel"[^>]*>\s*GPUs\s*<.*?data-testid="stMetricValue"[^>]*>\s*([^<]*?)\s*<',
                   re.S)


def _gpus_shown(element) -> str | None:
    """The GPUs key number in one page element: a metric widget, or the HTML cards in markdown."""
    kind = element.WhichOneof("type")
    if kind == "metric":
        return element.metric.body.strip() if element.metric.label.strip() == "GPUs" else None
    if kind in ("markdown", "html"):
        found = _CARD.search(getattr(element, kind).body)
        return found.group(1) if found else None
    return None


class WsSession:
    def __init__(self, url: str, recorder: Recorder):
        self.uri = url.replace("http://", "ws://") + "/_stcore/stream"
        self.origin, self.recorder, self.ws = url, recorder, None

    async def _until(self, expect: str | None) -> tuple[float | None, float]:
        """Read until the script finished: (seconds until GPUs showed ``expect``, seconds until done)."""
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        start, seen = time.perf_counter(), None
        while True:
            raw = await asyncio.wait_for(self.ws.recv(), timeout=WAIT_S)
            if isinstance(raw, str):
                continue
            msg = ForwardMsg.FromString(raw)
            kind = msg.WhichOneof("type")
            if kind == "delta" and seen is None and expect is not None \
                    and msg.delta.WhichOneof("type") == "new_element" \
                    and _gpus_shown(msg.delta.new_element) == expect:
                seen = time.perf_counter() - start
            elif kind == "script_finished":
                return seen, time.perf_counter() - start

    async def open(self) -> None:
        import websockets

        self.ws = await websockets.connect(self.uri, subprotocols=["streamlit"], origin=self.origin,
                                           max_size=None, open_timeout=WAIT_S, ping_interval=None)
        await self.ws.send(self.recorder.first)
        await self._until(None)

    async def change(self, nodes: int) -> float:
        await self.ws.send(self.recorder.change[nodes])
        seen, _ = await self._until(_gpus(nodes))
        if seen is None:
            raise RuntimeError(f"the replayed change to {nodes} nodes did not show {_gpus(nodes)} GPUs")
        return seen * 1000

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()


async def ws_level(url: str, server_pid: int, sessions_n: int, changes: int, recorder: Recorder) -> dict:
    sessions = [WsSession(url, recorder) for _ in range(sessions_n)]
    try:
        gate = asyncio.Semaphore(OPEN_AT_ONCE)

        async def open_one(s: WsSession) -> None:
            async with gate:
                await s.open()
                await s.change(OTHER_NODES)
                await s.change(BASE_NODES)
        await asyncio.gather(*(open_one(s) for s in sessions))
        cpu0, wall0 = _cpu_seconds(server_pid), time.perf_counter()

        async def drive(s: WsSession) -> list[float]:
            return [await s.change(OTHER_NODES if k % 2 == 0 else BASE_NODES) for k in range(changes)]
        per_session = await asyncio.gather(*(drive(s) for s in sessions))
        wall, cpu = time.perf_counter() - wall0, _cpu_seconds(server_pid) - cpu0
        rss = _rss_mb(server_pid)
    finally:
        for s in sessions:
            await s.close()
    times = [t for ts in per_session for t in ts]
    return {"client": "websocket", "sessions": sessions_n, "kind": "warm", "method": "replayed browser messages",
            **_summary(times, wall, cpu), "server_rss_mb": rss}


# --- the run -------------------------------------------------------------------------------------
async def run(browser_levels: dict[int, int], ws_levels: dict[int, int], cold_changes: int) -> dict:
    global PlaywrightError
    from playwright.async_api import Error as PlaywrightError
    from playwright.async_api import async_playwright

    started = time.monotonic()
    server, url = start_server()
    results: dict = {"url": f"/?v=1&n={BASE_NODES}", "gpus": BASE_NODES * 8, "cpus": os.cpu_count(),
                     "levels": [], "skipped": []}
    recorder = Recorder()

    async def level(label: str, make) -> None:
        left = MAX_SECONDS - (time.monotonic() - started)
        if left < 10:
            results["skipped"].append(f"{label} (time limit)")
            return
        print(f"  {label} ...", end=" ", flush=True)
        try:
            result = await asyncio.wait_for(make(), timeout=left)
        except (asyncio.TimeoutError, PlaywrightError, RuntimeError, OSError) as exc:
            reason = f"{type(exc).__name__}: {(str(exc).splitlines() or [''])[0][:120]}"
            print("failed,", reason)
            results["skipped"].append(f"{label} ({reason})")
            return
        print(f"p50 {result['p50_ms']:.0f} ms, p95 {result['p95_ms']:.0f} ms, "
              f"server {result['server_cpu_ms_per_rerun']:.0f} ms CPU per rerun", flush=True)
        results["levels"].append(result)

    try:
        async with async_playwright() as pw:
            browser = await pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            try:
                # the first browser level (or a short one) records the messages the websocket client replays
                levels = dict(browser_levels) or {1: 2}
                for n, changes in sorted(levels.items()):
                    await level(f"browser, {n} session(s), {n * changes} changes",
                                lambda n=n, c=changes: browser_level(browser, url, server.pid, n, c,
                                                                     recorder=recorder if n == min(levels) else None))
                if not browser_levels:
                    results["levels"] = [r for r in results["levels"] if r["client"] != "browser"]
                if cold_changes:
                    await level(f"browser, 1 session, {cold_changes} cold changes",
                                lambda: browser_level(browser, url, server.pid, 1, cold_changes, cold=True))
            finally:
                await browser.close()
        if ws_levels and not recorder.complete():
            results["skipped"].append("websocket levels (no browser messages recorded to replay)")
        elif ws_levels:
            for n, changes in sorted(ws_levels.items()):
                await level(f"websocket, {n} session(s), {n * changes} changes",
                            lambda n=n, c=changes: ws_level(url, server.pid, n, c, recorder))
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
    results["total_s"] = round(time.monotonic() - started, 1)
    return results


def _levels(text: str, defaults: dict[int, int], changes: int | None) -> dict[int, int]:
    out = {}
    for item in filter(None, (t.strip() for t in text.split(","))):
        n = int(item)
        out[n] = changes or defaults.get(n, max(3, 80 // n))
    return out


def print_table(results: dict) -> None:
    print(f"\nDesigner at {results['gpus']:,} GPUs ({results['url']}), one server, {results['cpus']} CPUs "
          "(server and clients share them)")
    print(f"{'client':>9} {'sessions':>8} {'kind':>5} {'changes':>7} {'p50 ms':>7} {'p95 ms':>7} {'max ms':>7} "
          f"{'reruns/s':>8} {'server CPU ms/rerun':>19} {'browser CPU ms/rerun':>20} {'server RSS MB':>13}")
    for r in results["levels"]:
        bcpu = r.get("browser_cpu_ms_per_rerun")
        print(f"{r['client']:>9} {r['sessions']:>8} {r['kind']:>5} {r['changes']:>7} {r['p50_ms']:>7.0f} "
              f"{r['p95_ms']:>7.0f} {r['max_ms']:>7.0f} {r['reruns_per_s']:>8.1f} "
              f"{r['server_cpu_ms_per_rerun']:>19.0f} {'' if bcpu is None else f'{bcpu:.0f}':>20} "
              f"{r['server_rss_mb']:>13.0f}")
    methods = sorted({r["method"] for r in results["levels"] if r["client"] == "browser"})
    if methods:
        print("browser sessions changed the node count via the " + " and ".join(methods))
    for item in results["skipped"]:
        print("skipped:", item)
    print(f"total {results['total_s']} s")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--browser-sessions", default="1,5", help="browser concurrency levels (default %(default)s)")
    parser.add_argument("--ws-sessions", default="1,5,20", help="websocket concurrency levels (default %(default)s)")
    parser.add_argument("--changes", type=int, default=None, help="changes per session (default: by level)")
    parser.add_argument("--cold", type=int, default=COLD_CHANGES, help="cold changes, one browser session (0: none)")
    args = parser.parse_args(argv)
    if not Path(CHROMIUM).exists():
        print(f"skipped: no {CHROMIUM} (make chromium installs it)")
        return 0
    results = asyncio.run(run(_levels(args.browser_sessions, BROWSER_LEVELS, args.changes),
                              _levels(args.ws_sessions, WS_LEVELS, args.changes), args.cold))
    print_table(results)
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "bench_load.json").write_text(json.dumps(results, indent=2) + "\n")
    print(f"wrote {ARTIFACTS / 'bench_load.json'}")
    return 0 if results["levels"] else 1


if __name__ == "__main__":
    sys.exit(main())
