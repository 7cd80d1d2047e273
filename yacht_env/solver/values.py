"""The decisions of stored games and what the solver thinks of them (numba kernels over arrays).

Two steps, both over every game at once:

`replay_logs` walks the move logs (`Game.log`, flattened into an int array by the caller), checks every move
against the rules and plays it through the engine's transition (`engine.roll_dice`, `engine.score_box`), and
emits one row per decision: the sheet's state before the turn (one solver state per column), the roll in hand,
the re-rolls left and the move played (Game action encoding). A decision is what a seat does after a roll:
hold some dice and re-roll, or score a box.

`value_decisions` values each decision from a solved table: decisions are grouped by sheet state
(the caller sorts them), each group's turn widget is computed once, and every decision of the
group reads it. The value of a move is the expected final points still to come, this turn's
included: a hold is worth the expected value of keeping those dice and re-rolling with the rolls
that remain, a box its points + bonuses + the value of the state it leads to. With several
columns the sheet is valued as the sum of each column's solitaire value (the strong agent's
approximation, see `policy`); with one column the values are exact.
"""
from typing import NamedTuple

import numba as nb
import numpy as np

from ..core.actions import box_of_action, hold_actions_of, score_action_of
from ..core.engine import (ALLOWED, EXTRA_BONUS, FILLED, N_COLS, N_INTS, ROLLS_USED, SAVED, TURN, UPPER, UPPER_BONUS,
                           YACHT50, Arrays, roll_dice, score_box)
from ..core.kernels import upper_bonus_gain
from .widget import Model, Widget, box_table, keep_values, reroll_stages, score_stage

# Event rows of the flattened logs: ROLL = (0, seat, hold, d0, .., d{n-1}, 0 for each die short of six),
# SCORE = (1, seat, box, column, points, bonus, 0, 0, 0): room for six dice whatever the rules roll.
MAX_DICE = 6
EVENT_WIDTH = 3 + MAX_DICE
ROLL, SCORE = 0, 1


class Logs(NamedTuple):
    """Game logs flattened for `replay_logs` (a numba-friendly named tuple).

    events[j]    one move (rows as `EVENT_WIDTH`); record i's log is events[starts[i]:starts[i + 1]]
    starts[i]    where record i's log starts (and, at i + 1, ends)
    players[i]   the seats of record i
    sheets[i]    its sheets (seat s writes on sheet s % sheets[i])
    """
    events: np.ndarray
    starts: np.ndarray
    players: np.ndarray
    sheets: np.ndarray


class Replayed(NamedTuple):
    """What `replay_logs` writes (a numba-friendly named tuple): per decision d

    rec[d], move[d]   its record and the log index of the move played
    seat[d], sheet[d], turn[d]   the seat deciding, its sheet and the sheet's turn number (from 0)
    roll[d], left[d]  the roll index in hand and the re-rolls left
    action[d]         the action played (Game encoding)
    state[d, c]       the solver state of column c before the turn
    banked[d]         the sheet's points so far
    and per record i: final[i, sheet] = (total, upper bonus, extra bonus, the box scores column by column); and
    error = (record, log index, problem code, the points or bonus the rules give) of the first illegal move.
    """
    rec: np.ndarray
    move: np.ndarray
    seat: np.ndarray
    sheet: np.ndarray
    turn: np.ndarray
    roll: np.ndarray
    left: np.ndarray
    action: np.ndarray
    state: np.ndarray
    banked: np.ndarray
    final: np.ndarray
    error: np.ndarray


class Valued(NamedTuple):
    """What `value_decisions` writes per decision d (a numba-friendly named tuple).

    best_value[d]    expected points still to come after the best move (this turn's points included)
    played_value[d]  the same after the move played
    best_action[d]   the best move (Game encoding)
    """
    best_value: np.ndarray
    played_value: np.ndarray
    best_action: np.ndarray


# What `replay_logs` found wrong with a record (0: nothing); `PROBLEMS` says it in words.
OK, WRONG_SEAT, FIRST_HOLD, NO_ROLLS, BAD_HOLD, BAD_DICE, UNSORTED, NOT_HELD, NO_ROLL, BAD_COLUMN, BAD_BOX, \
    BOX_FILLED, NOT_ALLOWED, POINTS, BONUS, AFTER_END, UNFINISHED, BAD_SEATS = range(18)
PROBLEMS = {
    WRONG_SEAT: "it is not this seat's turn",
    FIRST_HOLD: "the first roll of a turn rolls all {dice} dice (hold must be 0)",
    NO_ROLLS: "no rolls left this turn",
    BAD_HOLD: "a hold pattern must be 0..{last_hold}",
    BAD_DICE: "dice must be {dice} faces 1..6",
    UNSORTED: "dice must be listed sorted (hold bits refer to the sorted dice)",
    NOT_HELD: "the dice held are not among the dice after the roll",
    NO_ROLL: "a box is scored before the dice are rolled",
    BAD_COLUMN: "no such column",
    BAD_BOX: "no such box",
    BOX_FILLED: "the box is already filled",
    NOT_ALLOWED: "the box is not allowed for this roll (joker rule)",
    POINTS: "the points differ from what the rules score for these dice",
    BONUS: "the bonus differs from what the rules pay",
    AFTER_END: "a move after the game is over",
    UNFINISHED: "the log ends before the game does",
    BAD_SEATS: "the first move is not by a seat of the game",
}
DICE_WORDS = {5: "five", 6: "six"}


def problem_text(code: int, n_dice: int) -> str:
    """What `replay_logs`' problem `code` means, in words, under rules that roll `n_dice` dice."""
    return PROBLEMS[code].format(dice=DICE_WORDS.get(n_dice, n_dice), last_hold=2 ** n_dice - 2)


@nb.njit(inline="always")
def _fail(error, rec, at, code, detail):
    """Record why replaying a log stopped. Inlined: each call passes its own constant `code`, for which
    numba would otherwise compile a version apiece (17 compilations on a first run)."""
    error[0], error[1], error[2], error[3] = rec, at, code, detail


@nb.njit(cache=True)
def replay_logs(T, space, columns, logs, out):
    """Replay the logs of every record through the engine's transition; return the number of decisions.

    logs: the `Logs` of the records; turns go round the seats from the seat of the first move. Each roll is
    played with `engine.roll_dice` (the fresh dice are the logged ones the hold did not keep) and each scoring
    with `engine.score_box`, after checking the move is legal and the logged points and bonus are the ones the
    rules give. out: the `Replayed` arrays, one row per decision (the solver states with the capped upper total,
    flag and the sheet's saved rolls as `space` needs; re-rolls left counting the saved rolls the turn may use).
    On the first illegal move: out.error = (record, log index, problem code, the points
    or bonus the rules give for a POINTS or BONUS problem) and the count so far.
    """
    n_upper, n_flag, threshold, yacht_points = space.n_upper, space.n_flag, space.threshold, space.yacht_points
    ns = space.n_saved
    events, starts, players, sheets = logs.events, logs.starts, logs.players, logs.sheets
    out_rec, out_move, out_seat, out_sheet, out_turn = out.rec, out.move, out.seat, out.sheet, out.turn
    out_roll, out_left, out_action, out_state, out_banked = out.roll, out.left, out.action, out.state, out.banked
    final, error = out.final, out.error
    nbox = T.n_boxes
    nd = T.dice.n
    holds = hold_actions_of(T.dice)
    # one table of up to 8 sheets, in the engine's layout, replayed record after record
    ints = np.zeros((1, N_INTS), dtype=np.int64)
    dice = np.ones((1, nd), dtype=np.int8)
    faces = np.zeros((1, nd), dtype=np.int8)
    preview = np.full((1, columns, nbox), -1, dtype=np.int32)
    extra = np.zeros((1, columns), dtype=np.int64)
    scores = np.full((1, 8, columns, nbox), -1, dtype=np.int32)
    cols = np.zeros((1, 8, columns, N_COLS), dtype=np.int64)
    totals = np.zeros((1, 8), dtype=np.int64)
    E = Arrays(np.zeros(1, dtype=np.uint64), ints, dice, faces, scores, cols, totals, preview, extra)
    held = np.zeros(7, dtype=np.int64)
    n = 0
    for i in range(starts.shape[0] - 1):
        lo, hi = starts[i], starts[i + 1]
        P, NS = players[i], sheets[i]
        turns = nbox * columns * NS
        ints[:] = 0
        scores[:] = -1
        cols[:] = 0
        totals[:] = 0
        preview[:] = -1
        first = events[lo, 1] if hi > lo else 0
        if first < 0 or first >= P:
            _fail(error, i, 0, BAD_SEATS, 0)
            return n
        pending = -1          # the decision row waiting for its move
        for j in range(lo, hi):
            ev = events[j]
            at = j - lo
            if ints[0, TURN] >= turns:
                _fail(error, i, at, AFTER_END, 0)
                return n
            seat = (first + ints[0, TURN]) % P
            if ev[1] != seat:
                _fail(error, i, at, WRONG_SEAT, 0)
                return n
            sheet = seat % NS
            rolled = ints[0, ROLLS_USED]
            if ev[0] == ROLL:
                hold = ev[2]
                if rolled == 0 and hold != 0:
                    _fail(error, i, at, FIRST_HOLD, 0)
                    return n
                if rolled > 0 and rolled >= ints[0, ALLOWED]:
                    _fail(error, i, at, NO_ROLLS, 0)
                    return n
                if hold < 0 or hold >= holds:
                    _fail(error, i, at, BAD_HOLD, 0)
                    return n
                held[:] = 0
                for k in range(nd):
                    if (hold >> k) & 1:
                        held[dice[0, k]] += 1
                for k in range(nd):
                    f = ev[3 + k]
                    if f < 1 or f > 6:
                        _fail(error, i, at, BAD_DICE, 0)
                        return n
                    if k > 0 and f < ev[2 + k]:
                        _fail(error, i, at, UNSORTED, 0)
                        return n
                m = 0                 # the fresh dice: the logged ones the hold does not account for
                for k in range(nd):
                    f = ev[3 + k]
                    if held[f] > 0:
                        held[f] -= 1
                    else:
                        faces[0, m] = f
                        m += 1
                for f in range(7):
                    if held[f] > 0:
                        _fail(error, i, at, NOT_HELD, 0)
                        return n
                if pending >= 0:
                    out_action[pending] = hold
                    out_move[pending] = at
                roll = roll_dice(T, E, 0, sheet, hold)
                out_rec[n] = i
                out_seat[n] = seat
                out_sheet[n] = sheet
                out_turn[n] = ints[0, TURN] // NS
                out_roll[n] = roll
                out_left[n] = ints[0, ALLOWED] - ints[0, ROLLS_USED]
                out_banked[n] = totals[0, sheet]
                for c in range(columns):
                    u = min(cols[0, sheet, c, UPPER], threshold) if n_upper > 1 else 0
                    flag = cols[0, sheet, c, YACHT50] if n_flag > 1 else 0
                    out_state[n, c] = ((cols[0, sheet, c, FILLED] * n_upper + u) * n_flag + flag) * ns + \
                        cols[0, sheet, 0, SAVED]
                pending = n
                n += 1
            else:
                if rolled == 0:
                    _fail(error, i, at, NO_ROLL, 0)
                    return n
                b, c, pts, bonus = ev[2], ev[3], ev[4], ev[5]
                if c < 0 or c >= columns:
                    _fail(error, i, at, BAD_COLUMN, 0)
                    return n
                if b < 0 or b >= nbox:
                    _fail(error, i, at, BAD_BOX, 0)
                    return n
                if scores[0, sheet, c, b] >= 0:
                    _fail(error, i, at, BOX_FILLED, 0)
                    return n
                if preview[0, c, b] < 0:
                    _fail(error, i, at, NOT_ALLOWED, 0)
                    return n
                if pts != preview[0, c, b]:
                    _fail(error, i, at, POINTS, preview[0, c, b])
                    return n
                due = upper_bonus_gain(T, cols[0, sheet, c, UPPER], pts, b) + extra[0, c]
                if bonus != due:
                    _fail(error, i, at, BONUS, due)
                    return n
                score_box(T, E, yacht_points, 0, sheet, c, b)
                out_action[pending] = score_action_of(nbox, c, b, holds)
                out_move[pending] = at
                pending = -1
        if ints[0, TURN] < turns:
            _fail(error, i, hi - lo, UNFINISHED, 0)
            return n
        for s in range(NS):
            final[i, s, 0] = totals[0, s]
            final[i, s, 1] = cols[0, s, :, UPPER_BONUS].sum()
            final[i, s, 2] = cols[0, s, :, EXTRA_BONUS].sum()
            for c in range(columns):
                for k in range(nbox):
                    final[i, s, 3 + c * nbox + k] = scores[0, s, c, k]
    return n


@nb.njit(cache=True, parallel=True)
def value_decisions(T, D, space, L, V, n_stages, order, starts, decided, out):
    """Value every decision: decisions order[starts[g]:starts[g + 1]] share the sheet state decided.state[d]
    (decided: the `Replayed` rows, as far as they were written; out: the `Valued` arrays).

    out.best_value[d] / out.played_value[d]: expected points still to come after the best move / the move
    played (this turn's points included); out.best_action[d]: the best move (Game encoding; a hold as
    its lowest pattern; ties go to scoring now, then to the larger keep, then to the lower column
    and box, as in the widget). Each group runs the turn widget (`reroll_stages`) up to the stage
    below the first roll; the first roll's stage is read only at the rolls the group's games saw.
    T, D, space, L: the parts of the rule set's `Model`.
    """
    state, roll, left, action = decided.state, decided.roll, decided.left, decided.action
    best_value, played_value, best_action = out.best_value, out.played_value, out.best_action
    n_upper, n_flag = space.n_upper, space.n_flag
    nbox = T.n_boxes
    columns = state.shape[1]
    top = L.gain.shape[2]
    n_rolls, n_keeps, small = D.n_rolls, D.n_keeps, L.small
    holds = hold_actions_of(D)
    for g in nb.prange(starts.shape[0] - 1):
        M = Model(T, D, space, L)
        hold_keep = D.hold_keep
        opts = np.empty((columns, n_rolls, nbox), dtype=np.int32)
        extra = np.empty((columns, n_rolls), dtype=np.int32)
        W = np.empty((columns, nbox, top))
        NX = np.empty((nbox, top), dtype=np.int64)
        rest = np.empty(columns)
        S = np.empty((n_stages + 1, n_rolls))
        S0 = np.empty(n_rolls)
        pick = np.empty(n_rolls, dtype=np.int32)
        choice = np.empty(n_rolls, dtype=np.int32)
        best = np.empty((n_stages + 1, n_rolls), dtype=np.int32)
        K = np.empty(n_keeps)
        kb = np.empty(n_keeps, dtype=np.int32)
        KL = np.empty((n_stages + 1, n_keeps))   # KL[L, k]: keep k with L re-rolls left, once computed
        have = np.zeros(n_stages + 1, dtype=np.bool_)
        first = order[starts[g]]
        total = 0.0
        for c in range(columns):
            total += V[state[first, c]]
        for r in range(n_rolls):
            S[0, r] = -1e300
            choice[r] = -1
        for c in range(columns):
            s = state[first, c]
            flag = s % n_flag
            u = (s // n_flag) % n_upper
            mask = s // (n_flag * n_upper)
            rest[c] = total - V[s]
            box_table(M, mask, flag == 1, opts[c], extra[c])
            score_stage(M, V, mask, u, flag, Widget(opts[c], extra[c], W[c], NX, S0, pick, K, kb, S, best, choice))
            for r in range(n_rolls):
                if pick[r] >= 0:
                    v = S0[r] + rest[c]  # the column-additive value; for one column rest is 0
                    if v > S[0, r]:
                        S[0, r] = v
                        choice[r] = c * nbox + pick[r]
        if n_stages > 0:
            reroll_stages(M, S, K, kb, best, n_stages - 1)
            keep_values(M, S[n_stages - 1], KL[n_stages])
            have[n_stages] = True
        for i in range(starts[g], starts[g + 1]):
            d = order[i]
            r, lf, a = roll[d], left[d], action[d]
            if lf > 0 and not have[lf]:
                keep_values(M, S[lf - 1], KL[lf])
                have[lf] = True
            # the best move: score now (S[0]) or the best keep of the roll, small + r meaning "score now"
            v = S[0, r]
            keep = small + r
            if lf == n_stages and lf > 0:
                for h in L.holds_by_size:  # every hold pattern, larger keeps first: ties go to keeping more
                    x = KL[lf, hold_keep[r, h]]
                    if x > v:
                        v = x
                        keep = hold_keep[r, h]
            elif lf > 0:
                v = S[lf, r]
                keep = best[lf, r]
            best_value[d] = v
            if keep == small + r:
                best_action[d] = score_action_of(nbox, choice[r] // nbox, choice[r] % nbox, holds)
            else:
                best_action[d] = L.hold_of[r, keep]  # the lowest pattern that keeps these dice
            if a < holds:
                played_value[d] = KL[lf, hold_keep[r, a]]
            else:
                c, b = box_of_action(nbox, a, holds)
                p = opts[c, r, b]
                played_value[d] = p + extra[c, r] + W[c, b, p] + rest[c]


