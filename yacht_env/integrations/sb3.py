"""Stable-Baselines3 `VecEnv`s over the batched Yacht envs, with masks MaskablePPO reads.

    from sb3_contrib import MaskablePPO
    from yacht_env.integrations.sb3 import YachtVecEnv, YachtVsVecEnv
    env = YachtVecEnv(64, rules="yacht", seed=0)            # any preset, any rules knob
    MaskablePPO("MlpPolicy", env).learn(10_000)
    env = YachtVsVecEnv(64, num_players=4, opponents="strong", reward="win", seed=0)   # a seat at a table

The environments are `YachtVecEnv` (solitaire) and `YachtVsVecEnv` (one seat of a multi-player
table), the one adapter `MaskedVecEnv` over the batched Gymnasium envs; their docstrings have the
Gymnasium sections. This module is the only one in `yacht_env` that
imports stable_baselines3.
"""
import time

import numpy as np
from stable_baselines3.common.vec_env import VecEnv

from ..core.actions import as_actions
from ..envs.env import SEED_LIMIT, check_no_options, check_seed
from ..envs.vector import YachtVectorEnv
from ..envs.vs_vector import YachtVsVectorEnv


def _copy_faults(info: dict, infos: list[dict]) -> None:
    """The opponents' faults of a table env's info (`opponent_faults`, `YachtVs-v0`) into the per-env infos."""
    if "opponent_faults" in info:
        for i in np.flatnonzero(info["_opponent_faults"]):
            infos[i]["opponent_faults"] = info["opponent_faults"][i]


class MaskOnlyVecEnv(VecEnv):
    """SB3's attribute and method access for a VecEnv whose one per-env method is `action_masks` (a subclass
    gives `action_masks()`, one bool row per env): MaskablePPO reads the masks through `env_method` or
    `get_attr`; every other attribute is the VecEnv's own, the same for every env, and fixed."""

    def get_attr(self, attr_name: str, indices=None) -> list:
        """The attribute for each env: per-env `action_masks` methods, else this env's attribute."""
        idx = list(self._get_indices(indices))
        if attr_name == "action_masks":
            return [lambda i=i: self.action_masks()[i] for i in idx]
        value = getattr(self, attr_name)
        return [value for _ in idx]

    def set_attr(self, attr_name: str, value, indices=None) -> None:
        raise AttributeError(f"{type(self).__name__} attributes are fixed at construction; cannot set {attr_name!r}")

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list:
        """Call a per-env method; only `action_masks` exists (one bool row per env)."""
        if method_name != "action_masks":
            raise AttributeError(f"{type(self).__name__} envs have no method {method_name!r} (only 'action_masks')")
        masks = self.action_masks()
        return [masks[i] for i in self._get_indices(indices)]

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]


class MaskedVecEnv(MaskOnlyVecEnv):
    """Any batched Gymnasium env of `yacht_env.envs` (a `BatchedVectorEnv`, same-step autoreset) as one SB3
    `VecEnv`: base streams, SB3's episode bookkeeping and attribute and method access, with per-env
    `action_masks` (MaskablePPO reads them through `env_method`/`get_attr`).

    Done envs restart at once (SB3's convention): `dones[i]` is True, the returned observation is the new
    game's first, and `infos[i]` holds `terminal_observation`, `final_total` (the learner's final total),
    `game_seed` (the dice seed of the game that ended, as the Gymnasium envs' infos give it),
    `TimeLimit.truncated` = False and `episode` = {"r": return, "l": length, "t": seconds} (what SB3 logs
    as ep_rew_mean). `reset()` starts episode 0 of stream `seed + i` in env i (SB3's `seed(s)` just
    before a `reset()` makes it use s + i; with neither, the base stream is drawn from the OS)."""

    render_mode = None

    def __init__(self, env, seed: int | None):
        self.env = env
        self.rules = env.rules
        super().__init__(env.num_envs, env.single_observation_space, env.single_action_space)
        self._base_seed = seed
        self._actions = np.zeros(self.num_envs, np.int64)
        self._masks = np.ones((self.num_envs, env.single_action_space.n), np.int8)
        self._ep_return = np.zeros(self.num_envs, np.float64)
        self._ep_length = np.zeros(self.num_envs, np.int64)
        self._started = time.time()

    def reset(self):
        obs, info = self.env.reset(seed=self._streams(self._base_seed))
        self._masks = info["action_mask"]
        self._ep_return[:] = 0
        self._ep_length[:] = 0
        self.reset_infos = [{} for _ in range(self.num_envs)]
        _copy_faults(info, self.reset_infos)
        return obs

    def step_async(self, actions) -> None:
        a = np.asarray(actions)
        if a.shape == (self.num_envs, 1):
            a = a[:, 0]
        as_actions(a, self.env.single_action_space.n, self.num_envs, out=self._actions)

    def step_wait(self):
        obs, rewards, terminated, _, info = self.env.step(self._actions)
        self._masks = info["action_mask"]
        self._ep_return += rewards
        self._ep_length += 1
        infos = [{} for _ in range(self.num_envs)]
        totals = self.env.final_totals(info) if terminated.any() else None
        for i in np.flatnonzero(terminated):
            infos[i] = {"terminal_observation": info["final_obs"][i], "final_total": int(totals[i]),
                        "game_seed": int(info["final_info"]["game_seed"][i]), "TimeLimit.truncated": False,
                        "episode": {"r": float(self._ep_return[i]), "l": int(self._ep_length[i]),
                                    "t": round(time.time() - self._started, 6)}}
            self._ep_return[i] = 0
            self._ep_length[i] = 0
        _copy_faults(info, infos)
        return obs, rewards, terminated, infos

    def _mask(self) -> np.ndarray:
        return self._masks

    def close(self) -> None:
        self.env.close()

    def _streams(self, base_seed) -> list[int]:
        """The streams a `reset()` plays: SB3's `seed(s)` (s + i), else base_seed + i, else drawn from the OS."""
        for options in self._options:
            check_no_options(options, type(self).__name__)
        if self._seeds[0] is not None:
            streams = [check_seed(s) for s in self._seeds]
        else:
            base = base_seed if base_seed is not None else int(np.random.SeedSequence().entropy % 2 ** 63)
            streams = [base + i for i in range(self.num_envs)]
        self._reset_seeds()
        return streams

    def action_masks(self) -> np.ndarray:
        """(num_envs, A) bool mask of the legal actions now."""
        return self._mask().astype(bool)



def _check_num_envs(num_envs, seed) -> None:
    if not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
        raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
    if seed is not None and check_seed(seed) + num_envs > SEED_LIMIT:
        raise ValueError(f"seed {seed} gives streams up to {seed + num_envs - 1}; a seed must be an integer "
                         f"0 .. 2**64 - {num_envs} for {num_envs} envs")


class YachtVecEnv(MaskedVecEnv):
    """num_envs games of `Yacht-v0` as one Stable-Baselines3 `VecEnv`, stepped in one compiled call.

    ## Description
    The solitaire Yacht of `yacht_env.envs.env.YachtEnv` (same rules, dice, actions, flat observations,
    rewards and illegal-action penalty) for SB3 and sb3-contrib: `MaskablePPO("MlpPolicy", env)` trains
    on it directly, with no `ActionMasker` and no `DummyVecEnv`. It runs on the engine of
    `yacht_env.envs.vector.YachtVectorEnv` (one compiled call steps every game; `num_threads` as there).
    Sub-env i plays stream `seed + i`: the games of `gymnasium.make("Yacht-v0")` after
    `reset(seed=seed + i)` followed by plain `reset()`s.

    ## Action Space
    `Discrete(31 + columns * n_boxes)` per env (63 + ... with six dice; SB3's `action_space` is the single
    env's); `step` takes num_envs integer actions, shape (num_envs,) or (num_envs, 1). A float, bool or string
    array, another size or an action outside 0 .. n-1 raises ValueError. Masks, what MaskablePPO
    reads: `env_method("action_masks")` gives one bool row per env, `has_attr("action_masks")` is
    True, and `action_masks()` gives them all as one (num_envs, A) array.

    ## Observation Space
    `Box(0, 1, (13 + columns * (2 * n_boxes + 2),), float32)` per env: `YachtEnv`'s flat observation
    (layout in `yacht_env.envs.obs`); `reset` and `step` return (num_envs, D) arrays, new on every step.

    ## Rewards
    float32, shape (num_envs,): `reward="points"` pays the points of each move (the return is the final
    score), `reward="terminal"` the final score on the last move; an illegal action pays
    `-illegal_penalty` and changes nothing.

    ## Starting State
    As every adapter (`MaskedVecEnv`): env i plays stream `seed + i`. Every `reset()` starts episode 0
    of its streams, so resetting twice with the same seed replays the same games; SB3 resets once per
    `learn` call. Seeds are integers 0 .. 2**64 - 1; reset options (`set_options`) are refused with a
    ValueError.

    ## Episode End
    A game terminates when its sheet is full and never truncates; done games restart at once, with the
    infos of every adapter (`MaskedVecEnv`: `terminal_observation`, `final_total` (the score), `game_seed`,
    `TimeLimit.truncated`, `episode`).

    ## Arguments
    ```python
    YachtVecEnv(num_envs, rules="yacht", seed=None, reward="points", illegal_penalty=1.0,
                num_threads=1, **knobs)
    ```
    `rules`, `**knobs`, `reward` and `illegal_penalty` are those of `YachtEnv`; `seed`: the base
    stream; `num_threads`: threads that step the games (the same games for any count).

    ## Training settings
    SB3's PPO defaults are made for one env: `n_steps=2048` is per env, so with 64 games a rollout is
    131,072 steps, and `batch_size=64` cuts it into 2,048 minibatches, 20,480 gradient steps per
    rollout over `n_epochs=10`: minutes of optimizer work per rollout. Give the batched env settings of
    its own size, as `yacht train` does (configs/train/): `n_steps` of 32-64 per env (the rollout is
    `n_steps * num_envs`) and a `batch_size` of 1,024 or so:
    `MaskablePPO("MlpPolicy", YachtVecEnv(64, seed=0), n_steps=64, batch_size=1024).learn(100_000)`
    plays 25 rollouts of 4,096 steps with 40 minibatch updates each (README: how long it takes).

    ## Version History
    * v0: Initial version.
    """

    def __init__(self, num_envs: int, rules="yacht", seed: int | None = None, reward: str = "points",
                 illegal_penalty: float = 1.0, num_threads: int = 1, **overrides):
        _check_num_envs(num_envs, seed)
        super().__init__(YachtVectorEnv(int(num_envs), rules=rules, reward=reward, illegal_penalty=illegal_penalty,
                                        num_threads=num_threads, **overrides), seed)
        self.core = self.env.core


class YachtVsVecEnv(MaskedVecEnv):
    """num_envs tables of `YachtVs-v0` (the learner at one seat of each) as one Stable-Baselines3 `VecEnv`.

    ## Description
    The tables of `yacht_env.envs.vs_vector.YachtVsVectorEnv` (same rules, seats, opponents, flat
    observations, rewards and illegal-action penalty) in SB3's conventions, so MaskablePPO trains on
    them directly: the opponents play inside the step (with one `strong` opponent, in compiled code on
    `num_threads` threads).

    ## Action Space
    `Discrete(31 + columns * n_boxes)` per env; `step` takes num_envs integer actions, as `YachtVecEnv`.
    Masks: `action_masks()`, and per env through `env_method("action_masks")` / `get_attr`.

    ## Observation Space
    `Box(0, 1, (13 + columns * (2 * n_boxes + 2) + 1 + P * (sheets - 1),), float32)` per env: the
    seat's flat observation of `YachtVs-v0` (layout in `yacht_env.envs.table_obs`; P = 5 under rules with saved
    rolls, else 4).

    ## Rewards
    float32, shape (num_envs,): as `YachtVs-v0` (`reward="points"`: the points the learner's sheet
    gained; `reward="win"`: +1 outright win, 0 shared first place, -1 loss, on the last move).

    ## Starting State
    As every adapter (`MaskedVecEnv`): table i plays stream `seed + i`, the games of `YachtVs-v0` reset
    with that seed.

    ## Episode End
    A game terminates when every sheet is full and never truncates; done tables restart at once, with the
    infos of every adapter (`MaskedVecEnv`; `final_total` is the learner's sheet's total, `episode["l"]`
    counts the learner's decisions; an opponent that fails is reported in `infos[i]["opponent_faults"]`
    and forfeits its seat for the rest of that game, as in `YachtVs-v0`).

    ## Arguments
    ```python
    YachtVsVecEnv(num_envs, rules="yacht", num_players=2, opponents=None, seat="rotate", reward="points",
                  seed=None, illegal_penalty=1.0, num_threads=1, **knobs)
    ```
    The arguments of `YachtVsVectorEnv` (`seat`: an int, or "rotate": seat k % num_players in a
    table's episode k) and `seed`, the base stream.

    ## Version History
    * v0: Initial version.
    """

    def __init__(self, num_envs: int, rules="yacht", num_players: int = 2, opponents=None, seat="rotate",
                 reward: str = "points", seed: int | None = None, illegal_penalty: float = 1.0, num_threads: int = 1,
                 **overrides):
        _check_num_envs(num_envs, seed)
        super().__init__(YachtVsVectorEnv(int(num_envs), rules=rules, num_players=num_players, opponents=opponents,
                                          seat=seat, reward=reward, illegal_penalty=illegal_penalty,
                                          num_threads=num_threads, **overrides), seed)
