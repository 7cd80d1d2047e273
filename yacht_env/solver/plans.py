"""Turn plans from a solved table: the turn widget at a sheet state, one state or many in parallel.

A *plan* is a whole turn of optimal play from one sheet state: for every roll r and every number of
re-rolls left L, the action to play (`plan[L, r]`, the encoding of `yacht_env.core.actions`). It comes
from the turn widget at that state (`yacht_env.solver.widget`); `stage_state(s)` keep the widget's stage
values instead (what the strength dial reads, `yacht_env.solver.dial`). `yacht_env.solver.policy.Policy`
keeps both per state (`yacht_env.solver.state_rows.StateRows`).
"""

import numba as nb
import numpy as np

from typing import NamedTuple

from ..core.actions import hold_actions_of, score_action_of
from .widget import Model, Widget, box_table, hold_tables, reroll_stages, score_stage, widget_scratch


# the five-dice tables (what the agents read for the five-dice presets)
HOLD_OF, FIRST_HOLD, _ = hold_tables(5)


class Sheets(NamedTuple):
    """Sheet states to plan (a numba-friendly named tuple): state k is masks[k, c], uppers[k, c], flags[k, c] (its
    filled boxes, capped upper total and Yacht-50 flag per column c)."""
    masks: np.ndarray
    uppers: np.ndarray
    flags: np.ndarray


@nb.njit(cache=True)
def sheet_score_stage(M, V, masks, uppers, flags, X):
    """X.S[0, r] = best value of scoring roll r in any column; X.choice[r] = column * n_boxes + box.

    Each column's best box comes from the solver's `score_stage` (into X.S0, X.choice0); the sheet adds the other
    columns' values (`rest`), which is 0 with one column.
    """
    n_upper, n_flag = M.space.n_upper, M.space.n_flag
    nbox = M.T.n_boxes
    S0, choice, S0c, choice_c = X.S[0], X.choice, X.S0, X.choice0
    total = 0.0
    for c in range(masks.shape[0]):
        total += V[(masks[c] * n_upper + uppers[c]) * n_flag + flags[c]]
    for r in range(M.D.n_rolls):
        S0[r] = -1e300
        choice[r] = -1
    for c in range(masks.shape[0]):
        mask, u, flag = masks[c], uppers[c], flags[c]
        rest = total - V[(mask * n_upper + u) * n_flag + flag]
        box_table(M, mask, flag == 1, X.opts, X.extra)
        score_stage(M, V, mask, u, flag, X)
        for r in range(M.D.n_rolls):
            v = S0c[r] + rest
            if v > S0[r]:
                S0[r] = v
                choice[r] = c * nbox + choice_c[r]


@nb.njit(cache=True, inline="always")
def turn_widget(M, V, masks, uppers, flags, n_stages, X):
    """The turn widget at one sheet state (masks, uppers, flags: per column), in the `Widget` X: stage values
    X.S[L, r], chosen keeps X.best[L, r] (L >= 1), boxes X.choice[r] (column * n_boxes + box)."""
    sheet_score_stage(M, V, masks, uppers, flags, X)
    reroll_stages(M, X.S, X.K, X.kb, X.best, n_stages)


@nb.njit(cache=True, inline="always")
def write_plan(M, n_stages, best, choice, out):
    """out[L, r]: the action the widget's choices give with L re-rolls left and roll r."""
    nbox = M.T.n_boxes
    small, hold_of = M.L.small, M.L.hold_of
    holds = hold_actions_of(M.D)
    for r in range(M.D.n_rolls):
        out[0, r] = score_action_of(nbox, choice[r] // nbox, choice[r] % nbox, holds)
        for L in range(1, n_stages + 1):
            kk = best[L, r]
            out[L, r] = out[0, r] if kk == small + r else hold_of[r, kk]


@nb.njit(cache=True, inline="always")
def _on_stages(X, S):
    """The `Widget` X with its stage values in S."""
    return Widget(X.opts, X.extra, X.W, X.NX, X.S0, X.choice0, X.K, X.kb, S, X.best, X.choice)


@nb.njit(cache=True)
def widget_at(M, V, n_stages, masks, uppers, flags, X):
    """`turn_widget` at one state, called from Python with a `Widget`."""
    turn_widget(M, V, masks, uppers, flags, n_stages, X)


@nb.njit(cache=True)
def plan_state(M, V, n_stages, states, plans, first, X):
    """plans[first + k] = the plan at sheet state k of `states` (`Sheets`; see `plan_states`), one state after
    another in the same `Widget` X: for a few states, where starting `plan_states`' threads costs more than it
    gains."""
    masks, uppers, flags = states.masks, states.uppers, states.flags
    for k in range(masks.shape[0]):
        turn_widget(M, V, masks[k], uppers[k], flags[k], n_stages, X)
        write_plan(M, n_stages, X.best, X.choice, plans[first + k])


@nb.njit(cache=True, parallel=True)
def plan_states(T, D, space, L, V, n_stages, states, plans, first):
    """plans[first + k, L, r] = the optimal action at sheet state k of `states` (`Sheets`) with L re-rolls left
    and roll r: a hold pattern, or the scoring action when keeping every die is best. The states are planned in
    parallel, in blocks of `PLAN_BLOCK` states that share their `Model` and scratch arrays. T, D, space, L: the
    parts of the rule set's `Model`."""
    masks, uppers, flags = states.masks, states.uppers, states.flags
    n = masks.shape[0]
    for g in nb.prange((n + PLAN_BLOCK - 1) // PLAN_BLOCK):
        M = Model(T, D, space, L)
        X = widget_scratch(M, n_stages)
        for k in range(g * PLAN_BLOCK, min(n, (g + 1) * PLAN_BLOCK)):
            turn_widget(M, V, masks[k], uppers[k], flags[k], n_stages, X)
            write_plan(M, n_stages, X.best, X.choice, plans[first + k])


@nb.njit(cache=True)
def stage_state(M, V, n_stages, states, stages, first, X):
    """stages[first + k] = the stage values S[0 .. n_stages - 1] of the turn widget at sheet state k of `states`
    (`Sheets`; see `stage_states`), one state after another in a `Widget` X for n_stages - 1 re-roll stages (its
    S unused)."""
    masks, uppers, flags = states.masks, states.uppers, states.flags
    for k in range(masks.shape[0]):
        turn_widget(M, V, masks[k], uppers[k], flags[k], n_stages - 1, _on_stages(X, stages[first + k]))


@nb.njit(cache=True, parallel=True)
def stage_states(T, D, space, L, V, n_stages, states, stages, first):
    """stages[first + k, L, r] = S[L, r], the turn widget's value of roll r with L re-rolls left at sheet state k
    of `states` (`Sheets`), for L < n_stages: what the holds of a turn are valued from (a hold with L re-rolls left
    is worth the expected S[L - 1] of the roll it leads to). In parallel, in blocks of `STATE_BLOCK` states that
    share their scratch arrays. T, D, space, L: the parts of the rule set's `Model`."""
    masks, uppers, flags = states.masks, states.uppers, states.flags
    n = masks.shape[0]
    for g in nb.prange((n + STATE_BLOCK - 1) // STATE_BLOCK):
        M = Model(T, D, space, L)
        X = widget_scratch(M, n_stages - 1)
        for k in range(g * STATE_BLOCK, min(n, (g + 1) * STATE_BLOCK)):
            turn_widget(M, V, masks[k], uppers[k], flags[k], n_stages - 1, _on_stages(X, stages[first + k]))


STATE_BLOCK = 16   # states per parallel task of `stage_states` (they share their scratch arrays)
PLAN_BLOCK = 4     # states per parallel task of `plan_states` (they share their `Model` and scratch arrays)
