"""The env option `rule_obs="knobs"` (`yacht_env.envs.options`): the documented entries per rule set, exact
space bounds, Gymnasium's and PettingZoo's checkers, every env appending the same row after the other
options' entries, and the default showing what it always showed."""
import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test

import yacht_env  # noqa: F401 - registers the ids
from yacht_env.envs.obs import obs_size
from yacht_env.envs.options import DICE_SIZES, KNOB_SIZE, rule_features
from yacht_env.integrations.pettingzoo import env as pz_env
from yacht_env.integrations.sb3 import YachtVecEnv
from yacht_env.rules import load

# rolls / 5, bonus paid, threshold / 105, points / 1000, extra-Yacht paid, its points / 1000, joker one-hot
# (none, forced, free, verhoeff, kirakuken), forced order, saved rolls / 40: the module docstring's values
EXPECTED = {
    "yacht": [0.6, 1, 0.6, 0.035, 1, 0.1, 0, 1, 0, 0, 0, 0, 0],
    "yacht rolls_per_turn=2": [0.4, 1, 0.6, 0.035, 1, 0.1, 0, 1, 0, 0, 0, 0, 0],
    "yacht rolls_per_turn=5": [1.0, 1, 0.6, 0.035, 1, 0.1, 0, 1, 0, 0, 0, 0, 0],
    "yacht upper_bonus=false": [0.6, 0, 0, 0, 1, 0.1, 0, 1, 0, 0, 0, 0, 0],
    "yacht extra_yacht_bonus=false": [0.6, 1, 0.6, 0.035, 0, 0, 1, 0, 0, 0, 0, 0, 0],
    "verhoeff": [0.6, 1, 0.6, 0.035, 1, 0.1, 0, 0, 0, 1, 0, 0, 0],
    "kirakuken": [0.6, 1, 0.6, 0.035, 1, 0.1, 0, 0, 0, 0, 1, 0, 0],
    "yatzy forced_order=true": [0.6, 1, 0.6, 0.05, 0, 0, 1, 0, 0, 0, 0, 1, 0],
    "classic": [0.6, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0],
    "yatzy saved_rolls=4": [0.6, 1, 0.6, 0.05, 0, 0, 1, 0, 0, 0, 0, 0, 0.1],
}


def rules_of(name: str):
    preset, *sets = name.split()
    values = {"false": False, "true": True}
    return load(preset, **{k: values.get(v, int(v) if v.isdigit() else v) for k, v in (s.split("=") for s in sets)})


@pytest.mark.parametrize("name", EXPECTED)
def test_knob_entries_per_rule_set(name):
    row = rule_features(rules_of(name))
    assert row.dtype == np.float32 and row.shape == (KNOB_SIZE,)
    np.testing.assert_allclose(row, EXPECTED[name], atol=1e-7)


def test_the_largest_knobs_stay_in_bounds():
    rules = load("yacht", rolls_per_turn=5, **{"upper_bonus.threshold": 105, "upper_bonus.points": 1000},
                 extra_yacht_bonus=1000, saved_rolls=40)
    row = rule_features(rules)
    assert row.min() >= 0 and row.max() == 1.0
    np.testing.assert_allclose(row[:6], [1, 1, 1, 1, 1, 1])
    assert row[-1] == 1.0


@pytest.mark.parametrize("knobs", [{}, {"rolls_per_turn": 2}, {"upper_bonus": False, "joker": "free"}])
def test_check_env_and_the_row_after_every_other_entry(knobs):
    rules = load("yacht", **knobs)
    plain = gym.make("Yacht-v0", dice_obs="onehot", **knobs)
    env = gym.make("Yacht-v0", dice_obs="onehot", rule_obs="knobs", **knobs)
    check_env(env.unwrapped, skip_render_check=True)
    space = env.observation_space
    assert space.shape == (obs_size(rules) + DICE_SIZES["onehot"] + KNOB_SIZE,)
    assert (space.low == 0).all() and (space.high == 1).all() and space.dtype == np.float32
    o1, _ = plain.reset(seed=5)
    o2, info = env.reset(seed=5)
    for _ in range(30):
        assert space.contains(o2)
        np.testing.assert_array_equal(o2[:len(o1)], o1)
        np.testing.assert_array_equal(o2[len(o1):], rule_features(rules))
        a = int(np.flatnonzero(info["action_mask"])[-1])
        o1, *_ = plain.step(a)
        o2, _, done, _, info = env.step(a)
        if done:
            break


def test_the_default_is_unchanged_and_a_bad_value_is_named():
    env = gym.make("Yacht-v0")
    assert env.observation_space.shape == (obs_size(load("yacht")),)
    with pytest.raises(ValueError, match="rule_obs must be one of 'none', 'knobs', got 'all'"):
        gym.make("Yacht-v0", rule_obs="all")
    with pytest.raises(ValueError, match="need obs_mode='flat'"):
        gym.make("Yacht-v0", rule_obs="knobs", obs_mode="dict")


def test_vector_table_and_sb3_envs_append_the_same_row():
    rules = load("yacht", rolls_per_turn=4)
    knobs = rule_features(rules)
    envs = gym.make_vec("Yacht-v0", num_envs=3, vectorization_mode="vector_entry_point", rule_obs="knobs",
                        rolls_per_turn=4)
    obs, _ = envs.reset(seed=1)
    assert envs.single_observation_space.shape[0] == obs_size(rules) + KNOB_SIZE
    np.testing.assert_array_equal(obs[:, -KNOB_SIZE:], np.tile(knobs, (3, 1)))
    obs, *_ = envs.step(np.zeros(3, np.int64))
    np.testing.assert_array_equal(obs[:, -KNOB_SIZE:], np.tile(knobs, (3, 1)))
    envs.close()
    vs = gym.make("YachtVs-v0", num_players=2, opponents="greedy", table_obs="full", rule_obs="knobs",
                  rolls_per_turn=4)
    check_env(vs.unwrapped, skip_render_check=True)
    o, _ = vs.reset(seed=2)
    np.testing.assert_array_equal(o[-KNOB_SIZE:], knobs)
    sb3 = YachtVecEnv(2, seed=0, rule_obs="knobs", rolls_per_turn=4)
    np.testing.assert_array_equal(sb3.reset()[:, -KNOB_SIZE:], np.tile(knobs, (2, 1)))
    sb3.close()


def test_pettingzoo_api_test_with_the_knobs():
    env = pz_env(num_players=3, rule_obs="knobs", rolls_per_turn=2)
    api_test(env, num_cycles=30)
    env.reset(seed=0)
    obs = env.observe(env.agent_selection)["observation"]
    np.testing.assert_array_equal(obs[-KNOB_SIZE:], rule_features(load("yacht", rolls_per_turn=2)))
