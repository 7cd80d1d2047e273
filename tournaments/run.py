"""Run a tournament into a folder: schedule, skip what the store already holds, play the rest, report.

Memory follows the work in flight, not the work done: the schedule is produced lazily (a window of
`WINDOW` games at a time for round robins and gauntlets, a round at a time for a Swiss), results go
to the store as batches finish, and of the games already stored only their keys are kept.
"""
import json
import time
from contextlib import closing
from itertools import islice
from pathlib import Path

from tqdm import tqdm

from yacht_env.config import ConfigError

from .config import TournamentConfig, check_agents
from .executors import DEFAULT_FACTORY, Setup, check_executor, execute, resolve_factory
from .formats import SwissReplay
from .report import render
from .schedule import jobs, table_jobs
from .store import Store

WINDOW = 50_000     # games handed to the executors at once (round robins and gauntlets)


def default_out(config: TournamentConfig) -> Path:
    """`runs/<name>-<config hash>`: rerunning the same config lands in the same folder."""
    return Path("runs") / f"{config.name}-{config.hash[:8]}"


def run_tournament(config: TournamentConfig, out=None, workers: int = 1, executor: str = "local",
                   progress: bool = True, factory: str = DEFAULT_FACTORY, analysis: bool = True) -> dict:
    """Play every scheduled game not yet in the store at `out`, then render the report.

    The folder is locked for the whole run (a second run on it is refused). Returns the results (as in
    results.json) plus `run` timing for this invocation; analysis=False leaves the move analysis out of
    the report.
    """
    check_executor(workers, executor)
    check_agents(config, resolve_factory(factory))
    setup = Setup(config, factory)
    with Store(out if out is not None else default_out(config)).open(config) as store:
        start = time.perf_counter()
        bar = tqdm(total=config.total_games, unit="game", desc=config.name, disable=not progress, dynamic_ncols=True)
        with bar:
            if config.format == "swiss":
                played = _play_swiss(config, store, setup, workers, executor, bar)
            else:
                done = store.keys()
                bar.update(len(done))
                todo = (j for j in jobs(config) if j.key not in done)
                played = 0
                while window := list(islice(todo, WINDOW)):
                    played += _play(setup, window, store, workers, executor, bar)
        seconds = time.perf_counter() - start
        res = render(store.folder, analysis=analysis)
    res["run"] = {"folder": str(store.folder), "games_run": played, "seconds": seconds,
                  "games_per_second": played / seconds if seconds > 0 and played else None,
                  "workers": workers, "executor": executor}
    return res


def _play(setup: Setup, todo, store: Store, workers: int, executor: str, bar, on_batch=None) -> int:
    """Play `todo` (a list of jobs), appending each finished batch to the store; return the games played."""
    played = 0
    with closing(execute(setup, todo, workers=workers, executor=executor)) as batches:
        for batch in batches:
            store.append(batch)
            if on_batch is not None:
                on_batch(batch)
            bar.update(len(batch))
            played += len(batch)
    return played


def _play_swiss(config: TournamentConfig, store: Store, setup: Setup, workers: int, executor: str, bar) -> int:
    """Round by round: pair from the standings of the rounds before (stored rounds are re-paired and
    checked against the store), play the round's missing games, count them in."""
    done: set[str] = set()
    replay = SwissReplay(config)
    for rec in store.stream():
        done.add(rec["key"])
        replay.add(rec)
    bar.update(len(done))

    def count(batch):
        for rec in batch:
            replay.add(rec if isinstance(rec, dict) else json.loads(rec))

    played, teams = 0, config.ruleset.teams
    try:
        for _, tables, _ in replay.pairings():
            todo = [j for t, members in tables for j in table_jobs(config, t, members, teams) if j.key not in done]
            if todo:
                played += _play(setup, todo, store, workers, executor, bar, on_batch=count)
    except ValueError as e:
        raise ConfigError(f"{store.folder}: {e}; play the tournament into a new folder") from None
    return played
