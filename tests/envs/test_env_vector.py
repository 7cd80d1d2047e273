"""The batched env: make_vec, same games as the single env, autoreset, step threads, pickling."""

import weakref

import gymnasium as gym
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import yacht_env  # registers the ids
from tests.five_dice import five_dice_presets
from tests.envs.vector_play import assert_same_info, random_actions
from yacht_env.core.dice_source import game_seed
from yacht_env.envs.batch import random_legal
from yacht_env.envs.obs import TURNS_PLAYED

N = 6


def make_vec(n=N, **kw):
    return gym.make_vec("Yacht-v0", num_envs=n, vectorization_mode="vector_entry_point", **kw)


@pytest.mark.parametrize("rules", five_dice_presets())
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
                last = info["final_info"]
                assert info["_final_info"][i] and last["_total"][i]
                for key in ("action_mask", "total", "game_seed", "illegal_action"):
                    assert np.array_equal(last[key][i], inf[key])
                o, inf = e.reset()
            assert np.array_equal(o, obs[i])
            for key in ("action_mask", "total", "game_seed", "illegal_action"):
                assert np.array_equal(inf[key], info[key][i]) and info[f"_{key}"][i]
    assert ended > 0  # the run crossed an autoreset (13 turns end within 39 steps)


def test_next_step_autoreset_plays_the_single_env_games():
    """autoreset_mode=NEXT_STEP: the terminal step shows the last observation; the next one restarts the game."""
    envs = make_vec(n=3, autoreset_mode="NextStep")
    assert envs.metadata["autoreset_mode"] == gym.vector.AutoresetMode.NEXT_STEP
    singles = [gym.make("Yacht-v0") for _ in range(3)]
    obs, info = envs.reset(seed=40)
    outs = [(*e.reset(seed=40 + i), 0.0, False, False) for i, e in enumerate(singles)]
    outs = [(o, r, d, t, inf) for o, inf, r, d, t in outs]      # (obs, reward, terminated, truncated, info)
    rng = np.random.default_rng(3)
    restarted = 0
    for _ in range(90):
        actions = random_actions(info["action_mask"], rng)
        obs, rew, term, _, info = envs.step(actions)
        assert "final_obs" not in info
        for i, e in enumerate(singles):
            if outs[i][2]:                       # game i ended on the last step: this step restarts it
                o, inf = e.reset()
                assert rew[i] == 0 and not term[i] and not info["illegal_action"][i]
                outs[i] = (o, 0.0, False, False, inf)
                restarted += 1
            else:
                outs[i] = e.step(int(actions[i]))
                assert rew[i] == outs[i][1] and term[i] == outs[i][2]
            o, inf = outs[i][0], outs[i][4]
            assert np.array_equal(o, obs[i])
            for key in ("action_mask", "total", "game_seed", "illegal_action"):
                assert np.array_equal(inf[key], info[key][i])
    assert restarted > 0


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
                finals.append((ret[i], info["final_info"]["total"][i]))
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


# one refused argument a check: alike in shape to test_env_single.py's, by design (other arguments)
def test_bad_arguments_have_clear_messages():
    with pytest.raises(ValueError, match="obs_mode='flat' only"):
        make_vec(obs_mode="dict")
    with pytest.raises(ValueError, match="penalizes illegal actions"):
        make_vec(illegal_action="raise")
    with pytest.raises(ValueError, match="num_envs must be a positive integer, got 0"):
        yacht_env.envs.vector.YachtVectorEnv(num_envs=0)
    with pytest.raises(ValueError, match="num_envs must be a positive integer, got True"):
        yacht_env.envs.vector.YachtVectorEnv(num_envs=True)
    with pytest.raises(ValueError, match=r"autoreset_mode must be one of AutoresetMode.NEXT_STEP \('NextStep'\), "
                                         r"AutoresetMode.SAME_STEP \('SameStep'\), .*got 'same_step'"):
        make_vec(autoreset_mode="same_step")
    envs = make_vec(n=2)
    envs.reset(seed=0)
    with pytest.raises(ValueError, match=r"expected 2 actions, got shape \(3,\)"):
        envs.step(np.zeros(3, np.int64))
    with pytest.raises(ValueError, match=r"expected 2 actions, got shape \(2, 1\)"):
        envs.step(np.zeros((2, 1), np.int64))
    for bad in (np.array([31.9, 31.0]), np.array(["31", "31"]), np.array([True, False])):
        with pytest.raises(ValueError, match=r"actions must be integers 0..43, got an array of"):
            envs.step(bad)
    for bad, shown in (([44, 31], 44), ([31, -1], -1), ([2 ** 40, 31], 2 ** 40)):
        with pytest.raises(ValueError, match=rf"action {shown} is not in 0..43"):
            envs.step(np.array(bad))
    obs, *_ = envs.step(np.array([43, 43]))  # the refused steps changed nothing
    assert np.allclose(obs[:, TURNS_PLAYED], 1 / 13)        # one turn played in each game, not more


def test_seeds_and_reset_options_are_checked():
    envs = make_vec(n=2)
    for bad, shown in ((-1, "-1"), (2 ** 64, str(2 ** 64)), (1.5, "1.5"), ("3", "'3'"), (True, "True"),
                       ([0, -2], "-2"), ([0, 2 ** 70], str(2 ** 70))):
        with pytest.raises(ValueError, match=rf"a seed must be an integer 0 .. 2\*\*64 - 1, got {shown}"):
            envs.reset(seed=bad)
    with pytest.raises(ValueError, match=r"seed 18446744073709551615 gives streams up to 18446744073709551616; "
                                         r"a seed must be an integer 0 .. 2\*\*64 - 2 for 2 envs"):
        envs.reset(seed=2 ** 64 - 1)
    _, info = envs.reset(seed=2 ** 64 - 2)                     # the last streams there are
    assert info["game_seed"].tolist() == [game_seed(2 ** 64 - 2, 0), game_seed(2 ** 64 - 1, 0)]
    with pytest.raises(ValueError, match=r"takes only options=\{'reset_mask': ...\}, got \['level'\]"):
        envs.reset(options={"level": 3})
    with pytest.raises(ValueError, match=r"takes only options=.*got \['level', 'reset_mask'\]"):
        envs.reset(options={"reset_mask": np.ones(2, bool), "level": 3})
    with pytest.raises(ValueError, match=r"takes only options=.*got \[1, 2\]"):
        envs.reset(options=[1, 2])
    with pytest.raises(TypeError, match="reset_mask'\\] must be a numpy bool array, got list"):
        envs.reset(options={"reset_mask": [True, False]})
    with pytest.raises(TypeError, match="must be a numpy bool array, got ndarray of int64"):
        envs.reset(options={"reset_mask": np.array([1, 0])})
    with pytest.raises(ValueError, match=r"must have shape \(2,\), got \(3,\)"):
        envs.reset(options={"reset_mask": np.ones(3, bool)})
    with pytest.raises(ValueError, match="must mark at least one env"):
        envs.reset(options={"reset_mask": np.zeros(2, bool)})
    envs.reset(seed=0, options={})                             # no options is fine


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2 ** 64 - 3))
def test_any_seed_gives_the_streams_of_the_single_env(seed):
    envs = make_vec(n=3)
    obs, info = envs.reset(seed=seed)
    assert info["game_seed"].dtype == np.uint64
    assert info["game_seed"].tolist() == [game_seed(seed + i, 0) for i in range(3)]
    single = gym.make("Yacht-v0")
    assert np.array_equal(single.reset(seed=seed + 2)[0], obs[2])


def test_reset_without_a_seed_continues_the_streams():
    """reset() starts every stream's next episode, a reset_mask only the marked ones, a None seed keeps a stream."""
    envs = make_vec(n=3)
    _, info = envs.reset(seed=7)
    assert info["game_seed"].tolist() == [game_seed(7 + i, 0) for i in range(3)]
    _, info = envs.reset()
    assert info["game_seed"].tolist() == [game_seed(7 + i, 1) for i in range(3)]
    _, info = envs.reset(options={"reset_mask": np.array([False, True, False])})
    assert info["game_seed"].tolist() == [game_seed(7, 1), game_seed(8, 2), game_seed(9, 1)]
    assert info["_game_seed"].tolist() == info["_action_mask"].tolist() == [False, True, False]
    _, info = envs.reset(seed=[100, None, 300])
    assert info["game_seed"].tolist() == [game_seed(100, 0), game_seed(8, 3), game_seed(300, 0)]
    fresh = make_vec(n=2)
    _, info = fresh.reset()                                    # no stream yet: drawn from np_random
    _, again = fresh.reset()
    assert info["game_seed"].dtype == np.uint64 and (again["game_seed"] != info["game_seed"]).all()


def test_reset_leaves_the_arrays_a_step_returned():
    envs = make_vec(n=2)
    envs.reset(seed=1)
    obs, _, _, _, info = envs.step(np.array([43, 43]))
    kept, mask = obs.copy(), info["action_mask"].copy()
    first, _ = envs.reset(seed=99)
    envs.reset(options={"reset_mask": np.array([True, False])})
    assert np.array_equal(obs, kept) and np.array_equal(info["action_mask"], mask)
    assert not np.array_equal(first, obs)


def test_disabled_autoreset_waits_for_a_reset_mask():
    envs = make_vec(n=2, autoreset_mode=gym.vector.AutoresetMode.DISABLED)
    _, info = envs.reset(seed=12)
    rng = np.random.default_rng(0)
    term = np.zeros(2, bool)
    while not term.any():
        obs, _, term, _, info = envs.step(random_actions(info["action_mask"], rng))
    assert "final_obs" not in info and info["action_mask"][term].all()
    last = obs.copy()
    with pytest.raises(RuntimeError, match=r"games \[\d\] are over \(autoreset_mode=DISABLED\); restart them "
                                           r"with reset\(options=\{'reset_mask': mask\}\) before step\(\)"):
        envs.step(random_actions(info["action_mask"], rng))
    new, info = envs.reset(options={"reset_mask": term})
    i = int(np.flatnonzero(term)[0])
    assert info["game_seed"][i] == game_seed(12 + i, 1) and info["total"][i] == 0
    assert np.array_equal(new[~term], last[~term]) and np.array_equal(obs, last)
    envs.step(random_actions(info["action_mask"], rng))


def test_vector_env_pickles_with_one_thread():
    import pickle
    envs = make_vec(n=2)
    _, info = envs.reset(seed=3)
    envs.step(random_actions(info["action_mask"], np.random.default_rng(0)))
    copy = pickle.loads(pickle.dumps(envs.unwrapped))
    rng_a, rng_b = np.random.default_rng(1), np.random.default_rng(1)
    ia = ib = envs.unwrapped.core.mask
    for _ in range(50):
        ra = envs.step(random_actions(ia, rng_a))
        rb = copy.step(random_actions(ib, rng_b))
        for x, y in zip(ra[:4], rb[:4]):
            assert np.array_equal(x, y)
        assert_same_info(ra[4], rb[4])
        ia, ib = ra[4]["action_mask"], rb[4]["action_mask"]
    threaded = make_vec(n=2, num_threads=2)
    with pytest.raises(TypeError, match="a YachtVectorEnv stepping on 2 threads cannot be pickled; "
                                        "make it with num_threads=1"):
        pickle.dumps(threaded.unwrapped)
    threaded.close()


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
        assert_same_info(i1, i2)
    assert many.unwrapped.core.threads.num_threads == threads
    many.close()
    assert many.unwrapped.core.threads.num_threads == 1
    r = many.step(random_actions(i2["action_mask"], rng))  # still works on one thread after close
    assert r[0].shape == (n, 41)


def test_thread_slices_cover_every_game_once():
    from yacht_env.envs.step_threads import MIN_SLICE, SliceThreads
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


def test_the_batch_keeps_stepping_its_own_arrays_after_a_vector_reset():
    """After the vector env's reset (new arrays, so earlier returns keep their rows), the batch steps the
    arrays it shows: random legal play from `batch.mask` makes no illegal move."""
    envs = gym.make_vec("Yacht-v0", num_envs=64, vectorization_mode="vector_entry_point")
    envs.reset(seed=3)
    batch, rng, actions = envs.unwrapped.core, np.random.default_rng(0), np.zeros(64, np.int64)
    for _ in range(100):
        random_legal(batch.mask, rng.random(64), actions)
        batch.step(actions)
        assert not batch.illegal.any()


def _arrays(out, path="step") -> dict:
    """Every numpy array in a step's return (obs, rewards, flags, info and final info), by path."""
    found = {}
    for key, value in (out.items() if isinstance(out, dict) else enumerate(out)):
        if isinstance(value, (dict, tuple)):
            found.update(_arrays(value, f"{path}[{key!r}]"))
        elif isinstance(value, np.ndarray):
            found[f"{path}[{key!r}]"] = value
    return found


def test_same_step_autoreset_returns_arrays_of_its_own():
    """A SAME_STEP step that ends games returns arrays no other returned array shares memory with, that later
    steps and resets leave as they were; the final info is zero but on the ended rows, its `_key` arrays are
    `terminated`, and the step's info `_key` arrays all True."""
    n = 64
    envs = make_vec(n=n, num_threads=2)
    _, info = envs.reset(seed=5)
    rng = np.random.default_rng(1)
    term = np.zeros(n, bool)
    while not term.any():
        out = envs.step(random_actions(info["action_mask"], rng))
        _, _, term, _, info = out
    arrays = _arrays(out)
    kept = {path: a.copy() for path, a in arrays.items()}
    paths = sorted(arrays)
    for j, p in enumerate(paths):
        for q in paths[j + 1:]:
            assert not np.shares_memory(arrays[p], arrays[q]), (p, q)
    last = info["final_info"]
    for key in ("action_mask", "total", "game_seed", "illegal_action"):
        assert np.array_equal(last[f"_{key}"], term) and info[f"_{key}"].all()
        assert not np.asarray(last[key])[~term].any(), key
    assert np.array_equal(info["_final_obs"], term) and np.array_equal(info["_final_info"], term)
    assert not info["final_obs"][~term].any() and last["action_mask"][term].all()
    for _ in range(60):
        _, _, _, _, info = envs.step(random_actions(info["action_mask"], rng))
    envs.reset()
    for path, a in arrays.items():
        assert np.array_equal(a, kept[path]), path
    envs.close()


@pytest.mark.parametrize("env_id, kw", [("Yacht-v0", {}), ("YachtVs-v0", {"num_players": 3, "opponents": "strong"})])
def test_step_arrays_dropped_by_the_caller_are_written_again_and_kept_ones_never(env_id, kw):
    """The batched step reuses the arrays of a step once the caller holds nothing of it (`envs.frames`):
    a row kept from a step (a view) never changes, a step into reused arrays gives the same obs, masks
    and final info (zero but on the ended rows) as one into new arrays, and the final info is read-only."""
    n = 16
    reused, fresh = (gym.make_vec(env_id, num_envs=n, vectorization_mode="vector_entry_point", **kw) for _ in "ab")
    _, info = reused.reset(seed=9)
    fresh.reset(seed=9)
    rng = np.random.default_rng(3)
    kept, earlier, every, reuses, ended, finals, final_reuses = [], [], [], 0, 0, [], 0
    for k in range(120):
        actions = random_actions(info["action_mask"], rng)
        out = reused.step(actions)
        every.append(fresh.step(actions))            # every step's arrays held: never reused
        obs, _, term, _, info = out
        reuses += any(r() is obs for r in earlier)     # the very array an earlier step returned
        earlier.append(weakref.ref(obs))
        assert np.array_equal(obs, every[-1][0]) and np.array_equal(info["action_mask"], every[-1][4]["action_mask"])
        if term.any():
            ended += 1
            final_reuses += any(r() is info["final_obs"].base for r in finals)
            finals.append(weakref.ref(info["final_obs"].base))
            last, held = info["final_info"], every[-1][4]["final_info"]
            assert np.array_equal(info["final_obs"], every[-1][4]["final_obs"]) and not info["final_obs"][~term].any()
            for key in ("action_mask", "total", "game_seed"):
                assert np.array_equal(last[key], held[key]) and not last[key][~term].any(), key
            with pytest.raises(ValueError, match="read-only"):
                info["final_obs"][term] = 1.0       # the env clears only the rows it wrote when it uses them again
        if k % 10 == 0:
            kept.append((obs[3], obs[3].copy()))
        del out, obs
    assert all(np.array_equal(view, copy) for view, copy in kept)
    # the final info's arrays were written again, and (one seat) every array of the step
    assert ended > 5 and final_reuses > ended // 2 and (reuses > 90 or env_id != "Yacht-v0")
    reused.close()
    fresh.close()


def test_steps_in_place_between_vector_steps_leave_the_final_info_zero_off_the_ended_rows():
    """The core stepped in place (`batch.step`, which writes the last observation of an ended game into the
    arrays it is bound to) between vector steps: a vector step's final info stays zero but on its ended rows."""
    n = 32
    envs = make_vec(n=n)
    _, info = envs.reset(seed=4)
    batch, rng, actions, checked = envs.unwrapped.core, np.random.default_rng(2), np.zeros(n, np.int64), 0
    for k in range(300):
        if k % 7 in (3, 4):
            random_legal(batch.mask, rng.random(n), actions)
            batch.step(actions)
            info = {"action_mask": batch.mask}
            continue
        _, _, term, _, info = envs.step(random_actions(info["action_mask"], rng))
        if term.any():
            checked += 1
            assert not info["final_obs"][~term].any() and not info["final_info"]["action_mask"][~term].any()
            assert info["final_info"]["action_mask"][term].all()
    assert checked > 20
    envs.close()
