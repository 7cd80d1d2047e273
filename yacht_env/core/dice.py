"""Dice combinatorics shared by every part of the project.

A *roll* is a sorted multiset of five faces (252 of them); a *keep* is a
sorted multiset of 0..5 faces (462 of them). Rolls and keeps are indexed
once here, and every table in the project uses these indices.
"""
from itertools import combinations_with_replacement
from math import factorial

import numpy as np

NUM_DICE = 5
FACES = 6
NUM_ROLLS = 252
NUM_KEEPS = 462

ROLLS = np.array(list(combinations_with_replacement(range(1, 7), 5)), dtype=np.int8)


def _counts(faces):
    c = np.zeros(FACES, dtype=np.int8)
    for f in faces:
        c[f - 1] += 1
    return c


ROLL_COUNTS = np.array([_counts(r) for r in ROLLS], dtype=np.int8)
ROLL_SUMS = ROLLS.sum(axis=1).astype(np.int32)

_KEEPS = [k for n in range(NUM_DICE + 1) for k in combinations_with_replacement(range(1, 7), n)]
KEEP_COUNTS = np.array([_counts(k) for k in _KEEPS], dtype=np.int8)
KEEP_SIZES = KEEP_COUNTS.sum(axis=1).astype(np.int8)


def _code(counts):
    """Base-6 code of a count vector (each count 0..5)."""
    code = 0
    for c in counts:
        code = code * 6 + int(c)
    return code


_KEEP_INDEX = {_code(c): i for i, c in enumerate(KEEP_COUNTS)}

# KEEP_ADD[k, f] = keep k plus one die showing f+1 (-1 when k holds five dice).
KEEP_ADD = np.full((NUM_KEEPS, FACES), -1, dtype=np.int32)
# KEEP_SUB[k, f] = keep k minus one die showing f+1 (-1 when k has none).
KEEP_SUB = np.full((NUM_KEEPS, FACES), -1, dtype=np.int32)
for _k, _c in enumerate(KEEP_COUNTS):
    for _f in range(FACES):
        _d = _c.copy()
        if KEEP_SIZES[_k] < NUM_DICE:
            _d[_f] += 1
            KEEP_ADD[_k, _f] = _KEEP_INDEX[_code(_d)]
            _d[_f] -= 1
        if _d[_f] > 0:
            _d[_f] -= 1
            KEEP_SUB[_k, _f] = _KEEP_INDEX[_code(_d)]

# HOLD_KEEP[r, h] = keep index when roll r (sorted) is held with pattern h (bit i = die i).
HOLD_KEEP = np.zeros((NUM_ROLLS, 32), dtype=np.int32)
for _r, _dice in enumerate(ROLLS):
    for _h in range(32):
        HOLD_KEEP[_r, _h] = _KEEP_INDEX[_code(_counts([d for i, d in enumerate(_dice) if _h >> i & 1]))]

# ROLL_INDEX[code] for code = sum((d_i - 1) * 6**i) over the five dice in any order.
ROLL_INDEX = np.zeros(6 ** 5, dtype=np.int32)
for _code_value in range(6 ** 5):
    _faces = [(_code_value // 6 ** i) % 6 + 1 for i in range(5)]
    ROLL_INDEX[_code_value] = _KEEP_INDEX[_code(_counts(_faces))] - (NUM_KEEPS - NUM_ROLLS)


def _multinomial(counts):
    n = int(sum(counts))
    out = factorial(n)
    for c in counts:
        out //= factorial(int(c))
    return out


ROLL_PROB = np.array([_multinomial(c) / 6 ** 5 for c in ROLL_COUNTS])


def _transition():
    """TRANSITION[k, r]: probability that keeping k and rolling the rest gives roll r."""
    fact = np.array([factorial(n) for n in range(NUM_DICE + 1)], dtype=float)
    add = ROLL_COUNTS[None, :, :].astype(int) - KEEP_COUNTS[:, None, :]         # dice the re-roll must show
    free = NUM_DICE - KEEP_SIZES.astype(int)
    ways = fact[free][:, None] / fact[np.clip(add, 0, None)].prod(axis=2)         # multinomial coefficient
    return np.where((add >= 0).all(axis=2), ways / 6.0 ** free[:, None], 0.0)


TRANSITION = _transition()


def roll_index(dice) -> int:
    """Index (0..251) of five dice given in any order."""
    if len(dice) != NUM_DICE or any(not 1 <= int(d) <= 6 for d in dice):
        raise ValueError(f"five dice with faces 1..6 are needed, got {list(dice)}")
    return int(ROLL_INDEX[sum((int(d) - 1) * 6 ** i for i, d in enumerate(dice))])
