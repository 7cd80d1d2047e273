"""`bench.py sprt`: SPRT calibration and the games a decision takes, by simulation over played deals.

A pool of `--pool` games of CANDIDATE against the OPPONENTs at tables of `--seats` (give `seats - 1`
opponents; a spec may repeat) is played once (`yacht match` without a test, into `--out`, resumable).
Then `--tests` sequential tests are simulated: each draws deals at random (with replacement) from the
pool, looks every `--batch` deals as `yacht match` does, and stops at a decision or at `--max-games`.
Two kinds:

- `raw`: the pool as played: how often H1 is accepted and how many games a decision takes.
- `null`: deals drawn so that H0 holds exactly: for the Elo test on the deals' points (`test=gsprt`, the
  default) from the distribution of deal points closest to the pool's among those H0 allows (the GSPRT's
  own maximum-likelihood distribution under H0: mean score s0 for logistic Elo, (mu - 1/2) / sigma at
  elo0 for normalized Elo; its support and shape are the pool's); for the normal test and for points the
  pool's deal values shifted to the H0 mean (results to 1/2, score differences to 0). The rate of
  accepting H1 must stay near alpha (within alpha + 2 standard errors).

`--compare` runs the other Elo test on the same draws beside it (gsprt and normal), and prints both rows:
the games each takes to a decision on identical deals. With `--luck`, the pool is analysed and the
report's luck-removed interval of the score difference is printed against the plain one.
"""
from __future__ import annotations

import math
import os
import time
from dataclasses import replace

import numpy as np


def add_parser(sub):
    p = sub.add_parser("sprt", help="SPRT calibration by simulation over a played pool", description=__doc__)
    p.add_argument("candidate")
    p.add_argument("opponents", nargs="+", metavar="opponent")
    p.add_argument("--seats", type=int, default=2)
    p.add_argument("--sprt", default="elo0=0,elo1=10")
    p.add_argument("--pool", type=int, default=20_000, help="games played into the pool")
    p.add_argument("--tests", type=int, default=400)
    p.add_argument("--batch", type=int, default=100, help="deals between two looks")
    p.add_argument("--max-games", type=int, default=200_000)
    p.add_argument("--kind", choices=("raw", "null", "both"), default="both")
    p.add_argument("--compare", action="store_true", help="also the other Elo test (gsprt / normal), same draws")
    p.add_argument("--luck", action="store_true")
    p.add_argument("--out", default=None)
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--seed", type=int, default=0)
    return p


def simulate(draw, tests_of, m: int, grid: int, batch: int, max_deals: int, tests: int, seed: int):
    """Per test in `tests_of` (SPRTs): (decisions, deals used) over `tests` simulated runs, every SPRT on the
    same draws. draw(rng, n): n deal values (multiples of 1 / grid)."""
    rng = np.random.default_rng(seed)
    out = [([], []) for _ in tests_of]
    for _ in range(tests):
        draws = np.empty(0)
        pending = dict(enumerate(tests_of))
        while pending and len(draws) < max_deals:
            draws = np.concatenate([draws, draw(rng, batch)])
            for i, sprt in list(pending.items()):
                decision = sprt.decide(sprt.llr(draws, m, grid))
                if decision is not None:
                    out[i][0].append(decision)
                    out[i][1].append(len(draws))
                    del pending[i]
        for i in pending:
            out[i][0].append(None)
            out[i][1].append(len(draws))
    return [(d, np.array(u)) for d, u in out]


def null_draw(values: np.ndarray, sprt, m: int, grid: int):
    """A sampler of deal values under H0 (see the module's text)."""
    from tournaments.sprt import EMPTY, NELO, closest_with_mean, closest_with_t, deal_counts, logistic_score

    if sprt.kind == "elo" and sprt.test == "gsprt":
        counts = deal_counts(values, grid)
        support = np.linspace(0.0, 1.0, grid + 1)
        freq = np.where(counts > 0, counts, EMPTY)
        freq = freq / freq.sum()
        p = (closest_with_mean(support, freq, logistic_score(sprt.lo)) if sprt.model == "logistic"
             else closest_with_t(support, freq, sprt.lo * math.sqrt(m) / NELO))
        p = p / p.sum()
        return lambda rng, n: rng.choice(support, size=n, p=p)
    target = (logistic_score(sprt.lo) if sprt.model == "logistic" else 0.5) if sprt.kind == "elo" else sprt.lo
    shifted = values - values.mean() + target
    return lambda rng, n: rng.choice(shifted, size=n)


def run(args):
    import tempfile

    from tournaments.match import MatchTally, match_config, run_match
    from tournaments.sprt import parse_sprt
    from tournaments.store import Store

    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs")
    sprt = parse_sprt(args.sprt)
    out = args.out or tempfile.mkdtemp(prefix="bench-sprt-")
    cfg = match_config(args.candidate, args.opponents, args.pool, seed=args.seed, seats=args.seats)
    t = time.perf_counter()
    doc = run_match(cfg, None, out=out, workers=args.workers, progress=False, analysis=args.luck)
    print(f"pool: {doc['games']} games of {args.candidate} against {', '.join(args.opponents)} at {args.seats} "
          f"seats in {out} ({time.perf_counter() - t:.0f} s); score {doc['score']:.4f}, normalized Elo "
          f"{doc.get('nelo', float('nan')):.1f} {doc.get('nelo_ci95')}, points {doc['points']:.2f} "
          f"{doc['points_ci95']}; deal points {doc['deal_points']}")
    tally = MatchTally(Store(out).config())
    for rec in Store(out).stream():
        tally.add(rec)
    deals = tally.complete()
    results, diffs = tally.deals(deals)
    m, grid = tally.per_deal, tally.grid(deals)
    values = results if sprt.kind == "elo" else diffs
    tests = [sprt]
    if args.compare and sprt.kind == "elo":
        tests.append(replace(sprt, test="normal" if sprt.test == "gsprt" else "gsprt"))
    print(f"test: {sprt.describe()}; a look every {args.batch} deals, at most {args.max_games} games"
          + (f"; beside it on the same draws: {tests[1].test}" if len(tests) > 1 else ""))
    kinds = ("raw", "null") if args.kind == "both" else (args.kind,)
    for kind in kinds:
        if values.var() == 0:
            print(f"{kind}: every deal has the same value ({values[0]:g}): no test decides")
            continue
        draw = null_draw(values, sprt, m, grid) if kind == "null" else (lambda rng, n: rng.choice(values, size=n))
        runs = simulate(draw, tests, m, grid, args.batch, args.max_games // m, args.tests, args.seed + 1)
        for test, (decisions, used) in zip(tests, runs):
            h1 = sum(d == "H1" for d in decisions) / len(decisions)
            h0 = sum(d == "H0" for d in decisions) / len(decisions)
            se = np.sqrt(sprt.alpha * (1 - sprt.alpha) / len(decisions))      # of the rate at alpha
            games = m * used[[d is not None for d in decisions]]
            q = (f"games to decision: median {np.median(games):.0f}, 90th percentile {np.percentile(games, 90):.0f}"
                 if len(games) else "no decision")
            print(f"{kind} ({test.test if test.kind == 'elo' else 'points'}): {args.tests} tests: H1 accepted "
                  f"{h1:.3f} (bound alpha + 2 SE = {sprt.alpha + 2 * se:.3f}), H0 accepted {h0:.3f}, undecided "
                  f"{1 - h1 - h0:.3f}; {q}")
    if args.luck and doc.get("luck"):
        for p in doc["luck"]["pairs"]:
            print(f"luck: {p['a']} - {p['b']} over {p['games']} games: plain {p['mean_diff']:.2f} {p['ci95_plain']}, "
                  f"luck removed {p['luck_removed']:.2f} {p['ci95_luck_removed']}: width ratio "
                  f"{p['width_ratio']:.3f}, games factor {p['games_factor']:.1f}")
