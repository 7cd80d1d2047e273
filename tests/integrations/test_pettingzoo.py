"""The PettingZoo AEC env: PettingZoo's API and seed checks, returns, illegal actions, refused arguments and
seeds, the "ansi" render."""
import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from yacht_env import IllegalMove
from yacht_env.core.dice_source import game_seed
from yacht_env.integrations.pettingzoo import env as pz_env


def test_pettingzoo_api_and_seed():
    api_test(pz_env(num_players=2), num_cycles=100)
    api_test(pz_env(num_players=4, rules="classic", teams=2, reward="win"), num_cycles=100)
    api_test(pz_env(num_players=1), num_cycles=40)
    seed_test(lambda render_mode=None: pz_env(num_players=3), num_cycles=100)


def test_pettingzoo_returns_are_final_totals():
    e = pz_env(num_players=3, rules="kirakuken")
    e.reset(seed=4)
    returns = {a: 0.0 for a in e.possible_agents}
    rng = np.random.default_rng(0)
    for agent in e.agent_iter():
        obs, reward, term, trunc, info = e.last()
        returns[agent] += reward
        if term:
            e.step(None)
            continue
        assert obs["action_mask"].any()
        others = [a for a in e.agents if a != agent]
        assert not any(e.observe(a)["action_mask"].any() for a in others)
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert e.unwrapped.game.seed == game_seed(4, 0)
    assert [returns[a] for a in e.possible_agents] == info["totals"]


def test_pettingzoo_illegal_action_and_bad_arguments():
    e = pz_env(num_players=2, rolls_per_turn=1)
    e.reset(seed=0)
    with pytest.raises(IllegalMove, match=r"player_0: action 0 \(roll all\) is not legal now; legal: 31 score"):
        e.step(0)
    with pytest.raises(ValueError, match="rules 'yacht' allow 1 to 8 players, got 9"):
        pz_env(num_players=9)
    with pytest.raises(ValueError, match="reward must be one of 'points', 'win', got 'x'"):
        pz_env(reward="x")


def test_pettingzoo_seeds_and_render_mode():
    e = pz_env(num_players=2)
    for bad in (-1, 2 ** 64, 1.5):
        with pytest.raises(ValueError, match=r"a seed must be an integer 0 \.\. 2\*\*64 - 1"):
            e.reset(seed=bad)
    e.reset(seed=2 ** 64 - 1)
    assert e.unwrapped.game.seed == game_seed(2 ** 64 - 1, 0)
    with pytest.raises(ValueError, match="render_mode must be one of None, 'human', 'rgb_array', 'ansi', got 'video'"):
        pz_env(render_mode="video")
    api_test(pz_env(num_players=3, render_mode="ansi", rules="cheerio"), num_cycles=200)


def test_pettingzoo_render():
    e = pz_env(num_players=2, render_mode="ansi")
    e.reset(seed=0)
    assert e.render().startswith("[player_0] turn 1/13")
