"""The dice features (config key `dice_onehot`, layout in `agents.features`) on a training VecEnv."""
import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env import VecEnvWrapper

from yacht_env.obs import dice_of_obs

from ..features import N_EXTRA, dice_features


def add_dice_features(obs: np.ndarray) -> np.ndarray:
    """Rows of flat observations (n, d) -> (n, d + N_EXTRA), float32, with the dice they show."""
    obs = np.asarray(obs, dtype=np.float32)
    return np.concatenate([obs, dice_features(dice_of_obs(obs))], axis=1)


class DiceFeatures(VecEnvWrapper):
    """A VecEnv whose observations (and terminal observations) carry the dice features."""

    def __init__(self, venv):
        size = venv.observation_space.shape[0] + N_EXTRA
        super().__init__(venv, observation_space=spaces.Box(0.0, 1.0, (size,), np.float32))

    def reset(self):
        return add_dice_features(self.venv.reset())

    def step_wait(self):
        obs, rewards, dones, infos = self.venv.step_wait()
        for info in infos:
            if "terminal_observation" in info:
                info["terminal_observation"] = add_dice_features(info["terminal_observation"][None])[0]
        return add_dice_features(obs), rewards, dones, infos
