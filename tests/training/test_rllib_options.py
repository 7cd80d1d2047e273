"""scripts/rllib_ppo.py passes the env options (action_set, dice_obs, table_obs) through RLlib's env config to
the envs it trains on, and records them in the exported model file so `learned:` plays with the same inputs
(all without Ray: the envs and the export are plain Python)."""
import sys

import gymnasium as gym
import numpy as np
import pytest
import torch

import yacht_env  # noqa: F401 - registers Yacht-v0
from agents.learned import LearnedAgent
from agents.model_file import read_model
from agents.training.evaluate import evaluate_player
from tests.scripts import load_script
from yacht_env.integrations.pettingzoo import raw_env
from yacht_env.rules import load


@pytest.fixture(scope="module")
def rllib_ppo():
    return load_script("rllib_ppo")


def test_solitaire_options_reach_the_env(rllib_ppo):
    args = rllib_ppo.parser().parse_args(["--action-set", "distinct", "--dice-obs", "onehot"])
    config = rllib_ppo.env_config(args)
    assert config == {"rules": "yacht", "action_set": "distinct", "dice_obs": "onehot"}
    env = rllib_ppo.MaskedYacht(config)
    plain = gym.make("Yacht-v0", action_set="distinct", dice_obs="onehot")
    assert env.observation_space["observations"] == plain.observation_space
    obs, info = env.reset(seed=7)
    want, want_info = plain.reset(seed=7)
    assert obs["observations"].shape == (75,)             # the layout's 41 entries and the dice one-hot's 34
    narrower = False
    for step in range(20):
        narrower |= obs["action_mask"][:31].sum() < 31 and obs["action_mask"][:31].sum() > 0
        assert np.array_equal(obs["observations"], want)
        assert np.array_equal(obs["action_mask"], want_info["action_mask"].astype(np.float32))
        action = int(np.flatnonzero(obs["action_mask"])[-(step % 2)])     # a hold, then a box
        obs, _, term, _, info = env.step(action)
        want, _, _, _, want_info = plain.step(action)
        assert not term
    assert narrower                                       # distinct keeps: fewer than the 31 hold patterns


def test_table_options_reach_the_env(rllib_ppo):
    args = rllib_ppo.parser().parse_args(["--players", "3", "--action-set", "distinct", "--table-obs", "full"])
    config = rllib_ppo.env_config(args)
    assert config["table_obs"] == "full" and config["action_set"] == "distinct" and config["players"] == 3
    table = rllib_ppo.MaskedYachtTable(config)
    plain = raw_env(num_players=3, action_set="distinct", table_obs="full")
    first, _ = table.reset(seed=3)
    plain.reset(seed=3)
    (agent, obs), = first.items()
    want = plain.observe(agent)
    assert np.array_equal(obs["observations"], want["observation"])
    assert np.array_equal(obs["action_mask"], want["action_mask"].astype(np.float32))
    assert table.observation_spaces[agent]["observations"] == plain.observation_space(agent)["observation"]
    assert obs["observations"].shape[0] > raw_env(num_players=3).observation_space(agent)["observation"].shape[0]


def test_table_obs_alone_is_refused_before_ray_starts(rllib_ppo, monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", ["rllib_ppo.py", "--table-obs", "full"])
    with pytest.raises(SystemExit) as e:
        rllib_ppo.main()
    assert e.value.code == 2 and "--players" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        rllib_ppo.parser().parse_args(["--dice-obs", "counts"])   # no `learned:` input to export it to


@pytest.mark.parametrize("bad", ["0", "-5", "nan", "inf", "1e999", "soon"])
def test_a_sample_timeout_that_is_not_a_positive_number_is_refused(rllib_ppo, capsys, bad):
    with pytest.raises(SystemExit) as e:
        rllib_ppo.parser().parse_args(["--sample-timeout", bad])
    assert e.value.code == 2 and "a positive number of seconds is required" in capsys.readouterr().err


class FakeModule:
    """An RLlib PPO module's state dict: a shared encoder, the policy head `pi` and the value head `vf`."""

    def __init__(self, inputs: int, actions: int, hidden: int = 8):
        g = torch.Generator().manual_seed(0)
        self.state = {"encoder.encoder.net.mlp.0.weight": torch.randn(hidden, inputs, generator=g),
                      "encoder.encoder.net.mlp.0.bias": torch.zeros(hidden),
                      "pi.net.mlp.0.weight": torch.randn(actions, hidden, generator=g),
                      "pi.net.mlp.0.bias": torch.zeros(actions),
                      "vf.net.mlp.0.weight": torch.randn(1, hidden, generator=g), "vf.net.mlp.0.bias": torch.zeros(1)}

    def state_dict(self):
        return self.state


def test_the_exported_model_records_the_options_and_learned_plays_them(rllib_ppo, tmp_path):
    args = rllib_ppo.parser().parse_args(["--action-set", "distinct", "--dice-obs", "onehot"])
    options = rllib_ppo.played_as(rllib_ppo.env_config(args))
    assert options == {"distinct_holds": True, "dice_onehot": True}
    env = rllib_ppo.MaskedYacht(rllib_ppo.env_config(args))
    module = FakeModule(env.observation_space["observations"].shape[0], env.action_space.n)
    path = rllib_ppo.export(module, load("yacht"), tmp_path, [8], 100, 1, options)
    doc = read_model(path)
    assert doc["config"]["distinct_holds"] and doc["config"]["dice_onehot"]
    agent = LearnedAgent(path)
    res = evaluate_player(agent, load("yacht"), 4, 5_000)       # plays with the onehot inputs and distinct masks
    assert res.games == 4 and res.mean > 0
    table = rllib_ppo.played_as(rllib_ppo.env_config(rllib_ppo.parser().parse_args(
        ["--players", "3", "--table-obs", "full"])))
    assert table == {"distinct_holds": False, "dice_onehot": False, "table_obs": "full"}
