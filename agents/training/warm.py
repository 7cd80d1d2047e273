"""Warm starts (config key `warm_start`): a new network's weights from a model file trained before.

The source must have the same network (`policy`), no extra input group (`agents.features.GROUPS`)
the config lacks, and the same rules (by meaning, `agents.model_file.check_rules`), and see either the
same observation or its solitaire part: a model trained alone (`yacht_env.envs.obs` layout) can start a
table run, whose observation (`yacht_env.envs.table_obs`) is that layout followed by the table entries.
Every weight is copied, except that the first layer of each head gets zero weights from the inputs
the source never saw (the table entries, an extra input group such as `upper_features`), so the new
policy plays exactly as the source played at first. When the source was trained for another reward
(kind or scale), the value head's output layer starts at zero instead: its values meant something
else.
"""
import numpy as np
import torch

from yacht_env.envs.obs import obs_size

from ..features import GROUPS, feature_sizes, observation_size, trained_sheets, uses
from ..model_file import model_rules, play_hash
from .checkpoint import ModelFileError, load_checkpoint
from .config import ConfigError

FIRST_LAYERS = ("mlp_extractor.policy_net.0.weight", "mlp_extractor.value_net.0.weight")


def input_columns(rules, source: dict, target: dict) -> np.ndarray:
    """For each input of the target config (a dict), the source input it takes its weights from (-1: none).
    ValueError when the source's observation is neither the target's nor its solitaire part."""
    s_sheets, t_sheets = trained_sheets(rules, source), trained_sheets(rules, target)
    if s_sheets != t_sheets and s_sheets != 1:
        raise ValueError(f"it sees tables of {s_sheets} sheets, the config's table has {t_sheets}")
    base, s_obs, t_obs = obs_size(rules), observation_size(rules, s_sheets), observation_size(rules, t_sheets)
    s_groups, t_groups = feature_sizes(source, rules), feature_sizes(target, rules)
    cols = np.full(t_obs + sum(t_groups.values()), -1, np.int64)
    cols[:base] = np.arange(base)
    if s_sheets == t_sheets:
        cols[base:t_obs] = np.arange(base, t_obs)
    s_at, t_at = s_obs, t_obs
    for key in GROUPS:
        if key in t_groups and key in s_groups and s_groups[key] == t_groups[key]:
            cols[t_at:t_at + t_groups[key]] = s_at + np.arange(t_groups[key])
        s_at += s_groups.get(key, 0)
        t_at += t_groups.get(key, 0)
    return cols


def _shown(config: dict, key: str) -> str:
    """The value of an input group's key as a config file writes it (true / false, summary / full)."""
    value = config.get(key, "summary" if key == "table_obs" else False)
    return str(value).lower() if isinstance(value, bool) else str(value)


def warm_start(policy, path, target: dict, rules) -> dict:
    """Load the weights of model file `path` into the `policy` (an SB3 policy or any torch module with its
    parameter names) of a run whose config, as its model files record it, is `target` (`TrainConfig.to_dict`)
    under `rules` (see the module docstring); returns what was done, for run.json. ConfigError naming the
    key `warm_start` when the file cannot start this run."""
    def refuse(why):
        return ConfigError(f"warm_start: cannot start from {path}: {why}")
    try:
        doc = load_checkpoint(path)
    except ModelFileError as e:
        raise ConfigError(f"warm_start: {e}") from None
    source = doc["config"]
    if source["policy"] != target["policy"]:
        raise refuse(f"its network is {source['policy']}, the config's {target['policy']}")
    for key in GROUPS:
        if uses(source, key) and not uses(target, key):
            raise refuse(f"it was trained with {key} {_shown(source, key)}, the config has {key} "
                         f"{_shown(target, key)}")
    trained = model_rules(doc)
    if trained.hash != play_hash(rules):
        raise refuse(f"it was trained on rules {trained.name!r} (hash {trained.hash}), the config's are "
                     f"{rules.name!r} (hash {play_hash(rules)})")
    try:
        cols = input_columns(rules, source, target)
    except ValueError as e:
        raise refuse(str(e)) from None
    same_reward = all(source.get(key, default) == target.get(key, default)
                      for key, default in (("reward", "points"), ("reward_scale", 1.0)))
    state = policy.state_dict()
    new = {}
    for name, weight in state.items():
        src = torch.as_tensor(np.asarray(doc["policy"][name]), dtype=weight.dtype)
        if name in FIRST_LAYERS:
            out = torch.zeros_like(weight)
            known = cols >= 0
            out[:, torch.as_tensor(np.flatnonzero(known))] = src[:, torch.as_tensor(cols[known])]
            src = out
        elif name.startswith("value_net.") and not same_reward:
            src = torch.zeros_like(weight)
        if src.shape != weight.shape:
            raise refuse(f"weights {name} have shape {tuple(src.shape)}, the network needs {tuple(weight.shape)}")
        new[name] = src
    policy.load_state_dict(new)
    return {"warm_start": str(path), "from_timesteps": int(doc["num_timesteps"]),
            "new_inputs": int((cols < 0).sum()), "value_head_reset": not same_reward}
