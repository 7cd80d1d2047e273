"""`bench.py formats`: how long and how much memory the lazy schedules take for large fields.

- Swiss: `--entrants` entrants at `--seats` seats over `--rounds` rounds (default 1,000 at 4 over 9):
  every round is paired from standings and its games (jobs with their dice seeds) are produced; the
  results between rounds are simulated (each table ranks its entrants by a fixed random strength), as
  the pairing only reads the standings.
- Gauntlet: one candidate against `--others` entrants (default 500), two seats: the time from the
  config to the first window of games the run hands to the executors (`tournaments.run.WINDOW`).

Time is wall-clock (best of `--repeat`); memory is the peak of Python allocations (tracemalloc) during
the step, plus the process's peak resident size at the end.
"""
from __future__ import annotations

import resource
import time
import tracemalloc
from itertools import islice


def add_parser(sub):
    p = sub.add_parser("formats", help="Swiss and gauntlet scheduling time and memory", description=__doc__)
    p.add_argument("--entrants", type=int, default=1000)
    p.add_argument("--seats", type=int, default=4)
    p.add_argument("--rounds", type=int, default=9)
    p.add_argument("--others", type=int, default=500)
    p.add_argument("--repeat", type=int, default=3)
    return p


def swiss(n: int, seats: int, rounds: int) -> int:
    import numpy as np

    from tournaments.config import parse_config
    from tournaments.formats.swiss import Swiss, SwissStandings
    from tournaments.schedule import table_jobs

    cfg = parse_config({"entrants": [{"name": f"e{i}", "agent": "random"} for i in range(n)], "seats": seats,
                        "games": 1, "format": "swiss", "rounds": rounds})
    fmt, teams = Swiss(list(cfg.entrants), seats, rounds), cfg.ruleset.teams
    strength = np.random.default_rng(0).permutation(n)
    standings = SwissStandings(fmt.entrants)
    games = 0
    for rnd in range(rounds):
        tables, _ = fmt.pair(rnd, standings)
        for t, members in tables:
            games += len(table_jobs(cfg, t, members, teams))
            idx = sorted((standings.index[m] for m in members), key=lambda i: -strength[i])
            for place, i in enumerate(idx):
                standings.points[i] += (seats - 1 - place) / (seats - 1)
    return games


def gauntlet(others: int) -> int:
    from tournaments.config import parse_config
    from tournaments.run import WINDOW
    from tournaments.schedule import jobs

    cfg = parse_config({"entrants": [{"name": f"e{i}", "agent": "random"} for i in range(others + 1)],
                        "games": 100, "format": "gauntlet", "candidates": [f"e{others}"]})
    return len(list(islice(jobs(cfg), WINDOW)))


def measure(fn, *args, repeat: int):
    best = None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn(*args)
        s = time.perf_counter() - t
        best = s if best is None else min(best, s)
    tracemalloc.start()
    fn(*args)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return out, best, peak


def run(args):
    import os

    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs")
    import tournaments.run  # noqa: F401 - imports are not the schedule's time
    games, s, peak = measure(swiss, args.entrants, args.seats, args.rounds, repeat=args.repeat)
    print(f"swiss {args.entrants} entrants, {args.seats} seats, {args.rounds} rounds: {games} games scheduled in "
          f"{s:.3f} s, peak Python allocations {peak / 2**20:.1f} MB")
    games, s, peak = measure(gauntlet, args.others, repeat=args.repeat)
    print(f"gauntlet 1 against {args.others}: first {games} games in {s:.3f} s, peak Python allocations "
          f"{peak / 2**20:.1f} MB")
    print(f"process peak resident size: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")
