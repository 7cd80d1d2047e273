"""Many solitaire games of optimal play at once, with the engine's seeded dice.

Game g is the game of `Game(rules, seed=seeds[g])`, played by the optimal `Policy` through the
engine's transition (`yacht_env.core.lockstep`), so its score is what the strong agent scores in that game.
Games in the same state share one turn plan.
"""
import numpy as np

from ..core.engine import State
from ..core.lockstep import play
from .policy import Policy


def simulate(rules, solution, seeds, policy: Policy | None = None) -> np.ndarray:
    """Final scores of optimal solitaire games, one per seed (uint64)."""
    seeds = np.asarray(seeds, dtype=np.uint64)
    state = State(rules, seeds.shape[0], 1)
    state.reset(seeds)
    play(state, [policy if policy is not None else Policy(rules, solution)])
    return state.totals[:, 0].copy()
