"""The solitaire state space: (filled boxes, upper total capped at the bonus threshold, Yacht-50 flag).

A state is stored at flat index ``(mask * n_upper + upper) * n_flag + flag``. Dimensions a rule set
does not need collapse to size 1: no upper bonus -> ``n_upper = 1``; neither the extra-Yacht bonus
nor a joker that waits for Yacht = 50 -> ``n_flag = 1``.
"""
from dataclasses import dataclass

import numpy as np

from ..rules.tables import Tables

MAX_BOXES = 15


class Unsolvable(ValueError):
    """A rule set the exact solver cannot handle (several columns, too many boxes)."""


def check_solvable(rules) -> None:
    """Raise `Unsolvable` with the reason when `rules` is out of the exact solver's reach."""
    if rules.dice != 5:  # the solver's compiled tables are five-dice ones until it reads the rules' Tables.dice
        raise Unsolvable(f"rules {rules.name!r} roll {rules.dice} dice; the exact solver plays five dice only")
    if rules.columns > 1:
        states = 2 ** (len(rules.boxes) * rules.columns)
        raise Unsolvable(
            f"rules {rules.name!r} have {rules.columns} columns: the exact state space (every box of every "
            f"column, about {states:.1e} fill patterns times upper totals) is too large to solve; "
            f"the strong agent plays them with per-column solitaire values (see agents/strong.py)")
    if len(rules.boxes) > MAX_BOXES:
        raise Unsolvable(f"rules {rules.name!r} have {len(rules.boxes)} boxes; the exact solver handles at most "
                         f"{MAX_BOXES} (2^boxes fill patterns)")


def masks_by_layer(n_boxes: int, spread: bool = False) -> list[np.ndarray]:
    """Every fill pattern of `n_boxes` boxes, by layer: entry k holds the masks with k boxes filled.

    `spread`: each layer in one fixed shuffled order (seed 0) rather than ascending, which spreads the costly
    masks (many upper totals) over a parallel loop's threads."""
    n = 1 << n_boxes
    masks = np.random.default_rng(0).permutation(n) if spread else np.arange(n, dtype=np.int64)
    filled = np.zeros(n, dtype=np.int64)
    for b in range(n_boxes):
        filled += (masks >> b) & 1
    return [masks[filled == k] for k in range(n_boxes + 1)]


@dataclass(frozen=True)
class StateSpace:
    """Shape of the value table for one sheet column of a rule set."""
    n_boxes: int
    n_upper: int       # threshold + 1 when an upper bonus exists, else 1
    n_flag: int        # 2 when the Yacht-50 flag matters, else 1
    threshold: int
    yacht_points: int  # what the Yacht box holds when the flag is set (-1: no Yacht box)

    @classmethod
    def of(cls, T: Tables) -> "StateSpace":
        n_upper = T.upper_threshold + 1 if T.upper_bonus > 0 and T.upper_threshold > 0 else 1
        flag = T.yacht_box >= 0 and (T.extra_bonus > 0 or T.joker_trigger == 2)
        yacht_points = int(T.score[T.yacht_box].max()) if T.yacht_box >= 0 else -1
        return cls(T.n_boxes, n_upper, 2 if flag else 1, T.upper_threshold if n_upper > 1 else 0, yacht_points)

    @property
    def size(self) -> int:
        return (1 << self.n_boxes) * self.n_upper * self.n_flag

    def index(self, mask: int, upper: int, flag: bool) -> int:
        """Flat index of a state; `upper` is capped here, the flag dropped when it does not matter."""
        u = min(int(upper), self.threshold) if self.n_upper > 1 else 0
        y = int(bool(flag)) if self.n_flag > 1 else 0
        return (int(mask) * self.n_upper + u) * self.n_flag + y


def reachable_upper(T: Tables, space: StateSpace) -> np.ndarray:
    """reach[mask, u]: some way of filling the upper boxes in `mask` gives capped upper total u."""
    n = 1 << T.n_boxes
    if space.n_upper == 1:
        return np.ones((n, 1), dtype=np.bool_)
    upper_bits = sum(1 << b for b in range(T.n_boxes) if T.box_face[b])
    by_upper = np.zeros((n, space.n_upper), dtype=np.bool_)  # filled only at submasks of upper_bits
    by_upper[0, 0] = True
    sub = upper_bits
    subs = []
    while sub:  # every non-empty submask of the upper boxes, in increasing order after the sort
        subs.append(sub)
        sub = (sub - 1) & upper_bits
    for sub in sorted(subs):
        low = (sub & -sub).bit_length() - 1
        # points the upper box can hold: its plain scores, joker scores and 0
        values = np.unique(np.concatenate([T.score[low], T.joker_score[low], [0]]))
        for u in np.flatnonzero(by_upper[sub & (sub - 1)]):
            by_upper[sub, np.minimum(u + values, space.threshold)] = True
    return by_upper[np.arange(n) & upper_bits]
