"""The turn widget and the backward induction under saved rolls (`RuleSet.saved_rolls`, cap C > 0).

A sheet that scores with L re-rolls left carries min(C, L) saved rolls to its next turn, and a turn that starts
with s saved rolls may re-roll rolls_per_turn - 1 + s times. The widget of a sheet state (mask, upper, flag) does
not depend on s, only where its turn starts does, so one widget fills the values of all C + 1 saved counts:

- C + 1 scoring stages: ``S0[c, r]`` = the best value of scoring roll r now and carrying c saved rolls (it reads
  the next state's value with c saved, `score_stage` on the values of saved count c), ``choice0[c, r]`` its box;
- re-roll stages L = 1 .. rolls_per_turn - 1 + C as in `widget.reroll_stages`, except that keeping every die
  (scoring now) with L re-rolls left is worth ``S0[min(L, C)]``; stage 0 is ``S0[0]``;
- the value of the state with s saved rolls is the start value of stage rolls_per_turn - 1 + s.

Its plan (`write_saved_plan`) is keyed by the sheet state and the re-rolls left, like a plan without saved rolls:
a turn with saved rolls starts at a higher stage. These are scalar kernels (one state at a time): the lane form
of the solver's layers (`lanes`) is for rules without saved rolls, which keep it unchanged.
"""
from typing import NamedTuple

import numba as nb
import numpy as np

from ..core.actions import hold_actions_of, score_action_of
from .backward import scored_stats
from .widget import Model, Widget, best_subkeep, box_table, keep_values, score_stage, scored_odds, start_value


class Saved(NamedTuple):
    """The scratch arrays of one saved-rolls turn widget (`saved_scratch`; a numba-friendly named tuple).

    opts[r, b], extra[r]   the box table of the state (`widget.box_table`)
    W[b, p], NX[b, p]      upper bonus + value of the state p points in box b lead to, and that sheet state
                           (its index without the saved rolls)
    S0[c, r], choice0[c, r]   the best value of scoring roll r now carrying c saved rolls, and its box
    K[k], kb[k]            keep values and best sub-keeps
    S[L, r], best[L, r]    stage values and chosen keeps with L re-rolls left
    odds[c, r]             the chance the turn is scored on roll r carrying c saved rolls (`widget.scored_odds`)
    m[r], mass[k]          scratch of `scored_odds`
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
    odds: np.ndarray
    m: np.ndarray
    mass: np.ndarray


@nb.njit(cache=True)
def saved_scratch(M, n_stages):
    """An empty `Saved` for a widget of `n_stages` re-roll stages (rolls_per_turn - 1 + the cap)."""
    R, nbox, top, ns, nk = M.D.n_rolls, M.T.n_boxes, M.L.gain.shape[2], M.space.n_saved, M.D.n_keeps
    return Saved(np.empty((R, nbox), np.int32), np.empty(R, np.int32), np.empty((nbox, top)),
                 np.empty((nbox, top), np.int64), np.empty((ns, R)), np.empty((ns, R), np.int32), np.empty(nk),
                 np.empty(nk, np.int32), np.empty((n_stages + 1, R)), np.empty((n_stages + 1, R), np.int32),
                 np.empty((ns, R)), np.empty(R), np.empty(nk))


@nb.njit(cache=True, inline="always")
def _scoring(Y, c):
    """The one-stage `Widget` that `score_stage` fills for saved count c."""
    return Widget(Y.opts, Y.extra, Y.W, Y.NX, Y.S0[c], Y.choice0[c], Y.K, Y.kb, Y.S, Y.best, Y.choice0[c])


@nb.njit(cache=True)
def saved_widget(M, V, mask, u, flag, n_stages, Y):
    """The turn widget at sheet state (mask, u, flag) in Y (`Saved`; its box table filled, `box_table`): Y.S0,
    Y.choice0 and the stages Y.S[0 .. n_stages], Y.best (see the module's docstring). V: the values of every
    state, saved counts included."""
    ns = M.space.n_saved
    cap = ns - 1
    small = M.L.small
    for c in range(ns):
        score_stage(M, V[c::ns], mask, u, flag, _scoring(Y, c))
    S, best = Y.S, Y.best
    S[0, :] = Y.S0[0]
    for L in range(1, n_stages + 1):
        keep_values(M, S[L - 1], Y.K)
        best_subkeep(M, Y.S0[min(L, cap)], Y.K, Y.kb)
        for r in range(M.D.n_rolls):
            S[L, r] = Y.K[small + r]
            best[L, r] = Y.kb[small + r]


@nb.njit(cache=True, parallel=True)
def solve_layer_saved(T, D, space, L, masks, reach, rolls_per_turn, V, A, stats):
    """`backward.solve_layer` under saved rolls: fill V (and, with `stats`, the moments A) for every saved count of
    every reachable sheet state whose mask is in `masks`, one widget per sheet state (T, D, space, L: the parts of
    the rule set's `Model`)."""
    n_upper, n_flag, ns = space.n_upper, space.n_flag, space.n_saved
    n_stages = rolls_per_turn - 1 + ns - 1
    yacht_box = T.yacht_box
    n_items = masks.shape[0] * n_flag
    for i in nb.prange(n_items):
        M = Model(T, D, space, L)
        mask = masks[i // n_flag]
        flag = i % n_flag
        if flag == 1 and not (mask >> yacht_box) & 1:
            continue  # the flag is set only by filling the Yacht box
        Y = saved_scratch(M, n_stages)
        box_table(M, mask, flag == 1, Y.opts, Y.extra)
        for u in range(n_upper):
            if not reach[mask, u]:
                continue
            saved_widget(M, V, mask, u, flag, n_stages, Y)
            base = ((mask * n_upper + u) * n_flag + flag) * ns
            for s in range(ns):
                V[base + s] = start_value(M, Y.S[rolls_per_turn - 1 + s])
                if stats:
                    scored_odds(M, Y.best, rolls_per_turn - 1 + s, ns - 1, Y.odds, Y.m, Y.mass)
                    scored_stats(M, u, Y.odds, Y.choice0, Y.opts, Y.extra, Y.NX, V, A, base + s)


@nb.njit(cache=True, inline="always")
def write_saved_plan(M, n_stages, Y, out):
    """out[L, r]: the action of the saved-rolls widget Y with L re-rolls left and roll r (a hold pattern, or the
    scoring action of its box choice0[min(L, cap)] when keeping every die is best)."""
    nbox = M.T.n_boxes
    small, hold_of = M.L.small, M.L.hold_of
    cap = M.space.n_saved - 1
    holds = hold_actions_of(M.D)
    for r in range(M.D.n_rolls):
        for L in range(n_stages + 1):
            kk = Y.best[L, r] if L > 0 else small + r
            if kk == small + r:
                out[L, r] = score_action_of(nbox, 0, Y.choice0[min(L, cap), r], holds)
            else:
                out[L, r] = hold_of[r, kk]


@nb.njit(cache=True)
def saved_plans(M, V, n_stages, states, plans, first):
    """plans[first + k] = the plan at sheet state k of `states` (`plans.Sheets`, one column) under saved rolls."""
    masks, uppers, flags = states.masks, states.uppers, states.flags
    Y = saved_scratch(M, n_stages)
    for k in range(masks.shape[0]):
        box_table(M, masks[k, 0], flags[k, 0] == 1, Y.opts, Y.extra)
        saved_widget(M, V, masks[k, 0], uppers[k, 0], flags[k, 0], n_stages, Y)
        write_saved_plan(M, n_stages, Y, plans[first + k])


@nb.njit(cache=True)
def saved_stages(M, V, n_stages, states, stages, first):
    """stages[first + k, L] = S[L] of the saved-rolls widget at sheet state k of `states` (one column), for
    L < n_stages (what the strength dial values holds from, as `plans.stage_states`)."""
    masks, uppers, flags = states.masks, states.uppers, states.flags
    Y = saved_scratch(M, n_stages)
    for k in range(masks.shape[0]):
        box_table(M, masks[k, 0], flags[k, 0] == 1, Y.opts, Y.extra)
        saved_widget(M, V, masks[k, 0], uppers[k, 0], flags[k, 0], n_stages, Y)
        stages[first + k, :, :] = Y.S[:n_stages]


@nb.njit(cache=True, parallel=True)
def value_saved_decisions(T, D, space, L, V, n_stages, order, starts, decided, out):
    """`values.value_decisions` under saved rolls (one column): decisions order[starts[g]:starts[g + 1]] share the
    state decided.state[d, 0] (its saved rolls included); each group runs the saved-rolls widget of its sheet state
    (`n_stages`: rolls_per_turn - 1 + the cap) and every decision reads it. A box is worth its points + bonuses +
    the value of the state it leads to with the saved rolls it carries (min(re-rolls left, cap)); ties as in
    `saved_widget`. T, D, space, L: the parts of the rule set's `Model`; out: the `values.Valued` arrays."""
    state, roll, left, action = decided.state, decided.roll, decided.left, decided.action
    best_value, played_value, best_action = out.best_value, out.played_value, out.best_action
    n_upper, n_flag, ns = space.n_upper, space.n_flag, space.n_saved
    cap = ns - 1
    nbox = T.n_boxes
    small = L.small
    holds = hold_actions_of(D)
    for g in nb.prange(starts.shape[0] - 1):
        M = Model(T, D, space, L)
        hold_keep, gain = D.hold_keep, L.gain
        Y = saved_scratch(M, n_stages)
        KL = np.empty((n_stages + 1, D.n_keeps))   # KL[L, k]: keep k with L re-rolls left, once computed
        have = np.zeros(n_stages + 1, dtype=np.bool_)
        s = state[order[starts[g]], 0] // ns
        flag = s % n_flag
        u = (s // n_flag) % n_upper
        mask = s // (n_flag * n_upper)
        box_table(M, mask, flag == 1, Y.opts, Y.extra)
        saved_widget(M, V, mask, u, flag, n_stages, Y)
        for i in range(starts[g], starts[g + 1]):
            d = order[i]
            r, lf, a = roll[d], left[d], action[d]
            carry = min(lf, cap)
            if lf > 0 and not have[lf]:
                keep_values(M, Y.S[lf - 1], KL[lf])
                have[lf] = True
            best_value[d] = Y.S[lf, r]
            keep = Y.best[lf, r] if lf > 0 else small + r
            if keep == small + r:
                best_action[d] = score_action_of(nbox, 0, Y.choice0[carry, r], holds)
            else:
                best_action[d] = L.hold_of[r, keep]  # the lowest pattern that keeps these dice
            if a < holds:
                played_value[d] = KL[lf, hold_keep[r, a]]
            else:
                b = a - holds
                p = Y.opts[r, b]
                played_value[d] = p + Y.extra[r] + gain[b, u, p] + V[Y.NX[b, p] * ns + carry]
