"""Every network `yacht train` accepts is one `learned:` loads: a config whose network a model file could not
hold (too many parameters, inputs or actions for `agents.model_file.check_model`) is refused in one line
before anything is built, and the count is the one `check_model` makes."""
import json
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

from agents.model_file import MAX_PARAMS, ModelFileError, check_model, loadable_network  # noqa: E402
from agents.training.config import MAX_LAYERS, MAX_WIDTH, load_config  # noqa: E402
from yacht_arena.cli import main  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
CONFIG = "configs/train/smoke.yaml"
BIG = "[" + ",".join([str(MAX_WIDTH)] * MAX_LAYERS) + "]"


@pytest.mark.parametrize("sets", [[f"policy.pi={BIG}"], [f"policy.vf={BIG}"], [f"policy.pi={BIG}", f"policy.vf={BIG}"],
                                  ["policy.pi=[4096,4096,4096,4096,4096]", "policy.vf=[64]"],
                                  ["num_players=8", "opponents=[greedy]", f"policy.pi={BIG}"]])
def test_a_network_no_model_file_holds_is_refused_before_training(tmp_path, capsys, sets):
    argv = ["train", CONFIG, "--out", str(tmp_path / "run"), "--no-progress"]
    for s in sets:
        argv += ["--set", s]
    assert main(argv) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith(f"yacht train: error: {CONFIG}: policy: a network of ")
    assert f"parameters is larger than the {MAX_PARAMS:,} a model file may hold" in err[0]
    assert not (tmp_path / "run").exists()


def test_the_count_is_the_one_the_model_reader_makes():
    """The refusal names the parameter count `check_model` finds in a model file of that network."""
    cfg = load_config(str(ROOT / CONFIG), settings={"policy.pi": json.loads(BIG)})
    why = loadable_network(cfg.ruleset, cfg.to_dict())
    shipped = torch.load(ROOT / "models" / "bc-strong.pt", map_location="cpu", weights_only=True)
    doc = {**shipped, "config": json.dumps(cfg.to_dict()), "rules": json.dumps(cfg.ruleset.to_dict())}
    from agents.model_file import _sizes, trained_sheets
    doc["obs_dim"], doc["n_actions"] = _sizes(cfg.ruleset, cfg.to_dict(), trained_sheets(cfg.ruleset, cfg.to_dict()))
    with pytest.raises(ModelFileError, match="parameters is larger than") as e:
        check_model(doc)
    count = str(e.value).split("a network of ")[1].split(" ")[0]
    assert f"a network of {int(count):,} parameters" in why


@pytest.mark.parametrize("config", sorted(p.name for p in (ROOT / "configs" / "train").glob("*.yaml")))
def test_every_shipped_training_config_trains_a_loadable_network(config):
    cfg = load_config(str(ROOT / "configs" / "train" / config))
    assert loadable_network(cfg.ruleset, cfg.to_dict()) is None
