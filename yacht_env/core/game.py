"""One game of Yacht: 1-8 seats, any rule set, holds, scoring, joker, undo, ties.

A `Game` is a friendly view of one table of `yacht_env.core.engine.State`: every roll and every score goes
through the engine's compiled transition, so a game played here and the same game played in a batch
are the same game.

A turn starts in phase "roll": the seat must `roll()` all the dice (five, or six under `dice: 6`). In
phase "decide" it may re-roll with a hold pattern while rolls remain, or `score` one open box, which
ends the turn. Until the next roll, `undo()` gives the same dice back. Dice are kept sorted, so hold
bit i always means the i-th smallest die. Actions (`apply`, `legal_mask`) use the encoding of `yacht_env.core.actions`.
"""
import numpy as np

from . import actions
from .dice_source import SeededDice
from .engine import (ALLOWED, EXTRA_BONUS, EXTRA_YACHTS, FILLED, FIRST, ROLLS_USED, SAVED, TURN, UPPER, UPPER_BONUS,
                     State, roll_key, roll_off, roll_one, score_one)
from .view import read_only
from ..rules import RuleSet, load


DICE_WORDS = {5: "five", 6: "six"}    # the dice count in a player's message


class IllegalMove(ValueError):
    """A move the rules do not allow; the game state is left untouched."""


class Sheet:
    """One score sheet of a game (a player's, or a team's), read from the engine's arrays.

    The arrays are read-only views: change a sheet by hand with `Game.set_sheet`. Each field of the sheet is
    its own documented property, alike in shape on purpose (as `view.BatchView`'s): what a bot author reads.
    """

    def __init__(self, state: State, table: int, sheet: int):
        self._state, self._i, self._s = state, table, sheet

    @property
    def scores(self) -> np.ndarray:
        """(columns, boxes) box scores, -1 = open."""
        return read_only(self._state.scores[self._i, self._s])

    def _col(self, k) -> np.ndarray:
        return read_only(self._state.cols[self._i, self._s, :, k])

    @property
    def upper(self) -> np.ndarray:
        """Upper-section total per column."""
        return self._col(UPPER)

    @property
    def upper_bonus(self) -> np.ndarray:
        """Upper bonus earned per column."""
        return self._col(UPPER_BONUS)

    @property
    def extra_bonus(self) -> np.ndarray:
        """Extra-Yacht bonus points earned per column."""
        return self._col(EXTRA_BONUS)

    @property
    def extra_yachts(self) -> np.ndarray:
        """How many extra-Yacht bonuses per column."""
        return self._col(EXTRA_YACHTS)

    def filled_mask(self, column: int) -> int:
        """Bit b set when box b of the column is filled."""
        return int(self._state.cols[self._i, self._s, column, FILLED])

    @property
    def total(self) -> int:
        """Boxes plus every bonus."""
        return int(self._state.totals[self._i, self._s])

    @property
    def full(self) -> bool:
        return bool((self._state.scores[self._i, self._s] >= 0).all())


class Game:
    """A game for `num_players` seats under a rule set.

    rules: a RuleSet, a preset name or a YAML path (with `overrides`).
    seed / dice: dice come from `dice` (any object with `draw(sheet, turn, roll, n)`),
    by default `SeededDice(seed)`.
    first_seat: the seat that plays the first turn; by default seat 0, or under `first_player: roll_off`
    the winner of the roll-off (`roll_off`, recorded in `roll_off_dice`).
    """

    def __init__(self, rules="yacht", num_players: int = 1, seed: int = 0, dice=None, first_seat: int | None = None,
                 **overrides):
        rules = rules if isinstance(rules, RuleSet) and not overrides else load(rules, **overrides)
        rules.check_players(num_players)
        source = dice if dice is not None else SeededDice(seed)
        self.roll_off_dice: list[list[int]] = []
        if first_seat is None:
            first_seat, self.roll_off_dice = roll_off(rules, num_players, source)
        if isinstance(first_seat, bool) or not isinstance(first_seat, int) or not 0 <= first_seat < num_players:
            raise ValueError(f"first_seat must be 0..{num_players - 1}, got {first_seat!r}")
        state = State(rules, 1, num_players)
        state.reset([seed], first_seat)
        self._bind(state, 0, source)
        self.seed = seed

    @classmethod
    def of_table(cls, state: State, table: int) -> "Game":
        """A `Game` viewing table `table` of a batch (seeded dice, no move log); its moves change the batch."""
        game = cls.__new__(cls)
        game._bind(state, table, SeededDice(int(state.seeds[table])))
        game.seed = int(state.seeds[table])
        return game

    def _bind(self, state: State, table: int, dice_source) -> None:
        self._state, self._i = state, table
        self._ints = state.ints[table]
        self.rules: RuleSet = state.rules
        self.tables = state.tables
        self.num_players, self.num_sheets = state.num_players, state.num_sheets
        self.n_boxes = len(self.rules.boxes)
        self.num_actions = actions.num_actions(self.rules)
        self.num_holds = actions.num_holds(self.rules)
        self.dice_source = dice_source
        self._seeded = type(dice_source) is SeededDice and dice_source.seed == int(state.seeds[table])
        self.sheets = [Sheet(state, table, s) for s in range(self.num_sheets)]
        self.log: list[dict] = []      # every roll and score, for replays and tournament stores
        self._undo = None
        self._tiebreak: dict | None = None

    @property
    def state(self) -> State:
        """The engine arrays this game is a view of (`table` is its row)."""
        return self._state

    @property
    def table(self) -> int:
        return self._i

    # ---- whose turn -------------------------------------------------------------------------
    @property
    def first_seat(self) -> int:
        return self._ints.item(FIRST)

    @property
    def turn(self) -> int:
        """Turns played so far, all sheets together."""
        return self._ints.item(TURN)

    @property
    def rolls_used(self) -> int:
        return self._ints.item(ROLLS_USED)

    @property
    def phase(self) -> str:
        """'roll' (the seat to move must roll), 'decide' (it has dice in hand) or 'over'."""
        ints = self._ints
        if ints.item(TURN) >= self._state.turns:
            return "over"
        return "decide" if ints.item(ROLLS_USED) else "roll"

    @property
    def dice(self) -> tuple[int, ...]:
        """The dice in hand, sorted; () when none are."""
        if self.phase != "decide":
            return ()
        return tuple(self._state.dice[self._i].tolist())

    @property
    def current_seat(self) -> int:
        ints = self._ints
        return (ints.item(FIRST) + ints.item(TURN)) % self.num_players

    def sheet_of(self, seat: int) -> int:
        """The sheet a seat writes on (its own, or its team's)."""
        return seat % self.num_sheets

    @property
    def current_sheet(self) -> int:
        return self.sheet_of(self.current_seat)

    @property
    def round(self) -> int:
        """The current sheet's turn number (0 .. rules.rounds - 1)."""
        return self.turn // self.num_sheets

    @property
    def rolls_left(self) -> int:
        """The rolls the seat to move may still make this turn (before its first roll: the whole turn's, rolls
        per turn plus its sheet's saved rolls)."""
        used = self._ints.item(ROLLS_USED)
        if used:
            return self._ints.item(ALLOWED) - used
        return self.rules.rolls_per_turn + self.saved_rolls

    @property
    def saved_rolls(self) -> int:
        """The rolls the sheet to move has saved for later turns (`RuleSet.saved_rolls`; always 0 without)."""
        return self.saved_rolls_of(self.current_sheet)

    def saved_rolls_of(self, sheet: int) -> int:
        """The rolls a sheet has saved for its later turns (while it rolls: those it had at its turn's start)."""
        return int(self._state.cols[self._i, sheet, 0, SAVED])

    def saved_rolls_shown(self, sheet: int) -> int:
        """The saved rolls to show by a sheet: those it has saved; for the sheet to move, those of its rolls left
        that are saved ones (a turn uses its own rolls first)."""
        saved = self.saved_rolls_of(sheet)
        if not self.is_over and self.current_sheet == sheet:
            return min(saved, self.rolls_left)
        return saved

    @property
    def is_over(self) -> bool:
        return self.phase == "over"

    # ---- moves ------------------------------------------------------------------------------
    def roll(self, hold=0) -> tuple[int, ...]:
        """Roll the dice not held. hold: a bit mask (bit i keeps sorted die i) or a list of positions."""
        phase = self.phase
        if phase == "over":
            raise IllegalMove("the game is over; no more rolls")
        mask = self._hold_mask(hold)
        if phase == "roll":
            if mask:
                raise IllegalMove(f"the first roll of a turn rolls all {DICE_WORDS[self.rules.dice]} dice; cannot hold "
                                  f"{actions.held_positions(mask)}")
        elif self.rolls_left <= 0:
            limit = f"limit {self.rules.rolls_per_turn} per turn" + (
                f" plus {self.saved_rolls} saved" if self.saved_rolls else "")
            raise IllegalMove(f"no rolls left ({limit}); score a box: "
                              f"{', '.join(self.legal_boxes())}")
        st = self._state
        if not self._seeded:
            n = self.rules.dice - bin(mask).count("1")
            faces = list(self.dice_source.draw(self.current_sheet, self.round, int(roll_key(self.rolls_used)), n))
            if len(faces) != n or not all(isinstance(f, (int, np.integer)) and 1 <= f <= 6 for f in faces):
                raise ValueError(f"the dice source gave {faces!r} for {n} dice (faces 1..6 are needed)")
            st.faces[self._i, :n] = faces
        roll_one(self._i, mask, self._seeded, self.num_players, self.num_sheets, st.arrays, st.table_fields)
        self._undo = None
        self.log.append({"seat": self.current_seat, "hold": mask, "dice": list(self.dice)})
        return self.dice

    def _hold_mask(self, hold) -> int:
        n, holds = self.rules.dice, self.num_holds
        if isinstance(hold, (int, np.integer)) and not isinstance(hold, (bool, np.bool_)):
            mask = int(hold)
        else:
            try:
                positions = {actions.as_action(p, n) for p in hold}
            except (TypeError, ValueError):
                raise IllegalMove(f"hold must be a bit mask 0..{holds - 1} or die positions 0..{n - 1}, "
                                  f"got {hold!r}") from None
            mask = sum(1 << p for p in positions)
        if not 0 <= mask < holds:
            raise IllegalMove(f"hold pattern {mask} is not 0..{holds - 1} "
                              f"(holding all {DICE_WORDS[n]} dice means scoring)")
        return mask

    def preview(self) -> dict[tuple[int, str], int]:
        """What each box the rules allow would score now: {(column, box): points}, joker values included."""
        if self.phase != "decide":
            return {}
        pts = self._state.preview[self._i]
        return {(int(c), self.rules.boxes[b]): int(pts[c, b]) for c, b in zip(*np.nonzero(pts >= 0))}

    def legal_boxes(self) -> list[str]:
        """Boxes that may be scored now, as `box` or `box@column` when there are several columns."""
        if self.rules.columns == 1:
            return [b for (_, b) in self.preview()]
        return [f"{b}@{c + 1}" for (c, b) in self.preview()]

    def _box_index(self, box) -> int:
        if isinstance(box, (int, np.integer)) and not isinstance(box, (bool, np.bool_)):
            if not 0 <= box < self.n_boxes:
                raise IllegalMove(f"box index {box} is not 0..{self.n_boxes - 1}")
            return int(box)
        if box not in self.rules.boxes:
            raise IllegalMove(f"no box {box!r} in rules {self.rules.name!r}; boxes: {', '.join(self.rules.boxes)}")
        return self.rules.boxes.index(box)

    def score(self, box, column: int = 0) -> int:
        """Score the dice in an open box (by id or index); ends the turn. Returns the points gained."""
        phase = self.phase
        if phase != "decide":
            raise IllegalMove("roll the dice first" if phase == "roll" else "the game is over")
        b = self._box_index(box)
        if isinstance(column, (bool, np.bool_)) or not isinstance(column, (int, np.integer)) \
                or not 0 <= column < self.rules.columns:
            raise IllegalMove(f"column {column!r} is not 0..{self.rules.columns - 1}")
        st, i = self._state, self._i
        name = self.rules.boxes[b]
        points = int(st.preview[i, column, b])
        if points < 0:
            why = ("is already filled" if self.sheets[self.current_sheet].scores[column, b] >= 0
                   else "is not allowed by the joker rule now")
            raise IllegalMove(f"box {name!r} {why}; legal boxes: {', '.join(self.legal_boxes())}")
        seat, s = self.current_seat, self.current_sheet
        self._undo = (s, st.ints[i].copy(), st.preview[i].copy(), st.extra[i].copy(), st.scores[i, s].copy(),
                      st.cols[i, s].copy(), int(st.totals[i, s]), len(self.log))
        gain = int(score_one(i, int(column), b, st.ypts, self.num_players, self.num_sheets, st.arrays,
                             st.table_fields))
        self.log.append({"seat": seat, "box": name, "column": int(column), "points": points, "bonus": gain - points})
        return gain

    @property
    def can_undo(self) -> bool:
        """Whether `undo` would take back a scoring (one was played and no roll since)."""
        return self._undo is not None

    def undo(self) -> None:
        """Take back the last scoring, with the same dice, until the next roll."""
        if self._undo is None:
            raise IllegalMove("nothing to undo (undo works after scoring, until the next roll)")
        st, i = self._state, self._i
        s, ints, preview, extra, scores, cols, total, n = self._undo
        st.ints[i], st.preview[i], st.extra[i] = ints, preview, extra
        st.scores[i, s], st.cols[i, s], st.totals[i, s] = scores, cols, total
        del self.log[n:]
        self._undo = None
        self._tiebreak = None

    def set_sheet(self, sheet: int, scores, upper_bonus=None, extra_bonus=None, saved: int = 0) -> None:
        """Write a sheet by hand (for positions, tests and replays): box scores as (columns, boxes) or, with
        one column, (boxes,), -1 = open; upper totals, Yacht-50 flags and what the dice in hand would score
        follow from them. Bonuses default to the upper bonus the totals earn and no extra-Yacht bonus; `saved`
        is the rolls the sheet has saved (rules with saved_rolls)."""
        self._state.set_scores(self._i, sheet, scores, upper_bonus, extra_bonus, saved)
        self._undo = None
        self._tiebreak = None

    # ---- joint actions ------------------------------------------------------------------------
    def legal_mask(self) -> np.ndarray:
        """int8 mask over actions (holds 0..30, or 0..62 with six dice, then boxes column-major); all zero
        outside 'decide'."""
        return self._state.masks([self._i])[0]

    def apply(self, action) -> None:
        """Play a joint action (`yacht_env.core.actions`): an integer, never a float or a string."""
        try:
            a = actions.as_action(action, self.num_actions)
        except ValueError as e:
            raise IllegalMove(str(e)) from None
        phase = self.phase
        if phase != "decide":
            raise IllegalMove("roll the dice first" if phase == "roll" else "the game is over")
        kind, *rest = actions.decode(self.rules, a)
        if kind == "hold":
            self.roll(rest[0])
        else:
            self.score(rest[1], rest[0])

    def action_name(self, action: int) -> str:
        """Readable form of an action: 'hold 0,2' / 'roll all' / 'score full_house' (@column)."""
        return actions.action_name(self.rules, action)

    # ---- results ----------------------------------------------------------------------------
    def totals(self) -> list[int]:
        """Total per seat (a team's seats share the team total)."""
        t = self._state.totals[self._i]
        return [int(t[self.sheet_of(s)]) for s in range(self.num_players)]

    def sheet_totals(self) -> list[int]:
        return [int(t) for t in self._state.totals[self._i]]

    def tiebreak(self) -> dict:
        """Sudden-death roll-offs among sheets tied for first: {sheet: [sums...]} (empty when not needed)."""
        if self._tiebreak is None:
            self._tiebreak = tiebreak_rolls(self.rules, self.sheet_totals(), self.dice_source) \
                if self.phase == "over" else {}
        return self._tiebreak

    def sheet_ranks(self) -> list[int]:
        """Place of each sheet (1 = best; equal totals share a place, the top tie broken per rules)."""
        return ranks(self.sheet_totals(), self.tiebreak())

    def winners(self) -> list[int]:
        """Seats that won (all seats of a winning team; several when the win is shared)."""
        if self.phase != "over":
            return []
        r = self.sheet_ranks()
        return [s for s in range(self.num_players) if r[self.sheet_of(s)] == 1]

    def rematch(self, seed: int | None = None) -> "Game":
        """A new game with the same rules and seats; the first turn passes to the next seat (seed 000),
        under any `first_player` rule."""
        return Game(self.rules, self.num_players, seed=self.seed + 1 if seed is None else seed,
                    first_seat=(self.first_seat + 1) % self.num_players)


def tiebreak_rolls(rules: RuleSet, totals, dice_source) -> dict:
    """Sudden-death roll-offs among the sheets tied for first, under `tiebreak: sudden_death`:
    {sheet: [sum of the rules' dice, ...]}, rolled at turns rounds, rounds + 1, ... of each tied sheet until
    one sum is highest (at most 100 rounds). Empty when no roll-off is needed."""
    out: dict = {}
    tied = [i for i, t in enumerate(totals) if t == max(totals)]
    k = 0
    while rules.tiebreak == "sudden_death" and len(tied) > 1 and k < 100:
        sums = {i: sum(int(d) for d in dice_source.draw(i, rules.rounds + k, 0, rules.dice)) for i in tied}
        for i, v in sums.items():
            out.setdefault(i, []).append(v)
        tied = [i for i in tied if sums[i] == max(sums.values())]
        k += 1
    return out


def ranks(totals, tiebreak: dict) -> list[int]:
    """Place of each sheet from its total and roll-off sums (1 = best; equal keys share a place)."""
    key = [(t, tuple(tiebreak.get(i, ()))) for i, t in enumerate(totals)]
    return [1 + sum(1 for other in key if other > k) for k in key]
