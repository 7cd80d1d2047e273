"""Training over several rule sets (`agents.training.variants`): the config keys and their named errors, the
share-out of the envs, the curriculum stages, a tiny multi-rule run, and `learned:` playing its model under
each variant, held-out rules only when insisted, and refusing rules of another layout."""
import json

import numpy as np
import pytest

from agents.registry import make_agent
from agents.features import policy_input
from agents.model_file import ModelFileError
from agents.training.config import ConfigError, parse_config, variant_rules
from agents.training.run import train
from agents.training.variants import MixedRulesVecEnv, apportion, stage_at, stage_weights
from yacht_env.envs.options import KNOB_SIZE, rule_features
from yacht_env.integrations.sb3 import YachtVecEnv
from yacht_env.rules import load

VARIANTS = [{}, {"rolls_per_turn": 2}, {"upper_bonus": False}]
TINY = {"name": "multi", "rules": "yacht", "seed": 3, "total_timesteps": 2048, "n_envs": 16, "distinct_holds": True,
        "rule_knobs": True, "rule_variants": VARIANTS,
        "curriculum": [{"at": 0, "weights": [1, 0, 0]}, {"at": 1024, "weights": [1, 1, 1]}],
        "ppo": {"n_steps": 32, "batch_size": 256, "n_epochs": 1}, "policy": {"pi": [32], "vf": [32]},
        "eval_every": 2048, "eval_games": 16, "checkpoint_every": 100_000}


def config(**changes):
    """TINY with changes; other rule variants drop TINY's curriculum (its weights are for three)."""
    if "rule_variants" in changes:
        changes.setdefault("curriculum", [])
    return parse_config({**TINY, **changes}, "tiny.yaml")


@pytest.mark.parametrize("changes,key,words", [
    ({"rule_variants": [{}, {"rules_per_turn": 2}]}, "rule_variants[1]", "unknown key"),
    ({"rule_variants": [{}, {"rolls_per_turn": 9}]}, "rule_variants[1]", "rolls_per_turn"),
    ({"rule_variants": [{}, {"boxes.full_house.points": 30},
                        {"columns": 2}]}, "rule_variants[2]", "another box layout"),
    ({"rule_variants": [{}, {"rolls_per_turn": 3}]}, "rule_variants[1]", "same rules as rule_variants[0]"),
    ({"rule_variants": "rolls_per_turn=2"}, "rule_variants", "must be a list"),
    ({"rule_variants": [{}, 2]}, "rule_variants[1]", "must be a mapping"),
    ({"rule_variants": [{}, {1: 2}]}, "rule_variants[1]", "rule keys are names"),
    ({"rule_variants": [{}] * 17}, "rule_variants", "must have 0 to 16 items"),
    ({"rule_variants": [], "curriculum": [{"at": 0, "weights": [1]}]}, "curriculum", "list the rule sets"),
    ({"curriculum": [{"at": 0, "weights": [1, 1]}]}, "curriculum[0].weights", "one weight per rule variant (3)"),
    ({"curriculum": [{"at": 0, "weights": [0, 0, 0]}]}, "curriculum[0].weights", "at least one"),
    ({"curriculum": [{"at": 5, "weights": [1, 1, 1]}]}, "curriculum[0].at", "starts at step 0"),
    ({"curriculum": [{"at": 0, "weights": [1, 0, 0]}, {"at": 0, "weights": [1, 1, 1]}]}, "curriculum[1].at",
     "increasing order"),
    ({"curriculum": [{"at": 0, "weights": [1, -1, 0]}]}, "curriculum[0].weights[1]", ""),
    ({"curriculum": [{"at": 0}]}, "curriculum[0].weights", "missing"),
    ({"curriculum": [{"at": 0, "weights": [1, 1, 1], "when": 3}]}, "curriculum[0].when", "unknown key"),
    ({"upper_features": True}, "rule_variants", "upper_features is True"),
    ({"upper_shaping": 1.0}, "rule_variants", "upper_shaping is 1.0"),
    ({"num_players": 2, "opponents": "greedy"}, "rule_variants", "num_players is 2"),
])
def test_bad_keys_are_named(changes, key, words):
    with pytest.raises(ConfigError) as e:
        config(**changes)
    assert f"tiny.yaml: {key}:" in str(e.value) and words in str(e.value)


def test_the_new_keys_default_off_and_come_after_the_old_ones():
    cfg = parse_config({"name": "x"})
    d = cfg.to_dict()
    assert (cfg.rule_knobs, cfg.rule_variants, cfg.curriculum) == (False, (), ())
    assert list(d)[-3:] == ["rule_knobs", "rule_variants", "curriculum"]
    assert variant_rules(cfg) == [load("yacht")]


def test_share_out_and_stages():
    assert apportion(16, [1, 1, 1]).tolist() == [6, 5, 5]
    assert apportion(16, [1, 0, 0]).tolist() == [16, 0, 0]
    assert apportion(10, [3, 1]).tolist() == [8, 2]          # 7.5 and 2.5: the tie goes to the earlier
    assert apportion(7, [0.2, 0.3, 0.5]).sum() == 7
    cfg = config()
    assert [stage_at(cfg.curriculum, s) for s in (0, 1023, 1024, 10 ** 9)] == [0, 0, 1, 1]
    assert stage_weights(cfg, 0) == (1, 0, 0) and stage_weights(config(curriculum=[]), 0) == (1.0, 1.0, 1.0)


def test_the_mixed_env_plays_each_variants_streams():
    """Env i plays stream seed + i under the variant its index falls on, as a YachtVecEnv of those rules."""
    rules = variant_rules(config())
    mixed = MixedRulesVecEnv(rules, 7, [1, 1, 1], seed=40, rule_obs="knobs")
    assert mixed.variant_of.tolist() == [0, 0, 0, 1, 1, 2, 2]
    obs = mixed.reset()
    ref = YachtVecEnv(2, rules=rules[1], seed=43, rule_obs="knobs")
    np.testing.assert_array_equal(obs[3:5], ref.reset())
    for _ in range(40):
        masks = mixed.action_masks()
        actions = np.array([np.flatnonzero(m)[-1] for m in masks])
        obs, rewards, dones, infos = mixed.step(actions)
        r_obs, r_rewards, r_dones, _ = ref.step(actions[3:5])
        np.testing.assert_array_equal(obs[3:5], r_obs)
        np.testing.assert_array_equal(rewards[3:5], r_rewards)
    np.testing.assert_array_equal(obs[:, -KNOB_SIZE:], [rule_features(rules[k]) for k in mixed.variant_of])
    assert len(mixed.env_method("action_masks")) == 7
    mixed.close()
    ref.close()


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("multi")
    return train(config(out=str(out / "{name}")), progress=False)


def test_a_multi_rule_run_enters_its_curriculum_stages(run):
    record = json.loads((run.out / "run.json").read_text())
    assert record["starts"][0]["ended"] == "finished"
    assert record["starts"][0]["stages"] == [{"at_timesteps": 1024, "stage": 1}]
    saved = json.loads((run.out / "config.json").read_text())["config"]
    assert saved["rule_variants"] == [{}, {"rolls_per_turn": 2}, {"upper_bonus": False}]


def test_a_resume_with_another_curriculum_is_refused(run):
    stages = [{"at": 0, "weights": [1, 1, 1]}]
    with pytest.raises(ConfigError, match="it was trained with curriculum"):
        train(config(out=str(run.out), curriculum=stages, total_timesteps=4096), resume=run.out / "last.pt",
              progress=False)


def test_learned_plays_every_variant_and_refuses_another_layout(run):
    path = run.out / "final.pt"
    agent = make_agent(f"learned:{path}")
    for overrides in VARIANTS:
        agent.prepare(load("yacht", **overrides), 1)           # no insisting needed
    with pytest.raises(ModelFileError, match=r"trained on 3 variants of rules 'yacht' \(as they are; rolls_per_turn=2; "
                                             r"upper_bonus=False\), not on 'yacht' with rolls_per_turn=4 .*insist"):
        agent.prepare(load("yacht", rolls_per_turn=4), 1)
    insisting = make_agent(f"learned?insist=1:{path}")
    insisting.prepare(load("yacht", rolls_per_turn=4), 1)
    assert insisting.warnings
    with pytest.raises(ModelFileError, match="cannot play rules 'classic'"):
        insisting.prepare(load("classic"), 1)


def test_the_policy_sees_the_knobs_of_the_rules_it_plays():
    rules = load("yacht", rolls_per_turn=2)
    obs = np.zeros((2, 41), np.float32)
    x = policy_input(obs, np.ones((2, 5), np.int64), {"rule_knobs": True}, rules)
    assert x.shape == (2, 41 + KNOB_SIZE)
    np.testing.assert_array_equal(x[:, 41:], np.tile(rule_features(rules), (2, 1)))


def generalise():
    """scripts/generalise.py as a module."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("generalise", "scripts/generalise.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_generalisation_benchmark_end_to_end(tmp_path, capsys):
    out = tmp_path / "gen"
    assert generalise().main(["--out", str(out), "--train", "", "--test", "upper_bonus=false", "--kinds", "knobs",
                              "--warm-start", "", "--steps", "1024", "--n-envs", "32", "--games", "20",
                              "--quiet"]) == 0
    printed = capsys.readouterr().out
    assert "| upper_bonus=false | held out |" in printed and str(out / "results.csv") in printed
    rows = json.loads((out / "results.json").read_text())["rows"]
    assert [(r["rules"], r["agent"]) for r in rows] == [("as the preset", "strong"), ("as the preset", "knobs"),
                                                        ("upper_bonus=false", "strong"), ("upper_bonus=false", "knobs")]
    assert all(r["games"] == 20 and r["ci_lo"] <= r["mean"] <= r["ci_hi"] for r in rows)
    assert rows[0]["minus_strong"] == 0 and rows[1]["minus_strong"] == pytest.approx(rows[1]["mean"] - rows[0]["mean"])
    assert (out / "results.csv").read_text().count("\n") == 5


@pytest.mark.parametrize("args,words", [
    (["--test", "columns=2"], "rule set 'columns=2' has another box layout"),
    (["--train", "rolls_per_turn=9"], "rolls_per_turn: must be a whole number from 1 to 5"),
    (["--kinds", "all"], "--kinds: knobs, plain or both"),
    (["--also", "strong=strong"], "--also takes NAME=SPEC with a new name"),
    (["--also", "x=learned:models/ppo-yacht.pt"], "insist to play them anyway"),
    (["--warm-start", "README.md"], "not a model file"),
])
def test_the_benchmark_refuses_bad_inputs_before_training(tmp_path, capsys, args, words):
    assert generalise().main(["--out", str(tmp_path / "gen"), *args]) == 2
    assert words in capsys.readouterr().err and not (tmp_path / "gen").exists()
