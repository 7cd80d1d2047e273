"""Training configs: every bad key or value is refused with a message naming the file, key and limits."""
import json
import math
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.config_files import check_bad_files

from agents.training.config import (CHECKS, SECTIONS, BCConfig, ConfigError, PolicyConfig, PPOConfig, TrainConfig,
                                    load_config, parse_config)
from yacht_arena.cli import main
from yacht_env.rules import load, rules_hash

GOOD = {"name": "t", "total_timesteps": 1000, "n_envs": 4, "ppo": {"n_steps": 16, "batch_size": 32}}


def test_committed_configs_load():
    names = sorted(p.stem for p in Path("configs/train").glob("*.yaml"))
    assert {"ppo", "ppo-long", "smoke", "ppo-classic", "bc-strong"} <= set(names)
    for name in names:
        cfg = load_config(f"configs/train/{name}.yaml")
        assert cfg.total_timesteps > 0 and cfg.out_dir.name == cfg.name
        assert "overrides" not in Path(f"configs/train/{name}.yaml").read_text()


def test_every_key_has_one_check():
    from dataclasses import fields
    for cls in (TrainConfig, PPOConfig, BCConfig, PolicyConfig):
        assert set(CHECKS[cls]) == {f.name for f in fields(cls)} - set(SECTIONS)


@pytest.mark.parametrize("change, message", [
    ({"name": None}, "<config>: name: must be text, got None"),
    ({"name": "../x"}, "<config>: name: must be a plain name, not a path (it names the run folder), got '../x'"),
    ({"name": ".."}, "name: must be a plain name"),
    ({"colour": 1}, "<config>: colour: unknown key; allowed: name, algo, rules, set, seed,"),
    ({"overrides": {"joker": "free"}}, "<config>: overrides: renamed: write `set:` instead"),
    ({"set": [1]}, "<config>: set: must be a mapping, got a list"),
    ({"set": None}, "<config>: set: must be a mapping, got None"),
    ({"set": {1: 2}}, "<config>: set: rule keys are names such as rolls_per_turn or boxes.full_house.points, got 1"),
    ({"set": {None: 2}}, "<config>: set: rule keys are names such as rolls_per_turn"),
    ({"set": {"joker": {"a": [1, {2: 3}]}}}, "<config>: rules: yacht (override): joker: must be one of none"),
    ({"set": {"rolls_per_turn": 10**30}}, "<config>: rules: yacht (override): rolls_per_turn: must be a whole number"),
    ({"set": {"rolls_per_turn": math.nan}}, "<config>: rules: yacht (override): rolls_per_turn: must be a whole"),
    ({"set": {"joker": "sometimes"}}, "<config>: rules: yacht (override): joker: must be one of none, forced"),
    ({"rules": "nope"}, "<config>: rules: nope: rules: no such rule set"),
    ({"total_timesteps": "lots"}, "total_timesteps: must be a whole number from 1 to 2,000,000,000, got 'lots'"),
    ({"total_timesteps": 10**12}, "total_timesteps: must be a whole number from 1 to 2,000,000,000"),
    ({"n_envs": 0}, "<config>: n_envs: must be a whole number from 1 to 65,536, got 0"),
    ({"seed": -1}, "seed: must be a whole number from 0 to 2,147,483,647, got -1"),
    ({"seed": 2**31}, "seed: must be a whole number from 0 to 2,147,483,647"),
    ({"eval_seed": 2**63}, "eval_seed: must be a whole number from 0 to 4,611,686,018,427,387,904"),
    ({"eval_games": 0}, "eval_games: must be a whole number from 1 to 1,000,000, got 0"),
    ({"reward_scale": math.nan}, "reward_scale: must be a finite number above 0 and at most 1e+06, got nan"),
    ({"reward_scale": math.inf}, "reward_scale: must be a finite number above 0 and at most 1e+06, got inf"),
    ({"upper_shaping": -1.0}, "upper_shaping: must be a finite number from 0 to 1e+06, got -1.0"),
    ({"ppo": {"learning_rate": "fast"}}, "ppo.learning_rate: must be a finite number above 0 and at most 10, got 'fa"),
    ({"ppo": {"learning_rate": math.nan}}, "ppo.learning_rate: must be a finite number above 0 and at most 10, got n"),
    ({"ppo": {"final_learning_rate": -1e-5}}, "ppo.final_learning_rate: must be a finite number from 0 to 10"),
    ({"ppo": {"gamma": 1.5}}, "ppo.gamma: must be a finite number from 0 to 1, got 1.5"),
    ({"ppo": {"max_grad_norm": math.inf}}, "ppo.max_grad_norm: must be a finite number above 0"),
    ({"ppo": {"n_steps": 16, "batch_size": 4096}}, "ppo.batch_size: 4096 is larger than one rollout"),
    ({"n_envs": 65_536, "ppo": {"n_steps": 1024}}, "ppo.n_steps: one rollout is n_steps x n_envs = 67,108,864 steps; "
                                                   "at most 4,194,304"),
    ({"ppo": {"clip": 0.1}}, "<config>: ppo.clip: unknown key; allowed: learning_rate,"),
    ({"ppo": 3}, "<config>: ppo: must be a mapping, got 3"),
    ({"ppo": None}, "<config>: ppo: must be a mapping, got None"),
    ({"policy": {"pi": []}}, "policy.pi: must have 1 to 8 items, got 0"),
    ({"policy": {"pi": [64, 0]}}, "policy.pi[1]: must be a whole number from 1 to 4096, got 0"),
    ({"policy": {"vf": [10**9]}}, "policy.vf[0]: must be a whole number from 1 to 4096, got 1000000000"),
    ({"policy": {"pi": [64] * 9}}, "policy.pi: must have 1 to 8 items, got 9"),
    ({"policy": {"activation": "gelu"}}, "policy.activation: must be one of tanh, relu, got 'gelu'"),
    ({"ppo": {"normalize_advantage": "yes"}}, "ppo.normalize_advantage: must be true or false, got 'yes'"),
    ({"out": "runs/{who}"}, "out: a folder path in which only {name} may be used, got 'runs/{who}'"),
    ({"out": "runs/{name:>999999999}"}, "out: a folder path in which only {name} may be used"),
    ({"out": "runs/{name!r}"}, "out: a folder path in which only {name} may be used"),
    ({"out": "runs/{"}, "out: a folder path in which only {name} may be used"),
    ({"out": "runs/{0}"}, "out: a folder path in which only {name} may be used"),
])
def test_bad_values(change, message):
    raw = {**GOOD, **change}
    with pytest.raises(ConfigError) as e:
        parse_config(raw)
    assert message in str(e.value)


def test_missing_name_and_not_a_mapping():
    with pytest.raises(ConfigError, match="<config>: name: missing"):
        parse_config({"seed": 1})
    with pytest.raises(ConfigError, match="<config>: top level: must be a mapping, got a list"):
        parse_config([1, 2])


def test_files(tmp_path):
    check_bad_files(load_config, tmp_path, "training config")
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\nn_envs: .nan\n")
    with pytest.raises(ConfigError, match=r"bad.yaml: n_envs: must be a whole number from 1 to 65,536, got nan"):
        load_config(bad)


def test_set_and_rules_paths(tmp_path, monkeypatch):
    # twin of tests/tournaments/test_tournament_config.py::test_relative_rules_path_is_taken_from_the_config_folder
    (tmp_path / "cfg").mkdir()
    (tmp_path / "cfg" / "r.yaml").write_text("extends: yacht\nrolls_per_turn: 2\n")
    (tmp_path / "cfg" / "t.yaml").write_text("name: t\nrules: r.yaml\nset: {joker: free}\n")
    monkeypatch.chdir(tmp_path)
    cfg = load_config("cfg/t.yaml")
    assert rules_hash(cfg.ruleset) == rules_hash(load("yacht", rolls_per_turn=2, joker="free"))
    assert cfg.rules == "cfg/r.yaml" and cfg.to_dict()["set"] == {"joker": "free"}
    both = load_config("cfg/t.yaml", set={"columns": 2})
    assert both.set == {"joker": "free", "columns": 2} and both.ruleset.columns == 2
    assert load_config("cfg/t.yaml", rules="classic").ruleset.name == "classic"
    with pytest.raises(ConfigError, match="^command line: rules: r.yaml: no such rules file$"):
        load_config("cfg/t.yaml", rules="r.yaml")
    with pytest.raises(ConfigError, match="^command line: seed: must be a whole number from 0 to 2,147,483,647"):
        load_config("cfg/t.yaml", seed=2**40)


def test_cli_reports_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\nn_envs: -3\n")
    assert main(["train", str(bad)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"yacht train: error: {bad}: n_envs: must be a whole number from 1 to 65,536, got -3"]
    old = tmp_path / "old.yaml"
    old.write_text("name: x\noverrides: {joker: free}\n")
    assert main(["train", str(old)]) == 2
    assert capsys.readouterr().err.strip() == (
        f"yacht train: error: {old}: overrides: renamed: write `set:` instead (rule overrides are `set:` in every "
        "config, as `--set` on the command line)")
    assert main(["train", "configs/train/smoke.yaml", "--games", "5"]) == 2
    assert "--games needs --evaluate" in capsys.readouterr().err


def test_cli_unknown_rules(tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text(f"name: x\nrules: no_such_rules\nout: {tmp_path}/out\n")
    assert main(["train", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"yacht train: error: {bad}: rules: no_such_rules: rules: no such rule set")
    assert main(["train", "configs/train/smoke.yaml", "--rules", "nope", "--out", str(tmp_path / "o")]) == 2
    assert capsys.readouterr().err.startswith("yacht train: error: command line: rules: nope: rules: no such rule set")
    assert not (tmp_path / "o").exists()


def test_cli_rules_must_fit_the_model(capsys):
    assert main(["train", "configs/train/smoke.yaml", "--rules", "classic", "--evaluate", "models/ppo-yacht.pt",
                 "--games", "2"]) == 2
    assert "was trained on rules 'yacht', not on the config's 'classic'" in capsys.readouterr().err


def test_cli_set_is_recorded_and_gets_its_own_folder(tmp_path, capsys):
    cfg = tmp_path / "tiny.yaml"
    cfg.write_text(f"name: tiny\ntotal_timesteps: 64\nn_envs: 4\neval_every: 64\neval_games: 4\ncheckpoint_every: 64\n"
                   f"ppo: {{n_steps: 16, batch_size: 32, n_epochs: 1}}\npolicy: {{pi: [8], vf: [8]}}\n"
                   f"out: {tmp_path}/runs/{{name}}\n")
    assert main(["train", str(cfg), "--set", "joker=forced", "--no-progress", "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    rules = load("yacht", joker="forced")
    assert res["rules"] == {"name": "yacht", "set": {"joker": "forced"}, "hash": rules_hash(rules)}
    out = tmp_path / "runs" / f"tiny-{rules_hash(rules)[:8]}"
    run = json.loads((out / "run.json").read_text())
    assert run["starts"][0]["rules"] == res["rules"]
    assert json.loads((out / "config.json").read_text())["config"]["set"] == {"joker": "forced"}
    assert not (tmp_path / "runs" / "tiny").exists()


train_values = st.one_of(st.none(), st.booleans(), st.integers(-5, 70_000), st.integers(2**30, 2**64), st.floats(),
                         st.text(max_size=8), st.sampled_from(["yacht", "bc", "ppo", "relu", "runs/{name}", "{x}"]),
                         st.lists(st.integers(-1, 5000), max_size=9))
section = st.dictionaries(st.sampled_from(["learning_rate", "final_learning_rate", "n_steps", "batch_size",
                                           "gamma", "clip_range", "pi", "vf", "activation", "games", "teacher",
                                           "epochs", "oops"]), train_values, max_size=4)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.sampled_from(["name", "algo", "rules", "set", "seed", "total_timesteps", "n_envs",
                                        "reward_scale", "upper_shaping", "eval_games", "eval_seed", "out",
                                        "overrides", "torch_threads"]), train_values, max_size=6),
       st.dictionaries(st.sampled_from(["ppo", "bc", "policy"]), section | train_values, max_size=2))
def test_any_config_parses_or_raises_one_config_error(tmp_path_factory, top, sections):
    path = tmp_path_factory.mktemp("h") / "t.yaml"
    path.write_text(yaml.safe_dump({**top, **sections}))
    try:
        cfg = load_config(path)
    except ConfigError as e:
        assert "\n" not in str(e)
        return
    assert cfg.total_timesteps <= 2_000_000_000 and cfg.ppo.n_steps * cfg.n_envs <= 1 << 22
    assert all(math.isfinite(v) for v in (cfg.reward_scale, cfg.upper_shaping, cfg.ppo.learning_rate))


def test_set_reaches_every_training_key_checked_as_the_file_is(tmp_path, capsys):
    from agents.training.config import split_sets
    keys, rules = split_sets({"eval_every": 512, "ppo.n_steps": 32, "policy.pi": [16], "joker": "free",
                                  "device": "cpu"})
    assert rules == {"joker": "free"} and set(keys) == {"eval_every", "ppo.n_steps", "policy.pi", "device"}
    cfg = load_config("configs/train/smoke.yaml", settings=keys, set=rules)
    assert (cfg.eval_every, cfg.ppo.n_steps, cfg.policy.pi, cfg.set, cfg.ppo.batch_size) == (
        512, 32, (16,), {"joker": "free"}, 256)
    for pair, message in (("ppo.n_steps=0", "command line: ppo.n_steps: must be a whole number from 1"),
                          ("device=gpu", "command line: device: must be one of auto, cpu, cuda"),
                          ("ppo.nsteps=3", "command line: ppo.nsteps: unknown key; allowed: learning_rate"),
                          ("n_envs=many", "command line: n_envs: must be a whole number")):
        assert main(["train", "configs/train/smoke.yaml", "--set", pair, "--no-progress"]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and message in err[0], (pair, err)
