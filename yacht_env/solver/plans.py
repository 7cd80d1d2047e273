"""Turn plans from a solved table: the turn widget at a sheet state, one state or many in parallel.

A *plan* is a whole turn of optimal play from one sheet state: for every roll r and every number of
re-rolls left L, the action to play (`plan[L, r]`, the encoding of `yacht_env.core.actions`). It comes
from the turn widget at that state (`yacht_env.solver.widget`); `stage_state(s)` keep the widget's stage
values instead (what the strength dial reads, `yacht_env.solver.dial`). `yacht_env.solver.policy.Policy`
keeps both per state (`yacht_env.solver.state_rows.StateRows`).
"""

import numba as nb
import numpy as np

from ..core.actions import NUM_HOLDS, score_action_of
from ..core.dice import HOLD_KEEP, NUM_KEEPS, NUM_ROLLS
from .widget import SMALL, box_table, reroll_stages, score_stage


def _hold_of() -> np.ndarray:
    """HOLD_OF[r, k]: the lowest hold pattern (0..30) that keeps keep k from roll r, -1 if none does."""
    out = np.full((NUM_ROLLS, NUM_KEEPS), -1, np.int8)
    for r in range(NUM_ROLLS):
        for h in range(NUM_HOLDS - 1, -1, -1):
            out[r, HOLD_KEEP[r, h]] = h
    return out


HOLD_OF = _hold_of()
# FIRST_HOLD[r, h]: hold pattern h is the lowest that keeps its dice from roll r (a distinct move)
FIRST_HOLD = (HOLD_OF[np.arange(NUM_ROLLS)[:, None], HOLD_KEEP[:, :NUM_HOLDS]] == np.arange(NUM_HOLDS)).astype(np.bool_)


@nb.njit(cache=True)
def sheet_score_stage(T, V, space, prep, masks, uppers, flags, opts, extra, W, NX, S0c, choice_c, S0, choice):
    """S0[r] = best value of scoring roll r in any column; choice[r] = column * n_boxes + box.

    Each column's best box comes from the solver's `score_stage`; the sheet adds the other columns'
    values (`rest`), which is 0 with one column.
    """
    n_upper, n_flag = space[0], space[1]
    total = 0.0
    for c in range(masks.shape[0]):
        total += V[(masks[c] * n_upper + uppers[c]) * n_flag + flags[c]]
    for r in range(NUM_ROLLS):
        S0[r] = -1e300
        choice[r] = -1
    for c in range(masks.shape[0]):
        mask, u, flag = masks[c], uppers[c], flags[c]
        rest = total - V[(mask * n_upper + u) * n_flag + flag]
        box_table(T, mask, flag == 1, opts, extra)
        score_stage(T, V, space, prep, mask, u, flag, opts, extra, W, NX, S0c, choice_c)
        for r in range(NUM_ROLLS):
            v = S0c[r] + rest
            if v > S0[r]:
                S0[r] = v
                choice[r] = c * T.n_boxes + choice_c[r]


class Scratch:
    """Work arrays of one turn widget (`turn_widget`), allocated once and reused."""

    def __init__(self, n_boxes: int, n_stages: int, top: int):
        self.arrays = (np.empty((NUM_ROLLS, n_boxes), np.int32), np.empty(NUM_ROLLS, np.int32),
                       np.empty((n_boxes, top)), np.empty((n_boxes, top), np.int64), np.empty(NUM_ROLLS),
                       np.empty(NUM_ROLLS, np.int32), np.empty(NUM_KEEPS), np.empty(NUM_KEEPS, np.int32),
                       np.empty((n_stages + 1, NUM_ROLLS)), np.empty((n_stages + 1, NUM_ROLLS), np.int32),
                       np.empty(NUM_ROLLS, np.int32))


@nb.njit(cache=True, inline="always")
def turn_widget(T, V, space, prep, masks, uppers, flags, n_stages, opts, extra, W, NX, S0c, choice_c, K, kb, S,
                best, choice):
    """The turn widget at one sheet state: stage values S[L, r], chosen keeps best[L, r] (L >= 1), boxes
    choice[r] (column * n_boxes + box); the other arguments are `Scratch` arrays."""
    sheet_score_stage(T, V, space, prep, masks, uppers, flags, opts, extra, W, NX, S0c, choice_c, S[0], choice)
    reroll_stages(S, K, kb, best, n_stages)


@nb.njit(cache=True, inline="always")
def write_plan(T, n_stages, hold_of, best, choice, out):
    """out[L, r]: the action the widget's choices give with L re-rolls left and roll r."""
    for r in range(NUM_ROLLS):
        out[0, r] = score_action_of(T.n_boxes, choice[r] // T.n_boxes, choice[r] % T.n_boxes)
        for L in range(1, n_stages + 1):
            kk = best[L, r]
            out[L, r] = out[0, r] if kk == SMALL + r else hold_of[r, kk]


@nb.njit(cache=True)
def widget_at(T, V, space, prep, n_stages, masks, uppers, flags, opts, extra, W, NX, S0c, choice_c, K, kb, S, best,
              choice):
    """`turn_widget` at one state, called from Python with `Scratch` arrays."""
    turn_widget(T, V, space, prep, masks, uppers, flags, n_stages, opts, extra, W, NX, S0c, choice_c, K, kb, S, best,
                choice)


@nb.njit(cache=True)
def plan_state(T, V, space, prep, n_stages, masks, uppers, flags, hold_of, plans, first, opts, extra, W, NX, S0c,
               choice_c, K, kb, S, best, choice):
    """plans[first + k] = the plan at sheet state k (see `plan_states`), one state after another on the same
    `Scratch` arrays: for a few states, where starting `plan_states`' threads costs more than it gains."""
    for k in range(masks.shape[0]):
        turn_widget(T, V, space, prep, masks[k], uppers[k], flags[k], n_stages, opts, extra, W, NX, S0c, choice_c, K,
                    kb, S, best, choice)
        write_plan(T, n_stages, hold_of, best, choice, plans[first + k])


@nb.njit(cache=True, parallel=True)
def plan_states(T, V, space, prep, n_stages, masks, uppers, flags, hold_of, plans, first):
    """plans[first + k, L, r] = the optimal action at sheet state k (masks[k], uppers[k], flags[k]: per column)
    with L re-rolls left and roll r: a hold pattern, or the scoring action when keeping all five is best.
    The states are planned in parallel."""
    nbox, top = T.n_boxes, prep[0].shape[2]
    for k in nb.prange(masks.shape[0]):
        S = np.empty((n_stages + 1, NUM_ROLLS))
        best = np.empty((n_stages + 1, NUM_ROLLS), dtype=np.int32)
        choice = np.empty(NUM_ROLLS, dtype=np.int32)
        turn_widget(T, V, space, prep, masks[k], uppers[k], flags[k], n_stages,
                    np.empty((NUM_ROLLS, nbox), np.int32), np.empty(NUM_ROLLS, np.int32), np.empty((nbox, top)),
                    np.empty((nbox, top), np.int64), np.empty(NUM_ROLLS), np.empty(NUM_ROLLS, np.int32),
                    np.empty(NUM_KEEPS), np.empty(NUM_KEEPS, np.int32), S, best, choice)
        write_plan(T, n_stages, hold_of, best, choice, plans[first + k])


@nb.njit(cache=True)
def stage_state(T, V, space, prep, n_stages, masks, uppers, flags, stages, first, opts, extra, W, NX, S0c, choice_c,
                K, kb, best, choice):
    """stages[first + k] = the stage values S[0 .. n_stages - 1] of the turn widget at sheet state k (see
    `stage_states`), one state after another on `Scratch` arrays for n_stages - 1 re-roll stages."""
    for k in range(masks.shape[0]):
        turn_widget(T, V, space, prep, masks[k], uppers[k], flags[k], n_stages - 1, opts, extra, W, NX, S0c, choice_c,
                    K, kb, stages[first + k], best, choice)


@nb.njit(cache=True, parallel=True)
def stage_states(T, V, space, prep, n_stages, masks, uppers, flags, stages, first):
    """stages[first + k, L, r] = S[L, r], the turn widget's value of roll r with L re-rolls left at sheet state k
    (masks[k], uppers[k], flags[k]: per column), for L < n_stages: what the holds of a turn are valued from
    (a hold with L re-rolls left is worth the expected S[L - 1] of the roll it leads to). In parallel, in
    blocks of `STATE_BLOCK` states that share their scratch arrays."""
    nbox, top = T.n_boxes, prep[0].shape[2]
    n = masks.shape[0]
    for g in nb.prange((n + STATE_BLOCK - 1) // STATE_BLOCK):
        best = np.empty((n_stages, NUM_ROLLS), dtype=np.int32)
        choice = np.empty(NUM_ROLLS, dtype=np.int32)
        opts, extra = np.empty((NUM_ROLLS, nbox), np.int32), np.empty(NUM_ROLLS, np.int32)
        W, NX = np.empty((nbox, top)), np.empty((nbox, top), np.int64)
        S0c, choice_c = np.empty(NUM_ROLLS), np.empty(NUM_ROLLS, np.int32)
        K, kb = np.empty(NUM_KEEPS), np.empty(NUM_KEEPS, np.int32)
        for k in range(g * STATE_BLOCK, min(n, (g + 1) * STATE_BLOCK)):
            turn_widget(T, V, space, prep, masks[k], uppers[k], flags[k], n_stages - 1, opts, extra, W, NX, S0c,
                        choice_c, K, kb, stages[first + k], best, choice)


STATE_BLOCK = 16   # states per parallel task of `stage_states` (they share their scratch arrays)
