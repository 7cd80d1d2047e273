"""The batched env: make_vec, same games as the single env, autoreset, and the SB3 adapter."""
import gymnasium as gym
import numpy as np
import pytest

import yacht_env  # noqa: F401 - registers the ids
from yacht_env.batch import random_legal
from yacht_env.rules import presets

N = 6


def make_vec(n=N, **kw):
    return gym.make_vec("Yacht-v0", num_envs=n, vectorization_mode="vector_entry_point", **kw)


def random_actions(mask, rng):
    out = np.zeros(len(mask), np.int64)
    random_legal(mask, rng.random(len(mask)), out)
    return out


@pytest.mark.parametrize("rules", presets())
def test_vector_env_plays_the_single_env_games(rules):
    """Sub-env i seeded s == Yacht-v0 reset(seed=s+i), then reset(): same obs, rewards, masks, across episodes."""
    seed, steps = 100, 70
    envs = make_vec(rules=rules, columns=2 if rules == "knizia" else 1)
    singles = [gym.make("Yacht-v0", rules=rules, columns=2 if rules == "knizia" else 1) for _ in range(N)]
    obs, info = envs.reset(seed=seed)
    for i, e in enumerate(singles):
        o, inf = e.reset(seed=seed + i)
        assert np.array_equal(o, obs[i]) and np.array_equal(inf["action_mask"], info["action_mask"][i])
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(steps):
        actions = random_actions(info["action_mask"], rng)
        obs, rew, term, trunc, info = envs.step(actions)
        assert not trunc.any()
        for i, e in enumerate(singles):
            o, r, d, _, inf = e.step(int(actions[i]))
            assert r == rew[i] and d == term[i]
            if d:
                ended += 1
                assert info["_final_obs"][i] and np.array_equal(info["final_obs"][i], o)
                assert info["final_total"][i] == inf["total"]
                o, inf = e.reset()
            assert np.array_equal(o, obs[i])
            assert np.array_equal(inf["action_mask"], info["action_mask"][i])
    assert ended > 0  # the run crossed an autoreset (13 turns end within 39 steps)


def test_spaces_and_mask_shape():
    envs = make_vec(rules="yacht")
    obs, info = envs.reset(seed=1)
    assert envs.single_action_space.n == 44
    assert obs.shape == (N, 41) and obs.dtype == np.float32
    assert info["action_mask"].shape == (N, 44) and info["action_mask"].dtype == np.int8
    assert envs.observation_space.contains(obs)
    assert np.array_equal(envs.unwrapped.action_masks(), info["action_mask"].astype(bool))


def test_returns_equal_final_totals_and_terminal_mode():
    for reward in ("points", "terminal"):
        envs = make_vec(n=3, rules="yacht", reward=reward)
        _, info = envs.reset(seed=7)
        rng = np.random.default_rng(1)
        ret, finals = np.zeros(3), []
        while len(finals) < 3:
            obs, rew, term, _, info = envs.step(random_actions(info["action_mask"], rng))
            ret += rew
            for i in np.flatnonzero(term):
                finals.append((ret[i], info["final_total"][i]))
                ret[i] = 0
        assert all(r == t > 0 for r, t in finals)


def test_illegal_actions_are_penalized_per_env():
    envs = make_vec(n=2, rules="yacht", illegal_penalty=3.0)
    obs, _ = envs.reset(seed=0)
    envs.step(np.array([43, 43]))  # chance
    obs, rew, _, _, info = envs.step(np.array([43, 31]))
    assert rew[0] == -3.0 and rew[1] >= 0
    assert info["illegal_action"].tolist() == [True, False]


def test_list_of_seeds_and_determinism():
    a = make_vec(n=2)
    b = make_vec(n=2)
    oa, _ = a.reset(seed=[5, 9])
    ob, _ = b.reset(seed=5)
    assert np.array_equal(oa[0], ob[0]) and not np.array_equal(oa[1], ob[1])
    with pytest.raises(ValueError, match="got 3 seeds for 2 envs"):
        a.reset(seed=[1, 2, 3])


def test_bad_arguments_have_clear_messages():
    with pytest.raises(ValueError, match="obs_mode='flat' only"):
        make_vec(obs_mode="dict")
    with pytest.raises(ValueError, match="penalizes illegal actions"):
        make_vec(illegal_action="raise")
    with pytest.raises(ValueError, match="num_envs must be a positive integer, got 0"):
        yacht_env.vector.YachtVectorEnv(num_envs=0)
    envs = make_vec(n=2)
    envs.reset(seed=0)
    with pytest.raises(ValueError, match=r"expected 2 actions, got shape \(3,\)"):
        envs.step(np.zeros(3, np.int64))


def test_sb3_adapter_masks_and_episodes():
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported

    from yacht_env.sb3 import YachtVecEnv

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
    vec = make_vec(n=4)
    vobs, _ = vec.reset(seed=3)
    assert np.array_equal(YachtVecEnv(4, seed=3).reset(), vobs)
    env.seed(3)
    assert np.array_equal(env.reset(), vobs)


def test_sb3_adapter_errors():
    from yacht_env.sb3 import YachtVecEnv

    env = YachtVecEnv(2, seed=0)
    with pytest.raises(AttributeError, match="no method 'render' \\(only 'action_masks'\\)"):
        env.env_method("render")
    with pytest.raises(AttributeError, match="cannot set 'rules'"):
        env.set_attr("rules", None)
    with pytest.raises(ValueError, match="reward must be one of 'points', 'terminal', got 'win'"):
        YachtVecEnv(2, reward="win")


@pytest.mark.parametrize("threads", [2, 3])
def test_threads_give_the_same_games(threads):
    """num_threads splits the games between threads; every array matches the one-thread run, step by step."""
    n = 3200  # above threads x MIN_SLICE, so every thread gets games
    one, many = make_vec(n=n), make_vec(n=n, num_threads=threads)
    o1, i1 = one.reset(seed=3)
    o2, i2 = many.reset(seed=3)
    rng = np.random.default_rng(2)
    for _ in range(60):
        actions = random_actions(i1["action_mask"], rng)
        r1, r2 = one.step(actions), many.step(actions)
        for a, b in zip(r1[:4], r2[:4]):
            assert np.array_equal(a, b)
        i1, i2 = r1[4], r2[4]
        assert i1.keys() == i2.keys() and all(np.array_equal(i1[k], i2[k]) for k in i1)
    assert many.unwrapped.batch.threads.num_threads == threads
    many.close()
    assert many.unwrapped.batch.threads.num_threads == 1
    r = many.step(random_actions(i2["action_mask"], rng))  # still works on one thread after close
    assert r[0].shape == (n, 41)


def test_thread_slices_cover_every_game_once():
    from yacht_env.step_threads import MIN_SLICE, SliceThreads
    pool = SliceThreads(3)
    try:
        n = 4 * MIN_SLICE
        for share in ([0.9, 0.05, 0.05], [0.05, 0.9, 0.05], [0.0, 0.0, 1.0], [1 / 3] * 3):
            pool.share = share
            edges = pool.bounds(n)
            assert edges[0] == 0 and edges[-1] == n and min(np.diff(edges)) >= MIN_SLICE, share
        assert pool.bounds(100) == [0, 100, 100, 100]  # too few games to split

        def boom(lo, hi, ctrl):
            if lo > 0:
                raise RuntimeError("helper failed")
        with pytest.raises(RuntimeError, match="helper failed"):
            pool.run(boom, n, ())
        seen = np.zeros(n, np.int64)

        def mark(lo, hi, ctrl):
            seen[lo:hi] += 1
        pool.run(mark, n, ())  # the pool still works after a failed run
        assert (seen == 1).all()
    finally:
        pool.close()
    with pytest.raises(ValueError, match="num_threads must be a positive integer, got 0"):
        SliceThreads(0)


def test_sb3_adapter_with_threads_matches_one_thread():
    from yacht_env.sb3 import YachtVecEnv
    n = 2100                                   # two slices of at least MIN_SLICE games
    one, two = YachtVecEnv(n, seed=4), YachtVecEnv(n, seed=4, num_threads=2)
    o1, o2 = one.reset(), two.reset()
    rng = np.random.default_rng(5)
    ended = 0
    for _ in range(45):
        assert np.array_equal(o1, o2)
        actions = random_actions(one.batch.mask, rng)
        o1, r1, d1, _ = one.step(actions)
        o2, r2, d2, _ = two.step(actions)
        assert np.array_equal(r1, r2) and np.array_equal(d1, d2)
        ended += d1.sum()
    assert ended > 0                           # 45 steps cross the end of games (13 turns, <= 39 steps)
    two.close()
