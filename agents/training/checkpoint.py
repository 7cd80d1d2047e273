"""Model files on the training side: writing them from an SB3 policy, reading them back with torch for a resume,
and rebuilding the SB3 policy. Their format and checks live in `agents.model_file` (no torch needed to play)."""
import json
from pathlib import Path

import numpy as np
import torch
from gymnasium import spaces

from yacht_env.core.actions import num_actions
from yacht_env.safe_file import atomic_writer

from ..model_file import FORMAT, check_model, model_path, trained_for
from ..features import extra_size, observation_size, trained_sheets
from .errors import ModelFileError

ACTIVATIONS = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}


def policy_kwargs(policy_cfg: dict) -> dict:
    """SB3 policy_kwargs from the `policy` section of a config (as a dict)."""
    act = ACTIVATIONS[policy_cfg["activation"]]
    return {"net_arch": {"pi": list(policy_cfg["pi"]), "vf": list(policy_cfg["vf"])}, "activation_fn": act}


def model_record(cfg, rules) -> tuple[dict, dict]:
    """(config as a dict, rule set as a dict): what a model file records about its training (a
    `TrainConfig` and a `RuleSet`)."""
    return cfg.to_dict(), rules.to_dict()


def save_checkpoint(policy, num_timesteps: int, path, config: dict, rules: dict, with_optimizer: bool = True,
                    extra: dict | None = None):
    """Write an SB3 maskable `policy` to `path`; without the optimizer it is a smaller, play-only file."""
    return write_model(path, policy.state_dict(), int(np.prod(policy.observation_space.shape)),
                       int(policy.action_space.n), num_timesteps, config, rules,
                       optimizer=policy.optimizer.state_dict() if with_optimizer else None, extra=extra)


def write_model(path, state_dict: dict, obs_dim: int, n_actions: int, num_timesteps: int, config: dict, rules: dict,
                optimizer: dict | None = None, extra: dict | None = None):
    """Write a model file (`agents.model_file`'s format) from a network's state dict, named as SB3's actor-critic
    names it (`mlp_extractor.policy_net.0.weight`, ..., `action_net`, `value_net`; `policy_shapes`), kept on the
    CPU; with an optimizer state dict it is a resumable checkpoint. Written to a temporary file, then renamed."""
    path = Path(path)
    doc = {
        "format": FORMAT,
        "config": json.dumps(config),
        "rules": json.dumps(rules),
        "obs_dim": int(obs_dim),
        "n_actions": int(n_actions),
        "num_timesteps": int(num_timesteps),
        "extra": json.dumps({**(extra or {}), "trained_for": trained_for(config, rules)}),
        "policy": {k: v.detach().cpu() for k, v in state_dict.items()},
    }
    if optimizer is not None:
        doc["optimizer"] = optimizer
    with atomic_writer(path, "model file") as f:   # never through a link planted at the path
        torch.save(doc, f)
    return path


def load_checkpoint(path) -> dict:
    """Read a model file with torch (tensors, the optimizer's state: what a resume needs), safely
    (`weights_only`), and check it (`check_model`); JSON fields come back decoded."""
    p = model_path(path)
    try:
        doc = torch.load(p, map_location="cpu", weights_only=True, mmap=True)  # tensors read only when checked
    except Exception as e:  # any unreadable file is the same user error
        raise ModelFileError(f"{path}: not a model file saved by `yacht train` ({type(e).__name__}: "
                             f"{str(e).splitlines()[0][:200] if str(e) else ''})") from e
    return check_model(doc, path)


def new_policy(config: dict, rules, learning_rate: float = 0.0):
    """A fresh MaskableActorCriticPolicy of the network a run with this config (a dict) trains under
    `rules`: its inputs are the observation and the extra inputs of the config (`agents.features`)."""
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy   # SB3: only to train or fine-tune
    size = observation_size(rules, trained_sheets(rules, config)) + extra_size(config, rules)
    return MaskableActorCriticPolicy(spaces.Box(0.0, 1.0, (size,), np.float32), spaces.Discrete(num_actions(rules)),
                                     lambda _: learning_rate, **policy_kwargs(config["policy"]))


def build_policy(doc: dict):
    """A MaskableActorCriticPolicy with the weights of a loaded model file, in eval mode."""
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy   # SB3: only to train or fine-tune
    obs_space = spaces.Box(-np.inf, np.inf, (doc["obs_dim"],), np.float32)
    policy = MaskableActorCriticPolicy(obs_space, spaces.Discrete(doc["n_actions"]), lambda _: 0.0,
                                       **policy_kwargs(doc["config"]["policy"]))
    try:
        policy.load_state_dict(doc["policy"])
    except RuntimeError as e:
        raise ModelFileError(f"model weights do not fit the network its config describes: "
                             f"{str(e).splitlines()[0]}") from e
    policy.set_training_mode(False)
    return policy
