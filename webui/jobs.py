"""Heavy work off the script thread: a bounded set of worker processes shared by every session of a server.

Streamlit runs every session's script in one process, so one session's long computation (an optimizer
search, a review pack, a 131,072-GPU export) takes the interpreter away from everyone else's reruns. Every
operation that can take more than about half a second runs here instead, as a **job**: a function of the
engine (picklable by reference: a module-level function) and its arguments, run in a child process of a
``forkserver`` whose start preloaded the engine (``webui.jobwork``), so a job starts in tens of ms.

Terms
-----
worker slots
    Jobs running at once per server (``FP_JOB_WORKERS``, default: the machine's cores less one, at least 1).
    Workers run at a lower priority (``nice`` +10, ``FP_JOB_NICE``), so the server's reruns come first on a busy core.
queue limit
    Jobs waiting for a slot per server (``FP_JOB_QUEUE``, default 8); beyond it a new job is refused with a
    message (``Busy``), and nothing runs.
one job per session
    A session runs one job at a time; its other jobs wait (while other sessions' jobs may start first). Asking
    for another job of the same kind (the user changed the settings) stops the older one.
limits per job
    ``LIMITS[kind]``: wall time [s] and resident memory [MB] of the worker; a job past either is stopped, and
    the outcome (with the limit in words) is kept so that a reload does not repeat it. A job whose session
    closed (the tab was closed) is stopped within ``POLL_S`` + the session check (< 2 s).
outcome cache
    Finished jobs by key, bounded in bytes (an outcome's size in memory, bounded from its pickle's:
    ``outcome_bytes``; ``FP_JOB_CACHE_MB``, default 192 MB), least recently used first out; the newest is
    always kept (its page is about to read it).

The server's memory, the jobs running and queued and the cache's size go to the log every ``LOG_EVERY_S``.
Nothing here imports Streamlit at module level except the page glue at the end (``result``), which pages
call; the runner itself is tested without a server.
"""

from __future__ import annotations

import functools
import logging
import multiprocessing
import multiprocessing.spawn
import os
import pickle
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Callable

from core import i18n
from core.errors import FabricPlannerError
from core.i18n import N_, _
from core.processes import die_with_parent, env_int, usable_cpus
from core.units import percent

log = logging.getLogger("fabric_planner.jobs")
if not log.handlers:  # the server's log (stderr): its state every LOG_EVERY_S, and failed jobs
    _handler = logging.StreamHandler()
    _handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    log.addHandler(_handler)
    log.setLevel(logging.INFO)
    log.propagate = False


@dataclass(frozen=True)
class Limit:
    """What one job of a kind may use: ``seconds`` wall time [s], ``memory_mb`` resident memory [MB]."""
    seconds: float
    memory_mb: int
    what: str  # the operation in words (translated where shown), e.g. "the optimizer search"
    max_gpus: int | None = None  # larger designs are refused before any work (``too_large``)
    first: bool = False  # a download someone waits for: it starts before the waiting searches and analyses


LIMITS: dict[str, Limit] = {
    "optimize": Limit(120.0, 1024, N_("the optimizer search"), max_gpus=32_768),  # 32,768 H100: 22 s CPU, 0.8 GB
    "sweep": Limit(90.0, 1024, N_("the sweep")),
    "failure": Limit(60.0, 1024, N_("the failure what-if")),
    "spof": Limit(60.0, 1024, N_("the single-point-of-failure analysis")),
    "availability": Limit(60.0, 1024, N_("the availability simulation")),
    "load": Limit(60.0, 1024, N_("the link-load analysis")),
    "stages": Limit(60.0, 1024, N_("the growth stages")),
    "report": Limit(90.0, 1024, N_("the review pack"), first=True),
    "export": Limit(90.0, 1024, N_("the export"), first=True),
}
"""Time and memory per job, by kind. The docs (docs/user-guide.md, "Limits") quote these."""


WORKERS = env_int("FP_JOB_WORKERS", max(1, usable_cpus() - 1), 1, 64)
QUEUE = env_int("FP_JOB_QUEUE", 8, 0, 1000)
CACHE_BYTES = env_int("FP_JOB_CACHE_MB", 192, 0, 1 << 20) << 20
IN_MEMORY_PER_PICKLED = 12
"""An outcome of Python objects takes at most this many bytes in memory per byte of its pickle (measured with
tracemalloc: an optimizer result 9.5, a plan 4.5; tests/test_jobs.py checks it); bytes and text take one."""
POLL_S = 0.05
"""How often the monitor looks at running jobs (results, time, memory) [s]."""
SESSION_CHECK_S = 0.5
"""How often the monitor asks the server whether a job's session is still open [s]."""
LOG_EVERY_S = 60.0
MAX_KEPT = 512
"""Outcomes kept at most, whatever their bytes (a stopped job's outcome has none)."""
NICE = env_int("FP_JOB_NICE", 10, 0, 19)
"""How much lower the workers' priority is than the server's (``nice``); the tests run them at the server's."""
PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096

QUEUED, RUNNING, DONE, STOPPED = "queued", "running", "done", "stopped"
PROGRESS = "progress"
"""A worker's message that carries what the work has found so far (``Job.found``), not its answer."""


def _capital(text: str) -> str:
    """``text`` starting a sentence (its first letter upper case; Chinese unchanged)."""
    return text[:1].upper() + text[1:]


def too_large(kind: str, gpus: int) -> str | None:
    """Why a design of ``gpus`` GPUs is refused for ``kind`` on this server (its ``max_gpus``), in words with the
    way out; None when it is not."""
    limit = LIMITS[kind].max_gpus
    if limit is None or gpus <= limit:
        return None
    return _("{what} runs on designs of up to {limit} GPUs on this server (this one has {gpus}): a larger one takes "
             "minutes and more than {mb} MB. Use the command line (python -m core, no limit), or plan a part of the "
             "cluster here.").format(what=_capital(_(LIMITS[kind].what)), limit=i18n.number(limit), gpus=i18n.number(gpus),
                                     mb=i18n.number(LIMITS[kind].memory_mb))


def outcome_bytes(value: Any, pickled: int) -> int:
    """Upper bound of the memory ``value`` takes [bytes], from its pickle's length ``pickled``: files (bytes, text,
    or a tuple of them) take about their length, object graphs up to ``IN_MEMORY_PER_PICKLED`` times it."""
    flat = (bytes, str, type(None))
    if isinstance(value, flat) or isinstance(value, tuple) and all(isinstance(v, flat) for v in value):
        return pickled + 1024
    return pickled * IN_MEMORY_PER_PICKLED


class Busy(RuntimeError):
    """The server's queue is full: the job was not started (the message says so, translated)."""


def rss_bytes(pid: int) -> int:
    """Resident memory of process ``pid`` [bytes] (0 when it is gone)."""
    try:
        with open(f"/proc/{pid}/statm", "rb") as f:
            return int(f.read().split()[1]) * PAGE
    except (OSError, ValueError, IndexError):
        return 0


_LAUNCHING = threading.local()


def _without_main(prepare: Callable) -> Callable:
    """``multiprocessing.spawn.get_preparation_data`` that, while this module starts a worker, leaves out the
    main module: Streamlit runs each page with ``sys.modules["__main__"]`` set to the page script, and a worker
    told to import it would run the whole app (``app.py``) before its job. The engine is all a worker needs."""
    @functools.wraps(prepare)
    def prepared(name):
        data = prepare(name)
        if getattr(_LAUNCHING, "on", False):
            data.pop("init_main_from_path", None)
            data.pop("init_main_from_name", None)
        return data

    prepared.fp_without_main = True
    return prepared


if not getattr(multiprocessing.spawn.get_preparation_data, "fp_without_main", False):
    multiprocessing.spawn.get_preparation_data = _without_main(multiprocessing.spawn.get_preparation_data)


def _die_with_parent() -> None:
    """Linux: this process is killed when its parent (the forkserver) dies. The forkserver exits when every
    holder of its "alive" pipe has gone: the server and every worker (each gets a copy), so the worker drops
    its copy first; then the server's death ends the forkserver, and that ends the worker."""
    try:
        from multiprocessing import forkserver

        fd = forkserver._forkserver._forkserver_alive_fd
        if fd is not None:
            os.close(fd)
            forkserver._forkserver._forkserver_alive_fd = None
    except (AttributeError, OSError):  # pragma: no cover - another Python's forkserver
        pass
    die_with_parent()


PRINTED_KINDS = frozenset({"report"})
"""Jobs that print PDFs: they print through the server's one printer process (``Runner._print_service``)."""


def _printer_main(address: str, authkey: bytes) -> None:
    """The printer process: one headless Chromium kept warm for every job's PDF (``core.formats.report``)."""
    from core.formats import report

    _die_with_parent()
    report.serve_printer(address, authkey)


def _child(conn, fn: Callable, args: tuple, language: str, done=None, printer: tuple | None = None) -> None:
    """The worker: run ``fn(*args)`` in ``language`` and send back ("ok", value) or a failure, pickled; the
    engine's progress reports (``core.progress``) go to the shared ``done`` (0..1), what it publishes
    (``core.progress.publish``) as (``PROGRESS``, state) messages before the answer; ``printer`` the address and key
    of the server's printer process, for a job that prints."""
    from core import progress

    _die_with_parent()
    if printer is not None:
        from core.formats import report

        report.use_print_service(*printer)
    try:
        os.nice(NICE)
    except OSError:  # pragma: no cover
        pass
    def tell(fraction: float) -> None:
        if done is not None:
            done.value = fraction

    def found(state) -> None:  # what the work has found so far: to the page, ahead of the answer on the same pipe
        try:
            conn.send_bytes(pickle.dumps((PROGRESS, state), protocol=pickle.HIGHEST_PROTOCOL))
        except Exception:  # noqa: BLE001 - a state that cannot be sent: the bar still moves
            pass

    try:
        with i18n.language(language), progress.reporting(tell), progress.publishing(found):
            payload = ("ok", fn(*args))
    except FabricPlannerError as exc:
        payload = ("domain", exc)
    except MemoryError:
        payload = ("memory", "")
    except Exception as exc:  # noqa: BLE001 - reported to the page in one line; the traceback to the log
        log.exception("job %s failed", getattr(fn, "__name__", fn))
        payload = ("error", f"{type(exc).__name__}: {exc}"[:500])
    try:
        data = pickle.dumps(payload, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception as exc:  # noqa: BLE001 - an unpicklable error: its text
        data = pickle.dumps(("error", f"{type(payload[1]).__name__}: {payload[1]}"[:500]))
        del exc
    conn.send_bytes(data)
    conn.close()


@dataclass(eq=False)
class Job:
    """One unit of heavy work. ``value`` is the function's result (or the engine's ``FabricPlannerError``) once
    ``state`` is ``done``; ``problem`` says why it stopped (time, memory, cancelled, failed) otherwise."""
    kind: str
    key: str
    fn: Callable
    args: tuple
    session: str | None
    language: str
    submitted: float = field(default_factory=time.monotonic)
    started: float | None = None
    finished: float | None = None
    state: str = QUEUED
    value: Any = None
    problem: str = ""
    size: int = 0  # bytes of the pickled outcome
    peak_rss: int = 0
    process: Any = None
    conn: Any = None
    done: Any = None  # the share of the work done (0..1), as the engine reports it (a shared double)
    found: Any = None  # what the work has found so far, as the engine publishes it (the latest)
    event: threading.Event = field(default_factory=threading.Event)

    @property
    def limit(self) -> Limit:
        return LIMITS[self.kind]

    def elapsed(self) -> float:
        """Seconds since the job started running (0 while queued)."""
        if self.started is None:
            return 0.0
        return (self.finished or time.monotonic()) - self.started

    def fraction(self) -> float | None:
        """The share of the work done as the engine reported it (None when it has not reported)."""
        value = self.done.value if self.done is not None else -1.0
        return value if value >= 0 else None

    def wait(self, seconds: float) -> bool:
        """Wait up to ``seconds`` for the job to end; True when it has."""
        return self.event.wait(seconds)


def _end_printer(printer: tuple) -> None:
    """Stop a printer process and remove its socket's folder."""
    import shutil

    process, _address, _key, folder = printer
    process.kill()
    process.join(2.0)
    shutil.rmtree(folder, ignore_errors=True)


def _stopped_message(kind: str, reason: str, language: str, **values) -> str:
    """Why a job stopped, in ``language``: the limit and what to do."""
    with i18n.language(language):
        what = _(LIMITS[kind].what)
        if reason == "time":
            return _("Stopped {what} after {seconds} s, the limit per job on this server. Use the command line "
                     "(python -m core, no limit) or ask for less (a smaller design or grid).").format(
                what=what, seconds=f"{values['seconds']:.0f}")
        if reason == "memory":
            return _("Stopped {what}: it needed more than {mb} MB of memory, the limit per job on this server. Use "
                     "the command line (python -m core) or ask for less (a smaller design or grid).").format(
                what=what, mb=i18n.number(values["mb"]))
        if reason == "session":
            return _("Stopped {what}: its page was closed.").format(what=what)
        if reason == "cancelled":
            return _("Cancelled {what}.").format(what=what)
        if reason == "superseded":
            return _("Stopped {what}: the settings changed.").format(what=what)
        if reason == "shutdown":
            return _("Stopped {what}: the server is shutting down.").format(what=what)
        if reason == "died":
            return _("{what} ended without an answer (its worker exited with code {code}).").format(
                what=_capital(what), code=values.get("code"))
        return _("{what} failed: {problem}").format(what=_capital(what), problem=values.get("problem"))


def _session_open(session: str | None) -> bool:
    """Whether the browser session ``session`` is still connected (True outside a running server)."""
    if not session:
        return True
    try:
        from streamlit.runtime import Runtime

        if not Runtime.exists():
            return True
        return Runtime.instance().is_active_session(session)
    except Exception:  # noqa: BLE001 - when the server cannot say, keep the job
        return True


class Runner:
    """The server's jobs: ``submit``, ``find``, ``cancel``; a monitor thread starts queued jobs when a slot is
    free, collects results and enforces the limits."""

    def __init__(self, workers: int = WORKERS, queue: int = QUEUE, cache_bytes: int = CACHE_BYTES,
                 session_open: Callable[[str | None], bool] = _session_open):
        self.workers, self.queue_limit, self.cache_bytes = workers, queue, cache_bytes
        self._session_open = session_open
        self._lock = threading.RLock()
        self._queued: list[Job] = []
        self._running: list[Job] = []
        self._outcomes: OrderedDict[str, Job] = OrderedDict()  # finished, by key
        self._cached_bytes = 0
        self._closed = False
        self._wake = threading.Event()
        self._ctx = multiprocessing.get_context("forkserver")
        self._ctx.set_forkserver_preload(["webui.jobwork"])
        self._printer: tuple | None = None  # (process, address, authkey, folder), started by the first printing job
        self.ready = False  # the worker server has started
        self._thread = threading.Thread(target=self._loop, name="fabric-planner-jobs", daemon=True)
        self._thread.start()

    # --- asking ---------------------------------------------------------------------------------------
    def find(self, key: str) -> Job | None:
        """The job of ``key``: finished (its outcome, now most recently used), running or queued; or None."""
        with self._lock:
            job = self._outcomes.get(key)
            if job is not None:
                self._outcomes.move_to_end(key)
                return job
            return next((j for j in (*self._running, *self._queued) if j.key == key), None)

    def submit(self, kind: str, key: str, fn: Callable, args: tuple = (), session: str | None = None,
               language: str | None = None) -> Job:
        """The job of ``key`` (an existing one, or a new one queued). Stops the session's older job of the same
        kind. Raises ``Busy`` when the queue is full."""
        if kind not in LIMITS:
            raise ValueError(f"unknown job kind {kind!r}")
        language = language or i18n.locale()
        with self._lock:
            existing = self.find(key)
            if existing is not None:
                return existing
            if self._closed:
                raise Busy(_("The server is shutting down; try again in a moment."))
            if session is not None:
                for older in [j for j in (*self._running, *self._queued) if j.session == session and j.kind == kind]:
                    self._stop(older, "superseded", keep=False)
            if len(self._queued) >= self.queue_limit and len(self._running) >= self.workers:
                raise Busy(_("The server is busy: {running} jobs are running and {queued} are waiting, the most it "
                             "takes. Try again in a minute, or use the command line (python -m core).").format(
                    running=i18n.number(len(self._running)), queued=i18n.number(len(self._queued))))
            job = Job(kind, key, fn, tuple(args), session, language)
            self._queued.append(job)
        self._wake.set()
        return job

    def cancel(self, job: Job) -> None:
        """Stop ``job`` (the user pressed Cancel); its outcome says so, and ``forget`` lets it run again."""
        with self._lock:
            if job.state in (QUEUED, RUNNING):
                self._stop(job, "cancelled", keep=True)

    def forget(self, key: str) -> None:
        """Drop the outcome of ``key`` (Run again)."""
        with self._lock:
            job = self._outcomes.pop(key, None)
            if job is not None:
                self._cached_bytes -= job.size

    def position(self, job: Job) -> int:
        """0 when running or finished; else its place in the queue (1 = next)."""
        with self._lock:
            return self._queued.index(job) + 1 if job in self._queued else 0

    def stats(self) -> dict:
        """Jobs running and queued, outcomes kept and their bytes, the workers' resident memory [bytes]."""
        with self._lock:
            return {"running": len(self._running), "queued": len(self._queued), "kept": len(self._outcomes),
                    "kept_bytes": self._cached_bytes,
                    "workers_rss": sum(rss_bytes(j.process.pid) for j in self._running if j.process is not None)}

    def close(self, timeout: float = 2.0) -> None:
        """Stop every job, the printer and the monitor (server shutdown)."""
        with self._lock:
            self._closed = True
            for job in [*self._running, *self._queued]:
                self._stop(job, "shutdown", keep=False)
            printer, self._printer = self._printer, None
        if printer is not None:
            _end_printer(printer)
        self._wake.set()
        self._thread.join(timeout)

    def _print_service(self) -> tuple[str, bytes] | None:
        """The address and key of the server's printer process, started (or restarted) when needed; None when it
        cannot start (a job then prints with a Chromium of its own)."""
        import shutil
        import tempfile

        from core.formats.report import chromium_problem

        if chromium_problem() is not None:
            return None
        with self._lock:
            if self._printer is not None and self._printer[0].is_alive():
                return self._printer[1], self._printer[2]
            old, self._printer = self._printer, None
        if old is not None:
            _end_printer(old)
        folder = tempfile.mkdtemp(prefix="fp-printer-")
        address, authkey = os.path.join(folder, "socket"), os.urandom(32)
        process = self._ctx.Process(target=_printer_main, args=(address, authkey), daemon=True,
                                    name="fabric-planner-printer")
        try:
            process.start()
        except Exception:  # noqa: BLE001 - no printer process: each job prints by itself
            log.exception("printer")
            shutil.rmtree(folder, ignore_errors=True)
            return None
        deadline = time.monotonic() + 10.0
        while not os.path.exists(address) and process.is_alive() and time.monotonic() < deadline:
            time.sleep(0.02)  # the socket exists once the printer listens
        with self._lock:
            self._printer = (process, address, authkey, folder)
        return address, authkey

    # --- the monitor ----------------------------------------------------------------------------------
    def _loop(self) -> None:
        try:  # start the worker server (it loads the engine once) before the first job needs it
            from multiprocessing import forkserver

            forkserver.ensure_running()
            self.ready = True
        except Exception:  # noqa: BLE001 - the first job starts it then
            log.exception("forkserver")
        last_session_check = last_log = time.monotonic()
        while not self._closed:
            self._wake.wait(POLL_S)
            self._wake.clear()
            now = time.monotonic()
            try:
                self._collect()
                self._enforce(now, check_sessions=now - last_session_check >= SESSION_CHECK_S)
                if now - last_session_check >= SESSION_CHECK_S:
                    last_session_check = now
                self._start_queued()
                if now - last_log >= LOG_EVERY_S:
                    last_log = now
                    self._log_state()
            except Exception:  # noqa: BLE001 - the monitor must keep running
                log.exception("job monitor")

    def _log_state(self) -> None:
        from core.plan import _plan_cached_key

        s, plans = self.stats(), _plan_cached_key.cache.info()
        log.info("server rss %.0f MB; jobs running %d, queued %d, outcomes kept %d (%.1f MB), "
                    "workers rss %.0f MB; plans cached %d (%.1f of %.0f MB)",
                    rss_bytes(os.getpid()) / 2**20, s["running"], s["queued"], s["kept"], s["kept_bytes"] / 2**20,
                    s["workers_rss"] / 2**20, plans["entries"], plans["bytes"] / 2**20, plans["max_bytes"] / 2**20)

    def _start_queued(self) -> None:
        while True:
            with self._lock:
                if len(self._running) >= self.workers or self._closed:
                    return
                busy = {j.session for j in self._running if j.session is not None}
                ready = [j for j in self._queued if j.session is None or j.session not in busy]
                job = next((j for j in ready if j.limit.first), ready[0] if ready else None)
                if job is None:  # every waiting job's session has one running: one at a time per session
                    return
                self._queued.remove(job)
                self._running.append(job)  # counted and found (``find``) while its process starts
            receive, send = self._ctx.Pipe(duplex=False)
            job.done = self._ctx.Value("d", -1.0, lock=False)
            printer = self._print_service() if job.kind in PRINTED_KINDS else None
            process = self._ctx.Process(target=_child, args=(send, job.fn, job.args, job.language, job.done, printer),
                                        daemon=True, name=f"fabric-planner-{job.kind}")
            _LAUNCHING.on = True
            try:
                process.start()  # outside the lock: the first start also starts the worker server
            except Exception as exc:  # noqa: BLE001 - the job fails, the server goes on
                send.close()
                receive.close()
                with self._lock:
                    if job.state == QUEUED:
                        self._finish(job, STOPPED, problem=_stopped_message(job.kind, "failed", job.language,
                                                                            problem=str(exc)[:200]), keep=False)
                continue
            finally:
                _LAUNCHING.on = False
            send.close()  # the child holds the sending end
            with self._lock:
                if job.state != QUEUED:  # stopped while starting (superseded, cancelled, page closed)
                    process.kill()
                    process.join(1.0)
                    receive.close()
                    continue
                job.process, job.conn, job.state, job.started = process, receive, RUNNING, time.monotonic()
                self.ready = True

    def _collect(self) -> None:
        for job in list(self._running):
            self._collect_one(job)

    def _collect_one(self, job: Job) -> None:
        """Read what ``job``'s worker sent: its progress states (the latest kept, ``Job.found``), then its answer."""
        while True:
            if job.conn is None or not job.conn.poll():
                return
            try:
                data = job.conn.recv_bytes()
            except (EOFError, OSError):
                code = job.process.exitcode if job.process is not None else None
                if code is None and job.process is not None:
                    job.process.join(0.2)
                    code = job.process.exitcode
                with self._lock:
                    if job in self._running:
                        self._finish(job, STOPPED, problem=_stopped_message(job.kind, "died", job.language, code=code),
                                     keep=False)
                return
            try:
                status, value = pickle.loads(data)
            except Exception as exc:  # noqa: BLE001 - an answer the server cannot read back: said, not raised
                status, value = "error", f"{type(exc).__name__}: {exc}"[:500]
            if status == PROGRESS:
                job.found = value
                continue
            with self._lock:
                if job not in self._running:
                    return
                job.size = outcome_bytes(value, len(data))
                if status in ("ok", "domain"):
                    self._finish(job, DONE, value=value, keep=True)
                elif status == "memory":
                    self._finish(job, STOPPED, keep=True, problem=_stopped_message(
                        job.kind, "memory", job.language, mb=job.limit.memory_mb))
                else:
                    self._finish(job, STOPPED, keep=True, problem=_stopped_message(
                        job.kind, "failed", job.language, problem=value))
            return

    def _enforce(self, now: float, check_sessions: bool) -> None:
        with self._lock:
            jobs = [*self._running, *self._queued]
        for job in jobs:
            if check_sessions and not self._session_open(job.session):
                with self._lock:
                    self._stop(job, "session", keep=False)
                continue
            if job.state != RUNNING:
                continue
            rss = rss_bytes(job.process.pid)
            job.peak_rss = max(job.peak_rss, rss)
            with self._lock:
                if job.state != RUNNING:
                    continue
                if rss > job.limit.memory_mb << 20:
                    self._stop(job, "memory", keep=True, mb=job.limit.memory_mb)
                elif now - job.started > job.limit.seconds:
                    self._stop(job, "time", keep=True, seconds=job.limit.seconds)
                elif not job.process.is_alive() and not job.conn.poll():
                    self._finish(job, STOPPED, keep=False, problem=_stopped_message(
                        job.kind, "died", job.language, code=job.process.exitcode))

    def _stop(self, job: Job, reason: str, keep: bool, **values) -> None:
        """Kill ``job``'s worker (caller holds the lock) and record why."""
        if job.process is not None and job.process.is_alive():
            job.process.kill()
        self._finish(job, STOPPED, problem=_stopped_message(job.kind, reason, job.language, **values), keep=keep)

    def _finish(self, job: Job, state: str, value: Any = None, problem: str = "", keep: bool = True) -> None:
        """Record ``job``'s end (caller holds the lock): off the queue, outcome kept by key when ``keep``."""
        if job in self._running:
            self._running.remove(job)
        if job in self._queued:
            self._queued.remove(job)
        if job.conn is not None:
            job.conn.close()
        if job.process is not None:
            job.process.join(0.5)
            job.process.close() if job.process.exitcode is not None else None
        job.state, job.value, job.problem, job.finished = state, value, problem, time.monotonic()
        job.process = job.conn = None
        job.fn, job.args, job.found = None, (), None  # the arguments may be large; the outcome is what is kept
        if keep:
            old = self._outcomes.pop(job.key, None)
            if old is not None:
                self._cached_bytes -= old.size
            self._outcomes[job.key] = job
            self._cached_bytes += job.size
            while (self._cached_bytes > self.cache_bytes or len(self._outcomes) > MAX_KEPT) and \
                    len(self._outcomes) > 1:  # the newest stays, whatever its size: its page reads it next
                _key, dropped = self._outcomes.popitem(last=False)
                self._cached_bytes -= dropped.size
        job.event.set()


_RUNNER: Runner | None = None
_RUNNER_LOCK = threading.Lock()


def runner() -> Runner:
    """The server's one ``Runner`` (created on first use)."""
    global _RUNNER
    with _RUNNER_LOCK:
        if _RUNNER is None:
            _RUNNER = Runner()
        return _RUNNER


# --- page glue ----------------------------------------------------------------------------------------
INLINE_WAIT_S = 1.5
"""A page waits this long for a job before it shows the job's progress instead (most jobs end sooner)."""
FIRST_WAIT_S = 20.0
"""The first job of a server process also waits for the worker server to start (it loads the engine once)."""


def _job_key(kind: str, language: str, key: str) -> str:
    """The runner's key of a page's job: its kind, its language (results hold text in the language they were made
    in) and the page's key (the settings and the design)."""
    return f"{kind}|{language}|{key}"


def result(kind: str, key: str, fn: Callable, *args, what: str | None = None,
           found: Callable[[Any], None] | None = None) -> tuple[bool, Any]:
    """The outcome of ``fn(*args)`` as a job of ``kind`` keyed by ``key`` (the page's settings and design):
    ``(True, value)`` when it has finished (``value`` may be the engine's ``FabricPlannerError``), else
    ``(False, None)`` after showing on the page what runs (elapsed time, limit, queue place, Cancel) or why it
    stopped (the limit, Run again). ``what`` names the work in the progress line; ``found`` (a module-level function)
    draws what the work has found so far (``Job.found``, e.g. the optimizer's best and front so far) under it."""
    import streamlit as st

    from webui import safe

    run = runner()
    key = _job_key(kind, i18n.locale(), key)
    job = run.find(key)
    if job is None:
        try:
            job = run.submit(kind, key, fn, args, session=_session_id(), language=i18n.locale())
        except Busy as exc:
            st.warning(safe.md(str(exc)))
            return False, None
    job.wait(INLINE_WAIT_S if run.ready else FIRST_WAIT_S)
    if job.state == DONE:
        return True, job.value
    if job.state == STOPPED:
        c1, c2 = st.columns([5, 1], vertical_alignment="center")
        c1.warning(safe.md(job.problem))
        if c2.button(_("Run again"), key="fp_job_again_" + _digest(key)):
            run.forget(key)
            st.rerun()
        return False, None
    _progress(key, what or _capital(_(LIMITS[kind].what)), found)
    return False, None


class Stopped(RuntimeError):
    """A job did not finish (its limit, a cancel, a failure); the message says why, translated."""


def run_now(kind: str, key: str, fn: Callable, *args, session: str | None = None, language: str | None = None):
    """``fn(*args)`` as a job of ``kind``, waited for (a deferred download's callable: it runs on a thread of its
    own, not the script's). Returns the value (an engine error is raised); raises ``Busy`` or ``Stopped``."""
    language = language or i18n.locale()
    run = runner()
    key = _job_key(kind, language, key)
    job = run.find(key) or run.submit(kind, key, fn, args, session=session, language=language)
    job.wait(LIMITS[kind].seconds + 30.0)  # the monitor stops it at its limit
    if job.state == DONE:
        if isinstance(job.value, FabricPlannerError):
            raise job.value
        return job.value
    problem = job.problem or _stopped_message(kind, "time", language, seconds=LIMITS[kind].seconds)
    run.forget(key)  # a later press tries again
    raise Stopped(problem)


def session_id() -> str | None:
    """This script run's session (None outside a running page)."""
    return _session_id()


def _digest(key: str) -> str:
    import hashlib

    return hashlib.sha1(key.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def _session_id() -> str | None:
    from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

    ctx = get_script_run_ctx(suppress_warning=True)
    return ctx.session_id if ctx is not None else None


def _progress_body(key: str, what: str, language: str, found: Callable[[Any], None] | None = None) -> None:
    """What runs, redrawn every half second (a fragment: app.py, which sets the run's language, does not run)."""
    with i18n.language(language):
        _progress_lines(key, what, found)


def _progress_lines(key: str, what: str, found: Callable[[Any], None] | None = None) -> None:
    import streamlit as st

    from webui import safe

    run = runner()
    job = run.find(key)
    if job is None or job.state in (DONE, STOPPED):
        st.rerun(scope="app")
        return
    place = run.position(job)
    limit = job.limit
    if place:
        text = _("{what}: waiting for a free worker ({place} in the queue).").format(
            what=what, place=i18n.number(place))
        st.progress(0.0, text=safe.md(text))
    else:
        elapsed, fraction = job.elapsed(), job.fraction()
        text = _("{what}: running for {elapsed} s (stopped after {limit} s). The rest of the app stays usable.").format(
            what=what, elapsed=f"{elapsed:.0f}", limit=f"{limit.seconds:.0f}")
        if fraction is not None:
            text = _("{what}: {percent} done, running for {elapsed} s (stopped after {limit} s). The rest of the app "
                     "stays usable.").format(what=what, percent=percent(fraction), elapsed=f"{elapsed:.0f}",
                                             limit=f"{limit.seconds:.0f}")
        st.progress(fraction if fraction is not None else min(1.0, elapsed / limit.seconds), text=safe.md(text))
    if st.button(_("Cancel"), key="fp_job_cancel_" + _digest(key)):
        run.cancel(job)
        st.rerun(scope="app")
    state = job.found
    if found is not None and state is not None:
        found(state)


def _progress(key: str, what: str, found: Callable[[Any], None] | None = None) -> None:
    import streamlit as st

    global _FRAGMENT
    if _FRAGMENT is None:
        _FRAGMENT = st.fragment(run_every=0.5)(_progress_body)
    _FRAGMENT(key, what, i18n.locale(), found)


_FRAGMENT = None
