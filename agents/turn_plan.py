"""One-turn planning: the best hold or box for the roll in hand, given what each end of turn is worth.

`values[i, r]` is what ending the turn by scoring candidate box i with roll r is worth to the
player (-inf where box i is not allowed). With j re-rolls left, the value of roll r is
V_j[r] = max(max_i values[i, r], max_hold sum_r' TRANSITION[keep(r, hold), r'] V_{j-1}[r']),
computed exactly over dice.TRANSITION / HOLD_KEEP (the same recursion as yacht_env.odds.chase).
"""
import numpy as np

from yacht_env.dice import HOLD_KEEP, NUM_HOLDS, TRANSITION


def roll_values(values: np.ndarray, rerolls: int, horizon: int | None = None) -> np.ndarray:
    """V_j over all 252 rolls for j = rerolls (a horizon h < rerolls looks only h re-rolls ahead)."""
    final = np.maximum(values.max(axis=0), -1e9)    # a roll no candidate accepts: very bad, but finite
    v = final
    for _ in range(min(rerolls, rerolls if horizon is None else horizon)):
        v = np.maximum(final, (TRANSITION @ v)[HOLD_KEEP[:, :NUM_HOLDS]].max(axis=1))
    return v


def hold_values(values: np.ndarray, roll: int, rerolls_after: int, horizon: int | None = None) -> np.ndarray:
    """Expected value of each hold pattern 0..30 for roll `roll`, with `rerolls_after` re-rolls still to come."""
    v = roll_values(values, rerolls_after, horizon)
    return TRANSITION[HOLD_KEEP[roll, :NUM_HOLDS]] @ v


def best_action(values: np.ndarray, actions: np.ndarray, roll: int, rolls_left: int,
                horizon: int | None = None) -> tuple[int, float]:
    """(action, value): the best of scoring a candidate (actions[i] scores candidate i) or re-rolling.

    horizon: how many of the later re-rolls the plan counts on (None: all; 0: it plans as if the
    next roll were the last).
    """
    i = int(np.argmax(values[:, roll]))
    best, best_value = int(actions[i]), float(values[i, roll])
    if rolls_left > 0:
        h = hold_values(values, roll, rolls_left - 1, horizon)
        hold = int(np.argmax(h))
        if h[hold] > best_value + 1e-9:
            best, best_value = hold, float(h[hold])
    return best, best_value
