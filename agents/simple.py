"""Baseline agents: `random` (uniform over legal actions) and `greedy` (best box for the roll in hand)."""
import numpy as np

from yacht_env.dice import NUM_HOLDS, roll_index

from .base import Agent, View
from .box_values import sheet_gains


class RandomAgent(Agent):
    """Plays a uniformly random legal action (re-rolls included)."""

    name = "random"

    def act(self, view: View) -> int:
        return int(self.rng.choice(view.legal_actions))


class GreedyAgent(Agent):
    """Never re-rolls: scores the first roll in the box that pays the most now (bonuses included).

    Ties go to the first box on the sheet (lowest column, then sheet order).
    """

    name = "greedy"

    def act(self, view: View) -> int:
        return greedy_action(view)


def greedy_action(view: View) -> int:
    """The scoring action with the highest immediate gain for the dice in hand."""
    gains = sheet_gains(view)[:, :, roll_index(view.dice)]
    return NUM_HOLDS + int(np.argmax(gains.ravel()))
