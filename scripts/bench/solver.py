"""`bench.py solver`: the exact solver against the reference C solver and `yatzy-solver`, in one run.

Solve time (rules `yacht` = C rules 1 = yatzy-solver's `american+forced-joker`, all at 254.5877; with
`--rules yatzy`, Scandinavian Yatzy = yatzy-solver's `yatzy-scandinavian` at 248.4399894, no C solver):
- C: `/work/shared/reference/solve.c` built with `gcc -O3 -march=native -fopenmp`, run with
  OMP_NUM_THREADS=2 and AUX=0 (value only); its own printed solve time.
- yatzy-solver: `Solver.build(Variant(...))` of the same rules in a fresh process (all cores).
- ours: `yacht solve --rules RULES --no-cache --json` in a fresh process (2 numba threads); the solve
  time it reports (value, SD and bonus odds together), and the whole process for reference.
Games/s of optimal play: `yacht_env.solver.simulate` (the strong policy, numba, 2 threads) against
yatzy-solver's `Solver.simulate(games)` (optimal policy, in parallel), and the StrongAgent through
`play_game` for reference. Each figure is the best of --repeat rounds.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REFERENCE = Path("/work/shared/reference/solve.c")
PEER_VARIANT = {"yacht": "american+forced-joker", "yatzy": "yatzy-scandinavian"}   # our preset -> yatzy-solver's


# Every bench subcommand builds its own parser here, one option a line, as the CLI's commands do (the loopback
# benchmarks' options read alike, but each default and help text is that benchmark's own).
def add_parser(sub):
    p = sub.add_parser("solver", help="solve time and optimal games/s against the C solver and yatzy-solver",
                       description=__doc__)
    p.add_argument("--repeat", type=int, default=2, help="rounds per measurement; the best counts (default 2)")
    p.add_argument("--games", type=int, default=20_000, help="games per games/s measurement (default 20000)")
    p.add_argument("--agent-games", type=int, default=200, help="games of StrongAgent via play_game (default 200)")
    p.add_argument("--reference", default=str(REFERENCE), help="path of the reference solve.c")
    p.add_argument("--skip", nargs="*", default=[], choices=("c", "yatzy-solver"), help="peers to leave out")
    p.add_argument("--rules", default="yacht", choices=tuple(PEER_VARIANT),
                   help="the preset solved and played (default yacht; the C solver plays only yacht)")
    return p


def _wall(cmd, env=None) -> tuple[float, str]:
    t = time.perf_counter()
    out = subprocess.run(cmd, env={**os.environ, **(env or {})}, capture_output=True, text=True, check=True).stdout
    return time.perf_counter() - t, out


def time_c(source: str, workdir: Path) -> tuple[float, float]:
    """(solve seconds printed by the C solver, expected score)."""
    binary = workdir / "refsolve"
    if not binary.exists():
        subprocess.run(["gcc", "-O3", "-march=native", "-fopenmp", "-o", str(binary), source, "-lm"], check=True)
    _, out = _wall([str(binary), "1", "0"], {"OMP_NUM_THREADS": "2"})
    m = re.search(r"time=([\d.]+)s EV=([\d.]+)", out)
    return float(m.group(1)), float(m.group(2))


_YATZY_BUILD = ("import sys, time, yatzy_solver as ys; t = time.perf_counter(); "
                "s = ys.Solver.build(ys.Variant(sys.argv[1])); "
                "print(time.perf_counter() - t, s.state_value('upper 0 | filled -'))")


def time_yatzy_solver(rules: str) -> tuple[float, float]:
    _, out = _wall([sys.executable, "-c", _YATZY_BUILD, PEER_VARIANT[rules]])
    seconds, value = out.split()
    return float(seconds), float(value)


def time_ours(cache: Path, rules: str) -> tuple[float, float, float]:
    """(solve seconds reported, whole process seconds, expected score)."""
    wall, out = _wall([sys.executable, "-m", "yacht_arena.cli", "solve", "--rules", rules, "--no-cache", "--json",
                       "--no-progress"], {"YACHT_CACHE_DIR": str(cache)})
    doc = json.loads(out)
    return doc["table"]["solve_seconds"], wall, doc["expected_score"]


def games_ours(games: int, name: str) -> float:
    import numpy as np

    from yacht_env.rules import load
    from yacht_env.solver import solution_for
    from yacht_env.solver.simulate import simulate

    rules = load(name)
    solution = solution_for(rules, progress=False)
    simulate(rules, solution, np.arange(10))  # compile outside the timer
    t = time.perf_counter()
    simulate(rules, solution, np.arange(games))
    return games / (time.perf_counter() - t)


def games_agent(games: int, name: str) -> float:
    from agents.base import play_game
    from agents.strong import StrongAgent
    from yacht_env.core.game import Game
    from yacht_env.rules import load

    rules, agent = load(name), StrongAgent()
    play_game(Game(rules, seed=0), [agent])
    t = time.perf_counter()
    for g in range(games):
        play_game(Game(rules, seed=g), [agent])
    return games / (time.perf_counter() - t)


def games_yatzy_solver(games: int, rules: str) -> float:
    import yatzy_solver as ys

    solver = ys.Solver.build(ys.Variant(PEER_VARIANT[rules]))
    solver.simulate(100, seed=1)
    t = time.perf_counter()
    solver.simulate(games, seed=1)
    return games / (time.perf_counter() - t)


def run(args):
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        os.environ["YACHT_CACHE_DIR"] = str(tmp / "cache")
        rows = {}
        for _ in range(max(1, args.repeat)):
            if "c" not in args.skip and args.rules == "yacht":
                s, v = time_c(args.reference, tmp)
                rows["C reference (gcc -O3 -fopenmp, 2 threads)"] = min(rows.get("C reference (gcc -O3 -fopenmp, "
                                                                              "2 threads)", (s, v)), (s, v))
            if "yatzy-solver" not in args.skip:
                s, v = time_yatzy_solver(args.rules)
                key = "yatzy-solver Solver.build"
                rows[key] = min(rows.get(key, (s, v)), (s, v))
            s, wall, v = time_ours(tmp / "cache", args.rules)
            rows["yacht solve (solve time)"] = min(rows.get("yacht solve (solve time)", (s, v)), (s, v))
            rows["yacht solve (whole process)"] = min(rows.get("yacht solve (whole process)", (wall, v)), (wall, v))
        ours = rows["yacht solve (solve time)"][0]
        print(f"Solve rules {args.rules!r} (yatzy-solver's {PEER_VARIANT[args.rules]}), best of", args.repeat)
        print(f"{'solver':<46}{'seconds':>9}{'expected':>12}{'ours / it':>11}")
        for name, (s, v) in rows.items():
            ratio = "" if name.startswith("yacht solve") else f"{ours / s:>10.2f}x"
            print(f"{name:<46}{s:>9.2f}{v:>12.4f}{ratio}")
        print(f"\nOptimal games/s ({args.games} games; StrongAgent {args.agent_games} games), best of", args.repeat)
        speeds = {}
        for _ in range(max(1, args.repeat)):
            speeds["yacht_env.solver.simulate"] = max(speeds.get("yacht_env.solver.simulate", 0),
                                                      games_ours(args.games, args.rules))
            if "yatzy-solver" not in args.skip:
                speeds["yatzy-solver simulate"] = max(speeds.get("yatzy-solver simulate", 0),
                                                      games_yatzy_solver(args.games, args.rules))
            speeds["StrongAgent via play_game"] = max(speeds.get("StrongAgent via play_game", 0),
                                                      games_agent(args.agent_games, args.rules))
        base = speeds.get("yatzy-solver simulate")
        print(f"{'player':<46}{'games/s':>9}{'vs yatzy-solver':>17}")
        for name, g in speeds.items():
            print(f"{name:<46}{g:>9.0f}" + (f"{g / base:>16.2f}x" if base else ""))
    return 0
