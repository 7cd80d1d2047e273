"""The env options `action_set` and `dice_obs` (`yacht_env.envs.options`): every env takes them, Gymnasium's
and PettingZoo's checkers pass on every combination, the distinct keeps are today's trainer mapping, every
vector mode plays the same steps with an option on, and the defaults show what they always showed."""
import itertools

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from gymnasium.vector import AutoresetMode
from pettingzoo.test import api_test

import yacht_env  # noqa: F401 - registers the ids
from tests.envs.test_env_gymnasium_modes import closing, make_vec, play
from tests.envs.vector_play import assert_same_info, random_actions
from yacht_env.core.actions import NUM_HOLDS
from yacht_env.core.dice import NUM_ROLLS, ROLL_PROB, ROLLS
from yacht_env.envs.obs import DICE, FACE_COUNTS, obs_size
from yacht_env.envs.obs import box_scale
from yacht_env.envs.options import ACTIONS, DICE as DICE_OBS, DICE_SIZES, DISTINCT, narrow_masks, rolls_of_obs
from yacht_env.envs.options import sheet_size, total_scale
from yacht_env.envs.table_obs import num_extra
from yacht_env.integrations.pettingzoo import env as pz_env
from yacht_env.integrations.sb3 import YachtVecEnv, YachtVsVecEnv
from yacht_env.rules import load

COMBOS = list(itertools.product(ACTIONS, DICE_OBS))
YACHT = load("yacht")


@pytest.mark.parametrize("action_set,dice_obs", COMBOS)
def test_check_env_on_every_combination(action_set, dice_obs):
    for env in (gym.make("Yacht-v0", action_set=action_set, dice_obs=dice_obs),
                gym.make("YachtVs-v0", num_players=3, opponents="greedy", action_set=action_set, dice_obs=dice_obs)):
        check_env(env.unwrapped, skip_render_check=True)
        obs, info = env.reset(seed=3)
        assert env.observation_space.contains(obs)
        assert obs.shape[0] == env.unwrapped.observation_space.shape[0]
        env.close()


@pytest.mark.parametrize("action_set,dice_obs", COMBOS)
def test_pettingzoo_api_on_every_combination(action_set, dice_obs):
    api_test(pz_env(num_players=2, action_set=action_set, dice_obs=dice_obs), num_cycles=60)


def keeps_by_hand() -> np.ndarray:
    """For every sorted roll, the smallest hold pattern of each multiset of kept dice, from the dice themselves."""
    out = np.zeros((NUM_ROLLS, NUM_HOLDS), bool)
    for r in range(NUM_ROLLS):
        seen = set()
        for h in range(NUM_HOLDS):
            kept = tuple(sorted(int(ROLLS[r][i]) for i in range(5) if h >> i & 1))
            if kept not in seen:
                seen.add(kept)
                out[r, h] = True
    return out


def test_distinct_keeps_are_the_trainers_mapping():
    """The env's distinct masks are the mapping `yacht train`'s `distinct_holds` and `learned:` play with:
    one pattern per multiset of kept dice (computed here from the dice), applied to the env's own masks."""
    assert np.array_equal(DISTINCT, keeps_by_hand())
    assert (DISTINCT.sum(axis=1) * ROLL_PROB).sum() == pytest.approx(20.4, abs=0.05)   # keeps per roll, on average
    plain = gym.make_vec("Yacht-v0", num_envs=16, vectorization_mode="vector_entry_point")
    narrow = gym.make_vec("Yacht-v0", num_envs=16, vectorization_mode="vector_entry_point", action_set="distinct")
    (o1, i1), (o2, i2) = plain.reset(seed=5), narrow.reset(seed=5)
    rng = np.random.default_rng(0)
    for _ in range(120):
        assert np.array_equal(o1, o2)
        expected = narrow_masks(i1["action_mask"], rolls_of_obs(o1))
        assert np.array_equal(i2["action_mask"].astype(bool), expected) and i2["action_mask"].dtype == np.int8
        assert np.array_equal(narrow.unwrapped.action_masks(), expected)
        a = random_actions(i2["action_mask"], rng)
        (o1, r1, t1, _, i1), (o2, r2, t2, _, i2) = plain.step(a), narrow.step(a)
        assert np.array_equal(r1, r2) and np.array_equal(t1, t2)


def test_dice_entries_follow_the_layout():
    env = gym.make("Yacht-v0", dice_obs="onehot")
    obs, _ = env.reset(seed=0)
    base = obs_size(YACHT)
    dice = np.rint(obs[DICE] * 6).astype(int)
    assert obs.shape == (base + DICE_SIZES["onehot"],)
    assert obs[base:base + 30].reshape(5, 6).argmax(axis=1).tolist() == (dice - 1).tolist()
    assert obs[base + 30:].tolist() == [float(dice[k + 1] == dice[k]) for k in range(4)]
    env = gym.make("Yacht-v0", dice_obs="counts")
    obs, _ = env.reset(seed=0)
    counts = np.rint(obs[FACE_COUNTS] * 5).astype(int)
    assert obs[base:].reshape(6, 6).argmax(axis=1).tolist() == counts.tolist() and obs[base:].sum() == 6


def test_distinct_single_env_mask_and_the_end_of_a_game():
    env = gym.make("Yacht-v0", action_set="distinct")
    obs, info = env.reset(seed=1)
    u = env.unwrapped
    while True:
        assert np.array_equal(info["action_mask"].astype(bool), u.action_masks())
        assert info["action_mask"][:NUM_HOLDS].sum() == DISTINCT[rolls_of_obs(obs[None])[0]].sum() or \
            info["action_mask"][:NUM_HOLDS].sum() == 0
        obs, _, over, _, info = env.step(int(np.flatnonzero(info["action_mask"])[-1]))
        if over:
            break
    assert info["action_mask"].all() and u.action_masks().all()     # a finished game: every action marked


@pytest.mark.parametrize("autoreset", [AutoresetMode.SAME_STEP, AutoresetMode.NEXT_STEP], ids=str)
def test_every_vector_mode_plays_the_same_steps_with_options_on(autoreset):
    runs = {}
    for mode in ("vector_entry_point", "sync", "async"):
        def scenario(envs, mode=mode):
            runs[mode] = play(envs, seed=11, steps=90)
        closing(make_vec(mode, autoreset=autoreset, action_set="distinct", dice_obs="onehot"), scenario)
    native = runs["vector_entry_point"]
    assert native[0][0].shape[1] == obs_size(YACHT) + DICE_SIZES["onehot"]
    assert sum(step[2].sum() for step in native[1:]) >= 3
    for mode in ("sync", "async"):
        for t, (a, b) in enumerate(zip(native, runs[mode])):
            assert np.array_equal(a[0], b[0]), (mode, t)
            if len(a) == 5:
                for x, y in zip(a[1:4], b[1:4]):
                    assert np.array_equal(x, y), (mode, t)
            assert_same_info(a[-1], b[-1], f"{mode} step {t}")


def test_vs_vector_and_sb3_adapters_show_the_single_envs_options():
    """YachtVs-v0 batched equals N single envs with the options on; the SB3 adapters pass them through."""
    kw = dict(num_players=2, opponents="strong", seat=0, action_set="distinct", dice_obs="counts", table_obs="full")
    vec = gym.make_vec("YachtVs-v0", num_envs=3, vectorization_mode="vector_entry_point", **kw)
    singles = [gym.make("YachtVs-v0", **kw) for _ in range(3)]
    obs, info = vec.reset(seed=7)
    outs = [e.reset(seed=7 + i) for i, e in enumerate(singles)]
    rng = np.random.default_rng(1)
    for _ in range(60):
        for i, (o, inf) in enumerate(outs):
            assert np.array_equal(obs[i], o) and np.array_equal(info["action_mask"][i], inf["action_mask"])
        a = random_actions(info["action_mask"], rng)
        obs, _, term, _, info = vec.step(a)
        outs = []
        for i, e in enumerate(singles):
            o, _, over, _, inf = e.step(int(a[i]))
            if over:
                assert term[i] and np.array_equal(info["final_obs"][i], o)
                o, inf = e.reset()
            outs.append((o, inf))
    sb3 = YachtVsVecEnv(3, seed=7, **kw)
    assert sb3.observation_space == vec.single_observation_space
    assert np.array_equal(sb3.reset(), vec.reset(seed=7)[0])
    solo = YachtVecEnv(4, seed=0, action_set="distinct", dice_obs="onehot")
    plain = YachtVecEnv(4, seed=0)
    o1, o2 = solo.reset(), plain.reset()
    assert np.array_equal(o1[:, :o2.shape[1]], o2)
    assert np.array_equal(solo.action_masks(), narrow_masks(plain.action_masks(), rolls_of_obs(o2)))


def test_full_table_observation_gives_every_other_sheet_and_unsaturated_totals():
    env = gym.make("YachtVs-v0", num_players=3, opponents="greedy", seat=1, table_obs="full")
    check_env(env.unwrapped, skip_render_check=True)
    api_test(pz_env(num_players=3, table_obs="full", dice_obs="onehot"), num_cycles=60)
    base = obs_size(YACHT) + num_extra(3)
    B, top = len(YACHT.boxes), total_scale(YACHT)
    assert env.observation_space.shape == (base + 1 + 2 * sheet_size(YACHT),)
    assert top > 1575      # more than any yacht game can score, so a total never reaches 1
    obs, info = env.reset(seed=4)
    rng = np.random.default_rng(2)
    over = False
    while not over:
        obs, _, over, _, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        assert env.observation_space.contains(obs)
    st = env.unwrapped.core.state
    totals = st.totals[0]
    assert obs[base] == np.float32(totals[1] / top)                      # this sheet: seat 1's
    for k, sheet in enumerate((2, 0)):                                   # then in turn order after it
        at = base + 1 + k * sheet_size(YACHT)
        scores = st.scores[0, sheet, 0]
        assert obs[at:at + B].tolist() == [0.0] * B                      # every box filled at the end
        assert np.allclose(obs[at + B:at + 2 * B], scores / box_scale(YACHT))
        assert obs[at + sheet_size(YACHT) - 1] == np.float32(totals[sheet] / top) < 1


def test_defaults_show_what_they_always_showed():
    env = gym.make("Yacht-v0")
    assert env.observation_space.shape == (obs_size(YACHT),)
    same = gym.make("Yacht-v0", action_set="all", dice_obs="scaled")
    (o1, i1), (o2, i2) = env.reset(seed=9), same.reset(seed=9)
    assert np.array_equal(o1, o2) and np.array_equal(i1["action_mask"], i2["action_mask"])


def vec(**kw):
    return gym.make_vec("YachtVs-v0", num_envs=2, vectorization_mode="vector_entry_point", **kw)


MAKERS = {"Yacht-v0": lambda **kw: gym.make("Yacht-v0", **kw), "YachtVs-v0": lambda **kw: gym.make("YachtVs-v0", **kw),
          "vector": vec, "pettingzoo": pz_env}


@pytest.mark.parametrize("kw,message,makers", [
    ({"action_set": "Distinct"}, "action_set must be one of 'all', 'distinct', got 'Distinct'", MAKERS),
    ({"action_set": 1}, "action_set must be one of", MAKERS),
    ({"dice_obs": None}, "dice_obs must be one of 'scaled', 'onehot', 'counts', got None", MAKERS),
    ({"dice_obs": "x" * 500}, "got 'xxxx", MAKERS),
    ({"table_obs": ["full"]}, "table_obs must be one of .summary., .full.", ("YachtVs-v0", "vector", "pettingzoo")),
    ({"obs_mode": "dict", "dice_obs": "onehot"}, "need obs_mode='flat'", ("Yacht-v0", "YachtVs-v0")),
    ({"obs_mode": "dict", "action_set": "distinct"}, "need obs_mode='flat'", ("Yacht-v0", "YachtVs-v0")),
    ({"obs_mode": "dict", "table_obs": "full"}, "need obs_mode='flat'", ("YachtVs-v0",)),
])
def test_bad_options_are_one_clear_error(kw, message, makers):
    for name in makers:
        with pytest.raises(ValueError, match=message) as e:
            MAKERS[name](**kw)
        assert len(str(e.value)) < 200, name
