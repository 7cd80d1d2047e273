"""Crafted model files: every field checked before a network is built, each problem one ModelFileError line
(exit status 2 on the command line); and the rules a model was trained under, for refusing other rules."""
import json
import os
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from agents.training.checkpoint import ModelFileError, load_checkpoint  # noqa: E402
from agents.model_file import (MAX_FILE_BYTES, check_model, check_rules, model_rules, policy_shapes,  # noqa: E402
                               read_model)
from tests.planted import plant  # noqa: E402
from yacht_arena.cli import main  # noqa: E402
from yacht_env.rules import load  # noqa: E402

SHIPPED = Path(__file__).resolve().parents[2] / "models" / "bc-strong.pt"


@pytest.fixture(scope="module")
def raw():
    """The shipped model file as torch.load gives it (JSON fields still text)."""
    return torch.load(SHIPPED, map_location="cpu", weights_only=True)


def crafted(tmp_path, raw, change) -> Path:
    doc = {**raw, "policy": dict(raw["policy"])}
    doc = change(doc) or doc
    path = tmp_path / "crafted.pt"
    torch.save(doc, path)
    return path


def config_with(raw, **policy):
    cfg = json.loads(raw["config"])
    cfg["policy"] = {**cfg["policy"], **policy}
    return json.dumps(cfg)


def drop(d, key):
    d.pop(key)


BIG = [1_000_000]

CRAFTED = {
    "not a mapping": (lambda d: [1, 2, 3], "not a model file saved by `yacht train` (expected format"),
    "other format": (lambda d: {**d, "format": "something/2"}, "expected format 'yacht-maskable-ppo/1'"),
    "rules not text": (lambda d: {**d, "rules": {"name": "yacht"}}, "rules: must be JSON text, got dict"),
    "rules a number": (lambda d: {**d, "rules": 7}, "rules: must be JSON text, got int"),
    "rules not json": (lambda d: {**d, "rules": "{yacht"}, "rules: not valid JSON ("),
    "rules a list": (lambda d: {**d, "rules": "[1]"}, "rules: must be a JSON object, got list"),
    "rules nested": (lambda d: {**d, "rules": "[" * 100_000 + "]" * 100_000}, "rules: not valid JSON (nested too"),
    "rules huge": (lambda d: {**d, "rules": json.dumps({"x": "y" * (2 << 20)})}, "rules: 2097161 characters is more"),
    "rules refused": (lambda d: {**d, "rules": '{"boxes": 5}'}, "rules: not a rule set yacht_env.rules.load accepts "
                                                               "(<dict>: boxes: a list of 1 to 20 boxes"),
    "config not text": (lambda d: {**d, "config": None}, "config: must be JSON text, got NoneType"),
    "no policy section": (lambda d: {**d, "config": json.dumps({"name": "x"})}, "config.policy: must be a mapping"),
    "unknown activation": (lambda d: {**d, "config": config_with(d, activation="gelu")},
                           "config.policy.activation: must be one of tanh, relu, got 'gelu'"),
    "activation a list": (lambda d: {**d, "config": config_with(d, activation=["relu"])}, "got ['relu']"),
    "pi not a list": (lambda d: {**d, "config": config_with(d, pi=256)}, "config.policy.pi: must be a list of 1 to 16"),
    "pi empty": (lambda d: {**d, "config": config_with(d, pi=[])}, "config.policy.pi: must be a list of 1 to 16"),
    "layer of 10^6": (lambda d: {**d, "config": config_with(d, pi=BIG, vf=BIG)}, "layer sizes from 1 to 8192"),
    "layer of 0": (lambda d: {**d, "config": config_with(d, vf=[0])}, "config.policy.vf: must be a list"),
    "layer a bool": (lambda d: {**d, "config": config_with(d, vf=[True])}, "config.policy.vf: must be a list"),
    "too many parameters": (lambda d: {**d, "config": config_with(d, pi=[8192] * 2, vf=[8192] * 2)},
                            "config.policy: a network of 135290925 parameters is larger than the 64000000 allowed"),
    "distinct_holds text": (lambda d: {**d, "config": json.dumps({**json.loads(d["config"]), "distinct_holds": "yes"})},
                            "config.distinct_holds: must be true or false, got 'yes'"),
    "extra not json": (lambda d: {**d, "extra": "nope"}, "extra: not valid JSON"),
    "obs_dim a bool": (lambda d: {**d, "obs_dim": True}, "obs_dim: must be a whole number from 1 to 65536, got True"),
    "obs_dim huge": (lambda d: {**d, "obs_dim": 10 ** 12}, "obs_dim: must be a whole number from 1 to 65536"),
    "obs_dim a float": (lambda d: {**d, "obs_dim": 41.0}, "obs_dim: must be a whole number"),
    "obs_dim other": (lambda d: {**d, "obs_dim": 40}, "obs_dim/n_actions: 40/44 do not fit its own rules 'yacht' "
                                                      "and config (41/44)"),
    "n_actions negative": (lambda d: {**d, "n_actions": -4}, "n_actions: must be a whole number from 1 to 4096"),
    "n_actions tensor": (lambda d: {**d, "n_actions": torch.tensor(44)}, "n_actions: must be a whole number"),
    "num_timesteps negative": (lambda d: {**d, "num_timesteps": -1}, "num_timesteps: must be a whole number from 0"),
    "no policy": (lambda d: drop(d, "policy"), "policy: must be the network's state dict, got NoneType"),
    "policy a list": (lambda d: {**d, "policy": [1]}, "policy: must be the network's state dict, got list"),
    "policy missing a tensor": (lambda d: drop(d["policy"], "action_net.bias"),
                                "policy: names do not match the network its config describes (missing "
                                "['action_net.bias'], unexpected none)"),
    "policy with another tensor": (lambda d: d["policy"].update(extra=torch.zeros(3)),
                                   "(missing none, unexpected ['extra'])"),
    "policy wrong shape": (lambda d: d["policy"].update({"action_net.weight": torch.zeros(44, 255)}),
                           "policy[action_net.weight]: shape (44, 255), the network its config describes needs "
                           "(44, 256)"),
    "weights for a bigger net": (lambda d: {**d, "config": config_with(d, pi=[4096, 4096])},
                                 "policy[mlp_extractor.policy_net.0.weight]: shape (256, 41)"),
    "policy a list of numbers": (lambda d: d["policy"].update({"value_net.bias": [0.0]}),
                                 "policy[value_net.bias]: must be a floating-point tensor, got list"),
    "policy int tensor": (lambda d: d["policy"].update({"value_net.bias": torch.zeros(1, dtype=torch.int64)}),
                          "policy[value_net.bias]: must be a floating-point tensor, got int64"),
    "policy nan": (lambda d: d["policy"].update({"value_net.bias": torch.tensor([float("nan")])}),
                   "policy[value_net.bias]: holds NaN or infinite weights"),
    "optimizer garbage": (lambda d: {**d, "optimizer": [1, 2]}, "optimizer: must be an optimizer state dict"),
}


LOADERS = pytest.mark.parametrize("loader", [load_checkpoint, read_model], ids=["torch", "play"])


@LOADERS
@pytest.mark.parametrize("kind", list(CRAFTED))
def test_crafted_model_files_are_refused_with_one_line(tmp_path, raw, kind, loader):
    change, message = CRAFTED[kind]
    path = crafted(tmp_path, raw, change)
    with pytest.raises(ModelFileError) as e:
        loader(path)
    text = str(e.value)
    assert message in text and "\n" not in text and text.startswith(f"{path}: "), text


@pytest.mark.parametrize("kind", ["rules not text", "unknown activation", "no policy", "policy wrong shape",
                                  "layer of 10^6"])
def test_crafted_model_files_on_the_command_line(tmp_path, raw, capsys, kind):
    path = crafted(tmp_path, raw, CRAFTED[kind][0])
    assert main(["evaluate", f"learned:{path}", "--games", "1", "--no-progress"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("yacht evaluate: error: ") and CRAFTED[kind][1] in err[0], err


@pytest.mark.parametrize("content, message", [
    (b"", "not a model file saved by `yacht train`"),
    (b"garbage" * 100, "not a model file saved by `yacht train`"),
    ("HALF", "not a model file saved by `yacht train`"),
    ("PICKLE", "not a model file saved by `yacht train`"),
])
@LOADERS
def test_unreadable_files(tmp_path, content, message, loader):
    path = tmp_path / "m.pt"
    if content == "HALF":
        content = SHIPPED.read_bytes()[:SHIPPED.stat().st_size // 2]
    elif content == "PICKLE":
        torch.save({"format": "yacht-maskable-ppo/1", "rules": os.system}, path)  # weights_only refuses functions
        content = path.read_bytes()
    path.write_bytes(content)
    with pytest.raises(ModelFileError, match=message):
        loader(path)


@LOADERS
def test_a_file_larger_than_any_model_is_refused_unread(tmp_path, loader):
    path = tmp_path / "big.pt"
    with open(path, "wb") as f:
        f.truncate(MAX_FILE_BYTES + 1)    # sparse: no disk used, and never read
    with pytest.raises(ModelFileError,
                       match=r"big.pt: 1,073,741,825 bytes; a model file may have at most 1,073,741,824 bytes"):
        loader(path)


def test_the_play_reader_gives_the_torch_weights_and_refuses_short_storages(tmp_path, raw):
    import zipfile
    doc = read_model(SHIPPED)
    for name, t in raw["policy"].items():
        assert (doc["policy"][name] == t.numpy()).all() and doc["policy"][name].dtype == t.numpy().dtype
    cut = tmp_path / "cut.pt"
    with zipfile.ZipFile(SHIPPED) as src, zipfile.ZipFile(cut, "w") as dst:
        for info in src.infolist():
            data = src.read(info)
            dst.writestr(info, data[:-4] if info.filename.endswith("/data/0") else data)
    with pytest.raises(ModelFileError, match=r"storage '0' holds \d+ bytes, not \d+ values"):
        read_model(cut)


def test_shipped_models_pass_and_their_shapes_are_the_sb3_policys(raw):
    from agents.training.checkpoint import build_policy
    for path in SHIPPED.parent.glob("*.pt"):
        doc = load_checkpoint(path)
        policy = build_policy(doc)
        assert {k: tuple(v.shape) for k, v in policy.state_dict().items()} == policy_shapes(doc)
    assert check_model(raw, "raw")["rules"]["name"] == "yacht"


def test_the_rules_a_model_was_trained_under(tmp_path):
    doc = load_checkpoint(SHIPPED)
    trained = model_rules(doc)
    assert trained.name == "yacht" and trained.ruleset == load("yacht") and len(trained.hash) == 16
    assert check_rules(doc, load("yacht"), "m.pt") is None
    # seats, teams and tiebreak do not change what one sheet's game is
    assert check_rules(doc, load("yacht", players={"min": 2, "max": 4}, tiebreak="sudden_death", teams=2)) is None
    with pytest.raises(ModelFileError, match=r"model m.pt was trained on rules 'yacht' \(hash [0-9a-f]{16}\), not on "
                                             r"'verhoeff' \(hash [0-9a-f]{16}\); they have the same shape.*insist"):
        check_rules(doc, load("verhoeff"), "m.pt")
    warning = check_rules(doc, load("yacht", rolls_per_turn=2), "m.pt", insist=True)
    assert warning.startswith("model m.pt was trained on rules 'yacht'") and "\n" not in warning
    with pytest.raises(ModelFileError, match=r"cannot play rules 'classic' \(observation 39, actions 43\)"):
        check_rules(doc, load("classic"), "m.pt", insist=True)


# ---- bounded reading: zip bombs, shared storages, FIFOs and devices ------------------------------------

def peak_memory(run) -> int:
    """The most memory Python held (bytes, as tracemalloc counts it) while `run()` ran."""
    import tracemalloc
    tracemalloc.start()
    try:
        run()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_members_that_inflate_past_the_file_are_refused_before_any_is_read(tmp_path, raw):
    import zipfile
    plain = tmp_path / "plain.pt"
    torch.save(raw, plain)
    bomb = tmp_path / "bomb.pt"
    with zipfile.ZipFile(plain) as src, zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            dst.writestr(info.filename, src.read(info))
        prefix = src.namelist()[0].split("/")[0]
        dst.writestr(f"{prefix}/data/padding", b"\0" * (64 << 20))   # 64 MB in about 64 KB
    assert bomb.stat().st_size < 4 << 20

    def refused():
        for reader in (read_model, load_checkpoint):
            with pytest.raises(ModelFileError, match="decompress to 6[0-9,]+ bytes, more than a model file"):
                reader(bomb)
    peak = peak_memory(refused)
    assert peak < 16 << 20, peak


def test_many_tensors_of_one_storage_cannot_multiply_memory(tmp_path, raw):
    shared = torch.zeros(1 << 20)                 # 4 MB, saved once
    path = crafted(tmp_path, raw, lambda d: {**d, "policy": {f"w{i}": shared[:] for i in range(1000)}})
    assert path.stat().st_size < 8 << 20          # unbounded, the reader would copy 4 GB

    def refused():
        with pytest.raises(ModelFileError, match="more memory than the file can hold"):
            read_model(path)
    peak = peak_memory(refused)
    assert peak < 64 << 20, peak


@pytest.mark.parametrize("make", ["fifo", "device", "folder"])
def test_a_model_path_that_is_not_a_regular_file_is_refused_without_hanging(tmp_path, capsys, make):
    path = plant(tmp_path / "model.pt", make)
    want = {"fifo": "FIFO", "device": "device", "folder": "folder"}[make]
    for reader in (read_model, load_checkpoint):
        with pytest.raises(ModelFileError, match=want):
            reader(path)
    assert main(["evaluate", f"learned:{path}", "--games", "1", "--no-progress"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and want in err[0], err
