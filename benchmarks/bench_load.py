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
* server CPU per rerun: the server's CPU (below) over the measured changes divided by their number
  (one change is one rerun of the Designer page; not given while a heavy operation runs). For
  browser sessions the CPU of Chromium and Playwright's driver is reported separately ("browser CPU").
* "cold": one browser session typing a new node count every time (nothing cached for that design).
* **heavy** levels (default 1, 5 and 20 websocket sessions, each with every heavy operation): the
  same changes while one more session runs a heavy operation over and over, each time for a design
  not seen before (``HEAVY_NODES`` + k nodes, so no cache answers it): the Optimize page's search at
  its default size (``/optimize?...&opt_run=1``), a Sweep grid (oversubscription x spine
  oversubscription, 16 plans), the Resilience page's availability Monte Carlo
  (``/resilience?...&rs_tab=Availability``) and the review pack (the Designer's Hand-off tab, its
  build button pressed). The operation runs as a job in a worker process (``webui.jobs``); while the
  page shows the job's progress bar the session reruns the page every ``POLL_S`` (as the page's
  progress fragment does in a browser, though a full rerun costs the server more than the fragment's),
  and the operation ends when a run shows no progress bar and the session has been quiet for
  ``QUIET_S``, at most ``HEAVY_MAX_S``; the level waits for the one under way, then for the server to go idle.
* server CPU and memory are the server process's **and its children's** (worker processes):
  utime+stime of each live process plus cutime+cstime (the CPU of children that already exited),
  from ``/proc/<pid>/stat``; memory is the resident size summed over the tree (sampled every
  ``SAMPLE_S``: its peak per level), the server's peak (``VmHWM``) and its resident size before and
  after each level. "server CPU util" is CPU seconds per second of the level (2.0 = both cores);
  "client CPU util" the same for the websocket load generator (this process), which shares the machine.

Prints a table and writes ``test-artifacts/bench_load.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import math
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run as a script (make bench): the project's packages (tests.serving starts the server)
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"]
BASE_NODES, OTHER_NODES = 128, 129  # 1,024 and 1,032 H100 GPUs (8 per node)
BROWSER_LEVELS = {1: 30, 5: 8, 20: 3}  # sessions: changes per session
WS_LEVELS = {1: 40, 5: 16, 20: 6}
COLD_CHANGES = 12
HEAVY_LEVELS = {1: 20, 5: 8, 20: 4}  # sessions: changes per session while a heavy operation runs
HEAVY_NODES_DEFAULT = 140  # heavy operation k uses HEAVY_NODES + k nodes (1,120 H100 GPUs and up): never cached
HEAVY_NODES = HEAVY_NODES_DEFAULT  # --heavy-nodes
HEAVY = {  # name: (page url path, query string of repetition k); the review pack also presses its button
    "optimize": ("optimize", lambda k: f"v=1&n={HEAVY_NODES + k}&opt_run=1"),
    "sweep": ("sweep", lambda k: f"v=1&n={HEAVY_NODES + k}&sw_x=oversubscription&sw_y=spine_oversubscription"),
    "availability": ("resilience", lambda k: f"v=1&n={HEAVY_NODES + k}&rs_tab=Availability"),
    "review pack": ("", lambda k: f"v=1&n={HEAVY_NODES + k}&tab=Hand-off"),
}
REVIEW_BUTTON = "Build the review pack (HTML and PDF)"
POLL_S = 0.5  # a page showing a job's progress reruns this often (webui.jobs' fragment) until the answer is there
QUIET_S = 2.0  # a heavy operation is over when its session said nothing for this long after its script finished
HEAVY_MAX_S = 90  # one heavy operation at most (then its session is closed)
SAMPLE_S = 0.25  # memory sampling period
IDLE_CPU_S = 0.05  # between levels: the server is idle when it used less CPU than this in half a second
MAX_SECONDS = 900  # the whole run; levels left when time is up are reported as skipped
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
def _cpu_seconds(pid: int, reaped: bool = False) -> float:
    """utime + stime of one process, in seconds; with ``reaped`` also cutime + cstime (its exited children's)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return sum(int(v) for v in fields[11:15 if reaped else 13]) / TICK


def server_cpu(pid: int) -> float:
    """CPU seconds of the server and every process under it, live or exited (worker processes)."""
    return _tree_cpu([pid, *_descendants(pid)], reaped=True)


def _status_mb(pid: int, field: str) -> float:
    """A ``/proc/<pid>/status`` size field (``VmRSS``, ``VmHWM``) in MB; NaN if the process is gone."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        pass
    return float("nan")


class MemorySampler:
    """The resident size of the server and its children, summed, every ``SAMPLE_S``: its peak."""

    def __init__(self, pid: int):
        self.pid, self.peak_mb, self.task = pid, 0.0, None

    def tree_mb(self) -> float:
        sizes = [_status_mb(p, "VmRSS") for p in [self.pid, *_descendants(self.pid)]]
        return round(sum(v for v in sizes if v == v), 1)

    async def _run(self) -> None:
        while True:
            self.peak_mb = max(self.peak_mb, self.tree_mb())
            await asyncio.sleep(SAMPLE_S)

    def __enter__(self) -> MemorySampler:
        self.peak_mb = self.tree_mb()
        self.task = asyncio.get_running_loop().create_task(self._run())
        return self

    def __exit__(self, *exc) -> None:
        self.task.cancel()
        self.peak_mb = max(self.peak_mb, self.tree_mb())


async def wait_idle(pid: int, limit_s: float = 30.0) -> None:
    """Until the server (and its children) used less than ``IDLE_CPU_S`` of CPU in half a second (``limit_s``
    at most)."""
    deadline = time.monotonic() + limit_s
    last = server_cpu(pid)
    while time.monotonic() < deadline:
        await asyncio.sleep(0.5)
        now = server_cpu(pid)
        if now - last < IDLE_CPU_S:
            return
        last = now


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
    return _status_mb(pid, "VmRSS")


def _tree_cpu(pids: list[int], reaped: bool = False) -> float:
    total = 0.0
    for pid in pids:
        try:
            total += _cpu_seconds(pid, reaped)
        except OSError:
            pass  # a renderer (or a worker) that went away
    return total


def start_server() -> tuple[subprocess.Popen, str]:
    from tests.serving import start

    return start(ARTIFACTS / "bench_load_server.log", wait_s=WAIT_S)


def _gpus(nodes: int) -> str:
    return f"{nodes * 8:,}"


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered), max(1, math.ceil(len(ordered) * q))) - 1]  # nearest rank


def _summary(times: list[float], wall: float, cpu: float, heavy: bool = False) -> dict:
    return {"changes": len(times), "p50_ms": round(statistics.median(times), 1),
            "p95_ms": round(_pct(times, 0.95), 1), "max_ms": round(max(times), 1),
            "wall_s": round(wall, 2), "reruns_per_s": round(len(times) / wall, 2),
            "server_cpu_ms_per_rerun": None if heavy else round(cpu * 1000 / len(times), 1),
            "server_cpu_s": round(cpu, 2), "server_cpu_util": round(cpu / wall, 2)}


def _memory(server_pid: int, rss_before: float, sampler: MemorySampler) -> dict:
    return {"server_rss_mb": _rss_mb(server_pid), "server_rss_before_mb": rss_before,
            "server_peak_mb": _status_mb(server_pid, "VmHWM"), "tree_peak_rss_mb": sampler.peak_mb}


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
        server_tree = {server_pid, *_descendants(server_pid)}
        browser_pids = [p for p in _descendants(os.getpid()) if p not in server_tree]
        await asyncio.sleep(0.3)
        rss0 = _rss_mb(server_pid)
        cpu0, bcpu0, wall0 = server_cpu(server_pid), _tree_cpu(browser_pids), time.perf_counter()

        async def drive(s: BrowserSession) -> list[float]:
            return [await s.change(200 + k if cold else (OTHER_NODES if k % 2 == 0 else BASE_NODES))
                    for k in range(changes)]
        with MemorySampler(server_pid) as sampler:
            per_session = await asyncio.gather(*(drive(s) for s in sessions))
        wall = time.perf_counter() - wall0
        cpu, bcpu = server_cpu(server_pid) - cpu0, _tree_cpu(browser_pids) - bcpu0
    finally:
        for c in contexts:
            await c.close()
    times = [t for ts in per_session for t in ts]
    return {"client": "browser", "sessions": sessions_n, "kind": "cold" if cold else "warm", "heavy": None,
            "method": " and ".join(sorted({s.method for s in sessions})), **_summary(times, wall, cpu),
            **_memory(server_pid, rss0, sampler), "browser_cpu_ms_per_rerun": round(bcpu * 1000 / len(times), 1)}


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


_HEAVY_DESIGNS = itertools.count()  # one run, every heavy operation of every level: a design never seen before


class HeavySession:
    """One more session running heavy operation ``name`` (``HEAVY``) over and over, a new design each time."""

    def __init__(self, url: str, recorder: Recorder, name: str):
        self.uri = url.replace("http://", "ws://") + "/_stcore/stream"
        self.origin, self.recorder, self.name = url, recorder, name
        self.done, self.errors, self.stop = [], 0, asyncio.Event()
        self.started = asyncio.Event()  # the first operation's request went out

    def _request(self, query: str, page: str, trigger: str | None = None) -> bytes:
        from streamlit.proto.BackMsg_pb2 import BackMsg

        msg = BackMsg.FromString(self.recorder.first)  # the browser's own first request, for another link
        msg.rerun_script.query_string, msg.rerun_script.page_name = query, page
        if trigger:
            msg.rerun_script.widget_states.widgets.add(id=trigger, trigger_value=True)
        return msg.SerializeToString()

    async def _until_quiet(self, ws, deadline: float) -> str | None:
        """Read until the session is quiet (``QUIET_S`` after a finished script): the review button's id, if seen.
        ``self.running`` tells whether the page showed a job's progress bar (``webui.jobs``: still running)."""
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        button, finished = None, False
        self.running = False
        while time.monotonic() < deadline:
            try:
                raw = await asyncio.wait_for(ws.recv(), timeout=QUIET_S if finished else deadline - time.monotonic())
            except asyncio.TimeoutError:
                if finished:
                    return button
                continue
            if isinstance(raw, str):
                continue
            msg = ForwardMsg.FromString(raw)
            kind = msg.WhichOneof("type")
            finished = kind == "script_finished" or (finished and kind != "new_session")
            if kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
                element = msg.delta.new_element
                if element.WhichOneof("type") == "exception":
                    self.errors += 1
                elif element.WhichOneof("type") == "progress":
                    self.running = True
                elif element.WhichOneof("type") == "button" and element.button.label == REVIEW_BUTTON:
                    button = element.button.id
        raise asyncio.TimeoutError

    async def _once(self) -> None:
        import websockets

        page, query = HEAVY[self.name][0], HEAVY[self.name][1](next(_HEAVY_DESIGNS))
        start = time.monotonic()
        deadline = start + HEAVY_MAX_S
        async with websockets.connect(self.uri, subprotocols=["streamlit"], origin=self.origin, max_size=None,
                                      open_timeout=WAIT_S, ping_interval=None) as ws:
            await ws.send(self._request(query, page))
            self.started.set()
            button = await self._until_quiet(ws, deadline)
            if self.name == "review pack":
                if button is None:
                    raise RuntimeError(f"no '{REVIEW_BUTTON}' button on the Hand-off tab")
                await ws.send(self._request(query, page, trigger=button))
                await self._until_quiet(ws, deadline)
            while self.running:  # the job runs in a worker: ask again, as the page's progress fragment does
                await asyncio.sleep(POLL_S)
                await ws.send(self._request(query, page))
                await self._until_quiet(ws, deadline)
        self.done.append(time.monotonic() - start - QUIET_S)

    async def run(self) -> None:
        """Operations back to back until ``stop`` is set (the one under way is finished, not cut)."""
        while not self.stop.is_set():
            try:
                await self._once()
            except asyncio.TimeoutError:
                self.errors += 1  # longer than HEAVY_MAX_S: its session was closed
            except (OSError, RuntimeError):
                self.errors += 1
                self.started.set()
                await asyncio.sleep(1)

    def summary(self) -> dict:
        return {"heavy_ops_done": len(self.done), "heavy_errors": self.errors,
                "heavy_op_s": round(statistics.median(self.done), 2) if self.done else None}


async def ws_level(url: str, server_pid: int, sessions_n: int, changes: int, recorder: Recorder,
                   heavy: str | None = None) -> dict:
    sessions = [WsSession(url, recorder) for _ in range(sessions_n)]
    extra = HeavySession(url, recorder, heavy) if heavy else None
    runner = None
    try:
        gate = asyncio.Semaphore(OPEN_AT_ONCE)

        async def open_one(s: WsSession) -> None:
            async with gate:
                await s.open()
                await s.change(OTHER_NODES)
                await s.change(BASE_NODES)
        await asyncio.gather(*(open_one(s) for s in sessions))
        await wait_idle(server_pid)
        rss0 = _rss_mb(server_pid)
        cpu0, client0, wall0 = server_cpu(server_pid), time.process_time(), time.perf_counter()

        async def drive(s: WsSession) -> list[float]:
            return [await s.change(OTHER_NODES if k % 2 == 0 else BASE_NODES) for k in range(changes)]
        with MemorySampler(server_pid) as sampler:
            if extra:
                runner = asyncio.get_running_loop().create_task(extra.run())
                await asyncio.wait_for(extra.started.wait(), timeout=WAIT_S)
                await asyncio.sleep(0.5)  # the operation is under way
            per_session = await asyncio.gather(*(drive(s) for s in sessions))
            wall, cpu = time.perf_counter() - wall0, server_cpu(server_pid) - cpu0
            client_cpu = time.process_time() - client0
            if extra:
                extra.stop.set()
                await asyncio.wait_for(runner, timeout=HEAVY_MAX_S + WAIT_S)
    finally:
        if runner is not None and not runner.done():
            runner.cancel()
        for s in sessions:
            await s.close()
    times = [t for ts in per_session for t in ts]
    result = {"client": "websocket", "sessions": sessions_n, "kind": "warm", "heavy": heavy,
              "method": "replayed browser messages", **_summary(times, wall, cpu, heavy=bool(heavy)),
              **_memory(server_pid, rss0, sampler), "client_cpu_util": round(client_cpu / wall, 2)}
    if extra:
        result.update(extra.summary())
        await wait_idle(server_pid)  # the next level starts on an idle server
    return result


# --- the run -------------------------------------------------------------------------------------
async def run(browser_levels: dict[int, int], ws_levels: dict[int, int], cold_changes: int,
              heavy_levels: dict[int, int] | None = None, heavy_ops: tuple[str, ...] = tuple(HEAVY)) -> dict:
    global PlaywrightError
    from playwright.async_api import Error as PlaywrightError
    from playwright.async_api import async_playwright

    started = time.monotonic()
    server, url = start_server()
    results: dict = {"url": f"/?v=1&n={BASE_NODES}", "gpus": BASE_NODES * 8, "cpus": os.cpu_count(),
                     "load_average_at_start": os.getloadavg()[0], "levels": [], "skipped": []}
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
        per_rerun = result["server_cpu_ms_per_rerun"]
        print(f"p50 {result['p50_ms']:.0f} ms, p95 {result['p95_ms']:.0f} ms, "
              + (f"server {per_rerun:.0f} ms CPU per rerun" if per_rerun is not None else
                 f"server CPU {result['server_cpu_util']:.2f} s/s, {result.get('heavy_ops_done')} "
                 f"{result['heavy']} done"), flush=True)
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
        if (ws_levels or heavy_levels) and not recorder.complete():
            results["skipped"].append("websocket levels (no browser messages recorded to replay)")
        elif ws_levels or heavy_levels:
            for n, changes in sorted(ws_levels.items()):
                await level(f"websocket, {n} session(s), {n * changes} changes",
                            lambda n=n, c=changes: ws_level(url, server.pid, n, c, recorder))
            for n, changes in sorted((heavy_levels or {}).items()):
                for op in heavy_ops:
                    await level(f"websocket, {n} session(s), {n * changes} changes, one more running {op}",
                                lambda n=n, c=changes, op=op: ws_level(url, server.pid, n, c, recorder, heavy=op))
        results["server_peak_mb"] = _status_mb(server.pid, "VmHWM")
        results["server_rss_end_mb"] = _rss_mb(server.pid)
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


def _cell(value, spec: str = ".0f") -> str:
    return "" if value is None else format(value, spec)


def print_table(results: dict) -> None:
    print(f"\nDesigner at {results['gpus']:,} GPUs ({results['url']}), one server, {results['cpus']} CPUs "
          f"(server and clients share them; load average {results['load_average_at_start']:.1f} at the start)")
    print(f"{'client':>9} {'sessions':>8} {'kind':>5} {'heavy op':>12} {'changes':>7} {'p50 ms':>7} {'p95 ms':>7} "
          f"{'max ms':>7} {'reruns/s':>8} {'CPU ms/rerun':>12} {'CPU s/s':>7} {'client s/s':>10} {'browser ms':>10} "
          f"{'RSS MB':>7} {'peak MB':>7} {'ops':>4} {'op s':>5}")
    for r in results["levels"]:
        print(f"{r['client']:>9} {r['sessions']:>8} {r['kind']:>5} {r['heavy'] or '':>12} {r['changes']:>7} "
              f"{r['p50_ms']:>7.0f} {r['p95_ms']:>7.0f} {r['max_ms']:>7.0f} {r['reruns_per_s']:>8.1f} "
              f"{_cell(r['server_cpu_ms_per_rerun']):>12} {r['server_cpu_util']:>7.2f} "
              f"{_cell(r.get('client_cpu_util'), '.2f'):>10} "
              f"{_cell(r.get('browser_cpu_ms_per_rerun')):>10} {r['server_rss_mb']:>7.0f} "
              f"{r['tree_peak_rss_mb']:>7.0f} {_cell(r.get('heavy_ops_done'), 'd'):>4} "
              f"{_cell(r.get('heavy_op_s'), '.1f'):>5}")
    print("CPU and memory: the server and its worker processes (CPU s/s: seconds per second, 2.0 = both cores); "
          "client s/s: the websocket load generator's own CPU; peak MB: the server's and its workers' resident "
          "sizes summed, at most; ops: heavy operations done by the extra session, op s: their median duration")
    if "server_peak_mb" in results:
        print(f"server peak resident size (VmHWM) {results['server_peak_mb']:.0f} MB, "
              f"{results['server_rss_end_mb']:.0f} MB at the end")
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
    parser.add_argument("--heavy-sessions", default="1,5,20",
                        help="websocket levels run again with one more session running each heavy operation "
                             "(default %(default)s; empty: none)")
    parser.add_argument("--heavy", default=",".join(HEAVY),
                        help="heavy operations (default %(default)s)")
    parser.add_argument("--heavy-nodes", type=int, default=HEAVY_NODES_DEFAULT,
                        help="H100 nodes of the heavy operations' first design (default %(default)s; each next "
                             "one has one more)")
    args = parser.parse_args(argv)
    global HEAVY_NODES
    HEAVY_NODES = args.heavy_nodes
    ops = tuple(op.strip() for op in args.heavy.split(",") if op.strip())
    unknown = [op for op in ops if op not in HEAVY]
    if unknown:
        parser.error(f"unknown heavy operation(s): {', '.join(unknown)} (known: {', '.join(HEAVY)})")
    if not Path(CHROMIUM).exists():
        print(f"skipped: no {CHROMIUM} (make chromium installs it)")
        return 0
    results = asyncio.run(run(_levels(args.browser_sessions, BROWSER_LEVELS, args.changes),
                              _levels(args.ws_sessions, WS_LEVELS, args.changes), args.cold,
                              _levels(args.heavy_sessions, HEAVY_LEVELS, args.changes), ops))
    print_table(results)
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "bench_load.json").write_text(json.dumps(results, indent=2) + "\n")
    print(f"wrote {ARTIFACTS / 'bench_load.json'}")
    return 0 if results["levels"] else 1


if __name__ == "__main__":
    sys.exit(main())
