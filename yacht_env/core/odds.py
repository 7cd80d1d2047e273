"""Exact single-turn odds: chasing one combination with optimal holds.

`chase(values, rolls)` is the one-turn dynamic programme: the expected value of
`values[roll]` at the end of the turn when every hold maximises it.
"""
import numpy as np

from .dice import HOLD_KEEP, NUM_KEEPS, NUM_ROLLS, ROLL_COUNTS, ROLL_PROB, ROLL_SUMS, TRANSITION


def chase(values: np.ndarray, rolls: int) -> list[float]:
    """Expected end value after 1..rolls rolls, holding optimally for `values` (one entry per roll)."""
    v = values.astype(float)
    out = [float(ROLL_PROB @ v)]
    for _ in range(rolls - 1):
        keep_value = TRANSITION @ v                      # value of each keep before the re-roll
        v = np.maximum(v, keep_value[HOLD_KEEP].max(axis=1))
        out.append(float(ROLL_PROB @ v))
    return out


def combination_odds(rules) -> dict[str, list[float]]:
    """P(the pattern of each lower box) by the 1st, 2nd, ... roll, chasing that box alone."""
    out = {}
    for box in rules.boxes_spec:
        if box.upper or box.kind == "chance":
            continue
        hit = np.array([box.matches([int(c) for c in ROLL_COUNTS[r]]) for r in range(NUM_ROLLS)], dtype=float)
        out[box.id] = chase(hit, rules.rolls_per_turn)
    return out


def chase_one_number_dice(rules, face: int = 6) -> float:
    """Expected number of dice showing `face` at the end of a turn spent collecting it."""
    return chase(ROLL_COUNTS[:, face - 1], rules.rolls_per_turn)[-1]


def chance_only_points(rules) -> float:
    """Expected sum of the dice at the end of a turn played only for Chance."""
    return chase(ROLL_SUMS, rules.rolls_per_turn)[-1]


assert TRANSITION.shape == (NUM_KEEPS, NUM_ROLLS)
