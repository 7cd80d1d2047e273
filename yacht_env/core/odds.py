"""Exact single-turn odds: chasing one combination with optimal holds.

`chase(values, rolls, dice)` is the one-turn dynamic programme: the expected value of
`values[roll]` at the end of the turn when every hold maximises it, over the rolls of `dice`
(a `yacht_env.core.dice.Dice`; the rules' `rules.dice_tables`).
"""
import numpy as np

from .dice import NUM_DICE, Dice, dice_tables


def chase(values: np.ndarray, rolls: int, dice: Dice | None = None) -> list[float]:
    """Expected end value after 1..rolls rolls, holding optimally for `values` (one entry per roll of `dice`,
    by default five dice)."""
    d = dice_tables(NUM_DICE) if dice is None else dice
    v = values.astype(float)
    out = [float(d.roll_prob @ v)]
    for _ in range(rolls - 1):
        keep_value = d.transition @ v                      # value of each keep before the re-roll
        v = np.maximum(v, keep_value[d.hold_keep].max(axis=1))
        out.append(float(d.roll_prob @ v))
    return out


def _turn(rules, rolls: int | None) -> int:
    """Rolls of the turn the odds are for: `rolls`, by default the rules' `rolls_per_turn`."""
    return rules.rolls_per_turn if rolls is None else rolls


def combination_odds(rules, rolls: int | None = None) -> dict[str, list[float]]:
    """P(the pattern of each lower box) by the 1st, 2nd, ... roll (up to `rolls`, by default the rules'
    `rolls_per_turn`), chasing that box alone."""
    d = rules.dice_tables
    out = {}
    for box in rules.boxes_spec:
        if box.upper or box.kind == "chance":
            continue
        hit = np.array([box.matches([int(c) for c in d.roll_counts[r]]) for r in range(d.n_rolls)], dtype=float)
        out[box.id] = chase(hit, _turn(rules, rolls), d)
    return out


def chase_one_number_dice(rules, face: int = 6, rolls: int | None = None) -> float:
    """Expected number of dice showing `face` at the end of a turn (of `rolls` rolls, by default the rules'
    `rolls_per_turn`) spent collecting it."""
    d = rules.dice_tables
    return chase(d.roll_counts[:, face - 1], _turn(rules, rolls), d)[-1]


def chance_only_points(rules, rolls: int | None = None) -> float:
    """Expected sum of the dice at the end of a turn (of `rolls` rolls, by default the rules'
    `rolls_per_turn`) played only for Chance."""
    d = rules.dice_tables
    return chase(d.roll_sums, _turn(rules, rolls), d)[-1]
