"""Dice features a policy may see besides the flat observation (config key `dice_onehot`).

With `dice_onehot: true` the policy's input is the flat observation followed by 34 entries:

    [0:30]   die i of the sorted dice shows face f: 1 at 6 * i + (f - 1)
    [30:34]  die i + 1 shows the same face as die i

A hold action is a set of die positions. The flat observation gives each die as face / 6, so
"keep every six" or "keep one die of each face" (straights) is a hard function of it; with these
entries both are nearly linear. The features are computed from the observation's own dice, so the
environment and its documented layout stay as they are.
"""
import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env import VecEnvWrapper

from .holds import dice_of_obs

N_EXTRA = 34
_SLOT = 6 * np.arange(5)


def add_dice_features(obs: np.ndarray) -> np.ndarray:
    """Rows of flat observations (n, d) -> (n, d + N_EXTRA), float32 (layout in the module docstring)."""
    obs = np.asarray(obs, dtype=np.float32)
    dice = dice_of_obs(obs)
    n = len(obs)
    onehot = np.zeros((n, 30), np.float32)
    onehot[np.arange(n)[:, None], _SLOT + dice - 1] = 1.0
    same = (dice[:, 1:] == dice[:, :-1]).astype(np.float32)
    return np.concatenate([obs, onehot, same], axis=1)


def extra_size(config: dict) -> int:
    """Entries a policy trained with this config (as a dict) sees beyond the flat observation."""
    return N_EXTRA if config.get("dice_onehot", False) else 0


def policy_input(obs: np.ndarray, config: dict) -> np.ndarray:
    """What a policy trained with this config is fed for rows of flat observations."""
    return add_dice_features(obs) if config.get("dice_onehot", False) else np.asarray(obs, np.float32)


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
