"""Run a tournament into a folder: schedule, skip what the store already holds, play the rest, report."""
import time
from contextlib import closing
from pathlib import Path

from tqdm import tqdm

from agents.provenance import digests, spec_files

from .config import TournamentConfig, check_agents
from .executors import DEFAULT_FACTORY, Setup, check_executor, execute, resolve_factory
from .report import render
from .schedule import schedule
from .store import Store


def default_out(config: TournamentConfig) -> Path:
    """`runs/<name>-<config hash>`: rerunning the same config lands in the same folder."""
    return Path("runs") / f"{config.name}-{config.hash[:8]}"


def run_tournament(config: TournamentConfig, out=None, workers: int = 1, executor: str = "local",
                   progress: bool = True, factory: str = DEFAULT_FACTORY, analysis: bool = True,
                   notify=None, force: bool = False) -> dict:
    """Play every scheduled game not yet in the store at `out`, then render the report.

    The folder is locked for the whole run (a second run on it is refused). The content hashes of the
    files the entrants depend on (model files, bot scripts) are recorded when the run begins; resuming
    with one of them changed is refused, naming it, unless `force`. Returns the results (as in
    results.json) plus `run`: this invocation's games (`games_run`, `seconds`, `games_per_second`) and
    `games_kept`, the games an earlier run of the same config had stored; analysis=False leaves the
    move analysis out of the report. notify: called with one line when the run resumes a folder (what
    it keeps, what is left) before any game is played.
    """
    check_executor(workers, executor)
    check_agents(config, resolve_factory(factory))
    files = digests(spec_files(config.entrants.values()))
    with Store(out if out is not None else default_out(config)).open(config, files, force) as store:
        jobs = schedule(config)
        done = store.records()
        todo = [j for j in jobs if j.key not in done]
        if notify is not None and len(todo) < len(jobs):
            notify(resume_line(store.folder, len(jobs) - len(todo), len(jobs)))
        start = time.perf_counter()
        bar = tqdm(total=len(jobs), initial=len(jobs) - len(todo), unit="game", desc=config.name,
                   disable=not progress, dynamic_ncols=True)
        with bar, closing(execute(Setup(config, factory), todo, workers=workers, executor=executor)) as batches:
            for batch in batches:
                store.append(batch)
                bar.update(len(batch))
        seconds = time.perf_counter() - start
        res = render(store.folder, analysis=analysis)
    res["run"] = {"folder": str(store.folder), "games_run": len(todo), "games_kept": len(jobs) - len(todo),
                  "seconds": seconds,
                  "games_per_second": len(todo) / seconds if seconds > 0 and todo else None,
                  "workers": workers, "executor": executor}
    return res


def resume_line(folder, kept: int, total: int) -> str:
    """What a run that resumes a folder says first."""
    left = total - kept
    what = f"{left:,} left to play" if left else "nothing left to play (the report is written again)"
    return f"{folder}: {kept:,} of {total:,} games kept from an earlier run, resuming: {what}"
