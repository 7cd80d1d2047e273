"""Run scheduled games: in this process, in a process pool, or on Ray (a local one, or the cluster at
$RAY_ADDRESS).

Jobs go out in chunks; each worker builds the rules and the agents once and keeps them. A game's
record depends only on its job (seed, seats, agents), so every executor and worker count gives the
same records; only the order in which chunks finish differs, and the store is keyed by game.
"""
import importlib
import json
import multiprocessing
import multiprocessing.util
import os
import sys
import threading
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass

from yacht_env.cli_common import CommandError

from .config import TournamentConfig
from .play import play_job

EXECUTORS = ("local", "ray")
DEFAULT_FACTORY = "agents.registry:make_agent"


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
        raise CommandError(f"cannot load the agent factory {path!r}: {e}") from None


_WORKER: dict = {}


def _worker_state(setup: Setup):
    """Rules and agents for this process, built on first use and kept for later chunks."""
    key = (setup.config.hash, setup.factory)
    if _WORKER.get("key") != key:
        close_agents()
        make = resolve_factory(setup.factory)
        _WORKER.update(key=key, rules=setup.config.ruleset,
                       agents={n: make(s) for n, s in setup.config.entrants.items()})
        if multiprocessing.parent_process() is not None and "finalizer" not in _WORKER:
            # pool workers leave through os._exit, which skips atexit: close agents (bot processes) here
            _WORKER["finalizer"] = multiprocessing.util.Finalize(None, close_agents, exitpriority=10)
    return _WORKER["rules"], _WORKER["agents"]


def close_agents() -> None:
    """Close this process's agents (external bots stop their programs)."""
    for agent in _WORKER.pop("agents", {}).values():
        close = getattr(agent, "close", None)
        if close is not None:
            close()
    _WORKER.pop("key", None)


def run_chunk(setup: Setup, chunk) -> list[str]:
    """Play a list of jobs in this process; return their records as JSON lines (cheap to send back)."""
    rules, agents = _worker_state(setup)
    return [json.dumps(play_job(job, rules, agents, setup.config.move_timeout), separators=(",", ":"))
            for job in chunk]


def chunked(jobs, workers: int) -> list[list]:
    """Split jobs into chunks small enough to balance the workers and to lose little on a kill."""
    size = max(1, min(16, len(jobs) // (4 * workers) if workers > 1 else 8))
    return [jobs[i:i + size] for i in range(0, len(jobs), size)]


def check_executor(workers: int, executor: str) -> None:
    """Refuse an unknown executor or a worker count below one."""
    if executor not in EXECUTORS:
        raise CommandError(f"unknown executor {executor!r}; choose one of: {', '.join(EXECUTORS)}")
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise CommandError(f"workers must be a whole number of at least 1, got {workers!r}")


def execute(setup: Setup, jobs, workers: int = 1, executor: str = "local"):
    """Yield lists of records (JSON lines) as chunks finish."""
    check_executor(workers, executor)
    if not jobs:
        return
    chunks = chunked(list(jobs), workers)
    if executor == "ray":
        yield from _ray(setup, chunks, workers)
    elif workers == 1:
        try:
            for chunk in chunks:
                yield run_chunk(setup, chunk)
        finally:
            close_agents()
    else:
        yield from _pool(setup, chunks, workers)


def _context():
    methods = multiprocessing.get_all_start_methods()
    ctx = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
    if ctx.get_start_method() == "forkserver":
        ctx.set_forkserver_preload(["tournaments.play", "tournaments.warmup"])
    return ctx


def _watch_parent(pid: int) -> None:
    """Pool initializer: end this worker when the tournament process is gone (even SIGKILLed), so no
    orphan workers stay behind."""
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


def _pool(setup: Setup, chunks, workers: int):
    with ProcessPoolExecutor(max_workers=workers, mp_context=_context(), initializer=_watch_parent,
                             initargs=(os.getpid(),)) as pool:
        pending = {pool.submit(run_chunk, setup, c) for c in chunks[:4 * workers]}
        queue = chunks[4 * workers:]
        try:
            while pending:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for f in done:
                    yield f.result()
                    if queue:
                        pending.add(pool.submit(run_chunk, setup, queue.pop(0)))
        finally:
            for f in pending:
                f.cancel()


def _ray(setup: Setup, chunks, workers: int):
    try:
        import ray
    except ImportError:
        raise CommandError("the ray executor needs Ray: pip install 'yacht-arena[ray]'") from None
    started = not ray.is_initialized()
    if started and os.environ.get("RAY_ADDRESS"):
        ray.init(log_to_driver=False)  # join the cluster named by RAY_ADDRESS; it decides the CPUs
    elif started:
        # a local Ray: workers import agents from the same paths as this process
        path = os.pathsep.join(p for p in sys.path if p)
        ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False, configure_logging=False,
                 runtime_env={"env_vars": {"PYTHONPATH": path}})
    try:
        task = ray.remote(run_chunk)
        setup_ref = ray.put(setup)
        pending = [task.remote(setup_ref, c) for c in chunks]
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            yield ray.get(done[0])
    finally:
        if started:
            ray.shutdown()
