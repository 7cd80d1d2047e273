"""The turn widget: one turn of optimal play from a state, over the rolls and keeps of the rules' dice (252 rolls
and 462 keeps with five dice, 462 and 924 with six).

Stage 0 is the roll that must be scored: ``S[0, r]`` is the best box for roll r (points, upper
bonus, extra-Yacht bonus and the value of the state it leads to). Stage L (L re-rolls left) is
``S[L, r] = max over keeps k of roll r of K_L[k]``, where ``K_L[k]`` is the expected value of
keeping k and re-rolling the rest. Two tricks keep a stage near 3k operations:

- keep-by-one-die expectation: rolling the free dice one at a time, ``K[k] = mean_f K[k + f]``
  (`Dice.keep_add`), from the keeps of every die (the rolls) down to the empty keep;
- sub-keep maximum: the best keep inside keep k is k itself or the best inside some k - f
  (`Dice.keep_sub`), so one pass in size order gives the maximum over every sub-keep.

Keeping every die means scoring now, so the keeps of every die take ``S[0]`` in the maximum.
Ties go to the larger keep (scoring before a pointless re-roll), then to the lower box index.

Every kernel reads the rule set through one `Model` (`prepare`): the rule tables, the dice tables, the state
space and the per-rule-set lookups, and works in a `Widget` (`widget_scratch`), the named scratch arrays of one
turn widget.
"""
from functools import cache
from typing import NamedTuple

import numba as nb
import numpy as np

from ..core.dice import Dice, dice_tables
from ..core.kernels import box_options, upper_bonus_gain
from ..rules.tables import Tables
from .space import StateSpace

_SIXTH = 1.0 / 6.0


class Lookups(NamedTuple):
    """Per-rule-set lookups the turn widget reads (a flat numba-friendly named tuple; `prepare`).

    gain[b, u, p]      upper bonus paid by p points in box b at capped upper total u
    points[b, i]       for i < n_points[b]: every number of points box b can hold (plain, joker, 0)
    n_points[b]        how many entries of points[b] are used
    small              keeps of fewer dice than a roll holds (n_keeps - n_rolls): they come first
    sub_count[k]       how many keeps keep k minus one die is (its distinct faces)
    sub_list[k, i]     for i < sub_count[k]: keep k minus one die, by face (`Dice.keep_sub` without the gaps)
    hold_of[r, k]      the lowest hold pattern that keeps keep k from roll r, -1 if none does (`hold_tables`)
    first_hold[r, h]   hold pattern h is the lowest that keeps its dice from roll r (a distinct move)
    holds_by_size[i]   the hold patterns by the number of dice they keep, most first (the widget's tie rule)
    """
    gain: np.ndarray
    points: np.ndarray
    n_points: np.ndarray
    small: int
    sub_count: np.ndarray
    sub_list: np.ndarray
    hold_of: np.ndarray
    first_hold: np.ndarray
    holds_by_size: np.ndarray


class Model(NamedTuple):
    """What the solver's kernels read of a one-column rule set (a numba-friendly named tuple; `prepare`).

    T      the rule tables (`Tables`)
    D      the dice tables (`Dice`): rolls, keeps, hold patterns, transitions
    space  the state space (`StateSpace`)
    L      the per-rule-set lookups (`Lookups`)

    Kernels with a parallel loop take the four parts and put them together inside the loop (numba's parallel
    loops take flat named tuples only).
    """
    T: Tables
    D: Dice
    space: StateSpace
    L: Lookups


class Widget(NamedTuple):
    """The scratch arrays of one turn widget (`widget_scratch`; a numba-friendly named tuple).

    opts[r, b]     points of roll r in box b of the column being scored (-1: not allowed)
    extra[r]       the extra-Yacht bonus scoring roll r pays
    W[b, p]        upper bonus + value of the state p points in box b lead to
    NX[b, p]       that state
    S0[r]          the column's best value of scoring roll r now (`score_stage`)
    choice0[r]     its box
    K[k], kb[k]    keep values and best sub-keeps (`reroll_stages`)
    S[L, r]        the sheet's stage values (L re-rolls left)
    best[L, r]     the keep chosen with L re-rolls left (L >= 1)
    choice[r]      the sheet's box for roll r: column * n_boxes + box
    """
    opts: np.ndarray
    extra: np.ndarray
    W: np.ndarray
    NX: np.ndarray
    S0: np.ndarray
    choice0: np.ndarray
    K: np.ndarray
    kb: np.ndarray
    S: np.ndarray
    best: np.ndarray
    choice: np.ndarray


@cache
def sub_tables(n_dice: int) -> tuple[np.ndarray, np.ndarray]:
    """(sub_count, sub_list) of `n_dice` dice (see `Lookups`)."""
    D = dice_tables(n_dice)
    sub_count = (D.keep_sub >= 0).sum(axis=1).astype(np.int32)
    sub_list = np.array([[j for j in row if j >= 0] + [-1] * int((row < 0).sum()) for row in D.keep_sub],
                        dtype=np.int32)
    for a in (sub_count, sub_list):
        a.setflags(write=False)
    return sub_count, sub_list


@cache
def hold_tables(n_dice: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(hold_of, first_hold, holds_by_size) of `n_dice` dice (see `Lookups`). The patterns are every one but the
    one holding every die (that one scores instead)."""
    D = dice_tables(n_dice)
    holds = D.n_holds - 1
    hold_of = np.full((D.n_rolls, D.n_keeps), -1, np.int8)
    for r in range(D.n_rolls):
        for h in range(holds - 1, -1, -1):
            hold_of[r, D.hold_keep[r, h]] = h
    first_hold = (hold_of[np.arange(D.n_rolls)[:, None], D.hold_keep[:, :holds]] == np.arange(holds)).astype(np.bool_)
    by_size = np.array(sorted(range(holds), key=lambda h: (-bin(h).count("1"), h)), dtype=np.int64)
    for a in (hold_of, first_hold, by_size):
        a.setflags(write=False)
    return hold_of, first_hold, by_size


def prepare(T: Tables, space: StateSpace) -> Model:
    """The `Model` of a one-column rule set with state space `space` (`StateSpace.of(T)`)."""
    D = T.dice
    top = int(max(T.score.max(), T.joker_score.max()))
    gain = np.zeros((T.n_boxes, space.n_upper, top + 1), dtype=np.int32)
    _fill_bonus(T, gain)
    values = [np.unique(np.concatenate([T.score[b], T.joker_score[b], [0]])) for b in range(T.n_boxes)]
    n_points = np.array([len(v) for v in values], dtype=np.int32)
    points = np.zeros((T.n_boxes, int(n_points.max())), dtype=np.int32)
    for b, v in enumerate(values):
        points[b, :len(v)] = v
    sub_count, sub_list = sub_tables(D.n)
    hold_of, first_hold, holds_by_size = hold_tables(D.n)
    L = Lookups(gain=gain, points=points, n_points=n_points, small=D.n_keeps - D.n_rolls, sub_count=sub_count,
                sub_list=sub_list, hold_of=hold_of, first_hold=first_hold, holds_by_size=holds_by_size)
    return Model(T=T, D=D, space=space, L=L)


@nb.njit(cache=True, inline="always")
def widget_scratch(M, n_stages):
    """An empty `Widget` for a turn widget of `n_stages` re-roll stages."""
    R, nbox, top = M.D.n_rolls, M.T.n_boxes, M.L.gain.shape[2]
    return Widget(np.empty((R, nbox), np.int32), np.empty(R, np.int32), np.empty((nbox, top)),
                  np.empty((nbox, top), np.int64), np.empty(R), np.empty(R, np.int32), np.empty(M.D.n_keeps),
                  np.empty(M.D.n_keeps, np.int32), np.empty((n_stages + 1, R)), np.empty((n_stages + 1, R), np.int32),
                  np.empty(R, np.int32))


@nb.njit(cache=True)
def box_table(M, mask, flag, opts, extra):
    """opts[r, b] = points of roll r in box b (-1 = not allowed); extra[r] = extra-Yacht bonus paid."""
    T = M.T
    for r in range(M.D.n_rolls):
        extra[r] = box_options(T, mask, flag, r, opts[r])


@nb.njit(cache=True)
def _fill_bonus(T, gain):
    for b in range(gain.shape[0]):
        for u in range(gain.shape[1]):
            for p in range(gain.shape[2]):
                gain[b, u, p] = upper_bonus_gain(T, u, p, b)


@nb.njit(cache=True, inline="always")
def next_state(space, box_face, yacht_box, mask, u, flag, b, pts):
    """Flat index of the state after writing `pts` in box b (space: the `StateSpace`; box_face, yacht_box: the rule
    tables' own, which callers read out of `Tables` once, outside their loops)."""
    u2 = u
    if space.n_upper > 1 and box_face[b] > 0:
        u2 = min(u + pts, space.threshold)
    f2 = flag
    if space.n_flag > 1 and b == yacht_box and pts == space.yacht_points:
        f2 = 1
    return ((mask | (1 << b)) * space.n_upper + u2) * space.n_flag + f2


@nb.njit(cache=True)
def score_stage(M, V, mask, u, flag, X):
    """X.S0[r] = best value of scoring roll r now; X.choice0[r] = the box (from X.opts, X.extra).

    Filled first (boxes x points): X.NX[b, p] = the state after p points in box b, X.W[b, p] = its bonus + value.
    Its lane form is `lanes.score_lanes`, a deliberate twin: the same operations per lane, for several upper
    totals at once so the compiler vectorises them (bit-identical values: tests/solver/test_solver_lanes.py).
    """
    gain, points, n_points = M.L.gain, M.L.points, M.L.n_points
    T, space = M.T, M.space
    box_face, yacht_box = T.box_face, T.yacht_box
    opts, extra, W, NX, S0, choice = X.opts, X.extra, X.W, X.NX, X.S0, X.choice0
    nbox = T.n_boxes
    for b in range(nbox):
        if not (mask >> b) & 1:
            for i in range(n_points[b]):
                p = points[b, i]
                nx = next_state(space, box_face, yacht_box, mask, u, flag, b, p)
                NX[b, p] = nx
                W[b, p] = gain[b, u, p] + V[nx]
    for r in range(M.D.n_rolls):
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
def keep_values(M, S_next, K):
    """K[k] = expected S_next after keeping k and rolling the other dice (every keep)."""
    small, keep_add = M.L.small, M.D.keep_add
    for r in range(M.D.n_rolls):
        K[small + r] = S_next[r]
    for k in range(small - 1, -1, -1):
        K[k] = (K[keep_add[k, 0]] + K[keep_add[k, 1]] + K[keep_add[k, 2]] + K[keep_add[k, 3]] + K[keep_add[k, 4]] +
                K[keep_add[k, 5]]) * _SIXTH


@nb.njit(cache=True, inline="always")
def best_subkeep(M, S0, K, best):
    """Turn K into M[k] = max over sub-keeps j of k of K[j] (every die kept: S0, scoring now); best[k] = argmax j."""
    small, sub_count, sub_list = M.L.small, M.L.sub_count, M.L.sub_list
    for r in range(M.D.n_rolls):
        K[small + r] = S0[r]
    best[0] = 0
    for k in range(1, M.D.n_keeps):
        m = K[k]
        bk = k
        for i in range(sub_count[k]):
            j = sub_list[k, i]
            if K[j] > m:
                m = K[j]
                bk = best[j]
        K[k] = m
        best[k] = bk


@nb.njit(cache=True)
def reroll_stages(M, S, K, kb, best, n_stages):
    """Fill S[1..n_stages] from S[0]; best[L, r] = the keep chosen for roll r with L re-rolls left.

    K (floats) and kb (ints) are scratch arrays of one entry per keep.
    """
    small = M.L.small
    for L in range(1, n_stages + 1):
        keep_values(M, S[L - 1], K)
        best_subkeep(M, S[0], K, kb)
        for r in range(M.D.n_rolls):
            S[L, r] = K[small + r]
            best[L, r] = kb[small + r]


@nb.njit(cache=True)
def start_value(M, S_first):
    """Expected value at the start of the turn: the first roll is random."""
    roll_prob = M.D.roll_prob
    e = 0.0
    for r in range(M.D.n_rolls):
        e += roll_prob[r] * S_first[r]
    return e


@nb.njit(cache=True)
def scored_odds(M, best, start, cap, odds, m, mass):
    """odds[c, r] = the chance that a turn entered with `start` re-rolls left is scored on roll r carrying c saved
    rolls (a turn scored with L re-rolls left carries min(L, cap): `solver.saved`; cap 0 puts every turn in
    odds[0]), following the argmax keeps `best`; m[r] and mass[k] are scratch."""
    small, keep_add, n_rolls = M.L.small, M.D.keep_add, M.D.n_rolls
    odds[:, :] = 0.0
    m[:] = M.D.roll_prob
    for L in range(start, 0, -1):
        mass[:] = 0.0
        c = min(L, cap)
        for r in range(n_rolls):
            k = best[L, r]
            if k == small + r:
                odds[c, r] += m[r]  # keep every die: score now
            else:
                mass[k] += m[r]
        for k in range(small):
            x = mass[k]
            if x != 0.0:
                x *= _SIXTH
                for f in range(6):
                    mass[keep_add[k, f]] += x
        for r in range(n_rolls):
            m[r] = mass[small + r]
    for r in range(n_rolls):
        odds[0, r] += m[r]


@nb.njit(cache=True)
def final_roll_odds(M, best, n_stages, out, mass):
    """out[r] = probability that the turn is scored on roll r, following the argmax keeps `best` (`scored_odds`
    without saved rolls)."""
    scored_odds(M, best, n_stages, 0, out[np.newaxis, :], np.empty(M.D.n_rolls), mass)
