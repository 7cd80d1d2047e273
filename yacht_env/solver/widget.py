"""The turn widget: one turn of optimal play from a state, over the 252 rolls and 462 keeps.

Stage 0 is the roll that must be scored: ``S[0, r]`` is the best box for roll r (points, upper
bonus, extra-Yacht bonus and the value of the state it leads to). Stage L (L re-rolls left) is
``S[L, r] = max over keeps k of roll r of K_L[k]``, where ``K_L[k]`` is the expected value of
keeping k and re-rolling the rest. Two tricks keep a stage near 3k operations:

- keep-by-one-die expectation: rolling the free dice one at a time, ``K[k] = mean_f K[k + f]``
  (`KEEP_ADD`), from the five-dice keeps (the rolls) down to the empty keep;
- sub-keep maximum: the best keep inside keep k is k itself or the best inside some k - f
  (`KEEP_SUB`), so one pass in size order gives the maximum over every sub-keep.

Keeping all five dice means scoring now, so the five-dice keeps take ``S[0]`` in the maximum.
Ties go to the larger keep (scoring before a pointless re-roll), then to the lower box index.
"""
import numba as nb
import numpy as np

from ..core.dice import KEEP_ADD, KEEP_SUB, NUM_KEEPS, NUM_ROLLS, ROLL_PROB
from ..core.kernels import box_options, upper_bonus_gain

SMALL = NUM_KEEPS - NUM_ROLLS  # keeps of fewer than five dice come first (index order = size order)
_SIXTH = 1.0 / 6.0
# KEEP_SUB without the gaps: SUB_LIST[k, :SUB_COUNT[k]] = keep k minus one die, by face
SUB_COUNT = (KEEP_SUB >= 0).sum(axis=1).astype(np.int32)
SUB_LIST = np.array([[j for j in row if j >= 0] + [-1] * int((row < 0).sum()) for row in KEEP_SUB], dtype=np.int32)


@nb.njit(cache=True)
def box_table(T, mask, flag, opts, extra):
    """opts[r, b] = points of roll r in box b (-1 = not allowed); extra[r] = extra-Yacht bonus paid."""
    for r in range(NUM_ROLLS):
        extra[r] = box_options(T, mask, flag, r, opts[r])


def prepare(T, n_upper):
    """Per-rule-set lookups the widget reads: (gain, points, n_points).

    gain[b, u, p]: upper bonus paid by p points in box b at capped upper total u (from the kernel);
    points[b, :n_points[b]]: every number of points box b can hold (plain, joker, 0).
    """
    top = int(max(T.score.max(), T.joker_score.max()))
    gain = np.zeros((T.n_boxes, n_upper, top + 1), dtype=np.int32)
    _fill_bonus(T, gain)
    values = [np.unique(np.concatenate([T.score[b], T.joker_score[b], [0]])) for b in range(T.n_boxes)]
    n_points = np.array([len(v) for v in values], dtype=np.int32)
    points = np.zeros((T.n_boxes, int(n_points.max())), dtype=np.int32)
    for b, v in enumerate(values):
        points[b, :len(v)] = v
    return gain, points, n_points


@nb.njit(cache=True)
def _fill_bonus(T, gain):
    for b in range(gain.shape[0]):
        for u in range(gain.shape[1]):
            for p in range(gain.shape[2]):
                gain[b, u, p] = upper_bonus_gain(T, u, p, b)


@nb.njit(cache=True, inline="always")
def next_state(box_face, yacht_box, n_upper, n_flag, threshold, yacht_points, mask, u, flag, b, pts):
    """Flat index of the state after writing `pts` in box b."""
    u2 = u
    if n_upper > 1 and box_face[b] > 0:
        u2 = min(u + pts, threshold)
    f2 = flag
    if n_flag > 1 and b == yacht_box and pts == yacht_points:
        f2 = 1
    return ((mask | (1 << b)) * n_upper + u2) * n_flag + f2


@nb.njit(cache=True)
def score_stage(T, V, space, prep, mask, u, flag, opts, extra, W, NX, S0, choice):
    """S0[r] = best value of scoring roll r now; choice[r] = the box.

    Filled first (boxes x points): NX[b, p] = the state after p points in box b, W[b, p] = its bonus + value.
    Its lane form is `lanes.score_lanes`, a deliberate twin: the same operations per lane, for several upper
    totals at once so the compiler vectorises them (bit-identical values: tests/solver/test_solver_lanes.py).
    """
    n_upper, n_flag, threshold, yacht_points = space
    gain, points, n_points = prep
    nbox = T.n_boxes
    box_face = T.box_face
    yacht_box = T.yacht_box
    for b in range(nbox):
        if not (mask >> b) & 1:
            for i in range(n_points[b]):
                p = points[b, i]
                nx = next_state(box_face, yacht_box, n_upper, n_flag, threshold, yacht_points, mask, u, flag, b, p)
                NX[b, p] = nx
                W[b, p] = gain[b, u, p] + V[nx]
    for r in range(NUM_ROLLS):
        best = -1e300
        bb = -1
        e = extra[r]
        row = opts[r]
        for b in range(nbox):
            p = row[b]
            if p < 0:
                continue
            v = p + e + W[b, p]
            if v > best:
                best = v
                bb = b
        S0[r] = best
        choice[r] = bb


@nb.njit(cache=True, inline="always")
def keep_values(S_next, K):
    """K[k] = expected S_next after keeping k and rolling the other dice (all 462 keeps)."""
    for r in range(NUM_ROLLS):
        K[SMALL + r] = S_next[r]
    for k in range(SMALL - 1, -1, -1):
        a = KEEP_ADD[k]
        K[k] = (K[a[0]] + K[a[1]] + K[a[2]] + K[a[3]] + K[a[4]] + K[a[5]]) * _SIXTH


@nb.njit(cache=True, inline="always")
def best_subkeep(S0, K, best):
    """Turn K into M[k] = max over sub-keeps j of k of K[j] (five dice: S0, scoring now); best[k] = argmax j."""
    for r in range(NUM_ROLLS):
        K[SMALL + r] = S0[r]
    best[0] = 0
    for k in range(1, NUM_KEEPS):
        m = K[k]
        bk = k
        s = SUB_LIST[k]
        for i in range(SUB_COUNT[k]):
            j = s[i]
            if K[j] > m:
                m = K[j]
                bk = best[j]
        K[k] = m
        best[k] = bk


@nb.njit(cache=True)
def reroll_stages(S, K, kb, best, n_stages):
    """Fill S[1..n_stages] from S[0]; best[L, r] = the keep chosen for roll r with L re-rolls left.

    K (floats) and kb (ints) are scratch arrays of NUM_KEEPS entries.
    """
    for L in range(1, n_stages + 1):
        keep_values(S[L - 1], K)
        best_subkeep(S[0], K, kb)
        for r in range(NUM_ROLLS):
            S[L, r] = K[SMALL + r]
            best[L, r] = kb[SMALL + r]


@nb.njit(cache=True)
def start_value(S_first):
    """Expected value at the start of the turn: the first roll is random."""
    e = 0.0
    for r in range(NUM_ROLLS):
        e += ROLL_PROB[r] * S_first[r]
    return e


@nb.njit(cache=True)
def final_roll_odds(best, n_stages, out, mass):
    """out[r] = probability that the turn is scored on roll r, following the argmax keeps `best`."""
    for r in range(NUM_ROLLS):
        out[r] = 0.0
    m = ROLL_PROB.copy()
    for L in range(n_stages, 0, -1):
        mass[:] = 0.0
        for r in range(NUM_ROLLS):
            k = best[L, r]
            if k == SMALL + r:
                out[r] += m[r]  # keep all five: score now
            else:
                mass[k] += m[r]
        for k in range(SMALL):
            x = mass[k]
            if x != 0.0:
                a = KEEP_ADD[k]
                x *= _SIXTH
                for f in range(6):
                    mass[a[f]] += x
        for r in range(NUM_ROLLS):
            m[r] = mass[SMALL + r]
    for r in range(NUM_ROLLS):
        out[r] += m[r]
