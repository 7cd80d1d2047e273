"""The solitaire state space: (filled boxes, upper total capped at the bonus threshold, Yacht-50 flag, saved rolls).

A state is stored at flat index ``((mask * n_upper + upper) * n_flag + flag) * n_saved + saved``; the index
without the saved rolls, ``(mask * n_upper + upper) * n_flag + flag``, is the *sheet state* (what a turn's
widget and plan depend on: the saved rolls only decide at which stage a turn starts). Dimensions a rule set
does not need collapse to size 1: no upper bonus -> ``n_upper = 1``; neither the extra-Yacht bonus
nor a joker that waits for Yacht = 50 -> ``n_flag = 1``; no saved rolls -> ``n_saved = 1`` (then the flat
index is the sheet state, as it always was).
"""
from typing import NamedTuple

import numpy as np

from ..rules.tables import Tables

MAX_BOXES = 20                # 2^20 fill patterns: Maxi Yatzy's 20 boxes, the largest sheet of the presets
STATE_BYTES = 40              # what the solve holds per state: its value (8 bytes) and four moments (32)
MAX_SOLVE_BYTES = 6 << 30     # the most a solve may hold (states x STATE_BYTES): Maxi Yatzy takes 3.6 GB
MAX_DISTRIBUTION_STATES = 1 << 22   # the most states whose score distributions are built (`check_distributions`)
DISTRIBUTION_STATE_BYTES = 1100     # their size per state, about (yacht's 1.05 million states: 1.13 GB)


class Unsolvable(ValueError):
    """A rule set the exact solver cannot handle (several columns, too many boxes, too many states)."""


def check_solvable(rules) -> None:
    """Raise `Unsolvable` with the reason when `rules` is out of the exact solver's reach: one column, at most
    `MAX_BOXES` boxes and a state space whose solve fits in `MAX_SOLVE_BYTES` (any dice count the rules allow)."""
    if rules.columns > 1:
        states = 2 ** (len(rules.boxes) * rules.columns)
        raise Unsolvable(
            f"rules {rules.name!r} have {rules.columns} columns: the exact state space (every box of every "
            f"column, about {states:.1e} fill patterns times upper totals) is too large to solve: the exact solver "
            f"solves one column; the strong agent plays them with per-column solitaire values (see agents/strong.py)")
    if len(rules.boxes) > MAX_BOXES:
        raise Unsolvable(f"rules {rules.name!r} have {len(rules.boxes)} boxes; the exact solver handles at most "
                         f"{MAX_BOXES}: its table has 2^boxes fill patterns times the upper totals, and memory bounds "
                         f"it (Maxi Yatzy's 20 boxes are 89 million states, {_gb(89_128_960)} to solve)")
    space = StateSpace.of(rules.tables)
    if space.size * STATE_BYTES > MAX_SOLVE_BYTES:
        saved = (f" x {space.n_saved} saved-roll counts (saved_rolls {space.n_saved - 1}: 0..{space.n_saved - 1})"
                 if space.n_saved > 1 else "")
        fit = ("without saved rolls (saved_rolls 0) they take " + _gb(space.size // space.n_saved)
               if space.n_saved > 1 else "fewer boxes or a lower upper-bonus threshold fit")
        raise Unsolvable(f"rules {rules.name!r} have {space.size:,} solver states (2^{space.n_boxes} fill patterns x "
                         f"{space.n_upper} upper totals x {space.n_flag} Yacht flags{saved}): solving them takes "
                         f"{_gb(space.size)}, more than the {MAX_SOLVE_BYTES / 2 ** 30:.0f} GiB the solver allows; "
                         f"{fit}")


def check_saved_rolls(rules, what: str) -> None:
    """Raise `Unsolvable` when `rules` save rolls (`RuleSet.saved_rolls`) and `what` (the solver's part, for the
    message) does not follow saved rolls: the score distributions (playing to win or to a target), risk-taking
    play and several columns' additive play work without them only."""
    if rules.saved_rolls:
        raise Unsolvable(f"rules {rules.name!r} carry unused rolls to later turns (saved_rolls {rules.saved_rolls}): "
                         f"{what} does not follow saved rolls (the expected-score values, strong and the strength "
                         f"dial do)")


def check_distributions(rules) -> None:
    """Raise `Unsolvable` with the reason when the score distributions of `rules` (`distribution`, what playing
    to win reads) are out of reach: `check_solvable`, no saved rolls, and at most `MAX_DISTRIBUTION_STATES`
    states."""
    check_solvable(rules)
    check_saved_rolls(rules, "playing to win or to a target (the score distributions)")
    space = StateSpace.of(rules.tables)
    if space.size > MAX_DISTRIBUTION_STATES:
        raise Unsolvable(f"the score distributions of rules {rules.name!r} are out of reach: {space.size:,} solver "
                         f"states at about {DISTRIBUTION_STATE_BYTES:,} bytes of probabilities each "
                         f"would take about {space.size * DISTRIBUTION_STATE_BYTES / 1e9:.0f} GB (the distributions "
                         f"are built for at most {MAX_DISTRIBUTION_STATES:,} states); the expected-score values, "
                         f"strong and the strength dial play these rules, playing to win or to a target does not")


def _gb(states: int) -> str:
    """The memory a solve of `states` states holds, in words."""
    return f"{states * STATE_BYTES / 1e9:.1f} GB"


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


class StateSpace(NamedTuple):
    """Shape of the value table for one sheet column of a rule set (a numba-friendly named tuple).

    n_boxes       boxes of the column
    n_upper       threshold + 1 when an upper bonus exists, else 1
    n_flag        2 when the Yacht-50 flag matters, else 1
    threshold     the upper total is capped here
    yacht_points  what the Yacht box holds when the flag is set (-1: no Yacht box)
    n_saved       the rules' saved_rolls + 1: how many saved-roll counts a sheet can have (1: none)
    """
    n_boxes: int
    n_upper: int       # threshold + 1 when an upper bonus exists, else 1
    n_flag: int        # 2 when the Yacht-50 flag matters, else 1
    threshold: int
    yacht_points: int  # what the Yacht box holds when the flag is set (-1: no Yacht box)
    n_saved: int = 1   # saved_rolls + 1

    @classmethod
    def of(cls, T: Tables) -> "StateSpace":
        n_upper = T.upper_threshold + 1 if T.upper_bonus > 0 and T.upper_threshold > 0 else 1
        flag = T.yacht_box >= 0 and (T.extra_bonus > 0 or T.joker_trigger == 2)
        yacht_points = int(T.score[T.yacht_box].max()) if T.yacht_box >= 0 else -1
        return cls(int(T.n_boxes), int(n_upper), 2 if flag else 1, int(T.upper_threshold) if n_upper > 1 else 0,
                   yacht_points, int(T.saved_cap) + 1)

    @classmethod
    def from_meta(cls, meta: dict) -> "StateSpace":
        """The space `meta` (`StateSpace.meta`) describes."""
        return cls(**meta)

    def meta(self) -> dict:
        """The space as a JSON object for cache files: its fields, n_saved only when the rules save rolls (so
        the files of rules without saved rolls are what they always were)."""
        d = self._asdict()
        if self.n_saved == 1:
            del d["n_saved"]
        return d

    @property
    def sheet_states(self) -> int:
        """How many sheet states (fill pattern, upper total, flag) there are: the states without the saved rolls."""
        return (1 << self.n_boxes) * self.n_upper * self.n_flag

    @property
    def size(self) -> int:
        return self.sheet_states * self.n_saved

    def index(self, mask: int, upper: int, flag: bool, saved: int = 0) -> int:
        """Flat index of a state; `upper` is capped here, the flag dropped when it does not matter; `saved` the
        rolls the sheet has saved (0 .. n_saved - 1)."""
        if not 0 <= saved < self.n_saved:
            raise ValueError(f"saved rolls must be 0..{self.n_saved - 1}, got {saved}")
        u = min(int(upper), self.threshold) if self.n_upper > 1 else 0
        y = int(bool(flag)) if self.n_flag > 1 else 0
        return ((int(mask) * self.n_upper + u) * self.n_flag + y) * self.n_saved + int(saved)


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
