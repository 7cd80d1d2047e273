"""`bench.py luck`: how narrow the luck-removed interval of a mean score difference is, and whether it covers.

A pool of `--pool` games of CANDIDATE against OPPONENT (two seats, every deal in both seat orders) is
played once (`yacht match` without a test, into `--out`, resumable) and analysed (`agents.analysis`:
every decision's loss and every roll's luck terms, `LuckTerms`). Then:

- widths: over the first N deals of the pool (N from `--deals`, and the whole pool), the 95% interval
  of the plain duplicate-dice difference, of the split estimate (loss_b − loss_a) and of the fitted one
  (`tournaments.stats.luck_effect`: cross-fitted regression on both seats' luck terms), as the report
  computes them: width ratio fitted / plain and games factor (plain variance / fitted variance).
- coverage: `--sims` samples of N deals drawn with replacement from the pool; in that world the truth
  is the pool's mean plain difference, and the luck terms are centred on their pool means so that they
  have mean zero there, as they have exactly in play. Each sample's three intervals are computed as
  the report does; the share that covers the truth should be near 0.95 (± 2 standard errors shown).
"""
from __future__ import annotations

import math
import os
import time

import numpy as np


def add_parser(sub):
    p = sub.add_parser("luck", help="luck-removed intervals: width against the plain one, and coverage",
                       description=__doc__)
    p.add_argument("candidate")
    p.add_argument("opponent")
    p.add_argument("--pool", type=int, default=8000, help="games played into the pool")
    p.add_argument("--deals", default="500,2000", help="sample sizes in deals (comma separated)")
    p.add_argument("--sims", type=int, default=300)
    p.add_argument("--out", default=None)
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--seed", type=int, default=0)
    return p


def pool_rows(folder):
    """Per game of a two-entrant match folder: deal number, plain difference (candidate − opponent), split
    difference and both seats' luck terms (candidate's first)."""
    from agents.analysis import SectionTally
    from tournaments import games as compact_games
    from tournaments.store import Store

    store = Store(folder)
    config = store.config()
    candidate = list(config.entrants)[0]
    games = compact_games.read(store)
    tally = SectionTally(config.ruleset)
    for chunk in compact_games.chunks(store, games):
        tally.add(chunk)
    deal, plain, split, terms, index = [], [], [], [], {}
    for g, loss, luck in zip(games, tally.seat_loss, tally.seat_luck()):
        i = g.agents.index(candidate)
        j = 1 - i
        deal.append(index.setdefault((g.table, g.deal), len(index)))
        plain.append(g.totals[i] - g.totals[j])
        split.append(loss[j] - loss[i])
        terms.append(np.r_[luck[i], luck[j]])
    return np.array(deal), np.array(plain, float), np.array(split, float), np.array(terms), candidate


def intervals(deal, plain, split, terms):
    """(estimate, half width) of the plain, split and fitted estimates over these games (deal numbers 0..)."""
    from tournaments.stats import LUCK_MIN_DEALS, cross_fitted, deal_interval

    fitted = deal.max() + 1 >= LUCK_MIN_DEALS * (terms.shape[1] + 1)
    return (deal_interval(plain, deal), deal_interval(split, deal),
            deal_interval(cross_fitted(plain, terms, deal), deal) if fitted else (math.nan, math.nan))


def run(args):
    import tempfile

    from tournaments.match import match_config, run_match

    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs")
    out = args.out or tempfile.mkdtemp(prefix="bench-luck-")
    cfg = match_config(args.candidate, [args.opponent], args.pool, seed=args.seed)
    t = time.perf_counter()
    run_match(cfg, None, out=out, workers=args.workers, progress=False, analysis=False)
    deal, plain, split, terms, candidate = pool_rows(out)
    print(f"pool: {len(deal)} games ({deal.max() + 1} deals) of {candidate} against {args.opponent} in {out}, "
          f"played and analysed in {time.perf_counter() - t:.0f} s; {terms.shape[1]} luck terms per game")
    sizes = sorted({*(int(x) for x in args.deals.split(",")), int(deal.max()) + 1})
    print("widths over the first N deals of the pool (95% half widths):")
    for n in sizes:
        pick = deal < n
        (p, hp), (s, hs), (f, hf) = intervals(deal[pick], plain[pick], split[pick], terms[pick])
        print(f"  {n:6d} deals ({pick.sum()} games): plain {p:.2f} ± {hp:.3f}; split {s:.2f} ± {hs:.3f} "
              f"(ratio {hs / hp:.3f}); fitted {f:.2f} ± {hf:.3f} (ratio {hf / hp:.3f}, games factor "
              f"{(hp / hf) ** 2:.1f})")
    # coverage: resample deals from the pool, with the luck terms centred there (mean zero, as in play)
    centred = terms - terms.mean(axis=0)
    width = terms.shape[1] // 2
    split_c = split + (terms[:, 0] - terms[:, 0].mean()) - (terms[:, width] - terms[:, width].mean())
    truth = float(plain.mean())
    games_of = [np.flatnonzero(deal == d) for d in range(int(deal.max()) + 1)]
    rng = np.random.default_rng(args.seed + 1)
    for n in sizes[:-1]:
        hits = np.zeros(3)
        ratio = []
        for _ in range(args.sims):
            draw = rng.integers(len(games_of), size=n)
            rows = np.concatenate([games_of[d] for d in draw])
            new_deal = np.repeat(np.arange(n), [len(games_of[d]) for d in draw])
            est = intervals(new_deal, plain[rows], split_c[rows], centred[rows])
            hits += [abs(e - truth) <= h for e, h in est]
            ratio.append(est[2][1] / est[0][1])
        rate = hits / args.sims
        se = math.sqrt(0.95 * 0.05 / args.sims)
        print(f"coverage of the 95% intervals, {args.sims} samples of {n} deals (truth {truth:.2f}; 0.95 ± "
              f"{2 * se:.3f} at 2 SE): plain {rate[0]:.3f}, split {rate[1]:.3f}, fitted {rate[2]:.3f}; "
              f"fitted width ratio median {np.median(ratio):.3f}")
