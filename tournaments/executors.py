"""Run scheduled games in game workers: processes watched by the tournament process (`local`), or by
each task of a Ray run (a local Ray, or the cluster at $RAY_ADDRESS).

Jobs go out in chunks; each game worker builds the rules and the agents once and keeps them. A
game worker is a separate process so that no agent can stall or end the run: the process that
watches it sees every agent call (tournaments.play.CallClock), kills the worker when a call
overruns its time limit by the kill margin or finds it dead, and plays the game again in a fresh
worker with that seat forfeited at that call. A game's record depends only on its job (seed,
seats, agents), so every executor and worker count gives the same records; only the order in
which chunks finish differs, and the store is keyed by game.
"""
import importlib
import json
import multiprocessing
import multiprocessing.util
import os
import queue
import signal
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass

from agents.external import describe_exit
from yacht_env.config import ConfigError

from .config import TournamentConfig
from .batched import batchable, play_batched
from .errors import RunError
from .play import CallClock, Forfeit, error_text, play_job, timeout_error

EXECUTORS = ("local", "ray")
DEFAULT_FACTORY = "agents.registry:make_agent"
TICK = 0.05            # seconds between two looks at a game worker's clock
# Starting a process polls every other child of this process, and reading a child's exit code is not
# safe from two threads at once (the forkserver sends it once; the loser reads 255): starting and
# reaping the game workers' processes take turns.
PROCESSES = threading.Lock()


@dataclass(frozen=True)
class Setup:
    """What a worker needs to play any job: the config and where to find `make_agent(spec)`."""
    config: TournamentConfig
    factory: str = DEFAULT_FACTORY


def resolve_factory(path: str):
    """`module:function` -> the function."""
    module, _, attr = path.partition(":")
    try:
        return getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError) as e:
        raise ConfigError(f"cannot load the agent factory {path!r}: {e}") from None


_WORKER: dict = {}


def _worker_state(setup: Setup):
    """Rules and agents for this process, built on first use and kept for later chunks."""
    key = (setup.config.hash, setup.factory)
    if _WORKER.get("key") != key:
        close_agents()
        make = resolve_factory(setup.factory)
        _WORKER.update(key=key, rules=setup.config.ruleset,
                       agents={n: make(s) for n, s in setup.config.entrants.items()})
    return _WORKER["rules"], _WORKER["agents"]


def close_agents() -> None:
    """Close this process's agents (external bots stop their programs)."""
    for agent in _WORKER.pop("agents", {}).values():
        close = getattr(agent, "close", None)
        if close is not None:
            close()
    _WORKER.pop("key", None)


def play_here(setup: Setup, chunk, forfeits: dict | None = None, clock: CallClock | None = None):
    """Play a list of jobs in this process; yield their records as JSON lines (cheap to send back).

    forfeits: job key -> {seat: Forfeit}; clock: where a watching process sees the running call.
    """
    rules, agents = _worker_state(setup)
    for job in chunk:
        record = play_job(job, rules, agents, setup.config.move_timeout, (forfeits or {}).get(job.key), clock)
        yield json.dumps(record, separators=(",", ":"))


def _serve(setup: Setup, conn, shared_clock, watcher: int) -> None:
    """A game worker's life: play the chunks `conn` brings, send each record back, stop on None."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)      # a Ctrl-C is for the watching process to handle
    _watch_parent(watcher)
    clock = CallClock(shared_clock)
    try:
        while (task := conn.recv()) is not None:
            chunk, forfeits = task
            for line in play_here(setup, chunk, forfeits, clock):
                conn.send(line)
    except EOFError:
        pass
    except BaseException as e:  # noqa: BLE001 - outside any agent call: a failure of the harness, reported
        try:
            conn.send(("error", error_text(e)))
        except OSError:
            pass
    finally:
        close_agents()


class WorkerClosed(Exception):
    """The game worker was closed while it played (the run is stopping)."""


class GameWorker:
    """A process that plays chunks of jobs for this one, which watches every agent call in it.

    A call that runs past `kill_after` its budget, or a process that dies during a call, costs
    that seat the game: the process is replaced and the game is played again from its start with
    the seat forfeited at that call, so the record is exact. Used from one thread at a time;
    `close` may come from another.
    """

    def __init__(self, setup: Setup):
        self.setup = setup
        self.proc = self.conn = self.clock = None
        self.busy = self.closed = False

    def _start(self) -> None:
        ctx = _context()
        self.clock = CallClock(ctx.RawArray("d", CallClock.SIZE))
        self.conn, theirs = ctx.Pipe()
        proc = ctx.Process(target=_serve, args=(self.setup, theirs, self.clock.shared, os.getpid()),
                           name="yacht-games", daemon=True)
        try:
            with PROCESSES:
                proc.start()
        finally:
            theirs.close()
        self.proc = proc

    def _stop(self) -> int | None:
        """Kill the process (if it still runs); return its exit code."""
        proc, self.proc = self.proc, None
        if proc is None:
            return None
        with PROCESSES:
            proc.kill()
            proc.join()
            code = proc.exitcode
        self.conn.close()
        return code

    def play(self, chunk) -> list[str]:
        """The records of `chunk` (JSON lines), in order."""
        self.busy = True
        try:
            records, forfeits, todo = [], {}, list(chunk)
            while todo:
                if self.closed:
                    raise WorkerClosed
                if self.proc is None:
                    self._start()
                self.conn.send((todo, {j.key: forfeits[j.key] for j in todo if j.key in forfeits}))
                while todo:
                    outcome = self._outcome(todo[0].key)
                    if isinstance(outcome, str):
                        records.append(outcome)
                        todo.pop(0)
                        continue
                    seat, forfeit = outcome
                    given = forfeits.setdefault(todo[0].key, {})
                    if seat in given:
                        raise RuntimeError(f"game {todo[0].key}: seat {seat} was called after its forfeit")
                    given[seat] = forfeit
                    break                     # a fresh process plays the rest, this game first
            return records
        finally:
            self.busy = False

    def _outcome(self, key: str):
        """The next record (a JSON line), or (seat, Forfeit) once the process had to be killed or died
        during one of that seat's calls."""
        while not self.conn.poll(TICK):
            over = self.clock.overrun()
            if over is not None:
                self._stop()
                (call, seat, move, _), seconds = over
                return seat, Forfeit(call, move, timeout_error(seconds))
        try:
            message = self.conn.recv()
        except (EOFError, OSError):            # the process is gone
            message = None
        if isinstance(message, str):
            return message
        running = self.clock.current()
        code = self._stop()
        if self.closed:
            raise WorkerClosed
        if message is not None:
            raise RunError(f"the process playing game {key} failed: {message[1]}")
        if running is None:
            raise RunError(f"the process playing game {key} {describe_exit(code)} outside any agent call")
        (call, seat, move, _), _ = running
        return seat, Forfeit(call, move, f"crash: the process playing the game {describe_exit(code)} during this call")

    def close(self) -> None:
        """Stop the process: politely when it is idle (its agents are closed), else at once."""
        self.closed = True
        if self.proc is None:
            return
        if self.busy:
            proc = self.proc
            if proc is not None:
                proc.kill()                    # the thread in `play` sees it and cleans up
            return
        try:
            self.conn.send(None)
            with PROCESSES:
                self.proc.join(timeout=5)
        except OSError:
            pass
        self._stop()


def chunked(jobs, workers: int) -> list[list]:
    """Split jobs into chunks small enough to balance the workers and to lose little on a kill."""
    size = max(1, min(16, len(jobs) // (4 * workers) if workers > 1 else 8))
    return [jobs[i:i + size] for i in range(0, len(jobs), size)]


def check_executor(workers: int, executor: str) -> None:
    """Refuse an unknown executor or a worker count below one."""
    if executor not in EXECUTORS:
        raise ConfigError(f"unknown executor {executor!r}; choose one of: {', '.join(EXECUTORS)}")
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ConfigError(f"workers must be a whole number of at least 1, got {workers!r}")


def execute(setup: Setup, jobs, workers: int = 1, executor: str = "local", session: "RaySession | None" = None):
    """Yield lists of records as chunks finish: dicts for the tables played here, JSON lines from the
    game workers (what `Store.append` takes).

    Tables whose seats all have trusted batched agents are played first, in this process, in lockstep
    (`tournaments.batched`); every other game goes to the game workers. session: for executor "ray", the
    run's `RaySession`, kept across calls (rounds, windows); without one, this call starts and stops its
    own Ray if none is running.
    """
    check_executor(workers, executor)
    if not jobs:
        return
    rules, agents = _worker_state(setup)
    here, rest = {}, []
    for table_jobs in _by_table(jobs):
        names = {n for job in table_jobs for n in job.agents}
        if batchable(agents, names):
            here.setdefault(len(table_jobs[0].agents), []).extend(table_jobs)
        else:
            rest += table_jobs
    for seats in sorted(here):
        for chunk, records in play_batched(here[seats], rules, agents):
            if records is None:
                rest += chunk
            else:
                yield records
    if not rest:
        return
    chunks = chunked(rest, workers)
    if executor == "ray":
        yield from _ray(setup, chunks, workers, session)
    else:
        yield from _local(setup, chunks, workers)


def _by_table(jobs) -> list[list]:
    """Jobs grouped by table, in schedule order."""
    tables: dict = {}
    for job in jobs:
        tables.setdefault(job.table, []).append(job)
    return list(tables.values())


def _context():
    methods = multiprocessing.get_all_start_methods()
    ctx = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
    if ctx.get_start_method() == "forkserver":
        ctx.set_forkserver_preload(["tournaments.executors", "tournaments.warmup"])
    return ctx


def _watch_parent(pid: int) -> None:
    """In a game worker: end it when the process watching it is gone (even SIGKILLed), so no orphan
    workers stay behind."""
    def watch():
        while True:
            time.sleep(1.0)
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                os._exit(1)
            except PermissionError:
                pass

    threading.Thread(target=watch, daemon=True, name="watch-parent").start()


def _local(setup: Setup, chunks, workers: int):
    """Chunks over `workers` game workers, one watching thread each; yields records as chunks finish."""
    pool = [GameWorker(setup) for _ in range(min(workers, len(chunks)))]
    idle: queue.SimpleQueue = queue.SimpleQueue()
    for w in pool:
        idle.put(w)

    def play(chunk):
        worker = idle.get()
        try:
            return worker.play(chunk)
        finally:
            idle.put(worker)

    threads = ThreadPoolExecutor(len(pool), thread_name_prefix="yacht-watch")
    futures = [threads.submit(play, c) for c in chunks]
    try:
        for f in as_completed(futures):
            yield f.result()
    finally:
        for f in futures:
            f.cancel()
        for w in pool:
            w.close()
        threads.shutdown(wait=True)


_OWN: dict = {}


def run_chunk(setup: Setup, chunk) -> list[str]:
    """Play a chunk in this process's own game worker (started on first use, kept for later chunks);
    return its records as JSON lines. The body of a Ray task."""
    key = (setup.config.hash, setup.factory)
    if _OWN.get("key") != key:
        if "worker" in _OWN:
            _OWN.pop("worker").close()
        _OWN.update(key=key, worker=GameWorker(setup))
    return _OWN["worker"].play(chunk)


class RaySession:
    """The Ray a run plays on, started when first needed (`ray`) and kept for the run's every round and
    window, so its worker processes and the game workers they keep (`run_chunk`) are started once:
    joins a Ray already running in this process (left running), else the cluster at $RAY_ADDRESS, else
    starts a local Ray of `workers` CPUs; `close` stops what it started."""

    def __init__(self, workers: int):
        self.workers = workers
        self.started = False
        self.setups: dict = {}           # config hash and factory -> the Setup put in Ray's object store
        self.task = None                 # `run_chunk` as a Ray task

    def ray(self):
        """The ray module, initialised."""
        try:
            import ray   # the ray extra: only for executor "ray"
        except ImportError:
            raise ConfigError("the ray executor needs Ray: pip install 'yacht-arena[ray]'") from None
        if not ray.is_initialized():
            if os.environ.get("RAY_ADDRESS"):
                ray.init(log_to_driver=False)  # join the cluster named by RAY_ADDRESS; it decides the CPUs
            else:
                # a local Ray: workers import agents from the same paths as this process
                path = os.pathsep.join(p for p in sys.path if p)
                ray.init(num_cpus=self.workers, include_dashboard=False, log_to_driver=False,
                         configure_logging=False, runtime_env={"env_vars": {"PYTHONPATH": path}})
            self.started = True
        return ray

    def setup_ref(self, setup: Setup):
        """`setup` in Ray's object store, put once a run."""
        key = (setup.config.hash, setup.factory)
        if key not in self.setups:
            self.setups[key] = self.ray().put(setup)
        return self.setups[key]

    def close(self) -> None:
        self.setups.clear()
        self.task = None
        if self.started:
            import ray   # the ray extra, imported when the session started
            self.started = False
            ray.shutdown()


def _ray(setup: Setup, chunks, workers: int, session: RaySession | None = None):
    own = session is None
    session = RaySession(workers) if own else session
    try:
        ray = session.ray()
        if session.task is None:
            session.task = ray.remote(run_chunk)
        task = session.task
        setup_ref = session.setup_ref(setup)
        pending = [task.remote(setup_ref, c) for c in chunks]
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            yield ray.get(done[0])
    finally:
        if own:
            session.close()
