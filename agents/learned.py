"""`LearnedAgent`: plays a policy trained by `yacht train`, with masks, through the Agent protocol.

    agent = LearnedAgent("models/ppo-yacht.pt")        # spec: learned:models/ppo-yacht.pt

The observation is the one the environments build (`yacht_env.obs.write_obs`, from the game's
dice, sheet and preview), so the agent sees in a `Game` exactly what it saw in training. Each
move is the most likely legal action (`deterministic=True`) or a sample from the policy.

Safety: a model file comes from whoever made it. It is read with `torch.load(weights_only=True)`
(no pickle, so no code runs while loading) and the network is rebuilt from its JSON config;
still, the weights decide every move, so play only models from sources you trust.
"""
import numpy as np
import torch

from yacht_env.dice import NUM_HOLDS, roll_index
from yacht_env.obs import inv_box_scale, obs_size, write_obs, yacht_points
from yacht_env.rules import load

from .base import Agent, View
from .training.checkpoint import ModelFileError, build_policy, load_checkpoint
from .training.features import extra_size, policy_input
from .training.holds import narrow_masks


def game_observation(game, rules=None) -> np.ndarray:
    """The flat observation (layout of `yacht_env.obs`) of the current seat's sheet, while it decides."""
    rules = rules or game.rules
    t = rules.tables
    sheet = game.sheets[game.current_sheet]
    cols, nbox = rules.columns, len(rules.boxes)
    preview = np.full((cols, nbox), -1, np.int32)
    for (c, box), pts in game.preview().items():
        preview[c, rules.boxes.index(box)] = pts
    ypts = yacht_points(rules)
    yacht50 = (sheet.scores[:, t.yacht_box] == ypts) if t.yacht_box >= 0 else np.zeros(cols, bool)
    out = np.zeros(obs_size(rules), np.float32)
    write_obs(t, inv_box_scale(rules), rules.rounds, roll_index(game.dice), game.rolls_used, game.round,
              sheet.scores.astype(np.int32), preview, sheet.upper.astype(np.int64), yacht50.astype(np.int64), out)
    return out


class LearnedAgent(Agent):
    """A trained MaskablePPO policy (a `.pt` model file written by `yacht train`)."""

    name = "learned"

    def __init__(self, path, deterministic: bool = True):
        self.path = str(path)
        self.doc = load_checkpoint(path)
        self.trained_rules = load(self.doc["rules"])
        self.policy = build_policy(self.doc)
        self.deterministic = deterministic
        self.distinct_holds = bool(self.doc["config"].get("distinct_holds", False))
        torch.set_num_threads(1)

    def reset(self, rules, seat, num_players, seed=None) -> None:
        super().reset(rules, seat, num_players, seed)
        need = (obs_size(rules) + extra_size(self.doc["config"]), NUM_HOLDS + rules.columns * len(rules.boxes))
        have = (self.doc["obs_dim"], self.doc["n_actions"])
        if need != have:
            raise ModelFileError(f"model {self.path} was trained on rules {self.trained_rules.name!r} "
                                 f"(observation {have[0]}, actions {have[1]}) and cannot play rules "
                                 f"{rules.name!r} (observation {need[0]}, actions {need[1]})")
        if not self.deterministic:
            torch.manual_seed(int(self.rng.integers(2 ** 31)))

    def act(self, view: View) -> int:
        obs = game_observation(view.game, view.rules)
        mask = view.mask.astype(bool)
        if self.distinct_holds:
            mask = narrow_masks(mask[None], obs[None])[0]
        with torch.no_grad():
            action, _ = self.policy.predict(policy_input(obs[None], self.doc["config"])[0], action_masks=mask,
                                            deterministic=self.deterministic)
        return int(action)
