"""What every open box would pay, for the current roll or for all 252 rolls, read from the rules core.

`column_gains(rules, scores, upper, column)` gives a (boxes, 252) array: points of each roll in
each box of one sheet column (joker values included) plus the upper bonus and extra-Yacht bonus
that scoring it would pay; -inf where the rules forbid the box. Agents plan over these arrays.
"""
from functools import lru_cache

import numpy as np

from yacht_env.dice import NUM_HOLDS, NUM_ROLLS
from yacht_env.kernels import box_options

_YACHT_ROLLS_CACHE: dict = {}


def _yacht_rolls(tables) -> np.ndarray:
    key = id(tables.roll_yacht)
    if key not in _YACHT_ROLLS_CACHE:
        _YACHT_ROLLS_CACHE[key] = np.flatnonzero(tables.roll_yacht)
    return _YACHT_ROLLS_CACHE[key]


def column_gains(rules, scores: np.ndarray, upper: int, column: int = 0, upper_bonus: bool = True) -> np.ndarray:
    """(boxes, 252) float array: points + bonuses of every roll in every box of `scores[column]`.

    scores: one sheet's (columns, boxes) array, -1 = open; upper: that column's upper total.
    upper_bonus=False leaves the upper bonus out (for players who ignore it). The result is
    cached (it stays the same for the whole turn) and read-only.
    """
    col = np.ascontiguousarray(scores[column], dtype=np.int64)
    return _column_gains(rules, col.tobytes(), int(upper), bool(upper_bonus))


@lru_cache(maxsize=512)
def _column_gains(rules, col_bytes: bytes, upper: int, upper_bonus: bool) -> np.ndarray:
    t = rules.tables
    col = np.frombuffer(col_bytes, dtype=np.int64)
    open_ = col < 0
    filled = sum(1 << b for b in np.flatnonzero(~open_))
    pts = np.where(open_[:, None], t.score, -1).astype(np.int64)
    extra = np.zeros(NUM_ROLLS)
    y = t.yacht_box
    yacht50 = y >= 0 and col[y] == rules.boxes_spec[y].points
    out = np.empty(t.n_boxes, dtype=np.int32)
    for r in _yacht_rolls(t):
        extra[r] = box_options(t, filled, bool(yacht50), int(r), out)
        pts[:, r] = out
    gains = pts + extra[None, :]
    if upper_bonus and t.upper_bonus and upper < t.upper_threshold:
        upper_box = (t.box_face > 0)[:, None]
        gains = gains + np.where(upper_box & (upper + pts >= t.upper_threshold), t.upper_bonus, 0)
    out = np.where(pts >= 0, gains, -np.inf)
    out.setflags(write=False)
    return out


def sheet_gains(view, upper_bonus: bool = True) -> np.ndarray:
    """(columns, boxes, 252) gains for the seat's own sheet (see `column_gains`)."""
    scores, upper = view.scores[view.sheet], view.upper[view.sheet]
    return np.stack([column_gains(view.rules, scores, int(upper[c]), c, upper_bonus)
                     for c in range(view.rules.columns)])


def score_action(rules, column: int, box: int) -> int:
    """The action that scores `box` in `column`."""
    return NUM_HOLDS + column * len(rules.boxes_spec) + box
