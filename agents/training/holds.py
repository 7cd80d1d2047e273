"""Distinct holds: one hold pattern per keep, so equal dice do not split the policy's choices.

Dice are sorted, so with 2,2,5,5,6 holding die 0 or die 1 keeps the same multiset {2}.
`DISTINCT[r, h]` is True for the smallest hold pattern h giving each keep of roll r (20.4
distinct keeps per roll on average, against 31 patterns). A policy trained with
`distinct_holds: true` sees, and must be played with, masks narrowed by `narrow_masks`.
"""
import numpy as np
from stable_baselines3.common.vec_env import VecEnvWrapper

from yacht_env.dice import HOLD_KEEP, NUM_HOLDS, NUM_ROLLS, ROLL_INDEX


def _distinct() -> np.ndarray:
    out = np.zeros((NUM_ROLLS, NUM_HOLDS), bool)
    for r in range(NUM_ROLLS):
        seen = set()
        for h in range(NUM_HOLDS):
            if HOLD_KEEP[r, h] not in seen:
                seen.add(HOLD_KEEP[r, h])
                out[r, h] = True
    out.setflags(write=False)
    return out


DISTINCT = _distinct()
_POW6 = 6 ** np.arange(5)


def dice_of_obs(obs: np.ndarray) -> np.ndarray:
    """The sorted dice (faces 1..6, int64) of each row of flat observations (obs[:, 0:5] = face / 6)."""
    return np.clip(np.rint(np.asarray(obs)[:, :5] * 6).astype(np.int64), 1, 6)


def rolls_of_obs(obs: np.ndarray) -> np.ndarray:
    """Roll index of each row of flat observations."""
    return ROLL_INDEX[((dice_of_obs(obs) - 1) * _POW6).sum(axis=1)]


def narrow_masks(masks: np.ndarray, obs: np.ndarray) -> np.ndarray:
    """Bool masks with every hold that repeats an earlier hold's keep switched off."""
    out = np.array(masks, dtype=bool, copy=True)
    out[:, :NUM_HOLDS] &= DISTINCT[rolls_of_obs(obs)]
    return out


class DistinctHolds(VecEnvWrapper):
    """A VecEnv whose `action_masks` allow one hold pattern per keep (see `narrow_masks`)."""

    def reset(self):
        self._obs = self.venv.reset()
        return self._obs

    def step_wait(self):
        self._obs, rewards, dones, infos = self.venv.step_wait()
        return self._obs, rewards, dones, infos

    def action_masks(self) -> np.ndarray:
        return narrow_masks(np.stack(self.venv.env_method("action_masks")), self._obs)

    def env_method(self, method_name, *args, indices=None, **kwargs):
        if method_name != "action_masks":
            return self.venv.env_method(method_name, *args, indices=indices, **kwargs)
        masks = self.action_masks()
        return [masks[i] for i in self._get_indices(indices)]

    def _get_indices(self, indices):
        if indices is None:
            return range(self.num_envs)
        return [indices] if isinstance(indices, int) else indices
