"""`bench.py analysis`: seconds to analyse a tournament folder's games move by move (`yacht analyze`).

The folder (default `runs/default`, the default tournament: 2000 games, 2 seats) is played first
with `yacht tournament --out DIR` when it does not exist. Timed, best of --repeat rounds, with the
solver's table already cached and the kernels compiled: reading games.jsonl (JSON parsing), the
analysis itself (checking and replaying every log, grouping the decisions by sheet state, one turn
widget per state; also its CPU seconds, the steadier figure on a shared machine), and the whole
`yacht analyze DIR --json` process for reference.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path


def add_parser(sub):
    p = sub.add_parser("analysis", help="seconds to analyse the default tournament's games", description=__doc__)
    p.add_argument("--dir", default="runs/default", help="tournament folder (default runs/default; played if missing)")
    p.add_argument("--repeat", type=int, default=5, help="rounds; the best time counts (default 5)")
    return p


def run(args):
    from agents.analysis import solution_of
    from tournaments.gamelog import analyze_file, read_games

    folder = Path(args.dir)
    if not (folder / "games.jsonl").is_file():
        subprocess.run([sys.executable, "-m", "yacht_arena.cli", "tournament", "--out", str(folder), "--quiet",
                        "--no-analysis"], check=True)
    games = read_games(folder)
    solution = solution_of(games.rules, progress=True)
    analyze_file(games, solution)  # compiles the kernels on a first run
    read_s, analyse_s, analyse_cpu = [], [], []
    for _ in range(args.repeat):
        t = time.perf_counter()
        games = read_games(folder)
        read_s.append(time.perf_counter() - t)
        t, c = time.perf_counter(), time.process_time()
        result = analyze_file(games, solution)
        analyse_s.append(time.perf_counter() - t)
        analyse_cpu.append(time.process_time() - c)
    t = time.perf_counter()
    subprocess.run([sys.executable, "-m", "yacht_arena.cli", "analyze", str(folder), "--json"], check=True,
                   stdout=subprocess.DEVNULL)
    process = time.perf_counter() - t
    n = int(result.own.sum())
    turns = len(set(zip(result.rec.tolist(), result.sheet.tolist(), result.turn.tolist())))
    print(f"{folder}: {len(games.records)} games, {n} decisions in {turns} turns, {result.states} distinct "
          f"sheet states (one turn widget each)")
    print(f"| step | seconds (best of {args.repeat}) |")
    print("|---|---:|")
    print(f"| read games.jsonl (json) | {min(read_s):.3f} |")
    print(f"| analyse (check, replay, value) | {min(analyse_s):.3f} |")
    print(f"| analyse, CPU seconds (all threads) | {min(analyse_cpu):.3f} |")
    print(f"| read + analyse | {min(r + a for r, a in zip(read_s, analyse_s)):.3f} |")
    print(f"| `yacht analyze DIR --json` process | {process:.3f} |")
    print(f"decisions/s: {n / min(analyse_s):,.0f}")
    return 0

