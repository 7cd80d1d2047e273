"""The turn widget for up to `LANES` states at once: same filled boxes and flag, different upper totals.

Such states share their legal boxes and points and every keep index, so each loop over rolls and
keeps does its arithmetic for all lanes in a short inner loop that the compiler vectorises. The
operations and their order per lane are those of `widget`, so the values are bit-identical.
"""
import numba as nb

from ..dice import KEEP_ADD, NUM_KEEPS, NUM_ROLLS, ROLL_PROB
from .widget import SMALL, SUB_COUNT, SUB_LIST, _SIXTH, next_state

LANES = 8
MIN_LANES = 3  # fewer states than this go through the one-state widget


@nb.njit(cache=True)
def score_lanes(T, V, space, prep, mask, us, n, flag, opts, extra, W, NX, S0, choice):
    """Lane j (< n) is the state with upper total us[j]: S0[r, j], choice[r, j], W[b, p, j], NX[b, p, j]."""
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
