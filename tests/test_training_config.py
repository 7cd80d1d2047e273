"""Training configs: every bad key or value is refused with a message naming it."""
import pytest

from agents.training.config import ConfigError, load_config, parse_config
from tournaments.cli import main

GOOD = {"name": "t", "total_timesteps": 1000, "n_envs": 4, "ppo": {"n_steps": 16, "batch_size": 32}}


def test_committed_configs_load():
    from pathlib import Path
    names = sorted(p.stem for p in Path("configs/train").glob("*.yaml"))
    assert {"ppo", "ppo-long", "smoke", "ppo-classic", "bc-strong"} <= set(names)
    for name in names:
        cfg = load_config(f"configs/train/{name}.yaml")
        assert cfg.total_timesteps > 0 and cfg.out_dir.name == cfg.name


@pytest.mark.parametrize("change, message", [
    ({"name": None}, "name: expected a non-empty string"),
    ({"colour": 1}, "unknown key 'colour'"),
    ({"total_timesteps": "lots"}, "total_timesteps: expected an integer, got 'lots'"),
    ({"n_envs": 0}, "n_envs: must be positive, got 0"),
    ({"ppo": {"learning_rate": "fast"}}, "ppo.learning_rate: expected a number, got 'fast'"),
    ({"ppo": {"gamma": 1.5}}, "ppo.gamma: must be in [0, 1], got 1.5"),
    ({"ppo": {"n_steps": 16, "batch_size": 4096}}, "ppo.batch_size: 4096 is larger than one rollout"),
    ({"ppo": {"clip": 0.1}}, "ppo: unknown key 'clip'"),
    ({"ppo": 3}, "ppo: expected a mapping, got 3"),
    ({"policy": {"pi": []}}, "policy.pi: expected a non-empty list of positive layer sizes"),
    ({"policy": {"activation": "gelu"}}, "policy.activation: must be one of tanh, relu, got 'gelu'"),
    ({"ppo": {"normalize_advantage": "yes"}}, "ppo.normalize_advantage: expected true or false"),
    ({"overrides": [1]}, "overrides: expected a mapping of rule keys to values"),
    ({"out": "runs/{who}"}, "out: only {name} may be used in the path"),
])
def test_bad_values(change, message):
    raw = {**GOOD, **change}
    if change.get("name", 1) is None:
        raw["name"] = None
    with pytest.raises(ConfigError) as e:
        parse_config(raw)
    assert message in str(e.value)


def test_missing_name_and_not_a_mapping():
    with pytest.raises(ConfigError, match="name: missing"):
        parse_config({"seed": 1})
    with pytest.raises(ConfigError, match="a training config is a mapping"):
        parse_config([1, 2])


def test_files(tmp_path):
    with pytest.raises(ConfigError, match="no training config at"):
        load_config(tmp_path / "nope.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: [unclosed\n")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_config(bad)


def test_cli_reports_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\nn_envs: -3\n")
    assert main(["train", str(bad)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["yacht train: error: n_envs: must be positive, got -3"]


def test_cli_unknown_rules(tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text(f"name: x\nrules: no_such_rules\nout: {tmp_path}/out\n")
    assert main(["train", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("yacht train: error: ") and "no_such_rules" in err
