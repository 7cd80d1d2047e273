"""Baseline agents: `random` (uniform over legal actions) and `greedy` (best box for the roll in hand)."""
import numpy as np

from yacht_env.core.actions import box_actions
from yacht_env.core.players import uniform_actions

from .base import Agent, BatchView


class RandomAgent(Agent):
    """Plays a uniformly random legal action (re-rolls included)."""

    name = "random"
    trusted = True

    def act_batch(self, view: BatchView) -> np.ndarray:
        return uniform_actions(view)


def immediate_gains(view: BatchView) -> np.ndarray:
    """(n, columns, boxes) what scoring the dice in hand gains now in each box, bonuses included; -inf
    where the box is not allowed."""
    t = view.rules.tables
    pts = view.preview.astype(np.int64)
    upper = view.own_upper[:, :, None]
    bonus = np.where((t.box_face > 0) & (upper < t.upper_threshold) & (upper + pts >= t.upper_threshold),
                     t.upper_bonus, 0)
    return np.where(pts >= 0, pts + bonus + view.extra[:, :, None], -np.inf)


class GreedyAgent(Agent):
    """Never re-rolls: scores the first roll in the box that pays the most now (bonuses included).

    Ties go to the first box on the sheet (lowest column, then sheet order).
    """

    name = "greedy"
    trusted = True

    def act_batch(self, view: BatchView) -> np.ndarray:
        gains = immediate_gains(view)
        return box_actions(view.rules).ravel()[np.argmax(gains.reshape(len(view), -1), axis=1)]


def greedy_action(view) -> int:
    """The greedy move of one game's view (the fallback move of faulting bots)."""
    return int(GreedyAgent().act_batch(BatchView.of_view(view))[0])
