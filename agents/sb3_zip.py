"""Stable-baselines3 / sb3-contrib model files (`model.save("x")` -> `x.zip`), read without unpickling anything.

    doc = read_sb3_zip("model.zip")    # what `learned:model.zip` plays (`agents.learned.Sb3Agent`)

An SB3 zip holds `data` (JSON; the objects JSON cannot hold -- spaces, the policy class, schedules --
are cloudpickled in it, next to a plain-text copy of their attributes), `policy.pth` (the policy's
state dict), `policy.optimizer.pth`, `pytorch_variables.pth` and version files. Only two are read:

* `data` as JSON, using only the plain-text fields: the policy class (its module and the name of its
  `__init__`), the activation named in `policy_kwargs` (the algorithm's default when it names none),
  the observation space (a float32 `Box` of one dimension) and the action space (`Discrete(n)` from 0);
  no `:serialized:` field is ever decoded;
* `policy.pth` with `torch.load(weights_only=True)`, which rebuilds tensors and refuses any other object.

The network is inferred from the weights: an actor-critic policy (`PPO`, `A2C`, `MaskablePPO`; the
`MlpPolicy` of any `net_arch`: `mlp_extractor.policy_net.{0,2,..}`, `action_net`, and its value head)
or a DQN `QNetwork` (`q_net.q_net.{0,2,..}`, the last layer the Q-values, played as logits). A file
with any other policy class, activation, feature extractor or weight is refused with one line
(`ModelFileError`). The file records neither the rules nor the table it was trained for, so the
layout is checked where the model is seated (`agents.learned.Sb3Agent.prepare`): its inputs must be
the flat observation of `Yacht-v0` (its own sheet) or of `YachtVs-v0` at a table of that many sheets,
and its outputs the rules' action count.
"""
import io
import json
import math
import os
import re
import zipfile

import numpy as np

from .model_file import (MAX_JSON_CHARS, MAX_OBS, MAX_PARAMS, ModelFileError, check_archive, open_model,
                         read_member)

MAX_WEIGHT_BYTES = 1 << 28          # policy.pth: MAX_PARAMS float32 with room
ACTOR_CRITIC, DQN = "actor-critic", "dqn"
POLICIES = {   # (module, class) of the policy classes read -> the network's kind
    ("stable_baselines3.common.policies", "ActorCriticPolicy"): ACTOR_CRITIC,
    ("sb3_contrib.common.maskable.policies", "MaskableActorCriticPolicy"): ACTOR_CRITIC,
    ("stable_baselines3.dqn.policies", "DQNPolicy"): DQN,
}
DEFAULT_ACTIVATION = {ACTOR_CRITIC: "tanh", DQN: "relu"}   # SB3's defaults (ActorCriticPolicy, QNetwork)
ACTIVATIONS = {"<class 'torch.nn.modules.activation.ReLU'>": "relu",
               "<class 'torch.nn.modules.activation.Tanh'>": "tanh"}
HIDDEN = {ACTOR_CRITIC: ("mlp_extractor.policy_net", "mlp_extractor.value_net"), DQN: ("q_net.q_net", None)}


def is_sb3_zip(path) -> bool:
    """Whether `path` names an SB3 model file (by its `.zip` suffix)."""
    return str(path).lower().endswith(".zip")


def read_sb3_zip(path) -> dict:
    """An SB3 zip as plain data: {"kind", "algorithm" (the policy class), "activation", "obs_dim",
    "n_actions", "state"} where `state` is the policy's weights as numpy arrays under the names
    `agents.learned.PolicyNet` reads (a DQN's Q-network as the policy head, no value head).
    ModelFileError (one line naming the file) for anything else."""
    handle = open_model(path)      # a regular file (never a FIFO or a device), bounded
    try:
        with handle, zipfile.ZipFile(handle) as archive:
            check_archive(archive, os.fstat(handle.fileno()).st_size)   # no member inflates past the bound
            names = set(archive.namelist())
            if "data" not in names or "policy.pth" not in names:
                raise ModelFileError(f"{path}: not a stable-baselines3 model file (no data and policy.pth in the zip)")
            data_info, pth_info = archive.getinfo("data"), archive.getinfo("policy.pth")
            if data_info.file_size > MAX_JSON_CHARS * 4:
                raise ModelFileError(f"{path}: its data record of {data_info.file_size} bytes is larger than an "
                                     "SB3 model's")
            if pth_info.file_size > MAX_WEIGHT_BYTES:
                raise ModelFileError(f"{path}: policy.pth of {pth_info.file_size} bytes holds more than "
                                     f"{MAX_PARAMS} weights")
            data = read_member(archive, data_info, MAX_JSON_CHARS * 4)          # inflated a chunk at a time
            weights = read_member(archive, pth_info, MAX_WEIGHT_BYTES)
    except zipfile.BadZipFile as e:
        raise ModelFileError(f"{path}: not a zip file ({str(e)[:120]})") from None
    except (OSError, RuntimeError, ValueError, NotImplementedError) as e:
        raise ModelFileError(f"{path}: unreadable zip ({type(e).__name__}: {str(e)[:120]})") from None
    try:
        data = json.loads(data.decode("utf-8"))
    except (ValueError, RecursionError) as e:
        raise ModelFileError(f"{path}: its data record is not JSON ({str(e).splitlines()[0][:120]})") from None
    if not isinstance(data, dict):
        raise ModelFileError(f"{path}: its data record is not a JSON object")
    kind, algorithm = _policy_kind(data, path)
    activation = _activation(data, kind, path)
    obs_dim, n_actions = _spaces(data, path)
    state = _network(_load_weights(weights, path), kind, path)
    first = state[next(iter(state))]
    if first.shape[1] != obs_dim or state["action_net.weight"].shape[0] != n_actions:
        raise ModelFileError(f"{path}: its weights take {first.shape[1]} inputs and give "
                             f"{state['action_net.weight'].shape[0]} actions, its spaces say {obs_dim} and {n_actions}")
    return {"kind": kind, "algorithm": algorithm, "activation": activation, "obs_dim": obs_dim,
            "n_actions": n_actions, "state": state}


def _text(data: dict, key: str, field: str, path) -> str:
    """A plain-text attribute SB3 wrote beside a cloudpickled object (never the pickle itself)."""
    entry = data.get(key)
    value = entry.get(field) if isinstance(entry, dict) else None
    if not isinstance(value, str):
        raise ModelFileError(f"{path}: data.{key} has no {field}: not a stable-baselines3 model file")
    return value


def _policy_kind(data: dict, path) -> tuple[str, str]:
    module = _text(data, "policy_class", "__module__", path)
    match = re.match(r"<function (\w+)\.__init__ ", _text(data, "policy_class", "__init__", path))
    name = match.group(1) if match else "?"
    kind = POLICIES.get((module, name))
    if kind is None:
        known = ", ".join(sorted(n for _, n in POLICIES))
        raise ModelFileError(f"{path}: policy class {module}.{name} is not one learned: plays (the MlpPolicy of "
                             f"PPO, A2C, MaskablePPO or DQN: {known})")
    return kind, name


def _activation(data: dict, kind: str, path) -> str:
    kwargs = data.get("policy_kwargs", {})
    if not isinstance(kwargs, dict):
        raise ModelFileError(f"{path}: data.policy_kwargs is not a mapping")
    named = kwargs.get("activation_fn")
    if named is None:
        return DEFAULT_ACTIVATION[kind]
    if named not in ACTIVATIONS:
        raise ModelFileError(f"{path}: activation {str(named)[:80]} is not one learned: plays (ReLU or Tanh)")
    return ACTIVATIONS[named]


def _spaces(data: dict, path) -> tuple[int, int]:
    """(observation size, action count) from the spaces' plain-text attributes."""
    kind = _text(data, "observation_space", ":type:", path)
    if kind != "<class 'gymnasium.spaces.box.Box'>" or _text(data, "observation_space", "dtype", path) != "float32":
        raise ModelFileError(f"{path}: trained on observations {kind[:80]}; learned: plays the flat float32 Box of "
                             "Yacht-v0 or YachtVs-v0 (obs_mode='flat')")
    shape = data["observation_space"].get("_shape")
    if not (isinstance(shape, list) and len(shape) == 1 and isinstance(shape[0], int)
            and not isinstance(shape[0], bool) and 1 <= shape[0] <= MAX_OBS):
        raise ModelFileError(f"{path}: an observation of shape {str(shape)[:40]}; learned: plays flat observations "
                             "of one dimension")
    if _text(data, "action_space", ":type:", path) != "<class 'gymnasium.spaces.discrete.Discrete'>" \
            or _text(data, "action_space", "start", path) != "0":
        raise ModelFileError(f"{path}: its actions are not Discrete(n) from 0, the actions of Yacht-v0")
    n = _text(data, "action_space", "n", path)
    if not re.fullmatch(r"\d{1,5}", n):
        raise ModelFileError(f"{path}: action count {n[:40]!r} is not a whole number")
    return shape[0], int(n)


def _load_weights(raw: bytes, path) -> dict:
    try:
        import torch   # the rl extra: only to read an SB3 zip
    except ImportError:
        raise ModelFileError(f"{path}: reading a stable-baselines3 .zip needs torch: pip install "
                             "'yacht-arena[rl]'") from None
    try:
        state = torch.load(io.BytesIO(raw), map_location="cpu", weights_only=True)
    except Exception as e:  # noqa: BLE001 - any unreadable weights are the same user error
        raise ModelFileError(f"{path}: policy.pth is not a state dict torch loads with weights_only "
                             f"({type(e).__name__}: {str(e).splitlines()[0][:160] if str(e) else ''})") from None
    if not isinstance(state, dict) or not all(isinstance(k, str) for k in state):
        raise ModelFileError(f"{path}: policy.pth is not a state dict")
    out = {}
    for name, t in state.items():
        if not (isinstance(t, torch.Tensor) and t.is_floating_point() and t.layout == torch.strided):
            raise ModelFileError(f"{path}: policy.pth[{name[:60]}] is not a floating-point tensor")
        out[name] = t.detach().to(torch.float32).numpy()
    return out


def _layers(state: dict, prefix: str) -> list[str]:
    """The Linear layers `prefix.0`, `prefix.2`, ... present (SB3's MLPs put an activation between them)."""
    found = []
    while f"{prefix}.{2 * len(found)}.weight" in state:
        found.append(f"{prefix}.{2 * len(found)}")
    return found


def _network(state: dict, kind: str, path) -> dict:
    """The weights renamed to `PolicyNet`'s names, every tensor accounted for and checked."""
    policy_hidden, value_hidden = HIDDEN[kind]
    used, out = set(), {}

    def take(src, dst):
        for part in ("weight", "bias"):
            if f"{src}.{part}" not in state:
                raise ModelFileError(f"{path}: policy.pth has no {src}.{part}")
            used.add(f"{src}.{part}")
            out[f"{dst}.{part}"] = state[f"{src}.{part}"]

    if kind == ACTOR_CRITIC:
        for i, layer in enumerate(_layers(state, policy_hidden)):
            take(layer, f"mlp_extractor.policy_net.{2 * i}")
        take("action_net", "action_net")
        for i, layer in enumerate(_layers(state, value_hidden)):
            take(layer, f"mlp_extractor.value_net.{2 * i}")
        take("value_net", "value_net")
    else:
        layers = _layers(state, policy_hidden)
        if not layers:
            raise ModelFileError(f"{path}: policy.pth has no {policy_hidden}.0 (a DQN's Q-network)")
        for i, layer in enumerate(layers[:-1]):
            take(layer, f"mlp_extractor.policy_net.{2 * i}")
        take(layers[-1], "action_net")
        used.update(k for k in state if k.startswith("q_net_target."))   # the target network: not played
    unexpected = [k for k in state if k not in used]
    if unexpected:
        raise ModelFileError(f"{path}: policy.pth holds weights learned: does not play ({unexpected[0][:60]}"
                             f"{', ...' if len(unexpected) > 1 else ''}): a custom feature extractor or network")
    params = sum(math.prod(v.shape) for v in out.values())
    if params > MAX_PARAMS:
        raise ModelFileError(f"{path}: a network of {params} parameters is larger than the {MAX_PARAMS} allowed")
    for name, v in out.items():
        if not np.isfinite(v).all():
            raise ModelFileError(f"{path}: policy.pth[{name}] holds NaN or infinite weights")
    return out

