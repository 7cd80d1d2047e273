"""Optimal moves from a solved table, for one game or for many at once.

A *plan* is a whole turn of optimal play from one sheet state: for every roll r and every number of
re-rolls left L, the action to play (`plan[L, r]`, the encoding of `yacht_env.actions`). It comes from
the turn widget at that state (`yacht_env.solver.widget`) and is computed once per state, then kept
(`Policy.plans`), so a decision is a table lookup: a batch of games asks for the plans of the states it
is in (the new ones are computed together, in parallel) and reads one entry per game.

With one column the value of a move is exact: points + bonuses + the table's value of the next state.
With several columns (too many states to solve) the sheet is valued as the sum of each column's
solitaire value, and a move is worth its points + bonuses + the value of the column it changes, plus
the unchanged values of the others: the best move is the one that loses the least solitaire value for
what it scores. For one column both readings are the same.
"""
import numba as nb
import numpy as np

from ..actions import NUM_HOLDS, score_action, score_action_of
from ..dice import HOLD_KEEP, NUM_KEEPS, NUM_ROLLS
from ..engine import FILLED, FIRST, ROLL, ROLLS_USED, TURN, UPPER, YACHT50, play_action, roll_seeded
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


MANY = 16   # states per call from which the parallel `plan_states` pays off


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

    max_plans: how many turn plans to keep (each 252 bytes per roll stage: 756 bytes with three rolls);
    when full the kept plans are dropped and computed again as needed, so memory stays bounded. The
    default holds every state optimal play visits under the presets (about 150k after 400k games of
    `yacht`, of 256k fill patterns x upper totals), at most ~400 MB with three rolls.
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
        self._dense = rules.columns == 1 and sp.size <= 1 << 24
        self._clear()

    def _clear(self) -> None:
        self.plans = np.empty((min(1024, self.max_plans), self.n_stages + 1, NUM_ROLLS), np.uint8)
        self.count = 0
        if self._dense:
            self._slot = np.full(self.solution.space.size, -1, np.int64)
        else:
            self._slot = {}

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

    # ---- plans ----------------------------------------------------------------------------------
    def plan_rows(self, keys: np.ndarray) -> np.ndarray:
        """Rows of `self.plans` for sheet states `keys` (games, columns); missing plans are computed."""
        keys = np.ascontiguousarray(keys, np.int64)
        if self._dense:
            rows = self._slot[keys[:, 0]]
            if (rows >= 0).all():
                return rows
            new = np.unique(keys[rows < 0, 0])[:, None]
        else:
            rows = np.array([self._slot.get(k.tobytes(), -1) for k in keys], np.int64)
            if (rows >= 0).all():
                return rows
            new = np.unique(keys[rows < 0], axis=0)
        if self.count + len(new) > self.max_plans:
            self._clear()
            return self.plan_rows(keys)
        self._compute(new)
        return self.plan_rows(keys)

    def _compute(self, keys: np.ndarray) -> None:
        sp = self.solution.space
        need = self.count + len(keys)
        if need > len(self.plans):
            grown = np.empty((min(max(need, 2 * len(self.plans)), self.max_plans), *self.plans.shape[1:]), np.uint8)
            grown[:self.count] = self.plans[:self.count]
            self.plans = grown
        flags = keys % sp.n_flag
        uppers = (keys // sp.n_flag) % sp.n_upper
        masks = keys // (sp.n_flag * sp.n_upper)
        args = (self.tables, self.solution.values, self.dims, self.prep, self.n_stages)
        if len(keys) >= MANY:
            plan_states(*args, masks, uppers, flags, HOLD_OF, self.plans, self.count)
        else:
            for k in range(len(keys)):
                plan_state(*args, masks[k:k + 1], uppers[k:k + 1], flags[k:k + 1], HOLD_OF, self.plans,
                           self.count + k, *self._scratch.arrays)
        rows = np.arange(self.count, need)
        if self._dense:
            self._slot[keys[:, 0]] = rows
        else:
            for k, row in zip(keys, rows):
                self._slot[k.tobytes()] = int(row)
        self.count = need

    def actions(self, keys, rolls, rolls_left) -> np.ndarray:
        """The optimal action of every game: sheet states `keys` (games, columns), roll indices, re-rolls left."""
        rows = self.plan_rows(keys)
        return self.plans[rows, np.minimum(rolls_left, self.n_stages), rolls].astype(np.int64)

    def act_batch(self, view) -> np.ndarray:
        """The optimal action at every table of a `yacht_env.view.BatchView` (the batched player protocol)."""
        keys = self.state_keys(view.own_filled, view.own_upper, view.own_yacht50)
        return self.actions(keys, view.roll, view.rolls_left)

    def plan_tables(self):
        """(slot, plans, n_upper, n_flag, threshold): where the kept plans are, for compiled code that plays
        them (`advance_table`); None with several columns (no dense index). `plans` may be replaced when it
        grows: ask again after plans are computed."""
        if not self._dense:
            return None
        sp = self.solution.space
        return self._slot, self.plans, sp.n_upper, sp.n_flag, sp.threshold

    def advance(self, state, rows, seating, me: int) -> None:
        """Play in compiled code every move of tables `rows` that is player `me`'s and has a kept plan
        (the lockstep runner's fast path; one-column rules only, else nothing is played)."""
        if not self._dense:
            return
        sp = self.solution.space
        advance_planned(np.ascontiguousarray(rows, np.int64), me, seating, sp.n_upper, sp.n_flag, sp.threshold,
                        self._slot, self.plans, state.ypts, state.num_players, state.num_sheets, state.turns,
                        state.seeds, state.ints, state.dice, state.faces, state.scores, state.cols, state.totals,
                        state.preview, state.extra, *state.tables)

    def action(self, scores, upper, roll: int, rolls_left: int) -> int:
        """The best action for one sheet (columns x boxes scores, upper totals) and roll index `roll`."""
        masks, uppers, flags = self.state(scores, upper)
        keys = ((masks * self.dims[0] + uppers) * self.dims[1] + flags)[None]
        return int(self.actions(keys, np.array([roll]), np.array([rolls_left]))[0])

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
        from ..kernels import box_options
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
