"""`bench.py tournament`: games/s of round robins between copies of one agent, with 1 and more workers.

The default agents show the two paths: `greedy` is a trusted batched agent, so its tables are played in the
tournament's own process in lockstep and the worker count does not matter; the example bot
(`scripts/example_bot.py`, a subprocess speaking the bot protocol) plays game by game in the game workers,
which is what `--workers` speeds up. For each agent spec, `--copies` entrants of that spec play a two-seat
round robin (every pair, both seat orders, `--games` deals per table) into a fresh folder, once per worker
count. The time is the whole playing phase of `run_tournament` (pool start-up included, report excluded). On a
shared machine the worker counts take turns `--repeat` times and the best time of each counts; the speed-up is
against one worker in the same run. `start-up s` is the time until each worker has played one game (process
start, agents), measured after a first untimed start that boots the pool's fork server (a one-time cost of 1-2
s per command); `steady speed-up` compares the times without start-up.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

EXAMPLE_BOT = f"external:{sys.executable} {Path(__file__).resolve().parents[1] / 'example_bot.py'}"


def add_parser(sub):
    p = sub.add_parser("tournament", help="games/s of tournaments with 1 and 2 workers", description=__doc__)
    p.add_argument("--agents", nargs="+", default=["greedy", EXAMPLE_BOT],
                   help="agent specs to pit against themselves (default: greedy and the example bot)")
    p.add_argument("--copies", type=int, default=4, help="entrants per round robin (default 4: 6 tables)")
    p.add_argument("--games", type=int, default=100, help="deals per table (default 100: 1200 games)")
    p.add_argument("--workers", type=int, nargs="+", default=[1, 2], help="worker counts to compare")
    p.add_argument("--executor", choices=("local", "ray"), default="local")
    p.add_argument("--repeat", type=int, default=3, help="rounds over the worker counts; best time counts")
    p.add_argument("--seed", type=int, default=0)
    return p


def label(spec: str) -> str:
    """A short name for an agent spec (entrant names are at most 64 characters)."""
    return "example-bot" if spec == EXAMPLE_BOT else spec[:40]


def entrants(spec: str, copies: int) -> list[dict]:
    return [{"name": f"{label(spec)}-{i}", "agent": spec} for i in range(copies)]


def bench(spec: str, copies: int, games: int, workers: int, executor: str, seed: int) -> dict:
    from tournaments.config import parse_config
    from tournaments.run import run_tournament

    cfg = parse_config({"name": "bench", "entrants": entrants(spec, copies), "games": games, "seed": seed})
    with tempfile.TemporaryDirectory() as out:
        t = time.perf_counter()
        res = run_tournament(cfg, out=out, workers=workers, executor=executor, progress=False)
        total = time.perf_counter() - t
    run = res["run"]
    return {"agent": spec, "workers": workers, "games": run["games_run"], "seconds": run["seconds"],
            "games_per_second": run["games_per_second"], "with_report_seconds": total}


def startup(spec: str, copies: int, workers: int, executor: str) -> float:
    """Seconds until every worker has played one game: the fixed cost of starting the workers."""
    from tournaments.config import parse_config
    from tournaments.executors import Setup, execute
    from tournaments.schedule import schedule

    cfg = parse_config({"name": "bench", "entrants": entrants(spec, copies), "games": 1})
    t = time.perf_counter()
    for _ in execute(Setup(cfg), schedule(cfg)[:workers], workers=workers, executor=executor):
        pass
    return time.perf_counter() - t


def run(args):
    from yacht_arena.cli.options import USER_ERRORS

    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs")
    print(f"{'agent':<12}{'workers':>8}{'games':>7}{'seconds':>9}{'games/s':>9}{'speed-up':>10}"
          f"{'start-up s':>12}{'steady speed-up':>17}")
    for spec in args.agents:
        best: dict[int, dict] = {}
        for w in args.workers:  # start the fork server and fill agent caches before any timing
            try:
                startup(spec, args.copies, w, args.executor)
            except USER_ERRORS:
                break
        try:
            for _ in range(args.repeat):
                for w in args.workers:
                    r = bench(spec, args.copies, args.games, w, args.executor, args.seed)
                    r["startup"] = startup(spec, args.copies, w, args.executor)
                    if w not in best or r["seconds"] < best[w]["seconds"]:
                        best[w] = r
        except USER_ERRORS as e:
            print(f"{label(spec):<12} skipped: {e}")
            continue
        base = best[args.workers[0]]
        for w in args.workers:
            r = best[w]
            steady = (base["seconds"] - base["startup"]) / (r["seconds"] - r["startup"])
            print(f"{label(spec):<12}{w:>8}{r['games']:>7}{r['seconds']:>9.1f}{r['games_per_second']:>9.1f}"
                  f"{r['games_per_second'] / base['games_per_second']:>9.2f}x{r['startup']:>12.1f}"
                  f"{steady:>16.2f}x", flush=True)
    print(f"load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0
