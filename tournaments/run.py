"""Run a tournament into a folder: schedule, skip what the store already holds, play the rest, report.

Memory follows the work in flight, not the work done: the schedule is produced lazily (a window of
`WINDOW` games at a time for round robins and gauntlets, a round at a time for a Swiss or an adaptive
schedule), results go
to the store as batches finish, and of the games already stored only which are there is kept (a bit per
scheduled game, `store.KeySet`). The report reads the store as a stream into columns of numbers
(`tournaments.games`) and running sums; the move analysis reads the logs again a chunk at a time.
"""
import json
import time
from contextlib import closing, nullcontext
from itertools import islice
from pathlib import Path

from tqdm import tqdm

from yacht_env.config import ConfigError, check_memory
from agents.provenance import changed, digests, rules_files, spec_files

from .config import TournamentConfig, check_agents
from .executors import DEFAULT_FACTORY, RaySession, Setup, check_executor, execute, resolve_factory
from .formats import replay_of
from .precompile import analysis_compiled_beside
from .report import render
from .schedule import jobs, table_jobs
from .store import Store

WINDOW = 50_000     # games handed to the executors at once (round robins and gauntlets)


def default_out(config: TournamentConfig) -> Path:
    """`runs/<name>-<config hash>`: rerunning the same config lands in the same folder."""
    return Path("runs") / f"{config.name}-{config.hash[:8]}"


BASE_BYTES = 512 << 20       # the main process: the program, the solver's table, the report's tools
WORKER_BYTES = 256 << 20     # a game worker process
SEAT_GAME_BYTES = 256        # a game's seat in the report's columns and arrays (measured about 135 B: BENCHMARKS)


def memory_needed(config: TournamentConfig, workers: int) -> int:
    """Bytes a tournament needs at most, estimated before it starts (an upper bound: the play itself is
    bounded by the games in flight; what grows with the games is the report's columns of numbers,
    `tournaments.games.Games`, and the arrays its bootstraps and quantiles read)."""
    return BASE_BYTES + max(1, workers) * WORKER_BYTES + config.total_games * config.seats * SEAT_GAME_BYTES


def run_tournament(config: TournamentConfig, out=None, workers: int = 1, executor: str = "local",
                   progress: bool = True, factory: str = DEFAULT_FACTORY, analysis: bool = True,
                   notify=None, force: bool = False) -> dict:
    """Play every scheduled game not yet in the store at `out`, then render the report.

    The folder is locked for the whole run (a second run on it is refused). The content hashes of the
    files the entrants depend on (model files, bot scripts) are recorded when the run begins; resuming
    with one of them changed is refused, naming it, unless `force`, and one that changes while games are
    played stops the run before its report (the games are kept). The memory the run needs is estimated
    before anything starts (`memory_needed`) and a run that cannot fit is refused. Returns the results (as in
    results.json) plus `run`: this invocation's games (`games_run`, `seconds`, `games_per_second`) and
    `games_kept`, the games an earlier run of the same config had stored; analysis=False leaves the
    move analysis out of the report. notify: called with one line when the run resumes a folder (what
    it keeps, what is left) before any game is played.
    """
    check_executor(workers, executor)
    check_memory("tournament", "games", memory_needed(config, workers),
                 f"{config.total_games:,} games of {config.seats} seats on {workers} worker(s)")
    with analysis_compiled_beside(enabled=analysis) as compiling:
        check_agents(config, resolve_factory(factory))
        setup = Setup(config, factory)
        files = digests(spec_files(config.entrants.values()) + rules_files(config.rules))
        with Store(out if out is not None else default_out(config)).open(config, files, force) as store:
            replay = replay_of(config)
            if replay is None:
                done = store.keys()
            else:
                done = store.key_set()
                for rec in store.stream():
                    done.add(_count(replay, rec))
            kept = len(done)
            until = config.kind.until
            if notify is not None and kept:
                notify(resume_line(store.folder, kept, config.total_games, until))
            start = time.perf_counter()
            # the games of a format that stops when it is sure are not known before it stops: no total
            bar = tqdm(total=None if until else config.total_games, initial=kept, unit="game", desc=config.name,
                       disable=not progress, dynamic_ncols=True)
            session = RaySession(workers) if executor == "ray" else None    # one Ray for every round and window
            with bar, closing(session) if session is not None else nullcontext():
                if replay is not None:
                    played = _play_rounds(config, replay, done, store, setup, workers, executor, bar, session)
                else:
                    todo = (j for j in jobs(config) if j.key not in done)
                    played = 0
                    while window := list(islice(todo, WINDOW)):
                        played += _play(setup, window, store, workers, executor, bar, session=session)
            seconds = time.perf_counter() - start
            moved = changed(files) if played else []
            if moved:       # changed under the run: the games just played may mix two agents under one name
                raise ConfigError(str(store.meta_path), f"{moved[0]} while the games were played; they are kept, but "
                                                        f"some may be another agent's: restore the file and rerun "
                                                        f"(--force accepts the new one), or play into a new folder")
            compiling.wait()
            res = render(store.folder, analysis=analysis, store=store)
    res["run"] = {"folder": str(store.folder), "games_run": played, "games_kept": kept, "seconds": seconds,
                  "games_per_second": played / seconds if seconds > 0 and played else None,
                  "workers": workers, "executor": executor}
    return res


def _count(replay, record) -> str:
    """Count a game (a record or its JSON line) in its round (a Swiss's or an adaptive schedule's); return
    its key."""
    rec = record if isinstance(record, dict) else json.loads(record)
    replay.add(rec)
    return rec["key"]


def _play(setup: Setup, todo, store: Store, workers: int, executor: str, bar, on_batch=None, session=None) -> int:
    """Play `todo` (a list of jobs), appending each finished batch to the store; return the games played.
    session: the run's `RaySession` (executor "ray")."""
    played = 0
    with closing(execute(setup, todo, workers=workers, executor=executor, session=session)) as batches:
        for batch in batches:
            store.append(batch)
            if on_batch is not None:
                on_batch(batch)
            bar.update(len(batch))
            played += len(batch)
    return played


def _play_rounds(config: TournamentConfig, replay, done, store: Store, setup: Setup, workers: int,
                 executor: str, bar, session=None) -> int:
    """Round by round (a Swiss, an adaptive schedule: `formats.replay_of`): pair from the results of the
    rounds before (stored rounds are re-paired and checked against the store), play the round's missing
    games, count them in. An adaptive schedule stops pairing once its ranking is confident. The bar shows
    what the replay says of its rounds (`progress`, `finished`: an adaptive one's round and the least
    confidence of a neighbour pair reached before it)."""
    played, teams = 0, config.ruleset.teams
    try:
        for rnd, tables, _ in replay.pairings():
            if (line := replay.progress(rnd)) is not None:
                bar.set_postfix_str(line, refresh=False)
            todo = [j for t, members in tables for j in table_jobs(config, t, members, teams) if j.key not in done]
            if todo:
                played += _play(setup, todo, store, workers, executor, bar,
                                on_batch=lambda batch: [_count(replay, r) for r in batch], session=session)
        if (line := replay.finished()) is not None:
            bar.set_postfix_str(line, refresh=False)
    except ValueError as e:
        raise ConfigError(f"{store.folder}: {e}; play the tournament into a new folder") from None
    return played


def resume_line(folder, kept: int, total: int, until: str | None = None) -> str:
    """What a run that resumes a folder says first (`until`: what ends a format that stops when it is sure,
    `Format.until`; `total` is then the most it may play)."""
    if until:
        return (f"{folder}: {kept:,} games (of at most {total:,}) kept from an earlier run, resuming: the rounds "
                f"go on until {until}")
    left = total - kept
    what = f"{left:,} left to play" if left else "nothing left to play (the report is written again)"
    return f"{folder}: {kept:,} of {total:,} games kept from an earlier run, resuming: {what}"
