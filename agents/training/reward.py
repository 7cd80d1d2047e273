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


def upper_par_potential(obs: np.ndarray, rules, weight: float) -> np.ndarray:
    """weight x (upper points - 3 x faces of the filled upper boxes) while the upper bonus is still open, else 0.

    Read from flat observations (`yacht_env.obs` layout), summed over the sheet's columns.
    """
    from yacht_env.obs import column_layout
    t = rules.tables
    faces = t.box_face.astype(np.float32)
    out = np.zeros(len(obs), np.float32)
    if t.upper_bonus == 0:
        return out
    for c in range(rules.columns):
        at = column_layout(rules, c)
        filled = 1.0 - obs[:, at.open]
        ratio = obs[:, at.upper]
        upper = np.rint(ratio * t.upper_threshold)
        surplus = upper - 3.0 * (filled * faces).sum(axis=1)
        out += np.where(ratio < 1.0, weight * surplus, 0.0)
    return out


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
