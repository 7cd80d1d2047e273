"""`bench.py agents`: what users run through agents, against yatzy-solver's optimal `simulate`, in one run.

Contenders, interleaved over `--repeat` rounds (best round of each counts; the spread is printed):

- yatzy-solver `Solver.simulate(n)` (Rust, all cores, solver built before timing: warm): the peer, at
  the two sizes ours are measured at;
- `yacht evaluate strong --games N` and `yacht evaluate learned:MODEL --games M`: the whole command in a
  fresh process (Python start, imports, cached numba code and solver table), games / wall seconds;
- the default `yacht tournament` (2000 games): its playing phase as the command prints it (games/s,
  pool start included, report excluded), plus the whole process and the report rendering (with
  `--baseline DIR`, also that tree's whole process and report, in the same rounds);
- the batched multi-seat env (`YachtVs-v0` via make_vec, N tables, the learner plus one `strong`
  opponent): learner steps/s of the step call after a warm-up that fills strong's plans (random legal
  learner actions drawn off the clock);
- the per-game path (`play_game` with one `Game` at a time): CPU seconds per game for each agent,
  here and, with `--baseline DIR` (a checkout of an earlier commit), in that tree, side by side.

Ratios are to yatzy-solver's games/s of the same size in the same run.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PER_GAME = r"""
import json, sys, time
from agents.base import play_game
from agents.registry import make_agent
from yacht_env.core.game import Game
out = {}
for spec, n in json.loads(sys.argv[1]):
    a = make_agent(spec)
    play_game(Game("yacht", 1, seed=10 ** 6), [a])
    t = time.process_time()
    for i in range(n):
        play_game(Game("yacht", 1, seed=i), [a])
    out[spec] = (time.process_time() - t) / n
print(json.dumps(out))
"""


def add_parser(sub):
    p = sub.add_parser("agents", help="evaluate / tournament / multi-seat env speed against yatzy-solver",
                       description=__doc__)
    p.add_argument("--strong-games", type=int, default=100_000)
    p.add_argument("--learned-games", type=int, default=20_000)
    p.add_argument("--model", default=str(ROOT / "models" / "ppo-yacht.pt"))
    p.add_argument("--vs-tables", type=int, default=4096)
    p.add_argument("--vs-steps", type=int, default=300, help="timed steps of the multi-seat env")
    p.add_argument("--vs-warmup", type=int, default=4000, help="untimed steps first (fills strong's plans)")
    p.add_argument("--per-game", type=int, default=200, help="games per agent on the per-game path")
    p.add_argument("--baseline", default=None, help="a checkout of an earlier commit for the per-game path")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--skip", nargs="*", default=[],
                   choices=("strong", "learned", "tournament", "vs", "per-game", "yatzy-solver"),
                   help="contenders to leave out (yatzy-solver: the peer's rows and the ratios to it)")
    return p


def yatzy_rates(sizes) -> dict[int, float]:
    import yatzy_solver as ys

    solver = ys.Solver.build(ys.Variant("american+forced-joker"))
    solver.simulate(100, seed=1)
    out = {}
    for n in sizes:
        t = time.perf_counter()
        solver.simulate(n, seed=1)
        out[n] = n / (time.perf_counter() - t)
    return out


def yacht(*argv, tree: Path | None = None) -> tuple[float, str]:
    """(wall seconds, stdout) of `yacht ARGV` in a fresh process, from this tree or another checkout."""
    tree = tree or ROOT
    env = {**os.environ, "PYTHONPATH": str(tree)}
    t = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "yacht_arena.cli", *argv], capture_output=True, text=True, check=True,
                         cwd=tree, env=env).stdout
    return time.perf_counter() - t, out


def evaluate(spec: str, games: int) -> float:
    wall, out = yacht("evaluate", spec, "--games", str(games), "--json", "--no-progress")
    assert json.loads(out)["games"] == games
    return games / wall


def tournament(tree: Path | None = None) -> dict:
    """The default tournament in a fresh folder: its playing phase (this tree only), the whole process and
    `yacht report` on the folder, from this tree or another checkout."""
    with tempfile.TemporaryDirectory() as d:
        if tree is None:
            wall, out = yacht("tournament", "--out", str(Path(d) / "run"), "--json")
            run = json.loads(out)["run"]
        else:
            wall, _ = yacht("tournament", "--out", str(Path(d) / "run"), "--quiet", tree=tree)
            run = {"games_per_second": None, "seconds": None}
        report, _ = yacht("report", str(Path(d) / "run"), tree=tree)
    return {"games_per_second": run["games_per_second"], "play": run["seconds"], "whole": wall, "report": report}


def vs_env(tables: int, warmup: int, steps: int, threads: int) -> float:
    import gymnasium as gym
    import numpy as np

    import yacht_env  # noqa: F401 - registers the ids
    from yacht_env.envs.batch import random_legal

    envs = gym.make_vec("YachtVs-v0", num_envs=tables, vectorization_mode="vector_entry_point", num_players=2,
                        opponents=["strong"], num_threads=threads)
    _, info = envs.reset(seed=0)
    rng, actions = np.random.default_rng(0), np.zeros(tables, np.int64)
    spent = 0.0
    for k in range(warmup + steps):
        random_legal(info["action_mask"], rng.random(tables), actions)
        t = time.perf_counter()
        _, _, _, _, info = envs.step(actions)
        if k >= warmup:
            spent += time.perf_counter() - t
    envs.close()
    return steps * tables / spent


def per_game(tree: Path, specs) -> dict:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    out = subprocess.run([sys.executable, "-c", PER_GAME, json.dumps(specs)], capture_output=True, text=True,
                         check=True, cwd=tree, env=env).stdout
    return json.loads(out)


def run(args):
    if "yatzy-solver" not in args.skip and importlib.util.find_spec("yatzy_solver") is None:
        print("bench.py agents: yatzy_solver is not importable (pip install yatzy-solver), or leave it out with "
              "--skip yatzy-solver", file=sys.stderr)
        return 2
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs")
    yacht("evaluate", "strong", "--games", "10", "--no-progress")           # warm caches: solver table, numba
    yacht("evaluate", f"learned:{args.model}", "--games", "10", "--no-progress")
    rounds: dict[str, list[float]] = {}
    sizes = sorted({args.strong_games, args.learned_games, 2000})

    def note(key, value):
        rounds.setdefault(key, []).append(value)

    extra = {}
    for _ in range(args.repeat):
        if "yatzy-solver" not in args.skip:
            for n, g in yatzy_rates(sizes).items():
                note(f"yatzy {n}", g)
        if "strong" not in args.skip:
            note("strong", evaluate("strong", args.strong_games))
        if "learned" not in args.skip:
            note("learned", evaluate(f"learned:{args.model}", args.learned_games))
        if "tournament" not in args.skip:
            t = tournament()
            note("tournament", t["games_per_second"])
            extra.setdefault("tournament", []).append(t)
            if args.baseline:
                extra.setdefault("baseline tournament", []).append(tournament(Path(args.baseline).resolve()))
        if "vs" not in args.skip:
            for threads in (1, 2):
                note(f"vs {threads}", vs_env(args.vs_tables, args.vs_warmup, args.vs_steps, threads))
    best = {k: max(v) for k, v in rounds.items()}
    spread = {k: (min(v), max(v)) for k, v in rounds.items()}
    print(f"\n{'contender':<58}{'games/s':>11}{'spread':>22}{'vs yatzy-solver':>17}")
    rows = [("yatzy-solver Solver.simulate", f"yatzy {n}", n) for n in sizes]
    rows += [(f"yacht evaluate strong --games {args.strong_games} (whole command)", "strong", args.strong_games),
             (f"yacht evaluate learned:MODEL --games {args.learned_games} (whole command)", "learned",
              args.learned_games),
             ("yacht tournament (default, 2000 games; playing phase)", "tournament", 2000)]
    for name, key, n in rows:
        if key not in best:
            continue
        lo, hi = spread[key]
        base = best.get(f"yatzy {n}")
        label = name if not key.startswith("yatzy") else f"{name}({n})"
        ratio = f"{best[key] / base:>16.2f}x" if base and not key.startswith("yatzy") else ""
        print(f"{label:<58}{best[key]:>11,.0f}{f'{lo:,.0f}..{hi:,.0f}':>22}{ratio}")
    for t in extra.get("tournament", []):
        print(f"  tournament round: play {t['play']:.2f} s, whole process {t['whole']:.2f} s, "
              f"yacht report {t['report']:.2f} s")
    for t in extra.get("baseline tournament", []):
        print(f"  baseline {args.baseline} round: whole process {t['whole']:.2f} s, yacht report {t['report']:.2f} s")
    for threads in (1, 2):
        if f"vs {threads}" in best:
            lo, hi = spread[f"vs {threads}"]
            print(f"YachtVs-v0 batched, {args.vs_tables} tables, learner + strong, num_threads={threads}: "
                  f"{best[f'vs {threads}'] / 1e6:.2f} M learner steps/s (spread {lo / 1e6:.2f}..{hi / 1e6:.2f})")
    if "per-game" not in args.skip:
        specs = [["random", args.per_game], ["greedy", args.per_game], ["strong", args.per_game],
                 [f"learned:{args.model}", max(1, args.per_game // 10)]]
        here = per_game(ROOT, specs)
        there = per_game(Path(args.baseline).resolve(), specs) if args.baseline else {}
        print("\nper-game path (play_game, one Game at a time), CPU ms per game"
              + (f"; baseline {args.baseline}" if there else ""))
        for spec, _ in specs:
            b = f"{1e3 * there[spec]:>10.2f}{there[spec] / here[spec]:>9.2f}x" if spec in there else ""
            print(f"  {spec.split(':')[0]:<10}{1e3 * here[spec]:>10.2f}{b}")
    print(f"load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0
