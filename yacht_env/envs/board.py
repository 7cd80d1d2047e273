"""The tables as the environments' compiled kernels read them: one named structure over an engine state.

A `Board` travels into every compiled env kernel (`yacht_env.envs.batch`, `yacht_env.envs.table_obs`,
`yacht_env.envs.steppers`) in place of a dozen positional arguments; the kernels are called through
their compiled versions for the Board's types (`yacht_env.core.dispatch.direct`), so the structure is
passed by name without numba typing a named tuple at every call.
"""
from typing import NamedTuple

import numpy as np

from ..core.dice import fixed_dice
from ..core.engine import Arrays
from ..rules.tables import Tables


class Board(NamedTuple):
    """N tables of one rule set, as compiled code reads them (`board_of(state)`).

    T             the rule tables (`yacht_env.rules.tables.Tables`), their dice a `FixedDice` (`fixed_tables`)
    E             the engine's arrays of the tables (`yacht_env.core.engine.Arrays`)
    ypts          the points the Yacht box holds for a Yacht (-1 without a Yacht box)
    num_players   seats per table
    num_sheets    sheets per table (teams share one)
    turns         turns in a game, all sheets together
    """
    T: Tables
    E: Arrays
    ypts: int
    num_players: int
    num_sheets: int
    turns: int


def board_of(state) -> Board:
    """The `Board` of a `yacht_env.core.engine.State` (its arrays are only ever changed in place)."""
    return Board(fixed_tables(state.tables), Arrays(*state.arrays), state.ypts, state.num_players, state.num_sheets,
                 state.turns)


_FIXED: dict = {}


def fixed_tables(T: Tables) -> Tables:
    """The rule tables with their dice as a `yacht_env.core.dice.FixedDice`: the env kernels are compiled for the
    dice count, which their loops and the dice tables they read become constants of, and no dice table is
    unboxed at a call. Kept per tables object."""
    return by_identity(_FIXED, T, lambda t: t._replace(dice=fixed_dice(t.dice.n)))


def by_identity(cache: dict, obj, make, limit: int = 64):
    """make(obj), kept in `cache` under obj's identity (with obj itself, so the identity stays its own) for
    the next call with the same object; the cache is emptied when it holds `limit` objects."""
    kept = cache.get(id(obj))
    if kept is None or kept[0] is not obj:
        if len(cache) >= limit:
            cache.clear()
        kept = cache[id(obj)] = (obj, make(obj))
    return kept[1]


_TABLE_KEYS: dict = {}


def _tables_key(T) -> tuple:
    return tuple(a.flags.writeable for a in T if isinstance(a, np.ndarray))


def board_key(B: Board) -> tuple:
    """What numba's type of a `board_of` Board depends on: the dice count (the `FixedDice` type) and which of
    the rule tables' arrays are read-only (their dtypes, dimensions and layout are fixed by how they are built,
    and the engine's arrays are always writable C arrays of fixed dtypes: `yacht_env.core.engine.State`).
    A rule set's tables keep their flags: their part is kept per tables object."""
    return (B.T.dice.n, by_identity(_TABLE_KEYS, B.T, _tables_key))
