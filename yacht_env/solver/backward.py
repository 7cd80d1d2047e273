"""Backward induction over the solitaire states, one layer (number of filled boxes) at a time.

Layer n (every box filled) is worth 0; a state of layer L is worth the turn widget's start value,
which reads layer L + 1. States of one layer are independent: they run in a numba `prange`, and
the states of one fill pattern and flag go through the widget up to 8 upper totals at a time (`lanes`).
Besides the value, each state carries the second moment of the future score and the expected
number of upper bonuses, Yacht = 50 boxes and extra-Yacht bonuses still to come under the optimal
policy, so the start state gives the score's standard deviation and the bonus odds.
"""
import numba as nb
import numpy as np

from ..core.dice import NUM_KEEPS, NUM_ROLLS
from .lanes import (LANES, MIN_LANES, fill_lanes, lane_scratch, odds_lanes, reroll_lanes, score_lanes, start_lanes,
                    stats_lanes)
from .widget import box_table, final_roll_odds, reroll_stages, score_stage, start_value


@nb.njit(cache=True)
def _state_stats(T, space, prep, u, opts, extra, choice, NX, odds, V, A, idx):
    """A[idx] = (E[future^2], upper bonuses, Yacht = 50 boxes, extra Yachts) to come, following `choice`."""
    yacht_points = space[3]
    gain = prep[0]
    e2 = pub = py = ex = 0.0
    for r in range(NUM_ROLLS):
        p = odds[r]
        if p == 0.0:
            continue
        b = choice[r]
        pts = opts[r, b]
        ub = gain[b, u, pts]
        g = float(pts + ub + extra[r])
        s2 = NX[b, pts]
        a = A[s2]
        e2 += p * (g * g + 2.0 * g * V[s2] + a[0])
        pub += p * ((ub > 0) + a[1])
        py += p * ((b == T.yacht_box and pts == yacht_points and pts > 0) + a[2])
        ex += p * ((extra[r] > 0) + a[3])
    A[idx, 0] = e2
    A[idx, 1] = pub
    A[idx, 2] = py
    A[idx, 3] = ex


@nb.njit(cache=True, parallel=True)
def solve_layer(T, space, prep, masks, reach, n_stages, V, A, stats):
    """Fill V (and, with `stats`, the moments A) for every reachable state whose mask is in `masks`.

    `risk._risk_layer` walks the states the same way, a deliberate twin: it takes a utility between the scoring
    stage and the re-roll stages, and the two are kept apart so this value solve stays as measured."""
    n_upper, n_flag = space[0], space[1]
    nbox = T.n_boxes
    top = prep[0].shape[2]
    n_items = masks.shape[0] * n_flag
    for i in nb.prange(n_items):
        mask = masks[i // n_flag]
        flag = i % n_flag
        if flag == 1 and not (mask >> T.yacht_box) & 1:
            continue  # the flag is set only by filling the Yacht box
        opts = np.empty((NUM_ROLLS, nbox), dtype=np.int32)
        extra = np.empty(NUM_ROLLS, dtype=np.int32)
        S, best, K, kb, choice, W, NX, start, us = lane_scratch(nbox, top, n_stages)
        idx = np.empty(LANES, dtype=np.int64)
        oddsL = np.empty((NUM_ROLLS, LANES))
        mL = np.empty((NUM_ROLLS, LANES))
        massL = np.empty((NUM_KEEPS, LANES))
        acc = np.empty((4, LANES))
        best1 = np.empty((n_stages + 1, NUM_ROLLS), dtype=np.int32)
        choice1 = np.empty(NUM_ROLLS, dtype=np.int32)
        NX1 = np.empty((nbox, top), dtype=np.int64)
        odds = np.empty(NUM_ROLLS)
        mass = np.empty(NUM_KEEPS)
        S1 = np.empty((n_stages + 1, NUM_ROLLS))
        K1 = np.empty(NUM_KEEPS)
        kb1 = np.empty(NUM_KEEPS, dtype=np.int32)
        W1 = np.empty((nbox, top))
        box_table(T, mask, flag == 1, opts, extra)
        u = 0
        while u < n_upper:
            n, u = fill_lanes(reach, mask, u, n_upper, us)
            if n == 0:
                break
            if n < MIN_LANES:  # too few states to fill the lanes: one at a time
                for j in range(n):
                    score_stage(T, V, space, prep, mask, us[j], flag, opts, extra, W1, NX1, S1[0], choice1)
                    reroll_stages(S1, K1, kb1, best1, n_stages)
                    i1 = (mask * n_upper + us[j]) * n_flag + flag
                    V[i1] = start_value(S1[n_stages])
                    if stats:
                        final_roll_odds(best1, n_stages, odds, mass)
                        _state_stats(T, space, prep, us[j], opts, extra, choice1, NX1, odds, V, A, i1)
                continue
            score_lanes(T, V, space, prep, mask, us, n, flag, opts, extra, W, NX, S[0], choice)
            reroll_lanes(S, K, kb, best, n_stages)
            start_lanes(S[n_stages], start)
            for j in range(n):
                idx[j] = (mask * n_upper + us[j]) * n_flag + flag
                V[idx[j]] = start[j]
            if stats:
                odds_lanes(best, n_stages, oddsL, mL, massL)
                stats_lanes(T, space, prep, us, n, opts, extra, choice, NX, oddsL, V, A, idx, acc)
