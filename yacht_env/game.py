"""One game of Yacht: 1-8 seats, any rule set, holds, scoring, joker, undo, ties.

A turn starts in phase "roll": the seat must `roll()` all five dice. In phase
"decide" it may re-roll with a hold pattern while rolls remain, or `score` one
open box, which ends the turn. Until the next roll, `undo()` gives the same
dice back. Dice are kept sorted, so hold bit i always means the i-th smallest die.

Actions (shared with the environments and agents): 0..30 re-roll holding the
dice whose bits are set (31, holding all five, is not an action: score instead);
31 + column * n_boxes + box scores a box.
"""
from dataclasses import dataclass, field

import numpy as np

from .dice import NUM_HOLDS, roll_index
from .dice_source import SeededDice
from .kernels import box_options, upper_bonus_gain
from .rules import RuleSet, load


class IllegalMove(ValueError):
    """A move the rules do not allow; the game state is left untouched."""


@dataclass
class Sheet:
    """One score sheet (a player's, or a team's): `columns` x boxes, -1 = open."""
    scores: np.ndarray
    upper: np.ndarray          # upper-section total per column
    upper_bonus: np.ndarray    # upper bonus earned per column
    extra_bonus: np.ndarray    # extra-Yacht bonuses earned per column (points)
    extra_yachts: np.ndarray = field(default=None)  # how many extra-Yacht bonuses per column

    @classmethod
    def empty(cls, columns: int, n_boxes: int) -> "Sheet":
        z = np.zeros(columns, dtype=np.int64)
        return cls(np.full((columns, n_boxes), -1, dtype=np.int64), z.copy(), z.copy(), z.copy(), z.copy())

    def copy(self) -> "Sheet":
        return Sheet(*(a.copy() for a in (self.scores, self.upper, self.upper_bonus, self.extra_bonus,
                                          self.extra_yachts)))

    def filled_mask(self, column: int) -> int:
        return sum(1 << b for b, s in enumerate(self.scores[column]) if s >= 0)

    @property
    def total(self) -> int:
        """Boxes plus every bonus."""
        return int(np.where(self.scores >= 0, self.scores, 0).sum() + self.upper_bonus.sum()
                   + self.extra_bonus.sum())

    @property
    def full(self) -> bool:
        return bool((self.scores >= 0).all())


class Game:
    """A game for `num_players` seats under a rule set.

    rules: a RuleSet, a preset name or a YAML path (with `overrides`).
    seed / dice: dice come from `dice` (any object with `draw(sheet, turn, roll, n)`),
    by default `SeededDice(seed)`.
    first_seat: the seat that plays the first turn.
    """

    def __init__(self, rules="yacht", num_players: int = 1, seed: int = 0, dice=None, first_seat: int = 0,
                 **overrides):
        self.rules: RuleSet = rules if isinstance(rules, RuleSet) and not overrides else load(rules, **overrides)
        r = self.rules
        if not isinstance(num_players, int) or not r.min_players <= num_players <= r.max_players:
            raise ValueError(f"rules {r.name!r} allow {r.min_players} to {r.max_players} players, got {num_players}")
        if r.teams and num_players % r.teams:
            raise ValueError(f"{num_players} players cannot split into {r.teams} teams of equal size")
        if not 0 <= first_seat < num_players:
            raise ValueError(f"first_seat must be 0..{num_players - 1}, got {first_seat}")
        self.num_players = num_players
        self.num_sheets = r.teams or num_players
        self.seed = seed
        self.dice_source = dice if dice is not None else SeededDice(seed)
        self.first_seat = first_seat
        self.tables = r.tables
        self.n_boxes = len(r.boxes)
        y = self.tables.yacht_box
        self._yacht_points = r.boxes_spec[y].points if y >= 0 else None
        self.num_actions = NUM_HOLDS + self.n_boxes * r.columns
        self.sheets = [Sheet.empty(r.columns, self.n_boxes) for _ in range(self.num_sheets)]
        self.turn = 0                  # turns played so far, all sheets together
        self.phase = "roll"            # roll | decide | over
        self.dice: tuple[int, ...] = ()
        self.rolls_used = 0
        self.log: list[dict] = []      # every roll and score, for replays and tournament stores
        self._undo = None
        self._tiebreak: dict | None = None

    # ---- whose turn -------------------------------------------------------------------------
    @property
    def current_seat(self) -> int:
        return (self.first_seat + self.turn) % self.num_players

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
        return self.rules.rolls_per_turn - self.rolls_used

    @property
    def is_over(self) -> bool:
        return self.phase == "over"

    # ---- moves ------------------------------------------------------------------------------
    def roll(self, hold=0) -> tuple[int, ...]:
        """Roll the dice not held. hold: a bit mask (bit i keeps sorted die i) or a list of positions."""
        if self.phase == "over":
            raise IllegalMove("the game is over; no more rolls")
        mask = hold if isinstance(hold, (int, np.integer)) else sum(1 << int(i) for i in set(hold))
        if self.phase == "roll":
            if mask:
                raise IllegalMove(f"the first roll of a turn rolls all five dice; cannot hold {self._held(mask)}")
        else:
            if self.rolls_left <= 0:
                raise IllegalMove(f"no rolls left (limit {self.rules.rolls_per_turn} per turn); score a box: "
                                  f"{', '.join(self.legal_boxes())}")
            if not 0 <= mask < 31:
                raise IllegalMove(f"hold pattern {mask} is not 0..30 (holding all five dice means scoring)")
        held = [d for i, d in enumerate(self.dice) if mask >> i & 1]
        new = self.dice_source.draw(self.current_sheet, self.round, self.rolls_used, 5 - len(held))
        self.dice = tuple(sorted(held + [int(d) for d in new]))
        self.rolls_used += 1
        self.phase = "decide"
        self._undo = None
        self.log.append({"seat": self.current_seat, "hold": int(mask), "dice": list(self.dice)})
        return self.dice

    def _held(self, mask: int) -> list[int]:
        return [i for i in range(5) if mask >> i & 1]

    def _options(self, column: int) -> tuple[np.ndarray, int]:
        sheet = self.sheets[self.current_sheet]
        out = np.empty(self.n_boxes, dtype=np.int32)
        y = self.tables.yacht_box
        yacht50 = y >= 0 and sheet.scores[column, y] == self._yacht_points
        extra = box_options(self.tables, sheet.filled_mask(column), bool(yacht50), roll_index(self.dice), out)
        return out, int(extra)

    def preview(self) -> dict[tuple[int, str], int]:
        """What each box the rules allow would score now: {(column, box): points}, joker values included."""
        if self.phase != "decide":
            return {}
        out = {}
        for c in range(self.rules.columns):
            pts, _ = self._options(c)
            for b, p in enumerate(pts):
                if p >= 0:
                    out[(c, self.rules.boxes[b])] = int(p)
        return out

    def legal_boxes(self) -> list[str]:
        """Boxes that may be scored now, as `box` or `box@column` when there are several columns."""
        if self.rules.columns == 1:
            return [b for (_, b) in self.preview()]
        return [f"{b}@{c + 1}" for (c, b) in self.preview()]

    def _box_index(self, box) -> int:
        if isinstance(box, (int, np.integer)):
            if not 0 <= box < self.n_boxes:
                raise IllegalMove(f"box index {box} is not 0..{self.n_boxes - 1}")
            return int(box)
        if box not in self.rules.boxes:
            raise IllegalMove(f"no box {box!r} in rules {self.rules.name!r}; boxes: {', '.join(self.rules.boxes)}")
        return self.rules.boxes.index(box)

    def score(self, box, column: int = 0) -> int:
        """Score the dice in an open box (by id or index); ends the turn. Returns the points gained."""
        if self.phase != "decide":
            raise IllegalMove("roll the dice first" if self.phase == "roll" else "the game is over")
        b = self._box_index(box)
        if not 0 <= column < self.rules.columns:
            raise IllegalMove(f"column {column} is not 0..{self.rules.columns - 1}")
        pts, extra = self._options(column)
        name = self.rules.boxes[b]
        if pts[b] < 0:
            sheet = self.sheets[self.current_sheet]
            why = "is already filled" if sheet.scores[column, b] >= 0 else "is not allowed by the joker rule now"
            raise IllegalMove(f"box {name!r} {why}; legal boxes: {', '.join(self.legal_boxes())}")
        sheet = self.sheets[self.current_sheet]
        self._undo = (self.current_sheet, sheet.copy(), self.dice, self.rolls_used, len(self.log))
        points = int(pts[b])
        ub = int(upper_bonus_gain(self.tables, int(sheet.upper[column]), points, b))
        sheet.scores[column, b] = points
        if self.tables.box_face[b]:
            sheet.upper[column] += points
        sheet.upper_bonus[column] += ub
        sheet.extra_bonus[column] += extra
        sheet.extra_yachts[column] += extra > 0
        self.log.append({"seat": self.current_seat, "box": name, "column": column, "points": points,
                         "bonus": ub + extra})
        self.turn += 1
        self.rolls_used = 0
        self.dice = ()
        self.phase = "over" if all(s.full for s in self.sheets) else "roll"
        return points + ub + extra

    def undo(self) -> None:
        """Take back the last scoring, with the same dice, until the next roll."""
        if self._undo is None:
            raise IllegalMove("nothing to undo (undo works after scoring, until the next roll)")
        sheet_i, sheet, self.dice, self.rolls_used, n = self._undo
        self.sheets[sheet_i] = sheet
        del self.log[n:]
        self.turn -= 1
        self.phase = "decide"
        self._undo = None
        self._tiebreak = None

    # ---- joint actions ------------------------------------------------------------------------
    def legal_mask(self) -> np.ndarray:
        """int8 mask over actions (holds 0..30, then boxes column-major); all zero outside 'decide'."""
        mask = np.zeros(self.num_actions, dtype=np.int8)
        if self.phase != "decide":
            return mask
        if self.rolls_left > 0:
            mask[:NUM_HOLDS] = 1
        for c in range(self.rules.columns):
            pts, _ = self._options(c)
            mask[NUM_HOLDS + c * self.n_boxes: NUM_HOLDS + (c + 1) * self.n_boxes] = pts >= 0
        return mask

    def apply(self, action: int) -> None:
        """Play a joint action (see the module docstring)."""
        action = int(action)
        if not 0 <= action < self.num_actions:
            raise IllegalMove(f"action {action} is not 0..{self.num_actions - 1}")
        if self.phase != "decide":
            raise IllegalMove("roll the dice first" if self.phase == "roll" else "the game is over")
        if action < NUM_HOLDS:
            self.roll(action)
        else:
            c, b = divmod(action - NUM_HOLDS, self.n_boxes)
            self.score(b, c)

    def action_name(self, action: int) -> str:
        """Readable form of an action: 'hold 0,2' / 'roll all' / 'score full_house' (@column)."""
        if action < NUM_HOLDS:
            held = self._held(action)
            return "roll all" if not held else "hold " + ",".join(str(i) for i in held)
        c, b = divmod(action - NUM_HOLDS, self.n_boxes)
        return f"score {self.rules.boxes[b]}" + (f"@{c + 1}" if self.rules.columns > 1 else "")

    # ---- results ----------------------------------------------------------------------------
    def totals(self) -> list[int]:
        """Total per seat (a team's seats share the team total)."""
        return [self.sheets[self.sheet_of(s)].total for s in range(self.num_players)]

    def sheet_totals(self) -> list[int]:
        return [s.total for s in self.sheets]

    def tiebreak(self) -> dict:
        """Sudden-death roll-offs among sheets tied for first: {sheet: [sums...]} (empty when not needed)."""
        if self._tiebreak is None:
            self._tiebreak = {}
            totals = self.sheet_totals()
            tied = [i for i, t in enumerate(totals) if t == max(totals)]
            k = 0
            while self.rules.tiebreak == "sudden_death" and len(tied) > 1 and self.phase == "over" and k < 100:
                sums = {i: sum(self.dice_source.draw(i, self.rules.rounds + k, 0, 5)) for i in tied}
                for i, v in sums.items():
                    self._tiebreak.setdefault(i, []).append(v)
                tied = [i for i in tied if sums[i] == max(sums.values())]
                k += 1
        return self._tiebreak

    def sheet_ranks(self) -> list[int]:
        """Place of each sheet (1 = best; equal totals share a place, the top tie broken per rules)."""
        totals = self.sheet_totals()
        tb = self.tiebreak()
        key = [(t, tuple(tb.get(i, ()))) for i, t in enumerate(totals)]
        return [1 + sum(1 for other in key if other > k) for k in key]

    def winners(self) -> list[int]:
        """Seats that won (all seats of a winning team; several when the win is shared)."""
        if self.phase != "over":
            return []
        ranks = self.sheet_ranks()
        return [s for s in range(self.num_players) if ranks[self.sheet_of(s)] == 1]

    def rematch(self, seed: int | None = None) -> "Game":
        """A new game with the same rules and seats; the first turn passes to the next seat."""
        return Game(self.rules, self.num_players, seed=self.seed + 1 if seed is None else seed,
                    first_seat=(self.first_seat + 1) % self.num_players)
