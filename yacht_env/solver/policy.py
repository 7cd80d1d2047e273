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

Under saved rolls (`RuleSet.saved_rolls`, one column only) a plan is still keyed by the sheet state (filled boxes,
upper total, flag) and the re-rolls left, now up to rolls_per_turn - 1 + the cap: a turn with saved rolls starts
at a higher stage, and each stage's boxes are those of the saved rolls scoring there carries (`saved`). Those plans
and stage values are computed one state at a time (`saved.saved_plans`, `saved.saved_stages`).
"""

import numpy as np

from ..core.actions import num_actions, num_holds, score_action
from ..core.engine import FILLED, UPPER, YACHT50
from ..core.kernels import box_options
from ..core.plan_source import PlanTables
from .solution import Solution
from .widget import box_table, hold_tables, keep_values, next_state, prepare, widget_scratch
from .dial import BLOCK, Decisions, dial_moves, dial_moves_parallel, move_values
from .plans import Sheets, plan_state, plan_states, stage_state, stage_states, widget_at
from .play import advance_planned
from .saved import saved_plans, saved_scratch, saved_stages, saved_widget
from .space import check_saved_rolls
from .state_rows import StateRows

MANY = 16   # states per call from which the parallel `plan_states` / `stage_states` pay off
STAGE_BYTES = 64 << 20   # memory for the kept stage values of one policy (`Policy.stage_rows`)


class Policy:
    """Optimal (one column) or column-additive (several columns) play from a `Solution`.

    max_plans: how many turn plans to keep (one byte per roll and roll stage: 756 bytes with five dice and three
    rolls, 1,386 with six; `StateRows`), so memory stays bounded. The default holds every state optimal play
    visits under the five-dice presets (about 150k after 400k games of `yacht`, of 256k fill patterns x upper
    totals), at most ~400 MB with five dice and three rolls (~730 MB with six). The stage values of the
    strength dial (`stage_rows`) are kept the same way, in at most `STAGE_BYTES`.
    """

    def __init__(self, rules, solution: Solution, max_plans: int = 1 << 19):
        sp = solution.space
        if rules.columns > 1:
            check_saved_rolls(rules, "several columns' additive play")
        self.rules, self.solution = rules, solution
        self.tables = rules.tables
        self.model = prepare(self.tables, sp)
        self.gain = self.model.L.gain
        n_rolls = self.model.D.n_rolls
        self.n_saved = sp.n_saved
        self.n_stages = rules.rolls_per_turn - 1 + sp.n_saved - 1    # the most re-rolls a turn has
        self.max_plans = int(max_plans)
        self._scratch = widget_scratch(self.model, self.n_stages)
        dense = rules.columns == 1 and sp.sheet_states <= 1 << 24
        self._plans = StateRows(sp.sheet_states, dense, (self.n_stages + 1, n_rolls), np.uint8, self.max_plans,
                                self._fill_plans)
        stage_bytes = max(self.n_stages, 1) * n_rolls * 8
        self._stages = StateRows(sp.sheet_states, dense, (self.n_stages, n_rolls), np.float64,
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
        """Sheet states (games, columns; `space`: the flat index without saved rolls) from per-column filled
        masks, upper totals and Yacht-50 flags (arrays of shape (games, columns))."""
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
        M, V, states = self.model, self.solution.values, Sheets(masks, uppers, flags)
        if self.n_saved > 1:
            saved_plans(M, V, self.n_stages, states, plans, first)
        elif len(keys) >= MANY:
            plan_states(M.T, M.D, M.space, M.L, V, self.n_stages, states, plans, first)
        else:
            plan_state(M, V, self.n_stages, states, plans, first, self._scratch)

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
        advance_planned(np.ascontiguousarray(rows, np.int64), me, seating, tuple(tables), state.ypts,
                        state.num_players, state.num_sheets, state.turns, state.arrays, state.table_fields)

    def action(self, scores, upper, roll: int, rolls_left: int) -> int:
        """The best action for one sheet (columns x boxes scores, upper totals) and roll index `roll`."""
        masks, uppers, flags = self.state(scores, upper)
        sp = self.solution.space
        keys = ((masks * sp.n_upper + uppers) * sp.n_flag + flags)[None]
        return int(self.actions(keys, np.array([roll]), np.array([rolls_left]))[0])

    # ---- the strength dial ----------------------------------------------------------------------
    def stage_rows(self, keys: np.ndarray) -> np.ndarray:
        """Rows of the kept stage values (`stage_states`) for sheet states `keys` (games, columns);
        missing ones are computed. Needs rolls_per_turn > 1."""
        return self._stages.rows(keys)

    def _fill_stages(self, keys: np.ndarray, stages: np.ndarray, first: int) -> None:
        masks, uppers, flags = self._split(keys)
        M, V, states = self.model, self.solution.values, Sheets(masks, uppers, flags)
        if self.n_saved > 1:
            saved_stages(M, V, self.n_stages, states, stages, first)
            return
        if len(keys) >= MANY:
            stage_states(M.T, M.D, M.space, M.L, V, self.n_stages, states, stages, first)
            return
        if self._stage_scratch is None:
            self._stage_scratch = widget_scratch(M, self.n_stages - 1)
        stage_state(M, V, self.n_stages, states, stages, first, self._stage_scratch)

    def _stage_inputs(self, keys, rolls, rolls_left):
        """(keys, rolls, re-rolls left, stage rows, stage values) as the dial's kernels take them."""
        keys = np.ascontiguousarray(keys, np.int64)
        rolls = np.ascontiguousarray(rolls, np.int64)
        lefts = np.minimum(np.ascontiguousarray(rolls_left, np.int64), self.n_stages)
        rows = np.zeros(len(keys), np.int64)
        if self.n_stages > 0 and (lefts > 0).any():
            rows[lefts > 0] = self.stage_rows(keys[lefts > 0])
            return keys, rolls, lefts, rows, self._stages.data
        return keys, rolls, lefts, rows, np.zeros((1, 1, self.model.D.n_rolls))

    def move_values(self, keys, rolls, rolls_left) -> np.ndarray:
        """(games, actions) the value of every action at each game's decision (`move_values`, -inf where
        illegal): sheet states `keys` (games, columns), roll indices, re-rolls left."""
        keys, rolls, lefts, rows, stages = self._stage_inputs(keys, rolls, rolls_left)
        out = np.empty((len(keys), num_actions(self.rules)))
        move_values(self.model, self.solution.values, stages, rows, keys, rolls, lefts, out)
        return out

    def sampled_actions(self, keys, rolls, rolls_left, temperature: float, uniforms):
        """(actions, losses): per game a move drawn from the softmax over its legal moves' values at this
        temperature (`pick_moves`, > 0; inf: uniform over the distinct moves) with its uniform number, and
        the expected points it loses against the best move (`dial_moves`)."""
        keys, rolls, lefts, rows, stages = self._stage_inputs(keys, rolls, rolls_left)
        actions = np.empty(len(keys), np.int64)
        losses = np.empty(len(keys))
        M, V = self.model, self.solution.values
        decisions = Decisions(rows, keys, rolls, lefts, np.ascontiguousarray(uniforms, np.float64))
        if len(keys) >= 2 * BLOCK:
            dial_moves_parallel(M.T, M.D, M.space, M.L, V, stages, decisions, float(temperature), actions, losses)
        else:
            dial_moves(M, V, stages, decisions, float(temperature), actions, losses)
        return actions, losses

    # ---- values ---------------------------------------------------------------------------------
    def widget(self, masks, uppers, flags, stages: int):
        """(S, best, choice): stage values S[L, r], chosen keeps best[L, r] (L >= 1) and boxes choice[r] (under saved
        rolls: choice[c, r], the box scoring carrying c saved rolls)."""
        if self.n_saved > 1:
            Y = saved_scratch(self.model, stages)
            mask, u, flag = (int(np.asarray(a).ravel()[0]) for a in (masks, uppers, flags))
            box_table(self.model, mask, flag == 1, Y.opts, Y.extra)
            saved_widget(self.model, self.solution.values, mask, u, flag, stages, Y)
            return Y.S, Y.best, Y.choice0
        X = widget_scratch(self.model, stages)
        widget_at(self.model, self.solution.values, stages, np.asarray(masks, np.int64),
                  np.asarray(uppers, np.int64), np.asarray(flags, np.int64), X)
        return X.S, X.best, X.choice

    def alternatives(self, scores, upper, roll: int, rolls_left: int) -> list[tuple[int, float]]:
        """Every legal action with the expected points still to come after it (this turn's included), best first.

        Holds that keep the same dice are listed once (the lowest pattern).
        """
        masks, uppers, flags = self.state(scores, upper)
        stages = min(rolls_left, self.n_stages)
        S, _, _ = self.widget(masks, uppers, flags, stages)
        out = []
        if stages > 0:
            K = np.empty(self.model.D.n_keeps)
            keep_values(self.model, S[stages - 1], K)
            seen = set()
            for h in range(num_holds(self.rules)):
                k = int(self.model.D.hold_keep[roll, h])
                if k not in seen:
                    seen.add(k)
                    out.append((h, float(K[k])))
        out += self.box_values(masks, uppers, flags, roll, min(rolls_left, self.n_saved - 1))
        out.sort(key=lambda av: (-av[1], av[0]))
        return out

    def box_values(self, masks, uppers, flags, roll: int, carry: int = 0):
        """(scoring action, value) for every box the rules allow for this roll; `carry`: the saved rolls scoring
        now leaves the sheet (re-rolls left, at most the rules' saved_rolls)."""
        sp, T, V = self.solution.space, self.tables, self.solution.values
        idx = [sp.index(m, u, f, carry) for m, u, f in zip(masks, uppers, flags)]
        total = float(sum(V[i] for i in idx))
        out = np.empty(T.n_boxes, dtype=np.int32)
        res = []
        for c, (mask, u, flag) in enumerate(zip(masks, uppers, flags)):
            extra = int(box_options(T, int(mask), bool(flag), roll, out))
            for b in np.flatnonzero(out >= 0):
                p = int(out[b])
                nxt = next_state(sp, T.box_face, T.yacht_box, int(mask), int(u), int(flag), int(b), p) * sp.n_saved
                w = float(self.gain[b, u, p]) + float(V[nxt + carry])
                res.append((score_action(self.rules, c, b), (p + extra) + w + (total - float(V[idx[c]]))))
        return res


def hold_of(roll: int, keep: int, dice: int = 5) -> int:
    """The lowest hold pattern (bit i keeps sorted die i) that keeps `keep` from `roll` (indices of `dice` dice)."""
    lowest = hold_tables(dice)[0]
    return int(lowest[roll, keep])
