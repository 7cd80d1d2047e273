"""Batched `Yacht-v0`: N solitaire games in arrays, stepped by one compiled loop (no Python per game).

    envs = gymnasium.make_vec("Yacht-v0", num_envs=1024, vectorization_mode="vector_entry_point",
                              rules="yacht")

Same actions, observation (flat only), rewards (float32) and illegal-action penalty as `Yacht-v0`;
illegal actions are always penalized (never raised) and flagged in `info["illegal_action"]`. Masks:
`info["action_mask"]`, int8 of shape (N, A), and `envs.action_masks()` (bool). Every step returns
new arrays: nothing returned earlier is overwritten.

Autoreset (`AutoresetMode.SAME_STEP`): when game i ends, the step returns its reward and
terminated[i] = True, the observation row i is already the first one of the next game, and the last
observation is in `info["final_obs"][i]` (rows marked by `info["_final_obs"]`); `info["final_total"]`
holds the final scores on the same rows. Games never truncate.

Threads: `num_threads=2` steps two slices of the games at once on two threads (the compiled step
releases the GIL); the games are the same for any number of threads. The default is 1, so several
env processes side by side do not oversubscribe the cores.

Seeding: `reset(seed=s)` gives sub-env i the stream s + i (a list of seeds gives one stream each), so
sub-env i plays exactly the games of `gymnasium.make("Yacht-v0").reset(seed=s + i)` followed by
plain `reset()`s: episode k deals the dice of `Game(seed=dice_source.game_seed(s + i, k))`.
"""
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from .batch import Batch
from .env import REWARDS, check_choice, resolve_rules
from .obs import flat_space


class YachtVectorEnv(VectorEnv):
    """N games of solitaire Yacht stepped together (see the module docstring)."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(self, num_envs: int = 1, rules="yacht", obs_mode: str = "flat", reward: str = "points",
                 illegal_action: str = "penalize", illegal_penalty: float = 1.0, render_mode=None,
                 max_episode_steps=None, num_threads: int = 1, **overrides):
        if not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        if obs_mode != "flat":
            raise ValueError(f"the batched env supports obs_mode='flat' only, got {obs_mode!r}")
        check_choice("reward", reward, REWARDS)
        if illegal_action != "penalize":
            raise ValueError(f"the batched env penalizes illegal actions (illegal_action='penalize'), "
                             f"got {illegal_action!r}")
        if render_mode is not None:
            raise ValueError(f"the batched env does not render, got render_mode={render_mode!r}")
        if max_episode_steps is not None:
            raise ValueError("Yacht games end by themselves; max_episode_steps is not supported")
        self.rules = resolve_rules(rules, overrides)
        self.num_envs = int(num_envs)
        self.batch = Batch(self.rules, self.num_envs, terminal_reward=reward == "terminal",
                           penalty=illegal_penalty, autoreset=True, num_threads=num_threads)
        self.single_observation_space = flat_space(self.rules)
        self.single_action_space = spaces.Discrete(self.batch.num_actions)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.render_mode = None
        self._actions = np.zeros(self.num_envs, np.int64)
        self._truncated = np.zeros(self.num_envs, np.bool_)

    def reset(self, *, seed=None, options=None):
        """Start episode 0 of every stream: seed s gives streams s, s+1, ...; a list gives one each."""
        if isinstance(seed, (list, tuple, np.ndarray)):
            if len(seed) != self.num_envs:
                raise ValueError(f"got {len(seed)} seeds for {self.num_envs} envs")
            streams = [int(s) for s in seed]
            self._np_random, self._np_random_seed = np.random.default_rng(streams[0]), streams[0]
        else:
            if seed is not None:
                self._np_random, self._np_random_seed = np.random.default_rng(seed), int(seed)
            base = int(seed) if seed is not None else int(self.np_random.integers(2 ** 63))
            streams = [base + i for i in range(self.num_envs)]
        self.batch.reset(streams)
        return self.batch.obs.copy(), {"action_mask": self.batch.mask.copy()}

    def step(self, actions):
        a = np.asarray(actions)
        if a.shape != (self.num_envs,):
            raise ValueError(f"expected {self.num_envs} actions, got shape {a.shape}")
        np.copyto(self._actions, a, casting="unsafe")
        b = self.batch
        b.step(self._actions, fresh=True)
        info = {"action_mask": b.mask}
        if b.illegal.any():
            info["illegal_action"] = b.illegal.copy()
        if b.terminated.any():
            done = b.terminated.copy()
            info["final_obs"], info["_final_obs"] = b.final_obs, done
            info["final_total"] = np.where(done, b.final_total, 0)
        return b.obs, b.rewards.copy(), b.terminated.copy(), self._truncated.copy(), info

    def action_masks(self) -> np.ndarray:
        """(N, A) bool mask of the legal actions now."""
        return self.batch.mask.astype(bool)

    def close(self, **kwargs):
        self.batch.close()
        super().close(**kwargs)
