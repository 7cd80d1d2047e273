"""Dice combinatorics shared by every part of the project.

A *roll* is a sorted multiset of n faces; a *keep* is a sorted multiset of 0..n faces; a *hold pattern*
is a bit mask over the n dice of a roll (bit i: die i is kept). `dice_tables(n)` indexes them once for
n dice (5: 252 rolls, 462 keeps, 32 hold patterns; 6: 462 rolls, 924 keeps, 64 hold patterns) and every
table in the project uses these indices. The module-level constants are the five-dice tables.

Keeps are ordered by size, then lexicographically, so the last `n_rolls` keeps are the rolls in the same
order: keep index = roll index + n_keeps - n_rolls.
"""
from functools import cache
from itertools import combinations_with_replacement
from math import comb, factorial
from typing import NamedTuple

import numpy as np
from numba import typeof
from numba.core import cgutils, types
from numba.core.imputils import impl_ret_borrowed
from numba.core.typing.templates import AttributeTemplate
from numba.extending import (NativeValue, infer_getattr, lower_getattr_generic, make_attribute_wrapper, models,
                             register_model, typeof_impl, unbox)

FACES = 6
DICE_COUNTS = (5, 6)


class Dice(NamedTuple):
    """The tables of n six-sided dice (a numba-friendly named tuple).

    n                  dice per roll
    n_rolls            rolls (sorted multisets of n faces): C(n + 5, 5)
    n_keeps            keeps (sorted multisets of 0..n faces): C(n + 6, 6)
    n_holds            hold patterns: 2**n
    rolls[r, i]        the i-th smallest face (1..6) of roll r
    roll_counts[r, f]  how many dice of roll r show face f + 1
    roll_sums[r]       the sum of roll r's faces
    roll_prob[r]       the probability that n fresh dice show roll r
    keep_counts[k, f]  how many dice of keep k show face f + 1
    keep_sizes[k]      how many dice keep k holds
    keep_add[k, f]     keep k plus one die showing f + 1 (-1 when k holds n dice)
    keep_sub[k, f]     keep k minus one die showing f + 1 (-1 when k has none)
    hold_keep[r, h]    the keep left when roll r (sorted) is held with pattern h
    roll_index[code]   the roll of n dice in any order, code = sum((d_i - 1) * 6**i)
    transition[k, r]   the probability that keeping k and rolling the rest gives roll r
    """
    n: int
    n_rolls: int
    n_keeps: int
    n_holds: int
    rolls: np.ndarray
    roll_counts: np.ndarray
    roll_sums: np.ndarray
    roll_prob: np.ndarray
    keep_counts: np.ndarray
    keep_sizes: np.ndarray
    keep_add: np.ndarray
    keep_sub: np.ndarray
    hold_keep: np.ndarray
    roll_index: np.ndarray
    transition: np.ndarray

    def index(self, dice) -> int:
        """Index (0..n_rolls-1) of n dice given in any order."""
        if len(dice) != self.n or any(not 1 <= int(d) <= FACES for d in dice):
            raise ValueError(f"{self.n} dice with faces 1..6 are needed, got {list(dice)}")
        return int(self.roll_index[sum((int(d) - 1) * FACES ** i for i, d in enumerate(dice))])


class DiceType(types.Type):
    """How compiled code sees a `Dice`: a record of its fields, read by name (`D.n_holds`, `D.rolls`), not a
    tuple. Numba's parallel loops split a tuple argument into its fields one level deep only, so a `Dice`
    typed as a named tuple inside the rule `Tables` would stop every `prange` that reads the tables."""

    def __init__(self, fields):
        self.fields = tuple(fields)
        super().__init__(name=f"Dice({', '.join(f'{k}: {t}' for k, t in self.fields)})")


@typeof_impl.register(Dice)
def _typeof_dice(val, c):
    return DiceType((k, typeof(getattr(val, k))) for k in Dice._fields)


@register_model(DiceType)
class _DiceModel(models.StructModel):
    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, list(fe_type.fields))


for _field in Dice._fields:
    make_attribute_wrapper(DiceType, _field, _field)


@unbox(DiceType)
def _unbox_dice(typ, obj, c):
    out = cgutils.create_struct_proxy(typ)(c.context, c.builder)
    for name, field_type in typ.fields:
        attr = c.pyapi.object_getattr_string(obj, name)
        setattr(out, name, c.unbox(field_type, attr).value)
        c.pyapi.decref(attr)
    return NativeValue(out._getvalue(), is_error=cgutils.is_not_null(c.builder, c.pyapi.err_occurred()))


class FixedDice:
    """The `Dice` of one dice count as compiled code reads it fixed: every field a compile-time constant of
    `dice_tables(n)` (loops over the dice unrolled, the tables frozen into the machine code, nothing unboxed
    per call). Python reads the fields of the `Dice` itself. `fixed_dice(n)` makes the one of each count; the
    environments' kernels take it (`yacht_env.envs.board.Board`), where a call's argument types cost time."""
    __slots__ = ("dice",)

    def __init__(self, dice: Dice):
        self.dice = dice

    def __getattr__(self, name):
        if name == "dice":          # not set yet (unpickling)
            raise AttributeError(name)
        return getattr(self.dice, name)

    def __reduce__(self):
        return fixed_dice, (self.dice.n,)


class FixedDiceType(types.Type):
    """How compiled code sees a `FixedDice` of n dice: no data, its fields the constants of `dice_tables(n)`."""

    def __init__(self, n: int):
        self.n = n
        super().__init__(name=f"FixedDice({n})")


@typeof_impl.register(FixedDice)
def _typeof_fixed_dice(val, c):
    return FixedDiceType(val.dice.n)


register_model(FixedDiceType)(models.OpaqueModel)


@unbox(FixedDiceType)
def _unbox_fixed_dice(typ, obj, c):
    return NativeValue(cgutils.get_null_value(c.context.get_value_type(typ)))


@infer_getattr
class _FixedDiceFields(AttributeTemplate):
    """`D.<field>` of a `FixedDice` is typed as that field of `dice_tables(n)` (an int, or a read-only array)."""
    key = FixedDiceType

    def generic_resolve(self, typ, attr):
        if attr in Dice._fields:
            value = getattr(dice_tables(typ.n), attr)
            return typeof(value) if isinstance(value, np.ndarray) else types.intp
        return None


@lower_getattr_generic(FixedDiceType)
def _fixed_dice_field(context, builder, typ, value, attr):
    """`D.<field>` of a `FixedDice` compiles to the constant: the int, or the array frozen into the code."""
    field = getattr(dice_tables(typ.n), attr)
    if isinstance(field, np.ndarray):
        return impl_ret_borrowed(context, builder, typeof(field),
                                 context.make_constant_array(builder, typeof(field), field))
    return context.get_constant(types.intp, field)


def _counts(faces):
    c = np.zeros(FACES, dtype=np.int8)
    for f in faces:
        c[f - 1] += 1
    return c


def _code(counts, n):
    """Base-(n+1) code of a count vector (each count 0..n)."""
    code = 0
    for c in counts:
        code = code * (n + 1) + int(c)
    return code


def _multinomial(counts):
    out = factorial(int(sum(counts)))
    for c in counts:
        out //= factorial(int(c))
    return out


@cache
def dice_tables(n: int) -> Dice:
    """The tables of `n` dice (5 or 6), built once per process; every array is read-only."""
    if n not in DICE_COUNTS:
        raise ValueError(f"the dice count must be one of {', '.join(map(str, DICE_COUNTS))}, got {n!r}")
    faces = range(1, FACES + 1)
    rolls = np.array(list(combinations_with_replacement(faces, n)), dtype=np.int8)
    roll_counts = np.array([_counts(r) for r in rolls], dtype=np.int8)
    keeps = [k for size in range(n + 1) for k in combinations_with_replacement(faces, size)]
    keep_counts = np.array([_counts(k) for k in keeps], dtype=np.int8)
    keep_sizes = keep_counts.sum(axis=1).astype(np.int8)
    n_rolls, n_keeps, n_holds = len(rolls), len(keeps), 2 ** n
    assert n_rolls == comb(n + 5, 5) and n_keeps == comb(n + 6, 6)
    keep_of = {_code(c, n): i for i, c in enumerate(keep_counts)}

    keep_add = np.full((n_keeps, FACES), -1, dtype=np.int32)
    keep_sub = np.full((n_keeps, FACES), -1, dtype=np.int32)
    for k, c in enumerate(keep_counts):
        for f in range(FACES):
            d = c.copy()
            if keep_sizes[k] < n:
                d[f] += 1
                keep_add[k, f] = keep_of[_code(d, n)]
                d[f] -= 1
            if d[f] > 0:
                d[f] -= 1
                keep_sub[k, f] = keep_of[_code(d, n)]

    hold_keep = np.zeros((n_rolls, n_holds), dtype=np.int32)
    for r, dice in enumerate(rolls):
        for h in range(n_holds):
            hold_keep[r, h] = keep_of[_code(_counts([d for i, d in enumerate(dice) if h >> i & 1]), n)]

    roll_index = np.zeros(FACES ** n, dtype=np.int32)
    for code in range(FACES ** n):
        any_order = [(code // FACES ** i) % FACES + 1 for i in range(n)]
        roll_index[code] = keep_of[_code(_counts(any_order), n)] - (n_keeps - n_rolls)

    roll_prob = np.array([_multinomial(c) / FACES ** n for c in roll_counts])
    fact = np.array([factorial(i) for i in range(n + 1)], dtype=float)
    add = roll_counts[None, :, :].astype(int) - keep_counts[:, None, :]         # dice the re-roll must show
    free = n - keep_sizes.astype(int)
    ways = fact[free][:, None] / fact[np.clip(add, 0, None)].prod(axis=2)      # multinomial coefficient
    transition = np.where((add >= 0).all(axis=2), ways / float(FACES) ** free[:, None], 0.0)

    arrays = dict(rolls=rolls, roll_counts=roll_counts, roll_sums=rolls.sum(axis=1).astype(np.int32),
                  roll_prob=roll_prob, keep_counts=keep_counts, keep_sizes=keep_sizes, keep_add=keep_add,
                  keep_sub=keep_sub, hold_keep=hold_keep, roll_index=roll_index, transition=transition)
    for a in arrays.values():
        a.setflags(write=False)
    return Dice(n=n, n_rolls=n_rolls, n_keeps=n_keeps, n_holds=n_holds, **arrays)


@cache
def fixed_dice(n: int) -> FixedDice:
    """The `FixedDice` of `dice_tables(n)`, one per dice count."""
    return FixedDice(dice_tables(n))


# The five-dice tables, which compiled code reads as globals.
(NUM_DICE, NUM_ROLLS, NUM_KEEPS, NUM_HOLD_PATTERNS, ROLLS, ROLL_COUNTS, ROLL_SUMS, ROLL_PROB, KEEP_COUNTS,
 KEEP_SIZES, KEEP_ADD, KEEP_SUB, HOLD_KEEP, ROLL_INDEX, TRANSITION) = dice_tables(5)


def roll_index(dice) -> int:
    """Index (0..251) of five dice given in any order."""
    return dice_tables(NUM_DICE).index(dice)
