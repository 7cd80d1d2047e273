"""Optimal moves from a solved table, for one game or for many at once.

A *plan* is a whole turn of optimal play from one sheet state: for every roll r and every number of
re-rolls left L, the action to play (`plan[L, r]`, the encoding of `yacht_env.core.actions`). It comes from
the turn widget at that state (`yacht_env.solver.widget`) and is computed once per state, then kept
(`Policy.plans`), so a decision is a table lookup: a batch of games asks for the plans of the states it
is in (the new ones are computed together, in parallel) and reads one entry per game.

With one column the value of a move is exact: points + bonuses + the table's value of the next state.
With several columns (too many states to solve) the sheet is valued as the sum of each column's
solitaire value, and a move is worth its points + bonuses + the value of the column it changes, plus
the unchanged values of the others: the best move is the one that loses the least solitaire value for
what it scores. For one column both readings are the same.

For play below optimal (the strength dial), `move_values` gives the value of every legal action at many
decisions at once, from the stage values of each sheet state's turn widget (`Policy.stage_rows`: computed
once per state and kept, so the decisions of one turn share them), and `pick_moves` draws one action per
decision from a softmax over those values.
"""
import math

import numba as nb
import numpy as np

from ..core.actions import NUM_HOLDS, num_actions, score_action, score_action_of
from ..core.dice import HOLD_KEEP, NUM_KEEPS, NUM_ROLLS
from ..core.engine import FILLED, FIRST, ROLL, ROLLS_USED, TURN, UPPER, YACHT50, play_action, roll_seeded
from ..core.kernels import box_options
from ..core.plan_source import PlanTables
from ..rules.tables import Tables
from .solution import Solution
from .widget import SMALL, box_table, keep_values, next_state, prepare, reroll_stages, score_stage


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
    """plans[first] = the plan at one sheet state (see `plan_states`), with `Scratch` arrays."""
    turn_widget(T, V, space, prep, masks[0], uppers[0], flags[0], n_stages, opts, extra, W, NX, S0c, choice_c, K, kb,
                S, best, choice)
    write_plan(T, n_stages, hold_of, best, choice, plans[first])


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
    """stages[first] = the stage values S[0 .. n_stages - 1] of the turn widget at one sheet state (see
    `stage_states`), with `Scratch` arrays for n_stages - 1 re-roll stages."""
    turn_widget(T, V, space, prep, masks[0], uppers[0], flags[0], n_stages - 1, opts, extra, W, NX, S0c, choice_c, K,
                kb, stages[first], best, choice)


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
BLOCK = 1024   # decisions per parallel task of the dial's kernels (a call with fewer than two blocks: one thread)


@nb.njit(cache=True, inline="always")
def values_row(T, V, space, prep, stage, key, r, L, row, opts, K):
    """row[a] = the value of action a at one decision (see `move_values`); -inf where a is not legal.
    key: the sheet state per column; stage: the state's stage values (read when L > 0)."""
    n_upper, n_flag, threshold, yacht_points = space
    gain = prep[0]
    nbox = T.n_boxes
    row[:] = -np.inf
    if L > 0:
        keep_values(stage[L - 1], K)
        for h in range(NUM_HOLDS):
            row[h] = K[HOLD_KEEP[r, h]]
    total = 0.0
    for c in range(key.shape[0]):
        total += V[key[c]]
    for c in range(key.shape[0]):
        s = key[c]
        flag = s % n_flag
        u = (s // n_flag) % n_upper
        mask = s // (n_flag * n_upper)
        e = box_options(T, mask, flag == 1, r, opts)
        rest = total - V[s]
        for b in range(nbox):
            p = opts[b]
            if p >= 0:
                nx = next_state(T.box_face, T.yacht_box, n_upper, n_flag, threshold, yacht_points, mask, u, flag, b, p)
                row[NUM_HOLDS + c * nbox + b] = p + e + gain[b, u, p] + V[nx] + rest


@nb.njit(cache=True)
def move_values(T, V, space, prep, stages, rows, keys, rolls, lefts, out):
    """out[j, a] = the value of action a at decision j: the expected points still to come on the sheet,
    this turn's included, with optimal play after it; -inf where a is not legal.

    Decision j: sheet state keys[j, c] per column, roll index rolls[j], re-rolls left lefts[j], and
    stages[rows[j]] its state's stage values (`stage_states`; not read when lefts[j] is 0). A hold is
    worth the expected stage value of the roll it leads to (`keep_values`), a box its points + bonuses +
    the value of the state it leads to + the other columns' values (the column-additive sheet value;
    0 with one column) -- the values `value_decisions` gives the moves of stored games.
    """
    opts = np.empty(T.n_boxes, dtype=np.int32)
    K = np.empty(NUM_KEEPS)
    for j in range(keys.shape[0]):
        values_row(T, V, space, prep, stages[rows[j]], keys[j], rolls[j], lefts[j], out[j], opts, K)


@nb.njit(cache=True, inline="always")
def pick_row(row, r, temperature, u, first_hold, val, w, act):
    """(action, loss): the move drawn from one decision's action values `row` (see `pick_moves`)."""
    m = 0
    for a in range(row.shape[0]):
        v = row[a]
        if v == -np.inf or (a < NUM_HOLDS and not first_hold[r, a]):
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
def _dial_block(T, V, space, prep, stages, rows, keys, rolls, lefts, temperature, uniforms, first_hold, actions,
                losses, lo, hi):
    """`dial_moves` for decisions lo .. hi - 1."""
    n_act = NUM_HOLDS + keys.shape[1] * T.n_boxes
    opts = np.empty(T.n_boxes, dtype=np.int32)
    K = np.empty(NUM_KEEPS)
    row = np.empty(n_act)
    val, w, act = np.empty(n_act), np.empty(n_act), np.empty(n_act, dtype=np.int64)
    for j in range(lo, hi):
        values_row(T, V, space, prep, stages[rows[j]], keys[j], rolls[j], lefts[j], row, opts, K)
        actions[j], losses[j] = pick_row(row, rolls[j], temperature, uniforms[j], first_hold, val, w, act)


@nb.njit(cache=True)
def dial_moves(T, V, space, prep, stages, rows, keys, rolls, lefts, temperature, uniforms, first_hold, actions,
               losses):
    """`move_values` then `pick_moves` for every decision, without keeping the values: the same actions and
    losses."""
    _dial_block(T, V, space, prep, stages, rows, keys, rolls, lefts, temperature, uniforms, first_hold, actions,
                losses, 0, keys.shape[0])


@nb.njit(cache=True, parallel=True)
def dial_moves_parallel(T, V, space, prep, stages, rows, keys, rolls, lefts, temperature, uniforms, first_hold,
                        actions, losses):
    """`dial_moves` in parallel blocks of `BLOCK` decisions."""
    n = keys.shape[0]
    for g in nb.prange((n + BLOCK - 1) // BLOCK):
        _dial_block(T, V, space, prep, stages, rows, keys, rolls, lefts, temperature, uniforms, first_hold, actions,
                    losses, g * BLOCK, min(n, (g + 1) * BLOCK))


MANY = 16   # states per call from which the parallel `plan_states` / `stage_states` pay off
STAGE_BYTES = 64 << 20   # memory for the kept stage values of one policy (`Policy.stage_rows`)


class StateRows:
    """Arrays kept per sheet state: `rows(keys)` gives, for sheet states `keys` (games, columns), the rows
    of `data` that hold their entries, computing the missing ones with `fill(new_keys, out, 0)` (which
    writes out[:len(new_keys)]).

    At most `max_rows` entries are kept: when a call needs room, the entries asked for by the fewest games
    give theirs up, the least recently asked-for first among equals, never one the same call reads. So the
    states many games pass through (the first turns of a sheet) stay for the next batch of games, as do the
    states of the turns being played, while memory stays bounded (a single call that needs more than
    max_rows distinct states gets room for all). The entries only depend on the state, so what is kept
    changes the speed, never a result.
    """

    def __init__(self, space_size: int, dense: bool, shape: tuple, dtype, max_rows: int, fill):
        self.space_size, self.dense, self.shape, self.dtype = space_size, dense, tuple(shape), dtype
        self.max_rows, self.fill = int(max_rows), fill
        self.data, self.count = None, 0    # allocated on first use

    def clear(self) -> None:
        self.data = np.empty((self.max_rows, *self.shape), self.dtype)   # pages are taken as rows are written
        self.count = 0                                  # rows 0 .. count - 1 hold entries
        self.used = np.zeros(self.max_rows, np.int64)   # the call that last asked for each row
        self.asked = np.zeros(self.max_rows, np.int64)  # how many games have asked for each row
        self.held = None                                # the state key of each row (rows, columns)
        self.calls = 0
        self._slot = np.full(self.space_size, -1, np.int64) if self.dense else {}

    @property
    def slot(self) -> np.ndarray:
        """The dense index (dense only, after `clear`): slot[state] is the row of `data` that holds the state's
        entry, -1 where none is kept."""
        return self._slot

    def _lookup(self, keys: np.ndarray) -> np.ndarray:
        if self.dense:
            return self._slot[keys[:, 0]]
        return np.array([self._slot.get(k.tobytes(), -1) for k in keys], np.int64)

    def rows(self, keys: np.ndarray) -> np.ndarray:
        if self.data is None:
            self.clear()
        self.calls += 1
        keys = np.ascontiguousarray(keys, np.int64)
        rows = self._lookup(keys)
        missing = rows < 0
        if missing.any():
            self.used[rows[~missing]] = self.calls        # not given up to make room below
            new = np.unique(keys[missing, 0])[:, None] if self.dense else np.unique(keys[missing], axis=0)
            self._add(new)
            rows = self._lookup(keys)
        self.used[rows] = self.calls
        np.add.at(self.asked, rows, 1)
        return rows

    def _add(self, keys: np.ndarray) -> None:
        if self.held is None:
            self.held = np.empty((len(self.data), keys.shape[1]), np.int64)
        k = len(keys)
        held = self.count                                # rows that hold entries before this call
        fresh = np.arange(held, min(held + k, len(self.data)))
        self.count += len(fresh)
        places = fresh
        if len(fresh) < k:
            need = k - len(fresh)
            idle = np.flatnonzero(self.used[:held] < self.calls)
            if len(idle) < need:                         # one call with more states than max_rows
                self._grow(self.count + need - len(idle))
                places = np.concatenate([fresh, np.arange(self.count, self.count + need - len(idle))])
                self.count += need - len(idle)
                need = len(idle)
            rank = np.minimum(self.asked[idle], 1 << 20) * (1 << 40) + self.used[idle]   # fewest games, then oldest
            given = idle[np.argpartition(rank, need - 1)[:need]] if need else idle[:0]
            self._release(given)
            places = np.concatenate([places, given])
        out = np.empty((k, *self.shape), self.dtype)
        self.fill(keys, out, 0)
        self.data[places] = out
        self.held[places] = keys
        self.used[places] = self.calls
        self.asked[places] = 0
        if self.dense:
            self._slot[keys[:, 0]] = places
        else:
            for key, row in zip(keys, places.tolist()):
                self._slot[key.tobytes()] = row

    def _release(self, rows: np.ndarray) -> None:
        if self.dense:
            self._slot[self.held[rows, 0]] = -1
        else:
            for key in self.held[rows]:
                del self._slot[key.tobytes()]

    def _grow(self, size: int) -> None:
        grown = np.empty((size, *self.shape), self.dtype)
        grown[:self.count] = self.data[:self.count]
        self.data = grown
        self.used = np.concatenate([self.used, np.zeros(size - len(self.used), np.int64)])
        self.asked = np.concatenate([self.asked, np.zeros(size - len(self.asked), np.int64)])
        self.held = np.concatenate([self.held, np.empty((size - len(self.held), self.held.shape[1]), np.int64)])


@nb.njit(cache=True, inline="always")
def advance_table(T, i, me, seating, n_upper, n_flag, threshold, slot, plans, ypts, num_players, num_sheets, turns,
                  seeds, ints, dice, faces, scores, cols, totals, preview, extra):
    """Play every move of table i while the seat to move is player `me`'s (seating[i, seat] == me) and its
    plan is kept (slot[state] >= 0; one column): first rolls and decisions, through the engine's
    transition, as `lockstep.play` would play them one pass at a time. Returns False when it stopped at
    a state without a kept plan."""
    while ints[i, TURN] < turns:
        seat = (ints[i, FIRST] + ints[i, TURN]) % num_players
        if seating[i, seat] != me:
            return True
        s = seat % num_sheets
        if ints[i, ROLLS_USED] == 0:
            roll_seeded(T, i, s, num_sheets, 0, seeds, ints, dice, faces, cols, preview, extra)
        u = min(cols[i, s, 0, UPPER], threshold) if n_upper > 1 else 0
        f = cols[i, s, 0, YACHT50] if n_flag > 1 else 0
        p = slot[(cols[i, s, 0, FILLED] * n_upper + u) * n_flag + f]
        if p < 0:
            return False
        a = plans[p, T.rolls_per_turn - ints[i, ROLLS_USED], ints[i, ROLL]]
        play_action(T, ypts, num_players, num_sheets, i, a, seeds, ints, dice, faces, scores, cols, totals, preview,
                    extra)
    return True


@nb.njit(cache=True, _nrt=False)
def advance_planned(rows, me, seating, n_upper, n_flag, threshold, slot, plans, ypts, num_players, num_sheets, turns,
                    seeds, ints, dice, faces, scores, cols, totals, preview, extra, *tables):
    """`advance_table` at every table of `rows` (a state without a kept plan is left to the caller's next pass)."""
    T = Tables(*tables)
    for j in range(rows.shape[0]):
        advance_table(T, rows[j], me, seating, n_upper, n_flag, threshold, slot, plans, ypts, num_players, num_sheets,
                      turns, seeds, ints, dice, faces, scores, cols, totals, preview, extra)


class Policy:
    """Optimal (one column) or column-additive (several columns) play from a `Solution`.

    max_plans: how many turn plans to keep (each 252 bytes per roll stage: 756 bytes with three rolls;
    `StateRows`), so memory stays bounded. The default holds every state optimal play visits under the
    presets (about 150k after 400k games of `yacht`, of 256k fill patterns x upper totals), at most
    ~400 MB with three rolls. The stage values of the strength dial (`stage_rows`) are kept the same
    way, in at most `STAGE_BYTES`.
    """

    def __init__(self, rules, solution: Solution, max_plans: int = 1 << 19):
        sp = solution.space
        self.rules, self.solution = rules, solution
        self.tables = rules.tables
        self.dims = (sp.n_upper, sp.n_flag, sp.threshold, sp.yacht_points)
        self.prep = prepare(self.tables, sp.n_upper)
        self.gain = self.prep[0]
        self.n_stages = rules.rolls_per_turn - 1
        self.max_plans = int(max_plans)
        self._scratch = Scratch(self.tables.n_boxes, self.n_stages, self.gain.shape[2])
        dense = rules.columns == 1 and sp.size <= 1 << 24
        self._plans = StateRows(sp.size, dense, (self.n_stages + 1, NUM_ROLLS), np.uint8, self.max_plans,
                                self._fill_plans)
        stage_bytes = max(self.n_stages, 1) * NUM_ROLLS * 8
        self._stages = StateRows(sp.size, dense, (self.n_stages, NUM_ROLLS), np.float64,
                                 max(1, STAGE_BYTES // stage_bytes), self._fill_stages)
        self._stage_scratch = None

    @property
    def plans(self) -> np.ndarray:
        """The kept turn plans: plans[row, L, r] (rows from `plan_rows`)."""
        if self._plans.data is None:
            self._plans.clear()
        return self._plans.data

    @property
    def count(self) -> int:
        """How many turn plans are kept."""
        return self._plans.count

    # ---- states ---------------------------------------------------------------------------------
    def state_keys(self, filled, upper, yacht50) -> np.ndarray:
        """Flat solver-state indices (games, columns) from per-column filled masks, upper totals and
        Yacht-50 flags (arrays of shape (games, columns))."""
        sp = self.solution.space
        u = np.minimum(upper, sp.threshold) if sp.n_upper > 1 else 0
        f = np.asarray(yacht50, np.int64) if sp.n_flag > 1 else 0
        return (np.asarray(filled, np.int64) * sp.n_upper + u) * sp.n_flag + f

    def state(self, scores: np.ndarray, upper: np.ndarray):
        """Per-column (mask, capped upper, flag) arrays from a sheet's scores (columns x boxes, -1 open)."""
        sp = self.solution.space
        scores = np.atleast_2d(scores)
        masks = ((scores >= 0) * (1 << np.arange(scores.shape[1]))).sum(axis=1).astype(np.int64)
        uppers = (np.minimum(np.atleast_1d(upper), sp.threshold) if sp.n_upper > 1
                  else np.zeros(len(masks))).astype(np.int64)
        y = self.tables.yacht_box
        flags = ((scores[:, y] == sp.yacht_points) if sp.n_flag > 1 and y >= 0
                 else np.zeros(len(masks), bool)).astype(np.int64)
        return masks, uppers, flags

    def _split(self, keys: np.ndarray):
        """(masks, uppers, flags) of flat state keys."""
        sp = self.solution.space
        return keys // (sp.n_flag * sp.n_upper), (keys // sp.n_flag) % sp.n_upper, keys % sp.n_flag

    # ---- plans ----------------------------------------------------------------------------------
    def plan_rows(self, keys: np.ndarray) -> np.ndarray:
        """Rows of `self.plans` for sheet states `keys` (games, columns); missing plans are computed."""
        return self._plans.rows(keys)

    def _fill_plans(self, keys: np.ndarray, plans: np.ndarray, first: int) -> None:
        masks, uppers, flags = self._split(keys)
        args = (self.tables, self.solution.values, self.dims, self.prep, self.n_stages)
        if len(keys) >= MANY:
            plan_states(*args, masks, uppers, flags, HOLD_OF, plans, first)
        else:
            for k in range(len(keys)):
                plan_state(*args, masks[k:k + 1], uppers[k:k + 1], flags[k:k + 1], HOLD_OF, plans, first + k,
                           *self._scratch.arrays)

    def actions(self, keys, rolls, rolls_left) -> np.ndarray:
        """The optimal action of every game: sheet states `keys` (games, columns), roll indices, re-rolls left."""
        rows = self.plan_rows(keys)
        return self.plans[rows, np.minimum(rolls_left, self.n_stages), rolls].astype(np.int64)

    def act_batch(self, view) -> np.ndarray:
        """The optimal action at every table of a `yacht_env.core.view.BatchView` (the batched player protocol)."""
        keys = self.state_keys(view.own_filled, view.own_upper, view.own_yacht50)
        return self.actions(keys, view.roll, view.rolls_left)

    def plan_seats(self, state, rows) -> None:
        """Compute (and keep) the plans of the sheets of the seats to move at tables `rows` of an engine
        state (what compiled code that plays kept plans needs to go on)."""
        sheets = state.seat_to_move(rows) % state.num_sheets
        cols = state.cols[rows, sheets]
        self.plan_rows(self.state_keys(cols[..., FILLED], cols[..., UPPER], cols[..., YACHT50]))

    def plan_tables(self, rules=None) -> PlanTables | None:
        """Where the kept plans are, for compiled code that plays them (`advance_table`); None with several
        columns (no dense index). The policy's own rules (`rules`, when given, must be them): this makes a
        policy a `yacht_env.core.plan_source.PlanSource`."""
        if not self._plans.dense:
            return None
        sp, plans = self.solution.space, self.plans
        return PlanTables(self._plans.slot, plans, sp.n_upper, sp.n_flag, sp.threshold)

    def advance(self, state, rows, seating, me: int) -> None:
        """Play in compiled code every move of tables `rows` that is player `me`'s and has a kept plan
        (the lockstep runner's fast path; one-column rules only, else nothing is played)."""
        tables = self.plan_tables()
        if tables is None:
            return
        slot, plans, n_upper, n_flag, threshold = tables
        advance_planned(np.ascontiguousarray(rows, np.int64), me, seating, n_upper, n_flag, threshold,
                        slot, plans, state.ypts, state.num_players, state.num_sheets, state.turns,
                        state.seeds, state.ints, state.dice, state.faces, state.scores, state.cols, state.totals,
                        state.preview, state.extra, *state.tables)

    def action(self, scores, upper, roll: int, rolls_left: int) -> int:
        """The best action for one sheet (columns x boxes scores, upper totals) and roll index `roll`."""
        masks, uppers, flags = self.state(scores, upper)
        keys = ((masks * self.dims[0] + uppers) * self.dims[1] + flags)[None]
        return int(self.actions(keys, np.array([roll]), np.array([rolls_left]))[0])

    # ---- the strength dial ----------------------------------------------------------------------
    def stage_rows(self, keys: np.ndarray) -> np.ndarray:
        """Rows of the kept stage values (`stage_states`) for sheet states `keys` (games, columns);
        missing ones are computed. Needs rolls_per_turn > 1."""
        return self._stages.rows(keys)

    def _fill_stages(self, keys: np.ndarray, stages: np.ndarray, first: int) -> None:
        masks, uppers, flags = self._split(keys)
        args = (self.tables, self.solution.values, self.dims, self.prep, self.n_stages)
        if len(keys) >= MANY:
            stage_states(*args, masks, uppers, flags, stages, first)
            return
        if self._stage_scratch is None:
            self._stage_scratch = Scratch(self.tables.n_boxes, self.n_stages - 1, self.gain.shape[2]).arrays
        sc = self._stage_scratch
        for k in range(len(keys)):
            stage_state(*args, masks[k:k + 1], uppers[k:k + 1], flags[k:k + 1], stages, first + k, *sc[:8],
                        sc[9], sc[10])

    def _stage_inputs(self, keys, rolls, rolls_left):
        """(keys, rolls, re-rolls left, stage rows, stage values) as the dial's kernels take them."""
        keys = np.ascontiguousarray(keys, np.int64)
        rolls = np.ascontiguousarray(rolls, np.int64)
        lefts = np.minimum(np.ascontiguousarray(rolls_left, np.int64), self.n_stages)
        rows = np.zeros(len(keys), np.int64)
        if self.n_stages > 0 and (lefts > 0).any():
            rows[lefts > 0] = self.stage_rows(keys[lefts > 0])
            return keys, rolls, lefts, rows, self._stages.data
        return keys, rolls, lefts, rows, np.zeros((1, 1, NUM_ROLLS))

    def move_values(self, keys, rolls, rolls_left) -> np.ndarray:
        """(games, actions) the value of every action at each game's decision (`move_values`, -inf where
        illegal): sheet states `keys` (games, columns), roll indices, re-rolls left."""
        keys, rolls, lefts, rows, stages = self._stage_inputs(keys, rolls, rolls_left)
        out = np.empty((len(keys), num_actions(self.rules)))
        move_values(self.tables, self.solution.values, self.dims, self.prep, stages, rows, keys, rolls, lefts, out)
        return out

    def sampled_actions(self, keys, rolls, rolls_left, temperature: float, uniforms):
        """(actions, losses): per game a move drawn from the softmax over its legal moves' values at this
        temperature (`pick_moves`, > 0; inf: uniform over the distinct moves) with its uniform number, and
        the expected points it loses against the best move (`dial_moves`)."""
        keys, rolls, lefts, rows, stages = self._stage_inputs(keys, rolls, rolls_left)
        actions = np.empty(len(keys), np.int64)
        losses = np.empty(len(keys))
        args = (self.tables, self.solution.values, self.dims, self.prep, stages, rows, keys, rolls, lefts,
                float(temperature), np.ascontiguousarray(uniforms, np.float64), FIRST_HOLD, actions, losses)
        (dial_moves_parallel if len(keys) >= 2 * BLOCK else dial_moves)(*args)
        return actions, losses

    # ---- values ---------------------------------------------------------------------------------
    def widget(self, masks, uppers, flags, stages: int):
        """(S, best, choice): stage values S[L, r], chosen keeps best[L, r] (L >= 1) and boxes choice[r]."""
        sc = Scratch(self.tables.n_boxes, stages, self.gain.shape[2]).arrays
        widget_at(self.tables, self.solution.values, self.dims, self.prep, stages, np.asarray(masks, np.int64),
                  np.asarray(uppers, np.int64), np.asarray(flags, np.int64), *sc)
        return sc[-3], sc[-2], sc[-1]

    def alternatives(self, scores, upper, roll: int, rolls_left: int) -> list[tuple[int, float]]:
        """Every legal action with the expected points still to come after it (this turn's included), best first.

        Holds that keep the same dice are listed once (the lowest pattern).
        """
        masks, uppers, flags = self.state(scores, upper)
        stages = min(rolls_left, self.n_stages)
        S, _, _ = self.widget(masks, uppers, flags, stages)
        out = []
        if stages > 0:
            K = np.empty(NUM_KEEPS)
            keep_values(S[stages - 1], K)
            seen = set()
            for h in range(NUM_HOLDS):
                k = int(HOLD_KEEP[roll, h])
                if k not in seen:
                    seen.add(k)
                    out.append((h, float(K[k])))
        out += self.box_values(masks, uppers, flags, roll)
        out.sort(key=lambda av: (-av[1], av[0]))
        return out

    def box_values(self, masks, uppers, flags, roll: int):
        """(scoring action, value) for every box the rules allow for this roll."""
        sp, T, V = self.solution.space, self.tables, self.solution.values
        idx = [sp.index(m, u, f) for m, u, f in zip(masks, uppers, flags)]
        total = float(sum(V[i] for i in idx))
        out = np.empty(T.n_boxes, dtype=np.int32)
        res = []
        for c, (mask, u, flag) in enumerate(zip(masks, uppers, flags)):
            extra = int(box_options(T, int(mask), bool(flag), roll, out))
            for b in np.flatnonzero(out >= 0):
                p = int(out[b])
                nxt = next_state(T.box_face, T.yacht_box, *self.dims, int(mask), int(u), int(flag), int(b), p)
                w = float(self.gain[b, u, p]) + float(V[nxt])
                res.append((score_action(self.rules, c, b), (p + extra) + w + (total - float(V[idx[c]]))))
        return res


def hold_of(roll: int, keep: int) -> int:
    """The lowest hold pattern (bit i keeps sorted die i) that keeps `keep` from `roll`."""
    return int(HOLD_OF[roll, keep])
