"""Reward scaling for training: every reward times a constant, so the return stays proportional to the score.

SB3 clips the global gradient norm of the policy and value losses together; with raw Yacht
rewards (returns near 250) the value loss dominates that norm and shrinks the policy's steps.
A constant scale (e.g. 0.02) keeps the optimal policy and the meaning of the return.
"""
import numpy as np
from stable_baselines3.common.vec_env import VecEnvWrapper

from ..features import upper_par_potential


class ScaleReward(VecEnvWrapper):
    """Multiply rewards by `scale`; `episode` infos keep the unscaled return (the game's score)."""

    def __init__(self, venv, scale: float):
        super().__init__(venv)
        self.scale = float(scale)

    def reset(self):
        return self.venv.reset()

    def step_wait(self):
        obs, rewards, dones, infos = self.venv.step_wait()
        return obs, (rewards * self.scale).astype(np.float32), dones, infos


class UpperParShaping(VecEnvWrapper):
    """Potential-based shaping r + phi(s') - phi(s) with phi = `upper_par_potential` and phi = 0 at the end.

    Scoring three of a face in its upper box is par; points above or below par are paid (or
    charged) `weight` each at once instead of only when the bonus is won or lost. With phi = 0 at
    the first and the last state the shaped return equals the score.
    """

    def __init__(self, venv, rules, weight: float):
        super().__init__(venv)
        self.rules, self.weight = rules, float(weight)

    def reset(self):
        obs = self.venv.reset()
        self.phi = upper_par_potential(obs, self.rules, self.weight)
        return obs

    def step_wait(self):
        obs, rewards, dones, infos = self.venv.step_wait()
        phi = upper_par_potential(obs, self.rules, self.weight)
        after = np.where(dones, 0.0, phi)
        shaped = (rewards + after - self.phi).astype(np.float32)
        self.phi = phi
        return obs, shaped, dones, infos
