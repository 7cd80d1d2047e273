"""`bench.py sprt`: SPRT calibration and the games a decision takes, by simulation over played deals.

A pool of `--pool` games of CANDIDATE against OPPONENT is played once (`yacht match` without a test,
into `--out`, resumable). Then `--tests` sequential tests are simulated: each draws deals at random
(with replacement) from the pool, looks every `--batch` deals as `yacht match` does, and stops at a
decision or at `--max-games`. Two kinds:

- `raw`: the pool as played: how often H1 is accepted and how many games a decision takes.
- `null`: the pool's deal values shifted so that H0 holds exactly (results to mean 1/2 for Elo
  tests, score differences to mean 0 for points tests; the spread and shape stay those of the real
  deals): the rate of accepting H1 must stay near alpha (within alpha + 2 standard errors).

With `--luck`, the pool is analysed and the report's luck-removed interval of the score difference is
printed against the plain one (width ratio; games factor = 1 / ratio²).
"""
from __future__ import annotations

import os
import time

import numpy as np


def add_parser(sub):
    p = sub.add_parser("sprt", help="SPRT calibration by simulation over a played pool", description=__doc__)
    p.add_argument("candidate")
    p.add_argument("opponent")
    p.add_argument("--sprt", default="elo0=0,elo1=10")
    p.add_argument("--pool", type=int, default=20_000, help="games played into the pool")
    p.add_argument("--tests", type=int, default=400)
    p.add_argument("--batch", type=int, default=100, help="deals between two looks")
    p.add_argument("--max-games", type=int, default=200_000)
    p.add_argument("--kind", choices=("raw", "null", "both"), default="both")
    p.add_argument("--luck", action="store_true")
    p.add_argument("--out", default=None)
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--seed", type=int, default=0)
    return p


def simulate(values, sprt, batch: int, max_deals: int, tests: int, seed: int, m: int = 2):
    """(decisions, deals used) of `tests` simulated tests drawing from `values`."""
    rng = np.random.default_rng(seed)
    decisions, used = [], []
    for _ in range(tests):
        draws = np.empty(0)
        decision = None
        while decision is None and len(draws) < max_deals:
            draws = np.concatenate([draws, rng.choice(values, size=batch)])
            decision = sprt.decide(sprt.llr(draws, m))
        decisions.append(decision)
        used.append(len(draws))
    return decisions, np.array(used)


def run(args):
    import tempfile

    from tournaments.match import MatchTally, match_config, run_match
    from tournaments.sprt import parse_sprt
    from tournaments.store import Store

    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs")
    sprt = parse_sprt(args.sprt)
    out = args.out or tempfile.mkdtemp(prefix="bench-sprt-")
    cfg = match_config(args.candidate, [args.opponent], args.pool, seed=args.seed)
    t = time.perf_counter()
    doc = run_match(cfg, None, out=out, workers=args.workers, progress=False, analysis=args.luck)
    print(f"pool: {doc['games']} games of {args.candidate} against {args.opponent} in {out} "
          f"({time.perf_counter() - t:.0f} s); score {doc['score']:.4f}, normalized Elo "
          f"{doc.get('nelo', float('nan')):.1f} {doc.get('nelo_ci95')}, points {doc['points']:.2f} "
          f"{doc['points_ci95']}")
    tally = MatchTally(Store(out).config())
    for rec in Store(out).stream():
        tally.add(rec)
    results, diffs = tally.deals(tally.complete())
    values = results if sprt.kind == "elo" else diffs
    print(f"test: {sprt.describe()}; a look every {args.batch} deals, at most {args.max_games} games")
    kinds = ("raw", "null") if args.kind == "both" else (args.kind,)
    for kind in kinds:
        v = values - values.mean() + (0.5 if sprt.kind == "elo" else 0.0) if kind == "null" else values
        if v.var() == 0:
            print(f"{kind}: every deal has the same value ({v[0]:g}): the LLR stays 0 and no test decides")
            continue
        decisions, deals = simulate(v, sprt, args.batch, args.max_games // 2, args.tests, args.seed + 1)
        h1 = sum(d == "H1" for d in decisions) / len(decisions)
        h0 = sum(d == "H0" for d in decisions) / len(decisions)
        se = np.sqrt(h1 * (1 - h1) / len(decisions))
        games = 2 * deals[[d is not None for d in decisions]]
        q = (f"games to decision: median {np.median(games):.0f}, 90th percentile {np.percentile(games, 90):.0f}"
             if len(games) else "no decision")
        print(f"{kind}: {args.tests} tests: H1 accepted {h1:.3f} (± {2 * se:.3f} at 2 SE; alpha {sprt.alpha}), "
              f"H0 accepted {h0:.3f}, undecided {1 - h1 - h0:.3f}; {q}")
    if args.luck and doc.get("luck"):
        for p in doc["luck"]["pairs"]:
            print(f"luck: {p['a']} - {p['b']} over {p['games']} games: plain {p['mean_diff']:.2f} {p['ci95_plain']}, "
                  f"luck removed {p['luck_removed']:.2f} {p['ci95_luck_removed']}: width ratio "
                  f"{p['width_ratio']:.3f}, games factor {p['games_factor']:.1f}")
