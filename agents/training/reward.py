"""Reward scaling for training: every reward times a constant, so the return stays proportional to the score.

SB3 clips the global gradient norm of the policy and value losses together; with raw Yacht
rewards (returns near 250) the value loss dominates that norm and shrinks the policy's steps.
A constant scale (e.g. 0.02) keeps the optimal policy and the meaning of the return.
"""
import numpy as np
from stable_baselines3.common.vec_env import VecEnvWrapper


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
