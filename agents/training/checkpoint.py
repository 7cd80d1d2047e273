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
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
from gymnasium import spaces

from yacht_env.actions import num_actions
from yacht_env.obs import obs_size
from yacht_env.rules import RuleError, RuleSet, load, rules_hash

from ..features import extra_size
from .errors import ModelFileError

FORMAT = "yacht-maskable-ppo/1"
ACTIVATIONS = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}
MAX_FILE_BYTES = 1 << 30            # weights and Adam's two moments of MAX_PARAMS float32, with room
MAX_JSON_CHARS = 1 << 20
MAX_WIDTH = 8192                    # units in one hidden layer
MAX_LAYERS = 16                     # hidden layers per head
MAX_PARAMS = 64_000_000
MAX_OBS = 1 << 16
MAX_ACTIONS = 1 << 12


def policy_kwargs(policy_cfg: dict) -> dict:
    """SB3 policy_kwargs from the `policy` section of a config (as a dict)."""
    act = ACTIVATIONS[policy_cfg["activation"]]
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
    """Read a model file safely (no pickle) and check it (`check_model`); JSON fields come back decoded."""
    p = Path(path)
    if not p.is_file():
        raise ModelFileError(f"no model file at {str(path)!r}")
    size = p.stat().st_size
    if size > MAX_FILE_BYTES:
        raise ModelFileError(f"{path}: {size} bytes is larger than any model file `yacht train` writes "
                             f"(at most {MAX_FILE_BYTES})")
    try:
        doc = torch.load(p, map_location="cpu", weights_only=True, mmap=True)  # tensors read only when checked
    except Exception as e:  # noqa: BLE001 - any unreadable file is the same user error
        raise ModelFileError(f"{path}: not a model file saved by `yacht train` ({type(e).__name__}: "
                             f"{str(e).splitlines()[0][:200] if str(e) else ''})") from e
    return check_model(doc, path)


def check_model(doc, path="<model>") -> dict:
    """A loaded model file checked field by field before any network is built; returns it with the JSON
    fields decoded. Each problem is a one-line `ModelFileError` naming the file and the field.

    format: FORMAT. rules: JSON text of a mapping that `yacht_env.rules.load` accepts. config: JSON
    text of a mapping whose `policy` has `pi` and `vf` (lists of 1..MAX_LAYERS layer sizes, each
    1..MAX_WIDTH) and a known `activation`; `distinct_holds` / `dice_onehot`, when present, true or
    false. extra: JSON text of a mapping. obs_dim, n_actions: the sizes the rules and config give.
    num_timesteps: a whole number >= 0. The network's parameter count is at most MAX_PARAMS. policy:
    a state dict whose names and shapes are those of that network, finite floating-point tensors.
    optimizer (checkpoints only): a state dict mapping.
    """
    def bad(field, problem):
        return ModelFileError(f"{path}: {field}: {problem}")

    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise ModelFileError(f"{path}: not a model file saved by `yacht train` (expected format {FORMAT!r})")
    out = dict(doc)
    for key in ("config", "rules", "extra"):
        out[key] = _json_mapping(doc.get(key), key, bad)
    try:
        trained = load(out["rules"])
    except RuleError as e:
        raise bad("rules", f"not a rule set yacht_env.rules.load accepts ({e})") from None
    config = out["config"]
    pi, vf, _ = _network(config, bad)
    for key in ("distinct_holds", "dice_onehot"):
        if not isinstance(config.get(key, False), bool):
            raise bad(f"config.{key}", f"must be true or false, got {_short(config[key])}")
    for key, lo, hi in (("obs_dim", 1, MAX_OBS), ("n_actions", 1, MAX_ACTIONS), ("num_timesteps", 0, 1 << 62)):
        v = doc.get(key)
        if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
            raise bad(key, f"must be a whole number from {lo} to {hi}, got {_short(v)}")
    need = _sizes(trained, config)
    if (doc["obs_dim"], doc["n_actions"]) != need:
        raise bad("obs_dim/n_actions", f"{doc['obs_dim']}/{doc['n_actions']} do not fit its own rules "
                                       f"{trained.name!r} and config ({need[0]}/{need[1]})")
    shapes = policy_shapes(out)
    params = sum(math.prod(s) for s in shapes.values())
    if params > MAX_PARAMS:
        raise bad("config.policy", f"a network of {params} parameters is larger than the {MAX_PARAMS} allowed")
    weights = doc.get("policy")
    if not isinstance(weights, dict):
        raise bad("policy", f"must be the network's state dict, got {type(weights).__name__}")
    missing = [n for n in shapes if n not in weights]
    extra = [n for n in weights if n not in shapes]
    if missing or extra:
        raise bad("policy", f"names do not match the network its config describes (missing "
                            f"{missing[:2] or 'none'}, unexpected {[str(n)[:60] for n in extra[:2]] or 'none'})")
    for name, shape in shapes.items():
        t = weights[name]
        if not isinstance(t, torch.Tensor) or t.layout != torch.strided or not t.is_floating_point():
            raise bad(f"policy[{name}]", f"must be a floating-point tensor, got {type(t).__name__}")
        if tuple(t.shape) != shape:
            raise bad(f"policy[{name}]", f"shape {tuple(t.shape)}, the network its config describes needs {shape}")
        if not torch.isfinite(t).all():
            raise bad(f"policy[{name}]", "holds NaN or infinite weights")
    if "optimizer" in doc and not (isinstance(doc["optimizer"], dict) and isinstance(doc["optimizer"].get("state"), dict)
                                   and isinstance(doc["optimizer"].get("param_groups"), list)):
        raise bad("optimizer", "must be an optimizer state dict (state, param_groups)")
    return out


def _short(x) -> str:
    return repr(x)[:60]


def _json_mapping(text, key: str, bad) -> dict:
    if not isinstance(text, str):
        raise bad(key, f"must be JSON text, got {type(text).__name__}")
    if len(text) > MAX_JSON_CHARS:
        raise bad(key, f"{len(text)} characters is more than the {MAX_JSON_CHARS} allowed")
    try:
        value = json.loads(text)
    except RecursionError:
        raise bad(key, "not valid JSON (nested too deeply)") from None
    except ValueError as e:
        raise bad(key, f"not valid JSON ({str(e).splitlines()[0][:120]})") from None
    if not isinstance(value, dict):
        raise bad(key, f"must be a JSON object, got {type(value).__name__}")
    return value


def _network(config: dict, bad) -> tuple[list[int], list[int], str]:
    """(pi, vf, activation) of a decoded config, checked."""
    policy = config.get("policy")
    if not isinstance(policy, dict):
        raise bad("config.policy", f"must be a mapping with pi, vf and activation, got {_short(policy)}")
    for head in ("pi", "vf"):
        sizes = policy.get(head)
        if not (isinstance(sizes, list) and 1 <= len(sizes) <= MAX_LAYERS and all(
                isinstance(n, int) and not isinstance(n, bool) and 1 <= n <= MAX_WIDTH for n in sizes)):
            raise bad(f"config.policy.{head}", f"must be a list of 1 to {MAX_LAYERS} layer sizes from 1 to "
                                               f"{MAX_WIDTH}, got {_short(sizes)}")
    if not isinstance(policy.get("activation"), str) or policy["activation"] not in ACTIVATIONS:
        raise bad("config.policy.activation", f"must be one of {', '.join(ACTIVATIONS)}, got "
                                              f"{_short(policy.get('activation'))}")
    return policy["pi"], policy["vf"], policy["activation"]


def _sizes(rules, config: dict) -> tuple[int, int]:
    """(observation size, action count) a policy trained with `config` needs to play `rules`."""
    return obs_size(rules) + extra_size(config), num_actions(rules)


def policy_shapes(doc: dict) -> dict[str, tuple[int, ...]]:
    """Name -> shape of every tensor in the policy state dict of a (decoded) model file: the MLP heads
    `mlp_extractor.policy_net` / `value_net` (Linear layers at even indices), `action_net`, `value_net`."""
    pi, vf = doc["config"]["policy"]["pi"], doc["config"]["policy"]["vf"]
    shapes = {}
    for head, sizes in (("policy_net", pi), ("value_net", vf)):
        n_in = doc["obs_dim"]
        for i, n in enumerate(sizes):
            shapes[f"mlp_extractor.{head}.{2 * i}.weight"] = (n, n_in)
            shapes[f"mlp_extractor.{head}.{2 * i}.bias"] = (n,)
            n_in = n
    shapes["action_net.weight"] = (doc["n_actions"], pi[-1])
    shapes["action_net.bias"] = (doc["n_actions"],)
    shapes["value_net.weight"] = (1, vf[-1])
    shapes["value_net.bias"] = (1,)
    return shapes


@dataclass(frozen=True)
class ModelRules:
    """The rules a model was trained under."""
    name: str          # the rule set's name in the model file
    hash: str          # rules_hash of them as one sheet's game (`yacht_env.solver.solitaire`)
    ruleset: RuleSet


def model_rules(doc: dict) -> ModelRules:
    """The rules a (checked) model file was trained under: name, hash and RuleSet."""
    trained = load(doc["rules"])
    return ModelRules(trained.name, _play_hash(trained), trained)


def _play_hash(rules) -> str:
    from yacht_env.solver.solve import solitaire
    return rules_hash(solitaire(rules))


def check_rules(doc: dict, rules, path="<model>", insist: bool = False) -> str | None:
    """Whether the model in `doc` may play `rules`.

    None: they are the rules it was trained under (compared by meaning, as one sheet's game: the
    name, seats, teams and tiebreak do not matter). A ModelFileError when its observation or action
    size does not fit `rules` (always), or when the rules are other rules of the same shape and not
    `insist`; with `insist`, a one-line warning to show instead."""
    trained = model_rules(doc)
    need, have = _sizes(rules, doc["config"]), (doc["obs_dim"], doc["n_actions"])
    if need != have:
        raise ModelFileError(f"model {path} was trained on rules {trained.name!r} (observation {have[0]}, actions "
                             f"{have[1]}) and cannot play rules {rules.name!r} (observation {need[0]}, actions "
                             f"{need[1]})")
    if _play_hash(rules) == trained.hash:
        return None
    message = (f"model {path} was trained on rules {trained.name!r} (hash {trained.hash}), not on {rules.name!r} "
               f"(hash {_play_hash(rules)}); they have the same shape, so it can play them, but not as trained")
    if not insist:
        raise ModelFileError(message + "; insist to play them anyway")
    return message


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
