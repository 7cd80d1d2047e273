"""The action encoding every part of the project shares: count, encode, decode and name actions.

One `Discrete` space per rule set of n dice (H = 2**n - 1 hold actions: 31 for five dice, 63 for six):

    0 .. H - 1                     re-roll, keeping the dice whose bits are set (bit i = the i-th
                                   smallest die; dice are kept sorted); legal while rolls remain
    H + column * n_boxes + box     score `box` in `column`; legal when the box is open and the
                                   joker rule allows it for the dice in hand

Holding all n dice (pattern H) is not an action: score instead. The compiled twins `score_action_of`
and `box_of_action` are the same formula for the kernels; they take H (`holds`, `hold_actions_of` of the
rule tables' dice), five dice's 31 when it is not given.
"""
import numba as nb
import numpy as np

NUM_HOLDS = 31  # five dice's hold actions 0..30 (bit i keeps sorted die i); 31 would hold all: score instead


def num_holds(rules) -> int:
    """How many hold actions the rules have: 2**dice - 1 (31 for five dice, 63 for six)."""
    return rules.dice_tables.n_holds - 1


def num_actions(rules) -> int:
    """How many actions the rules have: the holds, then every box of every column."""
    return num_holds(rules) + rules.columns * len(rules.boxes)


def score_action(rules, column: int, box: int) -> int:
    """The action that scores box index `box` in `column`."""
    return num_holds(rules) + int(column) * len(rules.boxes) + int(box)


def box_actions(rules) -> np.ndarray:
    """(columns, boxes) array of the scoring actions: box_actions(rules)[c, b] scores box b in column c."""
    return num_holds(rules) + np.arange(rules.columns * len(rules.boxes)).reshape(rules.columns, len(rules.boxes))


def decode(rules, action: int) -> tuple:
    """("hold", pattern) for a re-roll, ("score", column, box index) for a scoring action."""
    holds = num_holds(rules)
    if action < holds:
        return ("hold", int(action))
    c, b = divmod(int(action) - holds, len(rules.boxes))
    return ("score", c, b)


def held_positions(pattern: int) -> list[int]:
    """Die positions (0, 1, ...) a hold pattern keeps."""
    return [i for i in range(int(pattern).bit_length()) if pattern >> i & 1]


def action_name(rules, action: int, roll: int | None = None) -> str:
    """A move in words: 'score full_house' (with @column when there are several columns). A hold names
    the faces it keeps of `roll` (an index into the rules' rolls, `rules.dice_tables.rolls`) when given
    ('hold 3 3 5', 're-roll all'), else the positions it keeps ('hold 0,2', 'roll all')."""
    kind, *rest = decode(rules, action)
    if kind == "hold":
        held = held_positions(rest[0])
        if roll is not None:
            rolls = rules.dice_tables.rolls
            return "hold " + " ".join(str(int(rolls[roll][i])) for i in held) if held else "re-roll all"
        return "hold " + ",".join(map(str, held)) if held else "roll all"
    c, b = rest
    return f"score {rules.boxes[b]}" + (f"@{c + 1}" if rules.columns > 1 else "")


def legal_summary(rules, mask) -> str:
    """The legal actions of a mask, readable: '0-30 (re-roll holding bit-marked dice), 31 score ones, ...'."""
    holds = num_holds(rules)
    legal = np.flatnonzero(mask)
    parts = [f"0-{holds - 1} (re-roll holding bit-marked dice)"] if mask[0] else []
    parts += [f"{a} {action_name(rules, int(a))}" for a in legal if a >= holds]
    return ", ".join(parts)


def fallback_action(mask, holds: int = NUM_HOLDS) -> int:
    """The move played for a seat that faulted (a tournament's forfeit, an environment's failing
    opponent): the first legal box (or the first legal action). holds: the rules' `num_holds`."""
    legal = np.flatnonzero(mask)
    boxes = legal[legal >= holds]
    return int(boxes[0] if len(boxes) else legal[0])


def fallback_actions(masks, holds: int = NUM_HOLDS) -> np.ndarray:
    """`fallback_action` of every row of (n, num_actions) masks, as int64."""
    masks = np.asarray(masks)
    boxes = masks[:, holds:] != 0
    has_box = boxes.any(axis=1)
    return np.where(has_box, holds + boxes.argmax(axis=1), (masks != 0).argmax(axis=1)).astype(np.int64)


_INTEGER_TYPES = frozenset({int, np.int64, np.int32, np.int16, np.int8, np.uint64, np.uint32, np.uint16, np.uint8})


def masks_of(can_hold, box_ok, holds: int = NUM_HOLDS) -> np.ndarray:
    """int8 masks (n, num_actions) from can_hold (n,) and box_ok (n, columns, boxes): the mask layout.
    holds: the rules' `num_holds`."""
    box_ok = np.asarray(box_ok)
    n = box_ok.shape[0]
    out = np.empty((n, holds + box_ok.shape[1] * box_ok.shape[2]), np.int8)
    out[:, :holds] = np.asarray(can_hold, bool).reshape(n, 1)
    out[:, holds:] = box_ok.reshape(n, -1)
    return out


def as_action(value, n: int) -> int:
    """`value` as an action index 0..n-1; ValueError for anything else.

    Accepted: Python and numpy integers and 0-d integer arrays. Refused: bools, floats (31.9 is not
    action 31), strings ("31"), other sizes and out-of-range numbers.
    """
    if type(value) in _INTEGER_TYPES and 0 <= value < n:
        return int(value)
    if isinstance(value, np.ndarray) and value.shape == () and np.issubdtype(value.dtype, np.integer):
        value = value.item()
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:37] + "..."
        raise ValueError(f"an action must be an integer 0..{n - 1}, got {shown} ({type(value).__name__})")
    if not 0 <= value < n:
        raise ValueError(f"action {int(value)} is not in 0..{n - 1}")
    return int(value)


@nb.njit(cache=True, _nrt=False)
def _copy_in_range(src, out, n):
    """out[:] = src when every value is in 0..n-1 (returns -1); else the index of the first that is not
    (out unchanged)."""
    for j in range(src.shape[0]):
        if src[j] < 0 or src[j] >= n:
            return j
    for j in range(src.shape[0]):
        out[j] = src[j]
    return -1


def as_actions(values, n: int, size: int, out=None) -> np.ndarray:
    """`size` actions as an int64 array; ValueError for a wrong shape, a non-integer dtype or a value
    outside 0..n-1. With `out` (an int64 array of `size`, left unchanged on an error) the actions are
    copied into it and it is returned: for an int64 array, one compiled pass checks and copies them."""
    if (out is not None and type(values) is np.ndarray and values.dtype == np.int64 and values.shape == (size,)
            and values.flags.c_contiguous and values.flags.writeable):
        bad = _copy_in_range(values, out, n)
        if bad >= 0:
            raise ValueError(f"action {int(values[bad])} is not in 0..{n - 1}")
        return out
    a = np.asarray(values)
    if a.shape != (size,):
        raise ValueError(f"expected {size} actions, got shape {a.shape}")
    if not np.issubdtype(a.dtype, np.integer) or a.dtype == np.bool_:
        raise ValueError(f"actions must be integers 0..{n - 1}, got an array of {a.dtype}")
    if size and (a.min() < 0 or a.max() >= n):
        bad = a[(a < 0) | (a >= n)][0]
        raise ValueError(f"action {int(bad)} is not in 0..{n - 1}")
    if out is not None:
        np.copyto(out, a)
        return out
    return a.astype(np.int64, copy=False)


@nb.njit(cache=True, inline="always")
def hold_actions_of(D):
    """Compiled `num_holds`, from the rules' dice tables (`Tables.dice`)."""
    return D.n_holds - 1


@nb.njit(cache=True, inline="always")
def score_action_of(n_boxes, column, box, holds=NUM_HOLDS):
    """Compiled `score_action` (holds: `hold_actions_of` the rules' dice)."""
    return holds + column * n_boxes + box


@nb.njit(cache=True, inline="always")
def box_of_action(n_boxes, action, holds=NUM_HOLDS):
    """(column, box) of a scoring action (action >= holds, `hold_actions_of` the rules' dice)."""
    k = action - holds
    return k // n_boxes, k % n_boxes
