"""Model files: the policy's weights plus a JSON description, loaded without pickle.

A model file is a `torch.save` of plain data: the format tag, the training config
and rule set as JSON text, the observation size and action count, the policy's
`state_dict` and (in checkpoints, for resuming) the optimizer's state and the step
count. `load_checkpoint` reads it with `torch.load(weights_only=True)`, which
refuses arbitrary Python objects, and the policy is rebuilt from the JSON.
A model file still comes from whoever made it: the weights decide every move,
so only play models from sources you trust.
"""
import json
from pathlib import Path

import numpy as np
import torch
from gymnasium import spaces

from .errors import ModelFileError

FORMAT = "yacht-maskable-ppo/1"


def policy_kwargs(policy_cfg: dict) -> dict:
    """SB3 policy_kwargs from the `policy` section of a config (as a dict)."""
    act = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[policy_cfg["activation"]]
    return {"net_arch": {"pi": list(policy_cfg["pi"]), "vf": list(policy_cfg["vf"])}, "activation_fn": act}


def save_checkpoint(policy, num_timesteps: int, path, config: dict, rules: dict, with_optimizer: bool = True,
                    extra: dict | None = None):
    """Write an SB3 maskable `policy` to `path`; without the optimizer it is a smaller, play-only file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    doc = {
        "format": FORMAT,
        "config": json.dumps(config),
        "rules": json.dumps(rules),
        "obs_dim": int(np.prod(policy.observation_space.shape)),
        "n_actions": int(policy.action_space.n),
        "num_timesteps": int(num_timesteps),
        "extra": json.dumps(extra or {}),
        "policy": policy.state_dict(),
    }
    if with_optimizer:
        doc["optimizer"] = policy.optimizer.state_dict()
    tmp = path.with_suffix(path.suffix + ".tmp")
    torch.save(doc, tmp)
    tmp.replace(path)
    return path


def load_checkpoint(path) -> dict:
    """Read a model file safely (no pickle); JSON fields come back decoded."""
    p = Path(path)
    if not p.is_file():
        raise ModelFileError(f"no model file at {str(path)!r}")
    try:
        doc = torch.load(p, map_location="cpu", weights_only=True)
    except Exception as e:  # noqa: BLE001 - any unreadable file is the same user error
        raise ModelFileError(f"{path}: not a model file saved by `yacht train` ({type(e).__name__}: "
                             f"{str(e).splitlines()[0] if str(e) else ''})") from e
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise ModelFileError(f"{path}: not a model file saved by `yacht train` (expected format {FORMAT!r})")
    for key in ("config", "rules", "extra"):
        doc[key] = json.loads(doc[key])
    return doc


def build_policy(doc: dict):
    """A MaskableActorCriticPolicy with the weights of a loaded model file, in eval mode."""
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
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
