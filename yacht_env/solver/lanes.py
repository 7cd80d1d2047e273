"""The turn widget for up to `LANES` states at once: same filled boxes and flag, different upper totals.

Such states share their legal boxes and points and every keep index, so each loop over rolls and
keeps does its arithmetic for all lanes in a short inner loop that the compiler vectorises. The
operations and their order per lane are those of `widget`, so the values are bit-identical
(tests/solver/test_solver_lanes.py): the two are deliberate twins, the one-state form for the agents and
small layers, the lane form for the solver's layers.
"""
from typing import NamedTuple

import numba as nb
import numpy as np

from .widget import _SIXTH, next_state

LANES = 8
MIN_LANES = 3  # fewer states than this go through the one-state widget


class Lanes(NamedTuple):
    """One thread's scratch arrays for the lane widget (`lane_scratch`; a numba-friendly named tuple); lane j is
    the state with upper total us[j].

    opts[r, b], extra[r]   the box table of the lanes' filled boxes and flag (`widget.box_table`)
    S[L, r, j]             stage values (L re-rolls left)
    best[L, r, j]          the keep chosen with L re-rolls left (L >= 1)
    K[k, j], kb[k, j]      keep values and best sub-keeps
    choice[r, j]           the box roll r is scored in
    W[b, p, j]             upper bonus + value of the state p points in box b lead to
    NX[b, p, j]            that state
    start[j]               the expected value at the start of the turn (`start_lanes`)
    us[j]                  the lane's upper total
    """
    opts: np.ndarray
    extra: np.ndarray
    S: np.ndarray
    best: np.ndarray
    K: np.ndarray
    kb: np.ndarray
    choice: np.ndarray
    W: np.ndarray
    NX: np.ndarray
    start: np.ndarray
    us: np.ndarray


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
def lane_scratch(M, n_stages):
    """One thread's `Lanes`: (S, best, K, kb, choice, W, NX) zeroed, the others empty."""
    R, nbox, top, nk = M.D.n_rolls, M.T.n_boxes, M.L.gain.shape[2], M.D.n_keeps
    return Lanes(np.empty((R, nbox), dtype=np.int32), np.empty(R, dtype=np.int32),
                 np.zeros((n_stages + 1, R, LANES)), np.zeros((n_stages + 1, R, LANES), dtype=np.int32),
                 np.zeros((nk, LANES)), np.zeros((nk, LANES), dtype=np.int32), np.zeros((R, LANES), dtype=np.int32),
                 np.zeros((nbox, top, LANES)), np.zeros((nbox, top, LANES), dtype=np.int64), np.empty(LANES),
                 np.empty(LANES, dtype=np.int64))


@nb.njit(cache=True)
def score_lanes(M, V, mask, flag, n, X):
    """Lane j (< n) is the state with upper total X.us[j]: X.S[0, r, j], X.choice[r, j], X.W[b, p, j],
    X.NX[b, p, j] from X.opts, X.extra. The lane form of `widget.score_stage`, a deliberate twin (the module
    docstring)."""
    gain, points, n_points = M.L.gain, M.L.points, M.L.n_points
    T, space = M.T, M.space
    box_face, yacht_box = T.box_face, T.yacht_box
    us, opts, extra, W, NX, S0, choice = X.us, X.opts, X.extra, X.W, X.NX, X.S[0], X.choice
    nbox = T.n_boxes
    for b in range(nbox):
        if not (mask >> b) & 1:
            for i in range(n_points[b]):
                p = points[b, i]
                for j in range(n):
                    u = us[j]
                    nx = next_state(space, box_face, yacht_box, mask, u, flag, b, p)
                    NX[b, p, j] = nx
                    W[b, p, j] = gain[b, u, p] + V[nx]
    for r in range(M.D.n_rolls):
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
def reroll_lanes(M, X, n_stages):
    """X.S[L, r, j] for L = 1..n_stages from X.S[0]; X.best[L, r, j] = the keep chosen (see
    `widget.reroll_stages`)."""
    S, K, kb, best = X.S, X.K, X.kb, X.best
    small, keep_add, sub_count, sub_list = M.L.small, M.D.keep_add, M.L.sub_count, M.L.sub_list
    n_rolls, n_keeps = M.D.n_rolls, M.D.n_keeps
    for L in range(1, n_stages + 1):
        for r in range(n_rolls):
            for j in range(LANES):
                K[small + r, j] = S[L - 1, r, j]
        for k in range(small - 1, -1, -1):
            k0, k1, k2 = K[keep_add[k, 0]], K[keep_add[k, 1]], K[keep_add[k, 2]]
            k3, k4, k5 = K[keep_add[k, 3]], K[keep_add[k, 4]], K[keep_add[k, 5]]
            out = K[k]
            for j in range(LANES):
                out[j] = (k0[j] + k1[j] + k2[j] + k3[j] + k4[j] + k5[j]) * _SIXTH
        for r in range(n_rolls):
            for j in range(LANES):
                K[small + r, j] = S[0, r, j]
        for j in range(LANES):
            kb[0, j] = 0
        for k in range(1, n_keeps):
            m = K[k]
            bk = kb[k]
            for j in range(LANES):
                bk[j] = k
            for i in range(sub_count[k]):
                q = sub_list[k, i]
                kq = K[q]
                bq = kb[q]
                for j in range(LANES):
                    if kq[j] > m[j]:
                        m[j] = kq[j]
                        bk[j] = bq[j]
        for r in range(n_rolls):
            for j in range(LANES):
                S[L, r, j] = K[small + r, j]
                best[L, r, j] = kb[small + r, j]


@nb.njit(cache=True)
def start_lanes(M, X, n_stages):
    """X.start[j] = expected value of lane j at the start of the turn (from X.S[n_stages])."""
    out, S_first, roll_prob = X.start, X.S[n_stages], M.D.roll_prob
    for j in range(LANES):
        out[j] = 0.0
    for r in range(M.D.n_rolls):
        p = roll_prob[r]
        for j in range(LANES):
            out[j] += p * S_first[r, j]


@nb.njit(cache=True)
def odds_lanes(M, best, n_stages, out, m, mass):
    """out[r, j] = probability that lane j's turn is scored on roll r (see `widget.final_roll_odds`)."""
    small, keep_add, roll_prob, n_rolls = M.L.small, M.D.keep_add, M.D.roll_prob, M.D.n_rolls
    for r in range(n_rolls):
        for j in range(LANES):
            out[r, j] = 0.0
            m[r, j] = roll_prob[r]
    for L in range(n_stages, 0, -1):
        mass[:, :] = 0.0
        for r in range(n_rolls):
            for j in range(LANES):
                k = best[L, r, j]
                if k == small + r:
                    out[r, j] += m[r, j]
                else:
                    mass[k, j] += m[r, j]
        for k in range(small):
            x = mass[k]
            for f in range(6):
                y = mass[keep_add[k, f]]
                for j in range(LANES):
                    y[j] += x[j] * _SIXTH
        for r in range(n_rolls):
            for j in range(LANES):
                m[r, j] = mass[small + r, j]
    for r in range(n_rolls):
        for j in range(LANES):
            out[r, j] += m[r, j]


@nb.njit(cache=True)
def stats_lanes(M, X, n, odds, V, A, idx, acc):
    """A[idx[j]] = the moments of lane j (see `backward.scored_stats`), from X.choice, X.NX, X.opts, X.extra, X.us;
    acc is (4, LANES) scratch. Its walk over the rolls each turn is scored on is `distribution._mix`'s, a
    deliberate twin (this one sums moments, that one a pmf)."""
    yacht_points = M.space.yacht_points
    yacht_box = M.T.yacht_box
    gain = M.L.gain
    us, opts, extra, choice, NX = X.us, X.opts, X.extra, X.choice, X.NX
    acc[:, :] = 0.0
    for r in range(M.D.n_rolls):
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
            acc[2, j] += p * ((b == yacht_box and pts == yacht_points and pts > 0) + a[2])
            acc[3, j] += p * ((e > 0) + a[3])
    for j in range(n):
        for c in range(4):
            A[idx[j], c] = acc[c, j]
