"""The tables as the environments' compiled kernels read them: one named structure over an engine state.

A `Board` travels into every compiled env kernel (`yacht_env.envs.batch`, `yacht_env.envs.table_obs`,
`yacht_env.envs.steppers`) in place of a dozen positional arguments; the kernels are called through
their compiled versions for the Board's types (`yacht_env.core.dispatch.direct`), so the structure is
passed by name without numba typing a named tuple at every call.
"""
from typing import NamedTuple

from ..core.dice import NUM_DICE, Dice, dice_tables
from ..core.engine import Arrays
from ..rules.tables import Tables


class Board(NamedTuple):
    """N tables of one rule set, as compiled code reads them (`board_of(state)`).

    T             the rule tables (`yacht_env.rules.tables.Tables`)
    E             the engine's arrays of the tables (`yacht_env.core.engine.Arrays`)
    D             the dice tables of the rules' dice (`yacht_env.core.dice.Dice`)
    ypts          the points the Yacht box holds for a Yacht (-1 without a Yacht box)
    num_players   seats per table
    num_sheets    sheets per table (teams share one)
    turns         turns in a game, all sheets together
    """
    T: Tables
    E: Arrays
    D: Dice
    ypts: int
    num_players: int
    num_sheets: int
    turns: int


def dice_of(tables) -> Dice:
    """The dice tables of a rule set's tables: their `dice` field, five dice for tables without one."""
    dice = getattr(tables, "dice", None)
    return dice_tables(NUM_DICE) if dice is None else dice


def board_of(state) -> Board:
    """The `Board` of a `yacht_env.core.engine.State` (its arrays are only ever changed in place)."""
    return Board(state.tables, Arrays(*state.arrays), dice_of(state.tables), state.ypts, state.num_players,
                 state.num_sheets, state.turns)
