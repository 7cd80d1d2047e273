"""The SB3 VecEnvs (`YachtVecEnv`, `YachtVsVecEnv`): sb3-contrib's masking, episode infos, seeds, refused
arguments and actions, step threads."""
import re

import gymnasium as gym
import numpy as np
import pytest
from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported

import yacht_env  # noqa: F401 - registers the ids
from tests.envs.vector_play import first_legal, random_actions
from yacht_env.integrations.sb3 import YachtVecEnv, YachtVsVecEnv


def test_sb3_adapter_masks_and_episodes():
    env = YachtVecEnv(4, rules="yacht", seed=3)
    obs = env.reset()
    assert obs.shape == (4, 41)
    assert is_masking_supported(env)
    masks = get_action_masks(env)
    assert masks.shape == (4, 44) and masks.dtype == bool
    assert env.env_method("action_masks", indices=[2])[0].tolist() == masks[2].tolist()
    assert env.get_attr("action_masks", indices=1)[0]().tolist() == masks[1].tolist()
    rng = np.random.default_rng(0)
    returns, seen = np.zeros(4), 0
    while seen < 4:
        obs, rew, dones, infos = env.step(random_actions(env.action_masks().astype(np.int8), rng))
        returns += rew
        for i in np.flatnonzero(dones):
            ep = infos[i]["episode"]
            assert ep["r"] == returns[i] == infos[i]["final_total"] and ep["l"] >= 13
            assert infos[i]["terminal_observation"].shape == (41,)
            returns[i] = 0
            seen += 1
    # sub-env i plays the stream seed + i, like the gymnasium vector env
    vec = gym.make_vec("Yacht-v0", num_envs=4, vectorization_mode="vector_entry_point")
    vobs, _ = vec.reset(seed=3)
    assert np.array_equal(YachtVecEnv(4, seed=3).reset(), vobs)
    env.seed(3)
    assert np.array_equal(env.reset(), vobs)


def test_sb3_adapter_errors():
    env = YachtVecEnv(2, seed=0)
    with pytest.raises(AttributeError, match="no method 'render' \\(only 'action_masks'\\)"):
        env.env_method("render")
    with pytest.raises(AttributeError, match="cannot set 'rules'"):
        env.set_attr("rules", None)
    with pytest.raises(ValueError, match="reward must be one of 'points', 'terminal', got 'win'"):
        YachtVecEnv(2, reward="win")
    for bad, shown in ((-1, "-1"), (2 ** 64, str(2 ** 64)), (0.5, "0.5"), ("7", "'7'")):
        with pytest.raises(ValueError, match=rf"a seed must be an integer 0 .. 2\*\*64 - 1, got {shown}"):
            YachtVecEnv(2, seed=bad)
    with pytest.raises(ValueError, match=r"a seed must be an integer 0 .. 2\*\*64 - 2 for 2 envs"):
        YachtVecEnv(2, seed=2 ** 64 - 1)
    env.seed(-5)
    with pytest.raises(ValueError, match=re.escape("a seed must be an integer 0 .. 2**64 - 1, got -5")):
        env.reset()
    env.seed(0)
    env.set_options({"level": 2})
    with pytest.raises(ValueError, match=r"YachtVecEnv reset takes no options, got \['level'\]"):
        env.reset()
    env.set_options(None)
    env.reset()
    for bad in (np.array([31.9, 31.0]), np.array(["31", "31"])):
        with pytest.raises(ValueError, match="actions must be integers 0..43, got an array of"):
            env.step(bad)
    with pytest.raises(ValueError, match="action 44 is not in 0..43"):
        env.step(np.array([[31], [44]]))                      # (n, 1) is taken, as SB3 may pass it
    with pytest.raises(ValueError, match=r"expected 2 actions, got shape \(3,\)"):
        env.step(np.array([31, 31, 31]))
    obs, rewards, _, _ = env.step(np.array([[31], [43]]))
    assert rewards[1] > 0


def test_sb3_adapter_with_threads_matches_one_thread():
    n = 2100                                   # two slices of at least MIN_SLICE games
    one, two = YachtVecEnv(n, seed=4), YachtVecEnv(n, seed=4, num_threads=2)
    o1, o2 = one.reset(), two.reset()
    rng = np.random.default_rng(5)
    ended = 0
    for _ in range(45):
        assert np.array_equal(o1, o2)
        actions = random_actions(one.core.mask, rng)
        o1, r1, d1, _ = one.step(actions)
        o2, r2, d2, _ = two.step(actions)
        assert np.array_equal(r1, r2) and np.array_equal(d1, d2)
        ended += d1.sum()
    assert ended > 0                           # 45 steps cross the end of games (13 turns, <= 39 steps)
    two.close()


def test_sb3_terminal_infos_carry_the_game_seed():
    for env in (YachtVsVecEnv(2, opponents="greedy", seed=8), YachtVecEnv(2, seed=8)):
        obs = env.reset()
        seeds = [None, None]
        while None in seeds:
            _, _, dones, infos = env.step(first_legal(env.action_masks()))
            for i in np.flatnonzero(dones):
                seeds[i] = infos[i]["game_seed"]
        single = gym.make("YachtVs-v0" if isinstance(env, YachtVsVecEnv) else "Yacht-v0")
        assert seeds == [int(single.reset(seed=8 + i)[1]["game_seed"]) for i in range(2)]
        env.close()
        assert obs.shape[0] == 2
