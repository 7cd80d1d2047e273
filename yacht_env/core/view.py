"""What a seat sees when it must decide: `View` for one game, `BatchView` for many at once.

Both read the engine's arrays (`yacht_env.core.engine.State`) at the moment of the decision, so an agent
sees the same position whichever way it plays. Actions use the encoding of `yacht_env.core.actions`.

`BatchView` row j is table `rows[j]` of a batch; every field is an array with the rows first. The
other sheets are there as they stand at that moment of each table's turn order (`scores`, `totals`,
`filled`, `upper`, `yacht50` cover every sheet; `sheet` says which one is the deciding seat's).
Fields are computed on first use, so an agent pays only for what it reads.
"""
from functools import cached_property

import numpy as np

from .engine import FILLED, ROLL, ROLLS_USED, TURN, UPPER, YACHT50, State
from ..rules import RuleSet


def read_only(a: np.ndarray) -> np.ndarray:
    """A view of `a` that cannot be written through (the engine's arrays, a step's kept arrays)."""
    v = a.view()
    v.flags.writeable = False
    return v


class View:
    """What the seat to move of one game sees (phase 'decide'), read when first asked for.

    `game` is the live game, for agents that want more (names, previews); never modify it.
    """

    def __init__(self, game):
        self.game = game
        self.rules: RuleSet = game.rules
        self.num_players: int = game.num_players
        self.seed: int = game.seed                      # agents key their random choices on it

    @classmethod
    def of(cls, game) -> "View":
        return cls(game)

    @cached_property
    def seat(self) -> int:
        return self.game.current_seat

    @cached_property
    def sheet(self) -> int:
        """The sheet this seat writes on (its own or its team's)."""
        return self.game.current_sheet

    @cached_property
    def dice(self) -> tuple[int, ...]:
        """The dice in hand, sorted."""
        return self.game.dice

    @cached_property
    def rolls_left(self) -> int:
        return self.game.rolls_left

    @cached_property
    def round(self) -> int:
        """This sheet's turn number."""
        return self.game.round

    @cached_property
    def mask(self) -> np.ndarray:
        """int8 legal-action mask."""
        return self.game.legal_mask()

    @cached_property
    def scores(self) -> np.ndarray:
        """(sheets, columns, boxes) every sheet's box scores, -1 = open."""
        return self.game.state.scores[self.game.table].copy()

    @cached_property
    def upper(self) -> np.ndarray:
        """(sheets, columns) upper totals."""
        return self.game.state.cols[self.game.table, :, :, UPPER].copy()

    @cached_property
    def totals(self) -> tuple[int, ...]:
        """Per sheet, bonuses included."""
        return tuple(self.game.sheet_totals())

    @property
    def legal_actions(self) -> np.ndarray:
        return np.flatnonzero(self.mask)


class BatchView:
    """What the seats to move at tables `rows` of a batch see (see the module docstring). Each field is its own
    documented cached property, alike in shape on purpose (as `game.Sheet`'s): what a bot author reads."""

    def __init__(self, state: State, rows):
        self.state = state
        # rows: table indices, or a slice (cheaper to index with: one game's view is a slice of one table)
        self._at = rows if isinstance(rows, slice) else np.asarray(rows, np.int64)
        self.rules: RuleSet = state.rules
        self.num_players = state.num_players
        self.num_sheets = state.num_sheets

    @classmethod
    def of_view(cls, view: View) -> "BatchView":
        """The one-row batch view of a game's view (how a batched agent answers `act(view)`)."""
        i = view.game.table
        return cls(view.game.state, slice(i, i + 1))

    @cached_property
    def rows(self) -> np.ndarray:
        """(n,) the tables' indices in the batch."""
        if isinstance(self._at, slice):
            return np.arange(self.state.num_tables, dtype=np.int64)[self._at]
        return self._at

    def __len__(self) -> int:
        return len(self.rows)

    @cached_property
    def seeds(self) -> np.ndarray:
        """(n,) uint64 dice seed of each table's game."""
        return self.state.seeds[self._at]

    @cached_property
    def seat(self) -> np.ndarray:
        """(n,) the seat to move."""
        return self.state.seat_to_move(self._at)

    @cached_property
    def sheet(self) -> np.ndarray:
        """(n,) the sheet the seat to move writes on."""
        return self.seat % self.num_sheets

    @cached_property
    def round(self) -> np.ndarray:
        """(n,) that sheet's turn number."""
        return self.state.ints[self._at, TURN] // self.num_sheets

    @cached_property
    def rolls_used(self) -> np.ndarray:
        return self.state.ints[self._at, ROLLS_USED]

    @cached_property
    def rolls_left(self) -> np.ndarray:
        return self.state.rolls_left(self._at)

    @cached_property
    def roll(self) -> np.ndarray:
        """(n,) index of the sorted dice in hand among the rules' rolls (`rules.dice_tables.rolls`)."""
        return self.state.ints[self._at, ROLL]

    @cached_property
    def dice(self) -> np.ndarray:
        """(n, 5) int8, sorted."""
        return self.state.dice[self._at]

    @cached_property
    def mask(self) -> np.ndarray:
        """(n, num_actions) int8 legal-action masks."""
        return self.state.masks(self._at)

    @cached_property
    def preview(self) -> np.ndarray:
        """(n, columns, boxes) points of the dice in hand per box of the own sheet, -1 where not allowed."""
        return self.state.preview[self._at]

    @cached_property
    def extra(self) -> np.ndarray:
        """(n, columns) extra-Yacht bonus that scoring the dice in hand in each column pays."""
        return self.state.extra[self._at]

    @cached_property
    def scores(self) -> np.ndarray:
        """(n, sheets, columns, boxes) every sheet's box scores, -1 = open."""
        return self.state.scores[self._at]

    @cached_property
    def totals(self) -> np.ndarray:
        """(n, sheets) every sheet's total, bonuses included."""
        return self.state.totals[self._at]

    @cached_property
    def filled(self) -> np.ndarray:
        """(n, sheets, columns) bit masks of every sheet's filled boxes."""
        return self.state.cols[self._at, :, :, FILLED]

    @cached_property
    def upper(self) -> np.ndarray:
        """(n, sheets, columns) every sheet's upper totals."""
        return self.state.cols[self._at, :, :, UPPER]

    @cached_property
    def yacht50(self) -> np.ndarray:
        """(n, sheets, columns) 1 where a sheet's Yacht box holds its full points."""
        return self.state.cols[self._at, :, :, YACHT50]

    def _own(self, k) -> np.ndarray:
        if self.num_sheets == 1:
            return self.state.cols[self._at, 0, :, k]
        return self.state.cols[self.rows, self.sheet, :, k]

    @cached_property
    def own_filled(self) -> np.ndarray:
        """(n, columns) bit masks of the filled boxes of the own sheet."""
        return self._own(FILLED)

    @cached_property
    def own_upper(self) -> np.ndarray:
        """(n, columns) upper totals of the own sheet."""
        return self._own(UPPER)

    @cached_property
    def own_yacht50(self) -> np.ndarray:
        """(n, columns) 1 where the own Yacht box holds its full points."""
        return self._own(YACHT50)

    @cached_property
    def own_scores(self) -> np.ndarray:
        """(n, columns, boxes) the own sheet's box scores."""
        if self.num_sheets == 1:
            return self.state.scores[self._at, 0]
        return self.state.scores[self.rows, self.sheet]
