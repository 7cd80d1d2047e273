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

from .lanes import LANES, MIN_LANES, fill_lanes, lane_scratch, odds_lanes, reroll_lanes, score_lanes, start_lanes, \
    stats_lanes
from .widget import Model, Widget, box_table, reroll_stages, score_stage, scored_odds, start_value


@nb.njit(cache=True)
def scored_stats(M, u, odds, choice, opts, extra, NX, V, A, idx):
    """A[idx] = (E[future^2], upper bonuses, Yacht = 50 boxes, extra Yachts) to come from a state at upper total u
    whose turn is scored on roll r in box choice[c, r] carrying c saved rolls with chance odds[c, r]
    (`widget.scored_odds`; one row without saved rolls); opts, extra: its box table; NX[b, p]: the sheet state
    p points in box b lead to, whose entry in V and A with c saved rolls is NX[b, p] * n_saved + c."""
    ns = odds.shape[0]
    yacht_points, yacht_box = M.space.yacht_points, M.T.yacht_box
    gain = M.L.gain
    e2 = pub = py = ex = 0.0
    for c in range(ns):
        for r in range(M.D.n_rolls):
            p = odds[c, r]
            if p == 0.0:
                continue
            b = choice[c, r]
            pts = opts[r, b]
            ub = gain[b, u, pts]
            g = float(pts + ub + extra[r])
            s2 = NX[b, pts] * ns + c
            a = A[s2]
            e2 += p * (g * g + 2.0 * g * V[s2] + a[0])
            pub += p * ((ub > 0) + a[1])
            py += p * ((b == yacht_box and pts == yacht_points and pts > 0) + a[2])
            ex += p * ((extra[r] > 0) + a[3])
    A[idx, 0] = e2
    A[idx, 1] = pub
    A[idx, 2] = py
    A[idx, 3] = ex


@nb.njit(cache=True, parallel=True)
def solve_layer(T, D, space, L, masks, reach, n_stages, V, A, stats):
    """Fill V (and, with `stats`, the moments A) for every reachable state whose mask is in `masks` (T, D, space, L:
    the parts of the rule set's `Model`).

    `risk._risk_layer` walks the states the same way, a deliberate twin: it takes a utility between the scoring
    stage and the re-roll stages, and the two are kept apart so this value solve stays as measured."""
    n_upper, n_flag = space.n_upper, space.n_flag
    yacht_box = T.yacht_box
    nbox = T.n_boxes
    top = L.gain.shape[2]
    n_rolls, n_keeps = D.n_rolls, D.n_keeps
    n_items = masks.shape[0] * n_flag
    for i in nb.prange(n_items):
        M = Model(T, D, space, L)
        mask = masks[i // n_flag]
        flag = i % n_flag
        if flag == 1 and not (mask >> yacht_box) & 1:
            continue  # the flag is set only by filling the Yacht box
        X = lane_scratch(M, n_stages)
        idx = np.empty(LANES, dtype=np.int64)
        oddsL = np.empty((n_rolls, LANES))
        mL = np.empty((n_rolls, LANES))
        massL = np.empty((n_keeps, LANES))
        acc = np.empty((4, LANES))
        S1 = np.empty((n_stages + 1, n_rolls))
        choice1 = np.empty(n_rolls, dtype=np.int32)
        X1 = Widget(X.opts, X.extra, np.empty((nbox, top)), np.empty((nbox, top), dtype=np.int64), S1[0], choice1,
                    np.empty(n_keeps), np.empty(n_keeps, dtype=np.int32), S1,
                    np.empty((n_stages + 1, n_rolls), dtype=np.int32), choice1)
        odds = np.empty((1, n_rolls))
        m1 = np.empty(n_rolls)
        mass = np.empty(n_keeps)
        box_table(M, mask, flag == 1, X.opts, X.extra)
        u = 0
        while u < n_upper:
            n, u = fill_lanes(reach, mask, u, n_upper, X.us)
            if n == 0:
                break
            if n < MIN_LANES:  # too few states to fill the lanes: one at a time
                for j in range(n):
                    score_stage(M, V, mask, X.us[j], flag, X1)
                    reroll_stages(M, S1, X1.K, X1.kb, X1.best, n_stages)
                    i1 = (mask * n_upper + X.us[j]) * n_flag + flag
                    V[i1] = start_value(M, S1[n_stages])
                    if stats:
                        scored_odds(M, X1.best, n_stages, 0, odds, m1, mass)
                        scored_stats(M, X.us[j], odds, choice1[np.newaxis, :], X.opts, X.extra, X1.NX, V, A, i1)
                continue
            score_lanes(M, V, mask, flag, n, X)
            reroll_lanes(M, X, n_stages)
            start_lanes(M, X, n_stages)
            for j in range(n):
                idx[j] = (mask * n_upper + X.us[j]) * n_flag + flag
                V[idx[j]] = X.start[j]
            if stats:
                odds_lanes(M, X.best, n_stages, oddsL, mL, massL)
                stats_lanes(M, X, n, oddsL, V, A, idx, acc)
