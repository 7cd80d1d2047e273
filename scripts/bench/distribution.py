"""`bench.py distribution`: the score distributions' build against the value solve, side by side in one process.

Each round solves the rules (`yacht_env.solver.solve`, values and moments) and then builds the distributions
from that solution (`yacht_env.solver.distribution.build`), timing each by the process's CPU time
(`time.process_time`, every thread) and by the wall clock; `--one-state` also builds them with every state
through the one-state widget (the build before the lanes), interleaved in the same rounds. The kernels are
compiled first on a small rule set, outside the timers. Prints every round, the build / solve ratio of each
and the peak memory of the process (several solutions and distributions are alive at once).
"""

from __future__ import annotations

import resource
import time


def add_parser(sub):
    p = sub.add_parser("distribution", help="score distributions' build time against the value solve",
                       description=__doc__)
    p.add_argument("--rules", default="yacht", help="rule set (default yacht)")
    p.add_argument("--repeat", type=int, default=3, help="rounds (default 3)")
    p.add_argument("--one-state", action="store_true", help="also time the build with the one-state widget only")
    return p


def _timed(fn, *args, **kwargs):
    c, w = time.process_time(), time.perf_counter()
    out = fn(*args, **kwargs)
    return out, time.process_time() - c, time.perf_counter() - w


def run(args):
    from yacht_env.rules import load
    from yacht_env.solver.distribution import build
    from yacht_env.solver.lanes import LANES
    from yacht_env.solver.solve import solve

    small = load("classic")
    s = solve(small, progress=False)
    build(small, s)
    build(small, s, min_lanes=LANES + 1)
    rules = load(args.rules)
    print(f"rules {args.rules}: CPU-s (wall s) per round")
    ratios, old = [], []
    for i in range(max(1, args.repeat)):
        solution, cs, ws = _timed(solve, rules, progress=False)
        dist, cb, wb = _timed(build, rules, solution)
        line = f"round {i + 1}: solve {cs:.2f} ({ws:.2f})  build {cb:.2f} ({wb:.2f})  build/solve {cb / cs:.2f}x"
        ratios.append(cb / cs)
        del dist
        if args.one_state:
            dist, co, wo = _timed(build, rules, solution, min_lanes=LANES + 1)
            line += f"  one-state build {co:.2f} ({wo:.2f}) = {co / cs:.2f}x"
            old.append(co / cs)
            del dist
        del solution
        print(line, flush=True)
    print(f"build/solve (CPU): {min(ratios):.2f}-{max(ratios):.2f}x over {len(ratios)} rounds"
          + (f"; one-state build {min(old):.2f}-{max(old):.2f}x" if old else ""))
    print(f"peak RSS of the process: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6:.2f} GB")
    return 0
