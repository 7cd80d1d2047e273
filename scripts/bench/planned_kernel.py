"""Where the planned step's compiled kernel spends its time (`yacht_env.envs.table_core.step_planned`).

    python scripts/bench.py planned_kernel [--tables 4096] [--warmup 300] [--states 20] [--repeats 5]
                                           [--base OTHER_TREE]

`YachtVs-v0`'s tables (the learner plus one `strong`, a random legal learner) are played `--warmup` steps
on one thread, then the arrays of `--states` consecutive steps (every array the kernel reads or writes)
and the learner's actions are kept. Each kept state is put back before each timed call, and the kernel
is timed whole and in its parts, one part at a time, on the calling thread (its CPU time, so that other
processes taking the core between do not count):

- learner: the learner's `play_action` at every table;
- opponent: where the learner's turn ended, the opponent's moves (`advance_table`) and the learner's next
  first roll (`_opponents_then_roll`), on the state the learner's moves left (without `step_planned`'s
  prefetching of the plans: cold, it shows the memory latency that hides);
- settle: the dice shown, the mask and the observation (`_settle`) on the state the opponents left.

Each part is timed warm (the caches as the previous call left them) and cold (a 64 MB array written
through first: the plans and the rule tables out of the caches, as after a step's Python). Figures are ns
per table-step (the call's CPU time / tables): minimum, 25th percentile and median over the kept states
times `--repeats`; plus how often the learner's move ended its turn and how many opponent turns followed.

`--base` names another checkout of the project: its `yacht_env` is imported as `yacht_base` (its own numba
cache folder) and its `step_planned` is timed on the same kept states, alternating call by call with this
tree's (after checking that both leave the same arrays), so that the load of a shared machine falls on both.
"""
from __future__ import annotations

import importlib
import importlib.util
import os
import sys
import time
from pathlib import Path

import numba
import numba as nb
import numpy as np

from yacht_env.core.actions import NUM_HOLDS
from yacht_env.core.engine import TURN, Arrays, play_action
from yacht_env.core.plan_source import PlanTables
from yacht_env.envs.batch import random_legal
from yacht_env.envs.table_core import TableCore, _opponents_then_roll, _settle, step_planned
from yacht_env.rules import load
from yacht_env.rules.tables import tables_of


def add_parser(sub):
    p = sub.add_parser("planned_kernel", help="the planned step's compiled kernel, whole and in parts")
    p.add_argument("--tables", type=int, default=4096)
    p.add_argument("--warmup", type=int, default=300, help="steps played before states are kept")
    p.add_argument("--states", type=int, default=20, help="consecutive steps kept and timed")
    p.add_argument("--repeats", type=int, default=5, help="timed calls per kept state and part")
    p.add_argument("--base", type=Path, help="another checkout whose step_planned is timed against this one's")
    return p


def import_base(tree: Path):
    """`tree`'s yacht_env as the package `yacht_base`; numba's cache folder is set back to this tree's after."""
    folder = numba.config.CACHE_DIR
    spec = importlib.util.spec_from_file_location("yacht_base", tree / "yacht_env" / "__init__.py",
                                                  submodule_search_locations=[str(tree / "yacht_env")])
    module = importlib.util.module_from_spec(spec)
    sys.modules["yacht_base"] = module
    spec.loader.exec_module(module)       # points numba's cache at the folder of tree's own source
    table_core = importlib.import_module("yacht_base.envs.table_core")
    numba.config.CACHE_DIR = folder
    return table_core.step_planned


@nb.njit(cache=True, nogil=True, _nrt=False)
def _learner(rows, actions, gains, ypts, num_players, num_sheets, arrays, tables):
    T, E = tables_of(tables), Arrays(*arrays)
    for j in range(rows.shape[0]):
        gains[j] = play_action(T, E, ypts, num_players, num_sheets, rows[j], actions[j])


@nb.njit(cache=True, nogil=True, _nrt=False)
def _opponents(rows, actions, gains, stuck, side, plan, ypts, num_players, num_sheets, turns, arrays, tables):
    T, E, P = tables_of(tables), Arrays(*arrays), PlanTables(*plan)
    for j in range(rows.shape[0]):
        stuck[j] = False
        if gains[j] >= 0 and actions[j] >= NUM_HOLDS:
            stuck[j] = not _opponents_then_roll(T, E, P, rows[j], side, ypts, num_players, num_sheets, turns)


@nb.njit(cache=True, nogil=True, _nrt=False)
def _settling(rows, stuck, rewards, over, seats, sheets, banked, final_total, shown, mask, obs, inv_scale, rounds,
              scale, no_preview, num_players, num_sheets, turns, arrays, tables):
    T, E = tables_of(tables), Arrays(*arrays)
    for j in range(rows.shape[0]):
        if not stuck[j]:
            _settle(T, E, rows[j], j, True, rewards, over, seats, sheets, banked, final_total, shown, mask, obs,
                    inv_scale, rounds, scale, no_preview, num_players, num_sheets, turns)


class Kept:
    """The arrays of one step (engine and core), and the learner's actions."""

    def __init__(self, core: TableCore, actions: np.ndarray):
        self.core = core
        self.arrays = [a.copy() for a in self.live()]
        self.actions = actions.copy()

    def live(self):
        c = self.core
        return [*c.state.arrays, c.banked, c.shown, c.mask, c.obs, c.final_total]

    def put_back(self) -> None:
        for live, kept in zip(self.live(), self.arrays):
            np.copyto(live, kept)


def play_steps(core: TableCore, rng, actions, steps: int, keep: list | None = None) -> None:
    n = core.num_tables
    for _ in range(steps):
        random_legal(core.mask, rng.random(n), actions)
        if keep is not None:
            keep.append(Kept(core, actions))
        _, over, _ = core.step(actions)
        if over.any():
            core.follow(np.flatnonzero(over))


def timed(fn, args, put_back, before, repeats: int, n: int, sweep=None) -> list[float]:
    """ns per table of fn(*args), `repeats` times, each on the kept state put back and the calls `before`
    ((function, args) pairs) made; with `sweep` (an array larger than the last level cache) the caches are
    swept first (cold), so that only the kept state's arrays are cached (as between steps), not the plans."""
    out = []
    for _ in range(repeats):
        if sweep is not None:
            np.add(sweep, 1, out=sweep)
        put_back()
        for f, f_args in before:
            f(*f_args)
        t = time.thread_time_ns()
        fn(*args)
        out.append((time.thread_time_ns() - t) / n)
    return out


def run(args):
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs")
    rules = load("yacht")
    n = args.tables
    core = TableCore(rules, n, 2, opponents=["strong"], seat=0, num_threads=1)
    core.begin(np.arange(n), np.arange(n))
    rng, actions = np.random.default_rng(0), np.zeros(n, np.int64)
    play_steps(core, rng, actions, args.warmup)
    kept: list[Kept] = []
    play_steps(core, rng, actions, args.states, kept)
    base = import_base(args.base) if args.base else None

    st, a = core.state, core._obs_args
    rows = core.rows
    gains, stuck = np.zeros(n, np.int64), np.zeros(n, np.bool_)
    rewards, over = np.zeros(n, np.float32), np.zeros(n, np.bool_)
    plan = tuple(core.planned.plan_tables(rules))
    head = (st.ypts, st.num_players, st.num_sheets)
    outputs = [gains, stuck, rewards, over]
    sweeps = {"cold": np.zeros(64 << 20, np.uint8), "warm": None}    # 64 MB: twice this machine's L3
    parts: dict[str, list[float]] = {}
    counts = np.zeros(3)
    for k in kept:
        acts = k.actions
        whole = (0, n, core.threads.ctrl, rows, acts, core.side, plan, *head, st.turns, gains, stuck, rewards, over,
                 core.seat, core.sheet, core.banked, core.final_total, core.shown, core.mask, core.obs, a.inv_scale,
                 a.rounds, a.scale, a.no_preview, st.arrays, st.table_fields)
        learner = (rows, acts, gains, *head, st.arrays, st.table_fields)
        opponents = (rows, acts, gains, stuck, core.side, plan, *head, st.turns, st.arrays, st.table_fields)
        settling = (rows, stuck, rewards, over, core.seat, core.sheet, core.banked, core.final_total, core.shown,
                    core.mask, core.obs, a.inv_scale, a.rounds, a.scale, a.no_preview, *head[1:], st.turns,
                    st.arrays, st.table_fields)
        k.put_back()
        before = st.ints.copy()
        _learner(*learner)
        _opponents(*opponents)
        scored = (gains >= 0) & (acts >= NUM_HOLDS)
        counts += (scored.sum(), (st.ints[:, TURN] - before[:, TURN])[scored].sum() - scored.sum(), stuck.sum())
        if base is not None:      # alternate the two trees' kernels call by call, on the same state
            results = []
            for kernel in (step_planned, base):
                k.put_back()
                kernel(*whole)
                results.append([x.copy() for x in k.live() + outputs])
            if not all(np.array_equal(x, y) for x, y in zip(*results)):
                raise SystemExit("the two trees' step_planned leave different arrays")
            for how in ("cold", "warm"):
                for r in range(args.repeats):
                    for kernel in ((step_planned, base) if r % 2 == 0 else (base, step_planned)):
                        key = f"{'this tree' if kernel is step_planned else 'base'} {how}"
                        parts.setdefault(key, []).extend(timed(kernel, whole, k.put_back, [], 1, n, sweeps[how]))
            continue
        for how in ("cold", "warm"):
            for name, fn, call, before_ in (("whole", step_planned, whole, []),
                                            ("learner", _learner, learner, []),
                                            ("opponent", _opponents, opponents, [(_learner, learner)]),
                                            ("settle", _settling, settling,
                                             [(_learner, learner), (_opponents, opponents)])):
                parts.setdefault(f"{name} {how}", []).extend(
                    timed(fn, call, k.put_back, before_, args.repeats, n, sweeps[how]))
    m = len(kept) * n
    print(f"{n} tables, {len(kept)} kept steps after {args.warmup}, {args.repeats} timed calls each, one thread")
    print(f"per table-step: learner scored {counts[0] / m:.3f}, opponent turns {counts[1] / m:.3f}, "
          f"stuck {counts[2] / m:.4f}; plans kept: {core.planned.policy_for(rules).count}")
    print("ns per table-step        min     p25  median")
    for name, v in parts.items():
        print(f"{name:<20} {np.min(v):7.1f} {np.percentile(v, 25):7.1f} {np.median(v):7.1f}")
    if base is not None:
        print(f"(base: step_planned of {args.base}, alternating call by call with this tree's on the same states)")
        for how in ("cold", "warm"):
            ratio = np.array(parts[f"this tree {how}"]) / np.array(parts[f"base {how}"])
            print(f"this tree / base, {how}: median of pairs {np.median(ratio):.3f} "
                  f"(p25 {np.percentile(ratio, 25):.3f}, p75 {np.percentile(ratio, 75):.3f})")
    print(f"load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
