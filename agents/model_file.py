"""Model files written by `yacht train`, read and checked without torch or stable-baselines3.

A model file is a `torch.save` of plain data: the format tag, the training config and rule set as
JSON text, the observation size and action count, the policy's `state_dict` and (in checkpoints, for
resuming) the optimizer's state and the step count. `read_model` opens it as the zip file it is and
unpickles only what such a file holds -- an OrderedDict of tensors rebuilt from typed storages
(`torch._utils._rebuild_tensor_v2`, `torch.<Type>Storage`) -- as numpy arrays; any other object in the
pickle is refused, as `torch.load(weights_only=True)` would refuse it, so no code in the file runs.
Nothing is allocated past a bound: the file must be a regular file of at most MAX_FILE_BYTES, its
members' declared sizes together at most what such a file can hold (`check_archive`: torch stores them
uncompressed, so a few bytes that inflate to gigabytes are refused before any member is read), every
member is inflated CHUNK bytes at a time with the running total checked against its declared size and
the bound (`read_member`: a member whose header understates its size costs a chunk, not what it
inflates to), every storage's size matches its member, and the tensors built from the storages together
stay in that bound.
`check_model` then checks every field before a network is built. A model file still comes from
whoever made it: the weights decide every move, so only play models from sources you trust.
"""
import io
import json
import math
import os
import pickle
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from yacht_env.core.actions import num_actions
from yacht_env.envs.options import TABLE as TABLE_OBS
from yacht_env.envs.obs import obs_size
from yacht_env.rules import RuleError, RuleSet, load, rules_hash, solitaire_rules

from yacht_env.config import ConfigError
from yacht_env.safe_file import FileRefused, open_read

from .features import extra_size, observation_size, trained_sheets

FORMAT = "yacht-maskable-ppo/1"
ACTIVATIONS = ("tanh", "relu")
MAX_FILE_BYTES = 1 << 30            # weights and Adam's two moments of MAX_PARAMS float32, with room
MAX_PICKLE_BYTES = 1 << 26
MAX_INFLATION = 4                   # members may hold at most this many times the file's size (torch: ~1)
INFLATION_SLACK = 1 << 20
MAX_JSON_CHARS = 1 << 20
CHUNK = 1 << 20                     # bytes a zip member is inflated at a time (`read_member`)
MAX_WIDTH = 8192                    # units in one hidden layer
MAX_LAYERS = 16                     # hidden layers per head
MAX_PARAMS = 64_000_000
MAX_OBS = 1 << 16
MAX_ACTIONS = 1 << 12
MAX_PLAYERS = 8                     # seats at the table a model was trained at
MAX_VARIANTS = 16                   # rule variants a model was trained on (`variant_sets`)
STORAGES = {"FloatStorage": np.float32, "DoubleStorage": np.float64, "HalfStorage": np.float16,
            "BFloat16Storage": None, "LongStorage": np.int64, "IntStorage": np.int32, "ShortStorage": np.int16,
            "CharStorage": np.int8, "ByteStorage": np.uint8, "BoolStorage": np.bool_}


class ModelFileError(ConfigError):
    """A file that is not a model saved by `yacht train`, or does not fit the rules (a user error)."""


class _StateDict(dict):
    """An OrderedDict of a state dict (torch sets its `_metadata` attribute while unpickling)."""


class _Storage:
    def __init__(self, name: str):
        self.name = name


class _Reader(pickle.Unpickler):
    """Unpickles the data of a torch.save file, allowing only what a state dict needs; every storage is
    read once, and the storages and the tensors copied out of them together stay within `budget` bytes."""

    def __init__(self, file, archive: zipfile.ZipFile, prefix: str, budget: int):
        super().__init__(file)
        self.archive, self.prefix, self.budget = archive, prefix, budget
        self.storages: dict = {}

    def _spend(self, nbytes: int, what: str) -> None:
        if nbytes > self.budget:
            raise ValueError(f"{what} would take more memory than the file can hold")
        self.budget -= nbytes

    def _rebuild_tensor(self, storage, offset, size, stride, requires_grad=False, hooks=None, metadata=None):
        """A tensor of a model file as a numpy array (a copy), after checking it lies inside its storage."""
        data = storage
        if not isinstance(data, np.ndarray) or not isinstance(offset, int):
            raise pickle.UnpicklingError("a tensor without a storage")
        size, stride = tuple(int(x) for x in size), tuple(int(x) for x in stride)
        if len(size) != len(stride) or any(s < 0 for s in size) or any(s < 0 for s in stride) or offset < 0:
            raise pickle.UnpicklingError("a tensor with a negative size, stride or offset")
        last = offset + sum((n - 1) * s for n, s in zip(size, stride)) if all(size) else offset - 1
        if last >= len(data):
            raise pickle.UnpicklingError("a tensor reaches past the end of its storage")
        item = data.itemsize
        self._spend(math.prod(size) * item, "a tensor")
        return np.lib.stride_tricks.as_strided(data[offset:], shape=size,
                                               strides=tuple(s * item for s in stride)).copy()

    def find_class(self, module, name):
        if (module, name) == ("collections", "OrderedDict"):
            return _StateDict
        if (module, name) == ("torch._utils", "_rebuild_tensor_v2"):
            return self._rebuild_tensor
        if module == "torch" and name in STORAGES and STORAGES[name] is not None:
            return _Storage(name)
        raise pickle.UnpicklingError(f"refused object {module}.{name}")

    def persistent_load(self, pid):
        if not (isinstance(pid, tuple) and len(pid) == 5 and pid[0] == "storage" and isinstance(pid[1], _Storage)):
            raise pickle.UnpicklingError("a storage reference of an unknown form")
        dtype = np.dtype(STORAGES[pid[1].name])
        key, numel = str(pid[2]), int(pid[4])
        if key in self.storages:
            data = self.storages[key]
            if data.dtype != dtype.newbyteorder("<") or len(data) != numel:
                raise pickle.UnpicklingError(f"storage {key!r} is named twice with different types or sizes")
            return data
        try:
            info = self.archive.getinfo(f"{self.prefix}data/{key}")
        except KeyError:
            raise pickle.UnpicklingError(f"storage {key!r} is missing") from None
        if numel < 0 or info.file_size != numel * dtype.itemsize:
            raise pickle.UnpicklingError(f"storage {key!r} holds {info.file_size} bytes, not {numel} values")
        self._spend(info.file_size, f"storage {key!r}")    # checked before a byte of it is read
        data = np.frombuffer(read_member(self.archive, info, info.file_size), dtype=dtype.newbyteorder("<"))
        self.storages[key] = data
        return data


def open_model(path):
    """A model file opened for reading (binary): a regular file (a FIFO, a device or a folder is refused)
    not larger than any model file; `ModelFileError` otherwise."""
    try:
        return open_read(path, "model file", MAX_FILE_BYTES)
    except FileRefused as e:
        if "no such" in e.problem:
            raise ModelFileError(f"no model file at {str(path)!r}") from None
        raise ModelFileError(str(e)) from None


def model_path(path) -> Path:
    """The path of a model file that is a regular file, not larger than any model file, whose zip members
    fit its size (`check_archive`); ModelFileError otherwise."""
    with open_model(path) as f:
        try:
            with zipfile.ZipFile(f) as archive:
                check_archive(archive, os.fstat(f.fileno()).st_size)
                check_stored(archive)
        except (zipfile.BadZipFile, ValueError, OSError, EOFError) as e:
            raise ModelFileError(f"{path}: not a model file saved by `yacht train` ({type(e).__name__}: "
                                 f"{str(e).splitlines()[0][:200] if str(e) else ''})") from None
    return Path(path)


def check_stored(archive: zipfile.ZipFile) -> None:
    """ValueError unless every member is stored uncompressed, as torch.save writes them (torch.load reads a
    member's bytes as they lie in the file, so a compressed one would be read as garbage weights)."""
    for info in archive.infolist():
        if info.compress_type != zipfile.ZIP_STORED:
            raise ValueError(f"member {info.filename[:80]!r} is compressed; torch stores a model file's members "
                             f"uncompressed")


def check_archive(archive: zipfile.ZipFile, file_size: int) -> int:
    """The bytes a model file's members hold once decompressed (from the zip's directory, before any is
    read); ValueError when they add up to more than MAX_INFLATION times the file's size (a zip bomb) or
    more than MAX_FILE_BYTES."""
    total = sum(info.file_size for info in archive.infolist())
    bound = min(MAX_FILE_BYTES, MAX_INFLATION * file_size + INFLATION_SLACK)
    if total > bound:
        raise ValueError(f"its members decompress to {total:,} bytes, more than a model file of "
                         f"{file_size:,} bytes can hold ({bound:,})")
    return total


def read_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo, limit: int) -> bytes:
    """A zip member's bytes, inflated CHUNK bytes at a time; ValueError as soon as the running total passes the
    size its header declares or `limit`, or when the member ends short of its declared size. (zipfile stops
    at the declared size and then finds the CRC wrong; reading it whole would first inflate everything the
    compressed data holds, in one call.)"""
    if info.file_size > limit:
        raise ValueError(f"member {info.filename!r} declares {info.file_size:,} bytes, more than {limit:,} allowed")
    out = bytearray()
    with archive.open(info) as f:
        while chunk := f.read(CHUNK):
            out += chunk
            if len(out) > min(info.file_size, limit):
                raise ValueError(f"member {info.filename!r} inflates past its declared {info.file_size:,} bytes")
    if len(out) != info.file_size:
        raise ValueError(f"member {info.filename!r} holds {len(out):,} bytes, its header says {info.file_size:,}")
    return bytes(out)


def read_model(path) -> dict:
    """Read and check a model file (`check_model`) as plain data: JSON fields decoded, weights numpy arrays.
    The file is opened once (`open_model`) and every allocation is bounded (see the module docstring)."""
    handle = open_model(path)
    try:
        with handle, zipfile.ZipFile(handle) as archive:
            inflated = check_archive(archive, os.fstat(handle.fileno()).st_size)
            check_stored(archive)
            names = [n for n in archive.namelist() if n.endswith("/data.pkl") or n == "data.pkl"]
            if len(names) != 1:
                raise ValueError("no data.pkl record")
            prefix = names[0][:-len("data.pkl")]
            if prefix + "byteorder" in archive.namelist() and \
                    read_member(archive, archive.getinfo(prefix + "byteorder"), 16) != b"little":
                raise ValueError("weights stored big-endian")
            info = archive.getinfo(names[0])
            if info.file_size > MAX_PICKLE_BYTES:
                raise ValueError(f"a data record of {info.file_size} bytes")
            record = io.BytesIO(read_member(archive, info, MAX_PICKLE_BYTES))     # never inflated past its size
            doc = _Reader(record, archive, prefix, budget=2 * inflated).load()   # storages + their tensors
    except (zipfile.BadZipFile, pickle.UnpicklingError, ValueError, EOFError, OSError, KeyError, TypeError,
            IndexError, AttributeError, RecursionError, MemoryError, UnicodeDecodeError) as e:
        raise ModelFileError(f"{path}: not a model file saved by `yacht train` ({type(e).__name__}: "
                             f"{str(e).splitlines()[0][:200] if str(e) else ''})") from None
    return check_model(doc, path)


def check_model(doc, path="<model>") -> dict:
    """A loaded model file checked field by field before any network is built; returns it with the JSON
    fields decoded. Each problem is a one-line `ModelFileError` naming the file and the field.

    format: FORMAT. rules: JSON text of a mapping that `yacht_env.rules.load` accepts. config: JSON
    text of a mapping whose `policy` has `pi` and `vf` (lists of 1..MAX_LAYERS layer sizes, each
    1..MAX_WIDTH) and a known `activation`; `distinct_holds` / `dice_onehot` / `upper_features`, when
    present, true or false; `table_obs`, when present, summary or full (full only at a table);
    `rule_variants`, when present, a list of at most MAX_VARIANTS mappings of rule overrides that `load`
    accepts over its rules, each of their box layout. extra: JSON text of a mapping. obs_dim, n_actions: the
    sizes the rules and config give. num_timesteps: a whole number >= 0. The network's parameter count is at
    most MAX_PARAMS. policy: a state dict whose names and shapes are those of that network, finite
    floating-point tensors.
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
    for key in ("distinct_holds", "dice_onehot", "rule_knobs", "upper_features"):
        if not isinstance(config.get(key, False), bool):
            raise bad(f"config.{key}", f"must be true or false, got {_short(config[key])}")
    try:
        variant_sets(out["rules"], config)
    except (RuleError, ValueError, TypeError) as e:
        raise bad("config.rule_variants", str(e)) from None
    players = config.get("num_players", 1)
    if isinstance(players, bool) or not isinstance(players, int) or not 1 <= players <= MAX_PLAYERS:
        raise bad("config.num_players", f"must be a whole number from 1 to {MAX_PLAYERS}, got {_short(players)}")
    if config.get("table_obs", "summary") not in TABLE_OBS:
        raise bad("config.table_obs", f"must be one of {', '.join(TABLE_OBS)}, got {_short(config['table_obs'])}")
    if config.get("table_obs", "summary") == "full" and players == 1:
        raise bad("config.table_obs", "full shows the other sheets of a table; the model was trained alone "
                                      "(num_players 1)")
    try:
        trained_sheets(trained, config)
    except ValueError as e:
        raise bad("config.num_players", f"does not fit its own rules ({e})") from None
    for key, lo, hi in (("obs_dim", 1, MAX_OBS), ("n_actions", 1, MAX_ACTIONS), ("num_timesteps", 0, 1 << 62)):
        v = doc.get(key)
        if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
            raise bad(key, f"must be a whole number from {lo} to {hi}, got {_short(v)}")
    need = _sizes(trained, config, trained_sheets(trained, config))
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
        if not _floating(t):
            kind = str(t.dtype).replace("torch.", "") if hasattr(t, "dtype") else type(t).__name__
            raise bad(f"policy[{name}]", f"must be a floating-point tensor, got {kind}")
        if tuple(t.shape) != shape:
            raise bad(f"policy[{name}]", f"shape {tuple(t.shape)}, the network its config describes needs {shape}")
        if not np.isfinite(np.asarray(t, np.float64)).all():
            raise bad(f"policy[{name}]", "holds NaN or infinite weights")
    optimizer = doc.get("optimizer")
    if "optimizer" in doc and not (isinstance(optimizer, dict) and isinstance(optimizer.get("state"), dict)
                                   and isinstance(optimizer.get("param_groups"), list)):
        raise bad("optimizer", "must be an optimizer state dict (state, param_groups)")
    return out


def _floating(t) -> bool:
    """A dense floating-point array: a numpy array (as `read_model` gives) or a strided torch tensor."""
    if isinstance(t, np.ndarray):
        return np.issubdtype(t.dtype, np.floating)
    return type(t).__name__ in ("Tensor", "Parameter") and str(getattr(t, "layout", "")) == "torch.strided" \
        and bool(t.is_floating_point())


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


def _sizes(rules, config: dict, sheets: int) -> tuple[int, int]:
    """(input size, action count) a policy trained with `config` needs to play `rules` at tables of
    `sheets` sheets (1: its own sheet only)."""
    return observation_size(rules, sheets) + extra_size(config, rules), num_actions(rules)


def loadable_network(rules, config: dict) -> str | None:
    """Why a model file of a network trained with `config` (a training config as a dict) under `rules` would
    be refused by `check_model` for its size (input size, action count, parameters), or None when it loads:
    `yacht train` checks this before it trains, so every network it accepts is one `learned:` loads."""
    obs_dim, n_actions = _sizes(rules, config, trained_sheets(rules, config))
    if obs_dim > MAX_OBS or n_actions > MAX_ACTIONS:
        return (f"the network would take {obs_dim:,} inputs and give {n_actions:,} actions; a model file holds at "
                f"most {MAX_OBS:,} and {MAX_ACTIONS:,}")
    params = sum(math.prod(s) for s in policy_shapes({"config": config, "obs_dim": obs_dim,
                                                      "n_actions": n_actions}).values())
    if params > MAX_PARAMS:
        return f"a network of {params:,} parameters is larger than the {MAX_PARAMS:,} a model file may hold"
    return None


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


def variant_sets(rules: dict, config: dict) -> list[RuleSet]:
    """The rule sets a model with this config and rule set (as dicts) was trained on beside its rules: one per
    entry of `config["rule_variants"]` (its rules with those overrides); ValueError (or RuleError) when the
    entry is not a list of such mappings giving rule sets of its rules' observation and action sizes."""
    variants = config.get("rule_variants", [])
    if not isinstance(variants, list) or len(variants) > MAX_VARIANTS or \
            not all(isinstance(v, dict) for v in variants):
        raise ValueError(f"must be a list of at most {MAX_VARIANTS} mappings of rule overrides, got {_short(variants)}")
    base = load(rules)
    out = []
    for i, overrides in enumerate(variants):
        ruleset = load(rules, **overrides)
        if (obs_size(ruleset), num_actions(ruleset)) != (obs_size(base), num_actions(base)):
            raise ValueError(f"[{i}] has another box layout than its rules {base.name!r}")
        out.append(ruleset)
    return out


@dataclass(frozen=True)
class ModelRules:
    """The rules a model was trained under: its rules, or with `rule_variants` each variant of them."""
    name: str          # the rule set's name in the model file
    hash: str          # rules_hash of them as one sheet's game (`yacht_env.solver.solitaire_rules`)
    ruleset: RuleSet
    variants: tuple = ()   # (label, hash) of each rule variant it was trained on (`variant_sets`)

    def hashes(self) -> tuple[str, ...]:
        """The play hashes of the rule sets it was trained on."""
        return tuple(h for _, h in self.variants) or (self.hash,)


def model_rules(doc: dict) -> ModelRules:
    """The rules a (checked) model file was trained under: name, hash and RuleSet, and its rule variants."""
    trained = load(doc["rules"])
    overrides = doc["config"].get("rule_variants", [])
    variants = tuple((", ".join(f"{k}={v}" for k, v in o.items()) or "as they are", play_hash(r))
                     for o, r in zip(overrides, variant_sets(doc["rules"], doc["config"])))
    return ModelRules(trained.name, play_hash(trained), trained, variants)


def play_hash(rules) -> str:
    """The hash rules are compared by for a model: `rules_hash` of them as one sheet's game."""
    return rules_hash(solitaire_rules(rules))


def trained_for(config: dict, rules: dict) -> dict:
    """What a model with this config and rule set (as dicts) plays, as its file records it in `extra`
    (for people reading the file; the checks derive the same from `config` and `rules`)."""
    ruleset = load(rules)
    sheets = trained_sheets(ruleset, config)
    return {"rules": ruleset.name, "rules_hash": play_hash(ruleset), "num_players": config.get("num_players", 1),
            "sheets": sheets, "observation": "yacht_env.envs.obs (its own sheet)" if sheets == 1 else
            f"yacht_env.envs.table_obs (its sheet and the {sheets - 1} others)"}


def check_table(doc: dict, rules, num_players: int, path="<model>") -> None:
    """Whether the model in `doc` can see a table of `num_players` seats under `rules`: a model trained
    alone plays its own sheet at any table; one trained at a table of several seats sees every sheet and
    plays only at tables with as many sheets (ModelFileError otherwise)."""
    players = doc["config"].get("num_players", 1)
    if players == 1:
        return
    trained = trained_sheets(model_rules(doc).ruleset, doc["config"])
    sheets = rules.check_players(num_players)
    if sheets != trained:
        raise ModelFileError(f"model {path} was trained at tables of {trained} sheets ({players} players; its "
                             f"observation holds every other sheet) and cannot play a table of {sheets} "
                             f"({num_players} player{'s' if num_players != 1 else ''} under {rules.name!r})")


def knob_changes(trained: RuleSet, rules: RuleSet) -> str:
    """The top-level rule keys whose values differ between two rule sets, as `key=value` of `rules` ("other box
    fields" when box fields differ; "" when none of the keys compared differ)."""
    a, b = solitaire_rules(trained).to_dict(), solitaire_rules(rules).to_dict()
    keys = [k for k in b if k not in ("name", "description") and a.get(k) != b[k]]
    return ", ".join("other box fields" if k == "boxes" else f"{k}={json.dumps(b[k])}" for k in keys)


def check_rules(doc: dict, rules, path="<model>", insist: bool = False) -> str | None:
    """Whether the model in `doc` may play `rules` (the table's seats: `check_table`).

    None: they are the rules it was trained under (compared by meaning, as one sheet's game: the
    name, seats, teams and tiebreak do not matter). A ModelFileError when its observation or action
    size does not fit `rules` (always), or when the rules are other rules of the same shape and not
    `insist`; with `insist`, a one-line warning to show instead."""
    trained = model_rules(doc)
    sheets = trained_sheets(trained.ruleset, doc["config"])
    need, have = _sizes(rules, doc["config"], sheets), (doc["obs_dim"], doc["n_actions"])
    if need != have:
        raise ModelFileError(f"model {path} was trained on rules {trained.name!r} (observation {have[0]}, actions "
                             f"{have[1]}) and cannot play rules {rules.name!r} (observation {need[0]}, actions "
                             f"{need[1]})")
    if play_hash(rules) in trained.hashes():
        return None
    changed = knob_changes(trained.ruleset, rules)
    shown = f"{rules.name!r} with {changed}" if changed and rules.name == trained.name else repr(rules.name)
    if trained.variants:
        message = (f"model {path} was trained on {len(trained.variants)} variants of rules {trained.name!r} "
                   f"({'; '.join(label for label, _ in trained.variants)}), not on {shown} (hash "
                   f"{play_hash(rules)}); they have the same shape, so it can play them, but not as trained")
    else:
        message = (f"model {path} was trained on rules {trained.name!r} (hash {trained.hash}), not on {shown} "
                   f"(hash {play_hash(rules)}); they have the same shape, so it can play them, but not as trained")
    if not insist:
        raise ModelFileError(message + "; insist to play them anyway")
    return message


