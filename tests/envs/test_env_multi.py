"""YachtVs-v0: API checks, returns, win rewards, opponents, errors."""
import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import yacht_env  # noqa: F401 - registers the ids
from tests.five_dice import five_dice_presets
from yacht_env import IllegalMove
from yacht_env.core.dice_source import game_seed
from yacht_env.core.players import OpponentFault
from yacht_env.envs.vs_env import YachtVsEnv


def first_legal(game):
    return int(np.flatnonzero(game.legal_mask())[-1])


def play(env, seed, rng):
    obs, info = env.reset(seed=seed)
    rewards = []
    done = False
    while not done:
        assert env.observation_space.contains(obs)
        obs, r, done, _, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        rewards.append(r)
    return rewards, info


@pytest.mark.parametrize("rules", five_dice_presets())
def test_vs_check_env_every_preset(rules):
    check_env(gym.make("YachtVs-v0", rules=rules, num_players=3).unwrapped)


@pytest.mark.parametrize("kw", [{"num_players": 2, "obs_mode": "dict"}, {"num_players": 4, "teams": 2},
                                {"num_players": 8, "seat": "rotate"}, {"num_players": 2, "columns": 3}], ids=str)
def test_vs_check_env_knobs(kw):
    check_env(gym.make("YachtVs-v0", rules="yacht", **kw).unwrapped)


def test_vs_points_return_is_the_final_total_and_opponents_play_their_seats():
    seen = []

    def opponent(game):
        seen.append(game.current_seat)
        return first_legal(game)

    env = YachtVsEnv(rules="yacht", num_players=3, opponents=opponent, seat=1)
    rewards, info = play(env, 5, np.random.default_rng(0))
    assert sum(rewards) == info["totals"][1]
    assert set(seen) == {0, 2} and env.game.is_over
    assert env.game.seed == game_seed(5, 0)


def test_vs_same_seed_same_game_and_obs_layout():
    a = play(YachtVsEnv(num_players=2), 3, np.random.default_rng(1))
    b = play(YachtVsEnv(num_players=2), 3, np.random.default_rng(1))
    assert a[0] == b[0] and a[1]["totals"] == b[1]["totals"]
    env = YachtVsEnv(num_players=4)
    obs, _ = env.reset(seed=0)
    assert obs.shape == (41 + 1 + 4 * 3,) and obs.dtype == np.float32


def test_vs_win_reward_follows_ranks():
    outcomes = set()
    for seed in range(6):
        env = YachtVsEnv(num_players=2, reward="win", opponents=[first_legal])
        rewards, info = play(env, seed, np.random.default_rng(seed))
        assert all(r == 0 for r in rewards[:-1])
        t = info["totals"]
        expected = 1.0 if t[0] > t[1] else (-1.0 if t[0] < t[1] else 0.0)
        assert rewards[-1] == expected
        outcomes.add(expected)
    assert len(outcomes) >= 2


def test_vs_team_points_count_teammates_moves():
    env = YachtVsEnv(num_players=4, teams=2, seat=0)
    rewards, info = play(env, 2, np.random.default_rng(2))
    assert sum(rewards) == info["totals"][0] == info["totals"][2]


def test_vs_bad_arguments_and_bad_opponents():
    with pytest.raises(ValueError, match="YachtVs-v0 needs 2 to 8 players under rules 'yacht', got 1"):
        YachtVsEnv(num_players=1)
    with pytest.raises(ValueError, match="a list of 2, one per other seat in seat order, got a list of 1"):
        YachtVsEnv(num_players=3, opponents=[first_legal])
    with pytest.raises(ValueError, match="seat must be 0..1 or 'rotate', got 5"):
        YachtVsEnv(num_players=2, seat=5)
    with pytest.raises(ValueError, match="reward must be one of 'points', 'win', got 'terminal'"):
        YachtVsEnv(reward="terminal")
    with pytest.raises(ValueError, match="3 players cannot split into 2 teams"):
        YachtVsEnv(num_players=3, teams=2)
    env = YachtVsEnv(num_players=2, seat=1, opponents=lambda game: 99)   # reported, not raised: see
    with pytest.warns(OpponentFault, match=r"faulted \(illegal\)"):        # tests/envs/test_env_opponent_faults.py
        _, info = env.reset(seed=0)
    assert info["opponent_faults"][0]["cause"] == "illegal action 99" and info["opponent_faults"][0]["seat"] == 0


def test_vs_illegal_action_raise_and_penalize():
    env = YachtVsEnv(num_players=2, illegal_action="raise", rolls_per_turn=1)
    env.reset(seed=0)
    with pytest.raises(IllegalMove, match=r"action 3 \(hold 0,1\) is not legal now; legal: 31 score ones"):
        env.step(3)
    env = YachtVsEnv(num_players=2, illegal_penalty=0.5, rolls_per_turn=1)
    obs, _ = env.reset(seed=0)
    obs2, r, done, _, info = env.step(3)
    assert r == -0.5 and info["illegal_action"] and not done and np.array_equal(obs, obs2)


def test_vs_render_ansi():
    env = YachtVsEnv(num_players=2, render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert text.startswith("[you] turn 1/13") and "[seat 1] turn 1/13" in text
