"""Many solitaire games of optimal play at once (numba), with the engine's seeded dice.

Game g uses `seeds[g]` exactly as `Game(seed=seeds[g])` does (sheet 0), so its score equals what
the strong agent scores in that game.
"""
import numba as nb
import numpy as np

from ..dice import HOLD_KEEP, NUM_KEEPS, NUM_ROLLS
from ..kernels import reroll
from .widget import SMALL, box_table, prepare, reroll_stages, score_stage


@nb.njit(cache=True, parallel=True)
def _simulate(T, V, space, prep, n_stages, seeds, scores):
    n_upper, n_flag = space[0], space[1]
    gain = prep[0]
    nbox = T.n_boxes
    for g in nb.prange(seeds.shape[0]):
        opts = np.empty((NUM_ROLLS, nbox), dtype=np.int32)
        extra = np.empty(NUM_ROLLS, dtype=np.int32)
        W = np.empty((nbox, gain.shape[2]))
        NX = np.empty((nbox, gain.shape[2]), dtype=np.int64)
        kb = np.empty(NUM_KEEPS, dtype=np.int32)
        S = np.empty((n_stages + 1, NUM_ROLLS))
        best = np.empty((n_stages + 1, NUM_ROLLS), dtype=np.int32)
        K = np.empty(NUM_KEEPS)
        choice = np.empty(NUM_ROLLS, dtype=np.int32)
        dice = np.zeros(5, dtype=np.int8)
        mask = 0
        u = 0
        flag = 0
        total = 0
        for turn in range(nbox):
            box_table(T, mask, flag == 1, opts, extra)
            score_stage(T, V, space, prep, mask, u, flag, opts, extra, W, NX, S[0], choice)
            reroll_stages(S, K, kb, best, n_stages)
            r = reroll(dice, 0, seeds[g], 0, turn, 0)
            for L in range(n_stages, 0, -1):
                k = best[L, r]
                if k == SMALL + r:
                    break
                hold = 0
                while HOLD_KEEP[r, hold] != k:
                    hold += 1
                r = reroll(dice, hold, seeds[g], 0, turn, n_stages + 1 - L)
            b = choice[r]
            p = opts[r, b]
            total += p + gain[b, u, p] + extra[r]
            nxt = NX[b, p]
            mask = mask | (1 << b)
            flag = nxt % n_flag
            u = (nxt // n_flag) % n_upper
        scores[g] = total


def simulate(rules, solution, seeds) -> np.ndarray:
    """Final scores of optimal solitaire games, one per seed (uint64)."""
    sp = solution.space
    seeds = np.asarray(seeds, dtype=np.uint64)
    scores = np.zeros(seeds.shape[0], dtype=np.int64)
    _simulate(rules.tables, solution.values, (sp.n_upper, sp.n_flag, sp.threshold, sp.yacht_points),
              prepare(rules.tables, sp.n_upper), rules.rolls_per_turn - 1, seeds, scores)
    return scores
