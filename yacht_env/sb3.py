"""Stable-Baselines3 `VecEnv` over the batched Yacht env, with masks MaskablePPO reads.

    from sb3_contrib import MaskablePPO
    from yacht_env.sb3 import YachtVecEnv
    env = YachtVecEnv(64, rules="yacht", seed=0)            # any preset, any rules knob
    MaskablePPO("MlpPolicy", env).learn(10_000)

`YachtVecEnv(num_envs, rules="yacht", seed=None, reward="points", illegal_penalty=1.0, num_threads=1,
**overrides)` (num_threads: see `yacht_env.vector`):
num_envs games of `Yacht-v0` (flat observation) stepped in one compiled call. Masks:
`env_method("action_masks")` gives one bool row per env, `has_attr("action_masks")` is True.
Done games restart at once (SB3's convention): the returned observation is the new game's, and
`infos[i]` holds `terminal_observation`, `episode` = {"r": return, "l": length, "t": seconds} (what
SB3 logs as ep_rew_mean) and `final_total` (the score). Sub-env i plays stream seed + i (see
`yacht_env.vector`); `seed(s)` before `reset()` restarts the streams at s. This module is the only
one that imports stable_baselines3.
"""
import time

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env import VecEnv

from .batch import Batch
from .env import REWARDS, check_choice, resolve_rules
from .obs import flat_space


class YachtVecEnv(VecEnv):
    """num_envs solitaire Yacht games as one SB3 VecEnv (see the module docstring)."""

    render_mode = None

    def __init__(self, num_envs: int, rules="yacht", seed: int | None = None, reward: str = "points",
                 illegal_penalty: float = 1.0, num_threads: int = 1, **overrides):
        if not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        check_choice("reward", reward, REWARDS)
        self.rules = resolve_rules(rules, overrides)
        self.batch = Batch(self.rules, int(num_envs), terminal_reward=reward == "terminal",
                           penalty=illegal_penalty, autoreset=True, num_threads=num_threads)
        super().__init__(int(num_envs), flat_space(self.rules), spaces.Discrete(self.batch.num_actions))
        self._base_seed = seed
        self._actions = np.zeros(self.num_envs, np.int64)
        self._ep_return = np.zeros(self.num_envs, np.float64)
        self._ep_length = np.zeros(self.num_envs, np.int64)
        self._started = time.time()

    def reset(self):
        if self._seeds[0] is not None:
            streams = [int(s) for s in self._seeds]
        else:
            base = self._base_seed if self._base_seed is not None else int(np.random.SeedSequence().entropy % 2 ** 63)
            streams = [base + i for i in range(self.num_envs)]
        self._reset_seeds()
        self.batch.reset(streams)
        self._ep_return[:] = 0
        self._ep_length[:] = 0
        self.reset_infos = [{} for _ in range(self.num_envs)]
        return self.batch.obs.copy()

    def step_async(self, actions) -> None:
        np.copyto(self._actions, np.asarray(actions).reshape(self.num_envs), casting="unsafe")

    def step_wait(self):
        b = self.batch
        b.step(self._actions, fresh=True)
        self._ep_return += b.rewards
        self._ep_length += 1
        infos = [{} for _ in range(self.num_envs)]
        for i in np.flatnonzero(b.terminated):
            infos[i] = {"terminal_observation": b.final_obs[i], "final_total": int(b.final_total[i]),
                        "TimeLimit.truncated": False,
                        "episode": {"r": float(self._ep_return[i]), "l": int(self._ep_length[i]),
                                    "t": round(time.time() - self._started, 6)}}
            self._ep_return[i] = 0
            self._ep_length[i] = 0
        return b.obs, b.rewards.copy(), b.terminated.copy(), infos

    def action_masks(self) -> np.ndarray:
        """(num_envs, A) bool mask of the legal actions now."""
        return self.batch.mask.astype(bool)

    def close(self) -> None:
        self.batch.close()

    def get_attr(self, attr_name: str, indices=None) -> list:
        """The attribute for each env: per-env `action_masks` methods, else this env's attribute."""
        idx = list(self._get_indices(indices))
        if attr_name == "action_masks":
            return [lambda i=i: self.batch.mask[i].astype(bool) for i in idx]
        value = getattr(self, attr_name)
        return [value for _ in idx]

    def set_attr(self, attr_name: str, value, indices=None) -> None:
        raise AttributeError(f"YachtVecEnv attributes are fixed at construction; cannot set {attr_name!r}")

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list:
        """Call a per-env method; only `action_masks` exists (one bool row per env)."""
        if method_name != "action_masks":
            raise AttributeError(f"YachtVecEnv envs have no method {method_name!r} (only 'action_masks')")
        masks = self.batch.mask.astype(bool)
        return [masks[i] for i in self._get_indices(indices)]

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]
