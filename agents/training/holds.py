"""Distinct holds (config key `distinct_holds`, see `agents.features`) on a training VecEnv."""
import numpy as np
from stable_baselines3.common.vec_env import VecEnvWrapper

from ..features import narrow_masks, rolls_of_obs


class DistinctHolds(VecEnvWrapper):
    """A VecEnv whose `action_masks` allow one hold pattern per keep (see `agents.features.narrow_masks`)."""

    def reset(self):
        self._obs = self.venv.reset()
        return self._obs

    def step_wait(self):
        self._obs, rewards, dones, infos = self.venv.step_wait()
        return self._obs, rewards, dones, infos

    def action_masks(self) -> np.ndarray:
        return narrow_masks(np.stack(self.venv.env_method("action_masks")), rolls_of_obs(self._obs))

    def env_method(self, method_name, *args, indices=None, **kwargs):
        if method_name != "action_masks":
            return self.venv.env_method(method_name, *args, indices=indices, **kwargs)
        masks = self.action_masks()
        return [masks[i] for i in self._get_indices(indices)]

    def _get_indices(self, indices):
        if indices is None:
            return range(self.num_envs)
        return [indices] if isinstance(indices, int) else indices
