"""The turn widget for up to `LANES` states at once: same filled boxes and flag, different upper totals.

Such states share their legal boxes and points and every keep index, so each loop over rolls and
keeps does its arithmetic for all lanes in a short inner loop that the compiler vectorises. The
operations and their order per lane are those of `widget`, so the values are bit-identical
(tests/solver/test_solver_lanes.py): the two are deliberate twins, the one-state form for the agents and
small layers, the lane form for the solver's layers.
"""
import numba as nb
import numpy as np

from ..core.dice import KEEP_ADD, NUM_KEEPS, NUM_ROLLS, ROLL_PROB
from .widget import SMALL, SUB_COUNT, SUB_LIST, _SIXTH, next_state

LANES = 8
MIN_LANES = 3  # fewer states than this go through the one-state widget


@nb.njit(cache=True)
def fill_lanes(reach, mask, u, n_upper, us):
    """Put the reachable upper totals of `mask` from `u` on into us[:n], n <= LANES; returns (n, the next u)."""
    n = 0
    while u < n_upper and n < LANES:
        if reach[mask, u]:
            us[n] = u
            n += 1
        u += 1
    return n, u


@nb.njit(cache=True)
def lane_scratch(nbox, top, n_stages):
    """One thread's work arrays for the lane widget: (S, best, K, kb, choice, W, NX) zeroed, (start, us) empty."""
    return (np.zeros((n_stages + 1, NUM_ROLLS, LANES)), np.zeros((n_stages + 1, NUM_ROLLS, LANES), dtype=np.int32),
            np.zeros((NUM_KEEPS, LANES)), np.zeros((NUM_KEEPS, LANES), dtype=np.int32),
            np.zeros((NUM_ROLLS, LANES), dtype=np.int32), np.zeros((nbox, top, LANES)),
            np.zeros((nbox, top, LANES), dtype=np.int64), np.empty(LANES), np.empty(LANES, dtype=np.int64))


@nb.njit(cache=True)
def score_lanes(T, V, space, prep, mask, us, n, flag, opts, extra, W, NX, S0, choice):
    """Lane j (< n) is the state with upper total us[j]: S0[r, j], choice[r, j], W[b, p, j], NX[b, p, j]. The lane
    form of `widget.score_stage`, a deliberate twin (the module docstring)."""
    n_upper, n_flag, threshold, yacht_points = space
    gain, points, n_points = prep
    nbox = T.n_boxes
    box_face = T.box_face
    yacht_box = T.yacht_box
    for b in range(nbox):
        if not (mask >> b) & 1:
            for i in range(n_points[b]):
                p = points[b, i]
                for j in range(n):
                    u = us[j]
                    nx = next_state(box_face, yacht_box, n_upper, n_flag, threshold, yacht_points, mask, u, flag, b, p)
                    NX[b, p, j] = nx
                    W[b, p, j] = gain[b, u, p] + V[nx]
    for r in range(NUM_ROLLS):
        row = S0[r]
        ch = choice[r]
        for j in range(LANES):
            row[j] = -1e300
            ch[j] = -1
        e = extra[r]
        for b in range(nbox):
            p = opts[r, b]
            if p < 0:
                continue
            base = p + e
            w = W[b, p]
            for j in range(LANES):
                v = base + w[j]
                if v > row[j]:
                    row[j] = v
                    ch[j] = b


@nb.njit(cache=True)
def reroll_lanes(S, K, kb, best, n_stages):
    """S[L, r, j] for L = 1..n_stages from S[0]; best[L, r, j] = the keep chosen (see `widget.reroll_stages`)."""
    for L in range(1, n_stages + 1):
        for r in range(NUM_ROLLS):
            for j in range(LANES):
                K[SMALL + r, j] = S[L - 1, r, j]
        for k in range(SMALL - 1, -1, -1):
            a = KEEP_ADD[k]
            k0, k1, k2, k3, k4, k5 = K[a[0]], K[a[1]], K[a[2]], K[a[3]], K[a[4]], K[a[5]]
            out = K[k]
            for j in range(LANES):
                out[j] = (k0[j] + k1[j] + k2[j] + k3[j] + k4[j] + k5[j]) * _SIXTH
        for r in range(NUM_ROLLS):
            for j in range(LANES):
                K[SMALL + r, j] = S[0, r, j]
        for j in range(LANES):
            kb[0, j] = 0
        for k in range(1, NUM_KEEPS):
            m = K[k]
            bk = kb[k]
            for j in range(LANES):
                bk[j] = k
            s = SUB_LIST[k]
            for i in range(SUB_COUNT[k]):
                q = s[i]
                kq = K[q]
                bq = kb[q]
                for j in range(LANES):
                    if kq[j] > m[j]:
                        m[j] = kq[j]
                        bk[j] = bq[j]
        for r in range(NUM_ROLLS):
            for j in range(LANES):
                S[L, r, j] = K[SMALL + r, j]
                best[L, r, j] = kb[SMALL + r, j]


@nb.njit(cache=True)
def start_lanes(S_first, out):
    """out[j] = expected value of lane j at the start of the turn."""
    for j in range(LANES):
        out[j] = 0.0
    for r in range(NUM_ROLLS):
        p = ROLL_PROB[r]
        for j in range(LANES):
            out[j] += p * S_first[r, j]


@nb.njit(cache=True)
def odds_lanes(best, n_stages, out, m, mass):
    """out[r, j] = probability that lane j's turn is scored on roll r (see `widget.final_roll_odds`)."""
    for r in range(NUM_ROLLS):
        for j in range(LANES):
            out[r, j] = 0.0
            m[r, j] = ROLL_PROB[r]
    for L in range(n_stages, 0, -1):
        mass[:, :] = 0.0
        for r in range(NUM_ROLLS):
            for j in range(LANES):
                k = best[L, r, j]
                if k == SMALL + r:
                    out[r, j] += m[r, j]
                else:
                    mass[k, j] += m[r, j]
        for k in range(SMALL):
            x = mass[k]
            a = KEEP_ADD[k]
            for f in range(6):
                y = mass[a[f]]
                for j in range(LANES):
                    y[j] += x[j] * _SIXTH
        for r in range(NUM_ROLLS):
            for j in range(LANES):
                m[r, j] = mass[SMALL + r, j]
    for r in range(NUM_ROLLS):
        for j in range(LANES):
            out[r, j] += m[r, j]


@nb.njit(cache=True)
def stats_lanes(T, space, prep, us, n, opts, extra, choice, NX, odds, V, A, idx, acc):
    """A[idx[j]] = the moments of lane j (see `backward._state_stats`); acc is (4, LANES) scratch. Its walk over
    the rolls each turn is scored on is `distribution._mix`'s, a deliberate twin (this one sums moments, that
    one a pmf)."""
    yacht_points = space[3]
    gain = prep[0]
    acc[:, :] = 0.0
    for r in range(NUM_ROLLS):
        e = extra[r]
        for j in range(n):
            p = odds[r, j]
            if p == 0.0:
                continue
            b = choice[r, j]
            pts = opts[r, b]
            ub = gain[b, us[j], pts]
            g = float(pts + ub + e)
            s2 = NX[b, pts, j]
            a = A[s2]
            acc[0, j] += p * (g * g + 2.0 * g * V[s2] + a[0])
            acc[1, j] += p * ((ub > 0) + a[1])
            acc[2, j] += p * ((b == T.yacht_box and pts == yacht_points and pts > 0) + a[2])
            acc[3, j] += p * ((e > 0) + a[3])
    for j in range(n):
        for c in range(4):
            A[idx[j], c] = acc[c, j]
