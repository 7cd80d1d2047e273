"""Many solitaire games of optimal play at once (numba), with the engine's seeded dice.

Game g uses `seeds[g]` exactly as `Game(seed=seeds[g])` does (sheet 0), so its score equals what
the strong agent scores in that game. The games advance one turn at a time; games that start a turn
in the same state share one turn widget (every game shares the first turn's).
"""
import numba as nb
import numpy as np

from ..dice import HOLD_KEEP, NUM_KEEPS, NUM_ROLLS
from ..kernels import reroll
from .widget import SMALL, box_table, prepare, reroll_stages, score_stage


@nb.njit(cache=True, parallel=True)
def _play_turn(T, V, space, prep, n_stages, turn, seeds, order, starts, mask, upper, flag, total):
    """Play turn `turn` of every game; games order[starts[i]:starts[i + 1]] share a state."""
    n_upper, n_flag = space[0], space[1]
    gain = prep[0]
    nbox = T.n_boxes
    for grp in nb.prange(starts.shape[0] - 1):
        opts = np.empty((NUM_ROLLS, nbox), dtype=np.int32)
        extra = np.empty(NUM_ROLLS, dtype=np.int32)
        W = np.empty((nbox, gain.shape[2]))
        NX = np.empty((nbox, gain.shape[2]), dtype=np.int64)
        S = np.empty((n_stages + 1, NUM_ROLLS))
        best = np.empty((n_stages + 1, NUM_ROLLS), dtype=np.int32)
        K = np.empty(NUM_KEEPS)
        kb = np.empty(NUM_KEEPS, dtype=np.int32)
        choice = np.empty(NUM_ROLLS, dtype=np.int32)
        dice = np.zeros(5, dtype=np.int8)
        first = order[starts[grp]]
        m, u, f = mask[first], upper[first], flag[first]
        box_table(T, m, f == 1, opts, extra)
        score_stage(T, V, space, prep, m, u, f, opts, extra, W, NX, S[0], choice)
        reroll_stages(S, K, kb, best, n_stages)
        for i in range(starts[grp], starts[grp + 1]):
            g = order[i]
            r = reroll(dice, 0, seeds[g], 0, turn, 0)
            for L in range(n_stages, 0, -1):
                k = best[L, r]
                if k == SMALL + r:
                    break  # keep all five: score now
                hold = 0
                while HOLD_KEEP[r, hold] != k:
                    hold += 1
                r = reroll(dice, hold, seeds[g], 0, turn, n_stages + 1 - L)
            b = choice[r]
            p = opts[r, b]
            total[g] += p + gain[b, u, p] + extra[r]
            nxt = NX[b, p]
            mask[g] = m | (1 << b)
            flag[g] = nxt % n_flag
            upper[g] = (nxt // n_flag) % n_upper


def simulate(rules, solution, seeds) -> np.ndarray:
    """Final scores of optimal solitaire games, one per seed (uint64)."""
    sp = solution.space
    T = rules.tables
    seeds = np.asarray(seeds, dtype=np.uint64)
    n = seeds.shape[0]
    mask, upper, flag, total = (np.zeros(n, dtype=np.int64) for _ in range(4))
    space = (sp.n_upper, sp.n_flag, sp.threshold, sp.yacht_points)
    prep = prepare(T, sp.n_upper)
    for turn in range(T.n_boxes):
        key = (mask * sp.n_upper + upper) * sp.n_flag + flag
        order = np.argsort(key, kind="stable")
        sk = key[order]
        starts = np.flatnonzero(np.r_[True, sk[1:] != sk[:-1], True])
        _play_turn(T, solution.values, space, prep, rules.rolls_per_turn - 1, turn, seeds, order, starts,
                   mask, upper, flag, total)
    return total
