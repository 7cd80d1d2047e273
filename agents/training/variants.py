"""Training over several rule sets of one box layout: the config keys `rule_variants` and `curriculum`.

    rule_variants: [{rolls_per_turn: 3}, {rolls_per_turn: 2}, {rolls_per_turn: 3, upper_bonus: false}]
    curriculum:                       # optional; without it every variant has weight 1 throughout
      - {at: 0, weights: [1, 0, 0]}
      - {at: 200000, weights: [1, 1, 1]}

Each variant is the config's rules (`rules` + `set`) with its overrides (`agents.training.config.variant_rules`
checks them: one box layout, no repeats). The `n_envs` envs of the batched env are shared out among the
variants in proportion to the stage's weights (`apportion`: largest remainder, ties to the earlier variant),
in variant order: env i plays the variant its index falls on, and stream `seed + i`, so the same config
and seed play the same games. A stage starts at the first rollout at or after its `at` step: every env
then starts a new game under the stage's share-out, on streams `seed + step + i` (fresh games, as a
resumed run deals them); the games in progress are dropped. A resumed run starts in the stage of its
step. The training evaluation plays the config's own rules; `scripts/generalise.py` measures each.
"""
import numpy as np
from stable_baselines3.common.callbacks import BaseCallback

from yacht_env.integrations.sb3 import MaskOnlyVecEnv, YachtVecEnv


def apportion(n: int, weights) -> np.ndarray:
    """Envs per variant: `n` shared in proportion to `weights` (at least one above 0) by largest remainder,
    ties going to the earlier variant; the counts sum to `n`."""
    w = np.asarray(weights, np.float64)
    quota = n * w / w.sum()
    counts = np.floor(quota).astype(np.int64)
    left = n - int(counts.sum())
    order = sorted(range(len(w)), key=lambda k: (-(quota[k] - counts[k]), k))
    for k in order[:left]:
        counts[k] += 1
    return counts


def stage_at(curriculum, step: int) -> int:
    """The index of the curriculum stage in force at env step `step` (0 without a curriculum)."""
    stage = 0
    for i, s in enumerate(curriculum):
        if s["at"] <= step:
            stage = i
    return stage


def stage_weights(cfg, step: int) -> tuple:
    """The weights of the rule variants at env step `step`: the curriculum's stage, else 1 each."""
    if not cfg.curriculum:
        return (1.0,) * len(cfg.rule_variants)
    return tuple(cfg.curriculum[stage_at(cfg.curriculum, step)]["weights"])


class MixedRulesVecEnv(MaskOnlyVecEnv):
    """`n_envs` solitaire games as one SB3 VecEnv, shared out among rule sets of one box layout (module
    docstring): one `YachtVecEnv` per variant with envs, side by side, with the masks MaskablePPO reads.
    `variant_of[i]` is the variant env i plays. Infos are those of `YachtVecEnv`."""

    render_mode = None

    def __init__(self, rule_sets, n_envs: int, weights, seed: int, **options):
        self.rule_sets, self.options = list(rule_sets), options
        probe = YachtVecEnv(1, rules=self.rule_sets[0], **options)
        super().__init__(int(n_envs), probe.observation_space, probe.action_space)
        probe.close()
        self.rules = self.rule_sets[0]
        self.groups: list = []
        self.share(weights, seed)

    def share(self, weights, seed: int) -> None:
        """Share the envs out by `weights` (one per variant), env i on stream `seed + i`; the next `reset`
        starts their games."""
        self.close()
        self.counts = apportion(self.num_envs, weights)
        self.variant_of = np.repeat(np.arange(len(self.counts)), self.counts)
        self._base, self.groups, at = int(seed), [], 0
        for k, c in enumerate(self.counts.tolist()):
            if c:
                self.groups.append((at, at + c, YachtVecEnv(c, rules=self.rule_sets[k], seed=self._base + at,
                                                            **self.options)))
            at += c
        self._masks = None

    def reset(self):
        base = self._seeds[0] if self._seeds[0] is not None else self._base   # SB3's seed(s): streams s + i
        self._reset_seeds()
        obs = []
        for lo, _, env in self.groups:
            env.seed(base + lo)
            obs.append(env.reset())
        self.reset_infos = [info for _, _, env in self.groups for info in env.reset_infos]
        return np.concatenate(obs)

    def step_async(self, actions) -> None:
        a = np.asarray(actions)
        a = a[:, 0] if a.shape == (self.num_envs, 1) else a
        if a.shape != (self.num_envs,):
            raise ValueError(f"expected {self.num_envs} actions, got an array of shape {a.shape}")
        for lo, hi, env in self.groups:
            env.step_async(a[lo:hi])

    def step_wait(self):
        parts = [env.step_wait() for _, _, env in self.groups]
        return (np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts]),
                np.concatenate([p[2] for p in parts]), [info for p in parts for info in p[3]])

    def action_masks(self) -> np.ndarray:
        """(n_envs, A) bool mask of the legal actions now."""
        return np.concatenate([env.action_masks() for _, _, env in self.groups])

    def close(self) -> None:
        for _, _, env in self.groups:
            env.close()
        self.groups = []


class Curriculum(BaseCallback):
    """Moves a `MixedRulesVecEnv` to the next curriculum stage at the first rollout at or after its `at`
    step (module docstring): the envs are shared out anew on streams `seed + step + i` and every env starts a
    new game, which the algorithm is given as its last observation."""

    def __init__(self, env: MixedRulesVecEnv, cfg, seed: int, start: int = 0):
        super().__init__()
        self.env, self.cfg, self.seed = env, cfg, int(seed)
        self.stage = stage_at(cfg.curriculum, start)
        self.stages: list[tuple[int, int]] = []      # (step, stage) of every change made

    def _on_rollout_start(self) -> None:
        stage = stage_at(self.cfg.curriculum, self.num_timesteps)
        if stage == self.stage:
            return
        self.stage = stage
        self.env.share(self.cfg.curriculum[stage]["weights"], self.seed + self.num_timesteps)
        self.model._last_obs = self.model.get_env().reset()
        self.model._last_episode_starts = np.ones(self.env.num_envs, bool)
        self.stages.append((self.num_timesteps, stage))

    def _on_step(self) -> bool:
        return True
