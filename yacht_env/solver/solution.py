"""`Solution`: the solved value table of one rule set, with the start state's statistics."""
from dataclasses import dataclass

import numpy as np

from .space import StateSpace


@dataclass(frozen=True)
class Solution:
    """Optimal expected future score of every solitaire state, plus the game's summary figures.

    values[space.index(mask, upper, flag, saved)]: expected points still to come at the start of a turn with
    `saved` rolls saved (always 0 without saved rolls).
    """
    rules_key: str            # rules_hash of the solitaire rule set
    space: StateSpace
    values: np.ndarray
    expected_score: float
    std: float
    p_upper_bonus: float
    p_yacht_50: float
    expected_extra_yachts: float
    seconds: float            # time the solve took (not the cache load)

    def value(self, mask: int, upper: int = 0, flag: bool = False, saved: int = 0) -> float:
        """Expected points still to come from a turn start at this state (`saved`: the rolls the sheet saved)."""
        return float(self.values[self.space.index(mask, upper, flag, saved)])

    def summary(self) -> dict:
        return {"expected_score": self.expected_score, "std": self.std, "p_upper_bonus": self.p_upper_bonus,
                "p_yacht_50": self.p_yacht_50, "expected_extra_yachts": self.expected_extra_yachts,
                "seconds": self.seconds}
