"""`bench.py adaptive`: games an adaptive schedule takes to rank a ladder, against fixed round robins.

The ladder: `strong?strength=0.5, 0.6, 0.7, 0.8, 0.9` (five entrants, two seats, names s5 .. s9, true
order s9 > s8 > s7 > s6 > s5). For each of `--seeds` seeds an adaptive run (`schedule: adaptive`,
`--games` deals a table, `--confidence`, at most 40 rounds) is played: its games, whether it stopped
confident, whether its ranking is the true order, and how many neighbour pairs it got wrong. Then fixed
round robins of each size in `--round-robin` (deals per table) are played on the same seeds and ranked
by the same fit: how often every neighbour pair reaches the confidence there, with how many games.
"""
from __future__ import annotations

import os
import tempfile
import time

import numpy as np

LADDER = [{"name": f"s{s}", "agent": f"strong?strength=0.{s}"} for s in (5, 6, 7, 8, 9)]
TRUE = ["s9", "s8", "s7", "s6", "s5"]


def add_parser(sub):
    p = sub.add_parser("adaptive", help="adaptive schedule against fixed round robins on a ladder",
                       description=__doc__)
    p.add_argument("--seeds", type=int, default=20)
    p.add_argument("--games", type=int, default=10, help="deals per table of the adaptive schedule")
    p.add_argument("--confidence", type=float, default=0.95)
    p.add_argument("--round-robin", default="5,10,20", help="deals per table of the fixed round robins")
    return p


def run(args):
    from tournaments.formats.adaptive import ranking
    from tournaments.config import parse_config
    from tournaments.ratings import StageCounts
    from tournaments.run import run_tournament
    from tournaments.store import Store

    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs")
    out = tempfile.mkdtemp(prefix="bench-adaptive-")
    t = time.perf_counter()
    games, right, wrong, confident = [], 0, 0, 0
    for seed in range(args.seeds):
        cfg = parse_config({"name": "dial", "entrants": LADDER, "games": args.games, "seed": seed,
                            "schedule": "adaptive", "rounds": 40, "confidence": args.confidence})
        res = run_tournament(cfg, out=f"{out}/a{seed}", progress=False, analysis=False)
        order = [x["agent"] for x in res["adaptive"]["ranking"]]
        right += order == TRUE
        wrong += sum(TRUE.index(a) > TRUE.index(b) for a, b in zip(order, order[1:]))
        confident += res["adaptive"]["stopped"] == "confident"
        games.append(res["tournament"]["games_played"])
    g = np.array(games)
    print(f"adaptive, {args.games} deals a table, confidence {args.confidence}: stopped confident {confident} of "
          f"{args.seeds}, true order {right} of {args.seeds}, neighbour pairs wrong {wrong} of {4 * args.seeds}; "
          f"games median {np.median(g):.0f}, 90th percentile {np.percentile(g, 90):.0f}, max {g.max()} "
          f"({time.perf_counter() - t:.0f} s)")
    for deals in (int(x) for x in args.round_robin.split(",")):
        sure, right = 0, 0
        for seed in range(args.seeds):
            cfg = parse_config({"name": "dialrr", "entrants": LADDER, "games": deals, "seed": seed})
            run_tournament(cfg, out=f"{out}/r{deals}-{seed}", progress=False, analysis=False)
            counts = StageCounts(list(cfg.entrants))
            for r in Store(f"{out}/r{deals}-{seed}").stream():
                counts.add(r)
            order, conf, _ = ranking(counts)
            sure += min(conf) >= args.confidence
            right += [list(cfg.entrants)[i] for i in order] == TRUE
        print(f"round robin, {deals} deals a table ({cfg.total_games} games): every neighbour pair at "
              f"{args.confidence} in {sure} of {args.seeds}, true order {right} of {args.seeds}")
