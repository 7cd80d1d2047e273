"""The strength dial's kernels: the value of every legal action at many decisions at once (`move_values`,
from the stage values of each sheet state's turn widget, `yacht_env.solver.plans.stage_states`), and one
action per decision drawn from a softmax over those values (`pick_moves`, `dial_moves`).
"""
import math
from typing import NamedTuple

import numba as nb
import numpy as np

from ..core.actions import hold_actions_of
from ..core.kernels import box_options
from .widget import Model, keep_values, next_state

BLOCK = 1024   # decisions per parallel task of the dial's kernels (a call with fewer than two blocks: one thread)


class Decisions(NamedTuple):
    """The decisions the dial draws a move at (a numba-friendly named tuple of arrays, one entry per decision j).

    rows[j]       the row of its state's stage values (`stages[rows[j]]`; not read when lefts[j] is 0)
    keys[j, c]    its sheet state per column
    rolls[j]      its roll index
    lefts[j]      its re-rolls left
    uniforms[j]   the uniform number its move is drawn with (`pick_row`)
    """
    rows: np.ndarray
    keys: np.ndarray
    rolls: np.ndarray
    lefts: np.ndarray
    uniforms: np.ndarray


@nb.njit(cache=True, inline="always")
def values_row(M, V, stage, key, r, L, row, opts, K):
    """row[a] = the value of action a at one decision (see `move_values`); -inf where a is not legal.
    key: the sheet state per column; stage: the state's stage values (read when L > 0). Under saved rolls (one
    column) a box reads the next state's value with the saved rolls scoring now carries, min(L, the cap)."""
    T, space = M.T, M.space
    n_upper, n_flag, ns = space.n_upper, space.n_flag, space.n_saved
    carry = min(L, ns - 1)
    gain = M.L.gain
    hold_keep = M.D.hold_keep
    box_face, yacht_box = T.box_face, T.yacht_box
    nbox = T.n_boxes
    holds = hold_actions_of(M.D)
    row[:] = -np.inf
    if L > 0:
        keep_values(M, stage[L - 1], K)
        for h in range(holds):
            row[h] = K[hold_keep[r, h]]
    total = 0.0
    for c in range(key.shape[0]):
        total += V[key[c] * ns]
    for c in range(key.shape[0]):
        s = key[c]
        flag = s % n_flag
        u = (s // n_flag) % n_upper
        mask = s // (n_flag * n_upper)
        e = box_options(T, mask, flag == 1, r, opts)
        rest = total - V[s * ns]
        for b in range(nbox):
            p = opts[b]
            if p >= 0:
                nx = next_state(space, box_face, yacht_box, mask, u, flag, b, p)
                row[holds + c * nbox + b] = p + e + gain[b, u, p] + V[nx * ns + carry] + rest


@nb.njit(cache=True)
def move_values(M, V, stages, rows, keys, rolls, lefts, out):
    """out[j, a] = the value of action a at decision j: the expected points still to come on the sheet,
    this turn's included, with optimal play after it; -inf where a is not legal.

    Decision j: sheet state keys[j, c] per column, roll index rolls[j], re-rolls left lefts[j], and
    stages[rows[j]] its state's stage values (`stage_states`; not read when lefts[j] is 0). A hold is
    worth the expected stage value of the roll it leads to (`keep_values`), a box its points + bonuses +
    the value of the state it leads to + the other columns' values (the column-additive sheet value;
    0 with one column) -- the values `value_decisions` gives the moves of stored games.
    """
    opts = np.empty(M.T.n_boxes, dtype=np.int32)
    K = np.empty(M.D.n_keeps)
    for j in range(keys.shape[0]):
        values_row(M, V, stages[rows[j]], keys[j], rolls[j], lefts[j], out[j], opts, K)


@nb.njit(cache=True, inline="always")
def pick_row(row, r, temperature, u, first_hold, val, w, act):
    """(action, loss): the move drawn from one decision's action values `row` (see `pick_moves`). first_hold: the
    rules' `Lookups.first_hold`, one column per hold action (so its width is the rules' hold count)."""
    holds = first_hold.shape[1]
    m = 0
    for a in range(row.shape[0]):
        v = row[a]
        if v == -np.inf or (a < holds and not first_hold[r, a]):
            continue
        i = m  # insertion: best first, ties by action
        while i > 0 and val[i - 1] < v:
            val[i] = val[i - 1]
            act[i] = act[i - 1]
            i -= 1
        val[i] = v
        act[i] = a
        m += 1
    best = val[0]
    total = 0.0
    for i in range(m):
        w[i] = math.exp(-(best - val[i]) / temperature)
        total += w[i]
    target = u * total
    k = m - 1
    acc = 0.0
    for i in range(m):
        acc += w[i]
        if acc > target:
            k = i
            break
    return act[k], best - val[k]


@nb.njit(cache=True)
def pick_moves(values, rolls, temperature, uniforms, first_hold, actions, losses):
    """One action per decision from a softmax over its legal moves: move m is drawn with probability
    proportional to exp(-loss_m / temperature), loss_m = best value - value of m (`move_values`).

    Holds that keep the same dice are one move (played as the lowest pattern, `first_hold`). The draw
    is by inverse CDF with uniforms[j], moves ordered best first (ties: the lower action), so for a
    given uniform number a higher temperature never picks a better-ranked move. losses[j]: the
    expected points the chosen move loses against the best one.
    """
    n_act = values.shape[1]
    val, w, act = np.empty(n_act), np.empty(n_act), np.empty(n_act, dtype=np.int64)
    for j in range(values.shape[0]):
        actions[j], losses[j] = pick_row(values[j], rolls[j], temperature, uniforms[j], first_hold, val, w, act)


@nb.njit(cache=True, inline="always")
def _dial_block(M, V, stages, Q, temperature, actions, losses, lo, hi):
    """`dial_moves` for decisions lo .. hi - 1."""
    rows, keys, rolls, lefts, uniforms = Q.rows, Q.keys, Q.rolls, Q.lefts, Q.uniforms
    first_hold = M.L.first_hold
    n_act = hold_actions_of(M.D) + keys.shape[1] * M.T.n_boxes
    opts = np.empty(M.T.n_boxes, dtype=np.int32)
    K = np.empty(M.D.n_keeps)
    row = np.empty(n_act)
    val, w, act = np.empty(n_act), np.empty(n_act), np.empty(n_act, dtype=np.int64)
    for j in range(lo, hi):
        values_row(M, V, stages[rows[j]], keys[j], rolls[j], lefts[j], row, opts, K)
        actions[j], losses[j] = pick_row(row, rolls[j], temperature, uniforms[j], first_hold, val, w, act)


@nb.njit(cache=True)
def dial_moves(M, V, stages, Q, temperature, actions, losses):
    """`move_values` then `pick_moves` for every decision of Q (`Decisions`), without keeping the values: the
    same actions and losses."""
    _dial_block(M, V, stages, Q, temperature, actions, losses, 0, Q.keys.shape[0])


@nb.njit(cache=True, parallel=True)
def dial_moves_parallel(T, D, space, L, V, stages, Q, temperature, actions, losses):
    """`dial_moves` in parallel blocks of `BLOCK` decisions (T, D, space, L: the parts of the rule set's `Model`)."""
    n = Q.keys.shape[0]
    for g in nb.prange((n + BLOCK - 1) // BLOCK):
        M = Model(T, D, space, L)
        _dial_block(M, V, stages, Q, temperature, actions, losses, g * BLOCK, min(n, (g + 1) * BLOCK))
