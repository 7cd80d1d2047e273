"""Baseline agents: `random` (uniform over legal actions) and `greedy` (best box for the roll in hand)."""
import numpy as np

from yacht_env.actions import box_actions
from yacht_env.dice_source import decision_uniforms

from .base import Agent, BatchView


def kth_legal(mask: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Per row, the legal action picked by the uniform number u in [0, 1): the floor(u * n)-th of its n."""
    n = mask.sum(axis=1)
    k = np.minimum((u * n).astype(np.int64), n - 1)
    return np.argmax(np.cumsum(mask, axis=1) > k[:, None], axis=1).astype(np.int64)


class RandomAgent(Agent):
    """Plays a uniformly random legal action (re-rolls included)."""

    name = "random"

    def act_batch(self, view: BatchView) -> np.ndarray:
        return kth_legal(view.mask, decision_uniforms(view.seeds, view.seat, view.round, view.rolls_used))


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

    def act_batch(self, view: BatchView) -> np.ndarray:
        gains = immediate_gains(view)
        return box_actions(view.rules).ravel()[np.argmax(gains.reshape(len(view), -1), axis=1)]


def greedy_action(view) -> int:
    """The greedy move of one game's view (the fallback move of faulting bots)."""
    return int(GreedyAgent().act_batch(BatchView.of_view(view))[0])
