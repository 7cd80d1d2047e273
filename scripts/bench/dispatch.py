"""`bench.py dispatch`: what numba's dispatcher costs per call, by how the arguments are packed.

A compiled function that reads two of its arrays is called with K int64 arrays passed as K arguments,
as `*args`, as one plain tuple, as one named tuple, and through `yacht_env.core.dispatch.direct` (the
compiled function for the arguments' types, no dispatch); then the one-seat kernel `step_games` with
the single `Yacht-v0`'s arguments, through the dispatcher and direct. The variants run interleaved in
rounds; the figure is the fastest round (microseconds per call).
"""

from __future__ import annotations

import os
import time
from collections import namedtuple

import numpy as np


def add_parser(sub):
    p = sub.add_parser("dispatch", help="numba's call cost by argument packing", description=__doc__)
    p.add_argument("--arrays", type=int, default=30, help="arrays per call (K)")
    p.add_argument("--calls", type=int, default=20_000, help="calls per variant per round")
    p.add_argument("--rounds", type=int, default=5)
    return p


def _variants(k: int) -> dict:
    import gymnasium as gym
    import numba as nb

    import yacht_env  # noqa: F401 - registers Yacht-v0
    from yacht_env.core.dispatch import direct
    from yacht_env.envs.batch import step_games

    arrays = [np.zeros((1, 5), np.int64) for _ in range(k)]
    names = [f"a{j}" for j in range(k)]
    scope: dict = {}
    exec(f"def positional({', '.join(names)}):\n    return {names[0]}[0, 0] + {names[-1]}[0, 0]\n", scope)
    positional = nb.njit(_nrt=False)(scope["positional"])
    star = nb.njit(_nrt=False)(lambda *t: t[0][0, 0] + t[-1][0, 0])
    packed = nb.njit(_nrt=False)(lambda t: t[0][0, 0] + t[-1][0, 0])
    plain, named = tuple(arrays), namedtuple("Named", names)(*arrays)
    env = gym.make("Yacht-v0")
    env.reset(seed=0)
    core = env.unwrapped.core
    core.step(core.own_actions)
    core.step(core.own_actions)
    fn, full = step_games, core._direct[1]
    out = {
        f"{k} arrays as {k} arguments": lambda: positional(*arrays),
        f"{k} arrays as *args": lambda: star(*arrays),
        f"{k} arrays in one tuple": lambda: packed(plain),
        f"{k} arrays in one named tuple": lambda: packed(named),
        f"{k} arrays as {k} arguments, direct": (direct(positional, arrays), arrays),
        f"{k} arrays in one named tuple, direct": (direct(packed, (named,)), (named,)),
        f"step_games, {len(full)} arguments, dispatcher": lambda: fn(*full),
        f"step_games, {len(full)} arguments, direct": (direct(fn, full), full),
    }
    for name, v in out.items():
        if isinstance(v, tuple):
            f, a = v
            out[name] = lambda f=f, a=a: f(*a)
        out[name]()
    return out


def run(args) -> int:
    variants = _variants(args.arrays)
    best = {name: float("inf") for name in variants}
    load = os.getloadavg()[0]
    for _ in range(args.rounds):
        for name, call in variants.items():
            t = time.perf_counter()
            for _ in range(args.calls):
                call()
            best[name] = min(best[name], (time.perf_counter() - t) / args.calls * 1e6)
    print(f"load average {load:.1f} -> {os.getloadavg()[0]:.1f}; fastest of {args.rounds} interleaved rounds "
          f"of {args.calls:,} calls")
    for name, us in best.items():
        print(f"{name:<48} {us:6.2f} us")
    return 0
