"""Six dice (`maxi`: 63 hold actions, then 20 boxes) through every environment: Gymnasium's, SB3's and PettingZoo's
checkers, the six-dice observation layout, every mask against the engine's own legality, the vector and batched
envs playing the single envs' games, the options, render, and an opponent that cannot play six dice refused."""
import pickle
import re

import gymnasium as gym
import numba as nb
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from gymnasium.vector import AutoresetMode
from pettingzoo.test import api_test, seed_test
from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported

import yacht_env  # noqa: F401 - registers the ids
from agents.registry import make_agent
from tests.envs.test_env_gymnasium_modes import closing, make_vec, play
from tests.envs.vector_play import (assert_same_steps, first_legal, last_legal,
                                   plays_the_single_envs_games, random_actions)
from tests.fake_agents import OneGameAtATime
from tests.mini_rules import SIX_MINI
from tests.solver_tables import solve_once, temp_cache
from yacht_env.core.actions import num_actions
from yacht_env.core.dice import dice_tables, fixed_dice
from yacht_env.core.dice_source import game_seed
from yacht_env.core.engine import ROLLS_USED
from yacht_env.core.game import Game
from yacht_env.envs.obs import column_layout, dice_layout, obs_size
from yacht_env.envs.options import dice_sizes, distinct, narrow_masks, rolls_of_obs
from yacht_env.envs.render import last_move
from yacht_env.envs.vs_env import YachtVsEnv
from yacht_env.envs.vs_vector import YachtVsVectorEnv
from yacht_env.integrations.pettingzoo import env as pz_env
from yacht_env.integrations.sb3 import YachtVecEnv, YachtVsVecEnv
from yacht_env.rules import load
from yacht_env.solver import Unsolvable, check_solvable

MAXI = load("maxi")
HOLDS = 63
A = HOLDS + 20


def test_the_six_dice_sizes():
    env = gym.make("Yacht-v0", rules="maxi")
    assert MAXI.dice == 6 and num_actions(MAXI) == env.action_space.n == A
    assert dice_layout(6) == (slice(0, 6), slice(6, 12), 12, 13, 14)
    assert dice_layout(5) == (slice(0, 5), slice(5, 11), 11, 12, 13)
    assert env.observation_space.shape == (obs_size(MAXI),) == (14 + 2 * 20 + 2,)
    assert column_layout(MAXI, 0) == (slice(14, 34), slice(34, 54), 54, 55)
    assert dice_sizes(6) == {"scaled": 0, "onehot": 41, "counts": 42} and dice_sizes(5)["onehot"] == 34
    assert gym.make("Yacht-v0", rules="maxi", obs_mode="dict").observation_space["dice"].shape == (6,)


@pytest.mark.parametrize("kw", [{}, {"obs_mode": "dict"}, {"action_set": "distinct", "dice_obs": "onehot"},
                                {"dice_obs": "counts", "rule_obs": "knobs"}], ids=["flat", "dict", "onehot", "counts"])
def test_the_checkers_pass_on_maxi(kw):
    from stable_baselines3.common.env_checker import check_env as sb3_check_env
    check_env(gym.make("Yacht-v0", rules="maxi", **kw).unwrapped, skip_render_check=True)
    check_env(gym.make("YachtVs-v0", rules="maxi", num_players=3, opponents="greedy", **kw).unwrapped,
              skip_render_check=True)
    if not kw:
        sb3_check_env(gym.make("Yacht-v0", rules="maxi"))


def engine_legal(state, i) -> np.ndarray:
    """The actions the engine's own transition plays at table i (its gain >= 0): each tried on a copy."""
    copies = state.repeat([i], A)
    return copies.play(np.arange(A), np.arange(A)) >= 0


def check_flat(obs, state, i, sheet, rolls_used) -> None:
    """The six-dice layout (`yacht_env.envs.obs`) read back against the engine's arrays."""
    dice = np.sort(state.dice[i])
    assert np.array_equal(np.rint(obs[:6] * 6), dice) and np.allclose(obs[:6], dice / 6.0)
    assert np.allclose(obs[6:12], np.bincount(dice, minlength=7)[1:] / 6.0)
    assert obs[12] == pytest.approx((MAXI.rolls_per_turn - rolls_used) / MAXI.rolls_per_turn)
    scores = state.scores[i, sheet, 0]
    assert obs[13] == pytest.approx((scores >= 0).sum() / MAXI.rounds)
    col = column_layout(MAXI, 0)
    assert np.array_equal(obs[col.open], scores < 0)


def test_yacht_v0_plays_the_game_of_its_seed_with_engine_masks():
    """Every mask of a random game is the engine's legality (and Game's), every observation the layout of six
    dice, and the episode is `Game(maxi, seed=game_seed(s, 0))` move for move."""
    env = gym.make("Yacht-v0", rules="maxi").unwrapped
    obs, info = env.reset(seed=21)
    assert info["game_seed"] == game_seed(21, 0)
    game = Game(MAXI, seed=int(info["game_seed"]))
    game.roll()
    rng = np.random.default_rng(3)
    core, done, steps = env.core, False, 0
    while not done:
        st = core.state
        mask = info["action_mask"]
        assert mask.shape == (A,) and np.array_equal(mask, engine_legal(st, 0))
        assert np.array_equal(mask, game.legal_mask()) and game.dice == tuple(st.dice[0])
        check_flat(obs, st, 0, 0, st.ints[0, ROLLS_USED])
        a = int(rng.choice(np.flatnonzero(mask)))
        obs, reward, done, _, info = env.step(a)
        game.apply(a)
        if not game.is_over and game.phase == "roll":
            game.roll()
        steps += 1
    assert info["total"] == game.totals()[0] and np.all(info["action_mask"] == 1) and steps >= 20
    assert obs[12] == 0.0       # the last observation shows no rolls left


def test_the_vector_env_plays_the_single_envs_games():
    """`vector_entry_point` (one compiled loop) and `sync` (single Yacht-v0 envs) step for step, across game ends."""
    runs = {}
    for mode in ("vector_entry_point", "sync"):
        def scenario(envs, mode=mode):
            runs[mode] = play(envs, seed=7, steps=140)
        closing(make_vec(mode, autoreset=AutoresetMode.SAME_STEP, rules="maxi"), scenario)
    native, single = runs["vector_entry_point"], runs["sync"]
    assert sum(step[2].sum() for step in native[1:]) >= 3
    assert_same_steps(native, single)


def test_the_sb3_adapter_plays_the_vector_envs_games():
    env = YachtVecEnv(3, rules="maxi", seed=5)
    vec = gym.make_vec("Yacht-v0", num_envs=3, vectorization_mode="vector_entry_point", rules="maxi")
    obs, (vobs, info) = env.reset(), vec.reset(seed=5)
    assert is_masking_supported(env) and np.array_equal(obs, vobs)
    rng = np.random.default_rng(2)
    for _ in range(70):
        masks = get_action_masks(env)
        assert masks.shape == (3, A) and np.array_equal(masks, info["action_mask"].astype(bool))
        actions = random_actions(masks, rng)
        obs, rewards, dones, infos = env.step(actions)
        vobs, vrewards, term, _, info = vec.step(actions)
        assert np.array_equal(obs, vobs) and np.array_equal(rewards, vrewards) and np.array_equal(dones, term)
    vs = YachtVsVecEnv(2, rules="maxi", num_players=2, opponents="greedy", seed=1)
    vs.reset()
    for _ in range(40):
        obs, *_ = vs.step(first_legal(vs.action_masks()))
        assert obs.shape == (2, vs.observation_space.shape[0])


def first_then_last(step: int, mask) -> np.ndarray:
    """The learner's actions at step `step`: the last legal action every third step, else the first."""
    return first_legal(mask) if step % 3 else last_legal(mask)


@pytest.mark.parametrize("kw", [
    {"num_players": 3, "opponents": ["random", "greedy"], "seat": "rotate"},
    {"num_players": 4, "opponents": "greedy", "teams": 2, "reward": "win", "action_set": "distinct",
     "dice_obs": "counts"},
], ids=["rotate", "teams-distinct"])
def test_the_batched_table_env_plays_the_single_envs_games(kw):
    n = 3
    vec = YachtVsVectorEnv(num_envs=n, rules="maxi", **kw)
    singles = [YachtVsEnv(rules="maxi", **kw) for _ in range(n)]

    def engine_masks(step, i, e, info, ended):
        if not ended and not kw.get("action_set"):       # the learner's mask is the engine's legality
            assert np.array_equal(info["action_mask"], engine_legal(e.core.state, 0)), (step, i)
    ended = plays_the_single_envs_games(vec, singles, 30, 90, first_then_last, check=engine_masks)
    assert ended >= n


@pytest.fixture(scope="module")
def six_mini(tmp_path_factory):
    """`six_mini` (tests/mini_rules.py), solved in the shared test cache."""
    path = tmp_path_factory.mktemp("six") / "six_mini.yaml"
    path.write_text(SIX_MINI)
    rules = load(str(path))
    solve_once(rules)
    return rules


@pytest.mark.parametrize("kw", [{"num_players": 2}, {"num_players": 3, "seat": "rotate", "reward": "win"}],
                         ids=["two", "three-rotate-win"])
def test_a_planned_opponent_plays_the_single_envs_and_the_per_game_opponents_games(six_mini, kw):
    """Strong at every other seat of six-dice tables: the batched env plays its moves from its kept plans in
    compiled code (`step_planned`); so does each single env, one table each, and the same games come out, step
    for step, final observations included. Single envs whose Strong is asked for each move (`act`, the per-game
    path) play the same games too, final observations included (the dice the learner scored last)."""
    n, others = 3, kw["num_players"] - 1
    with temp_cache():
        vec = YachtVsVectorEnv(num_envs=n, rules=six_mini, opponents="strong", **kw)
        assert vec.core.planned is not None
        planned = [YachtVsEnv(rules=six_mini, opponents="strong", **kw) for _ in range(n)]
        per_game = [YachtVsEnv(rules=six_mini, opponents=[OneGameAtATime(make_agent("strong")) for _ in range(others)],
                               **kw) for _ in range(n)]
        assert all(e.core.planned is not None for e in planned) and all(e.core.planned is None for e in per_game)
        assert plays_the_single_envs_games(vec, planned, 40, 60, first_then_last) >= n
        assert plays_the_single_envs_games(vec, per_game, 40, 60, first_then_last) >= n
        vec.close()


def test_pettingzoo_api_and_seed_on_maxi():
    api_test(pz_env(num_players=2, rules="maxi"), num_cycles=80)
    api_test(pz_env(num_players=3, rules="maxi", action_set="distinct", dice_obs="onehot"), num_cycles=40)
    seed_test(lambda render_mode=None: pz_env(num_players=2, rules="maxi"), num_cycles=60)
    e = pz_env(num_players=2, rules="maxi")
    e.reset(seed=4)
    for _agent in e.agent_iter(max_iter=200):
        obs, _, term, _, _ = e.last()
        if term:
            e.step(None)
            continue
        assert np.array_equal(obs["action_mask"], engine_legal(e.unwrapped.core.state, 0))
        e.step(int(np.flatnonzero(obs["action_mask"])[-1]))


def keeps_by_hand(n) -> np.ndarray:
    """For every sorted roll of n dice, the smallest hold pattern of each multiset of kept dice."""
    rolls = dice_tables(n).rolls
    out = np.zeros((len(rolls), 2 ** n - 1), bool)
    for r, dice in enumerate(rolls):
        seen = set()
        for h in range(2 ** n - 1):
            kept = tuple(sorted(int(dice[i]) for i in range(n) if h >> i & 1))
            if kept not in seen:
                seen.add(kept)
                out[r, h] = True
    return out


def test_the_options_of_six_dice():
    assert np.array_equal(distinct(6), keeps_by_hand(6)) and np.array_equal(distinct(5), keeps_by_hand(5))
    plain = gym.make("Yacht-v0", rules="maxi").unwrapped
    rich = gym.make("Yacht-v0", rules="maxi", action_set="distinct", dice_obs="onehot").unwrapped
    counts = gym.make("Yacht-v0", rules="maxi", dice_obs="counts").unwrapped
    (o1, i1), (o2, i2), (o3, _) = plain.reset(seed=9), rich.reset(seed=9), counts.reset(seed=9)
    base = obs_size(MAXI)
    for _ in range(25):
        dice = np.rint(o1[:6] * 6).astype(int)
        assert np.array_equal(o2[:base], o1) and o2.shape == (base + 41,) and o3.shape == (base + 42,)
        hot = o2[base:base + 36].reshape(6, 6)
        assert np.array_equal(hot.argmax(axis=1) + 1, dice) and hot.sum() == 6
        assert np.array_equal(o2[base + 36:], dice[1:] == dice[:-1])
        tally = o3[base:].reshape(6, 7)
        assert np.array_equal(tally.argmax(axis=1), np.bincount(dice, minlength=7)[1:]) and tally.sum() == 6
        roll = rolls_of_obs(o1[None], 6)[0]
        assert np.array_equal(dice_tables(6).rolls[roll], dice)
        narrow = narrow_masks(i1["action_mask"][None], [roll], 6)[0]
        assert np.array_equal(i2["action_mask"].astype(bool), narrow)
        assert np.array_equal(i2["action_mask"][HOLDS:], i1["action_mask"][HOLDS:])
        a = int(np.flatnonzero(i2["action_mask"])[0])
        (o1, _, _, _, i1), (o2, _, _, _, i2), (o3, *_) = plain.step(a), rich.step(a), counts.step(a)


def test_render_shows_six_dice():
    env = gym.make("Yacht-v0", rules="maxi", render_mode="ansi")
    env.reset(seed=1)
    dice = env.unwrapped.core.state.dice[0]
    text = env.render()
    assert text.splitlines()[1] == "dice  " + " ".join(str(int(d)) for d in dice)
    assert "maxi_yatzy" in text
    move = last_move(MAXI, "you", [1, 2, 3, 4, 5, 6], 0b100001)
    assert move.kept == (1, 6) and move.what == "hold 0,5"
    assert last_move(MAXI, "you", [1, 2, 3, 4, 5, 6], HOLDS).kept == ()
    pygame = pytest.importorskip("pygame")
    assert pygame
    picture = gym.make("Yacht-v0", rules="maxi", render_mode="rgb_array")
    picture.reset(seed=1)
    frame = picture.render()
    assert frame.dtype == np.uint8 and frame.shape[2] == 3 and frame.shape[1] >= 6 * 62 + 24
    picture.close()


class FiveDiceOnly:
    """A batched opponent whose own check refuses six dice."""
    batched = True

    def check_rules(self, rules, num_players) -> None:
        if rules.dice != 5:
            raise ValueError("it plays five dice only")

    def act_batch(self, view):
        return first_legal(view.mask)


def test_an_opponent_that_cannot_play_six_dice_is_refused_with_its_reason():
    message = "opponent 1: FiveDiceOnly cannot play rules 'maxi': it plays five dice only"
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        gym.make("YachtVs-v0", rules="maxi", num_players=2, opponents=FiveDiceOnly())
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        YachtVsVectorEnv(num_envs=2, rules="maxi", num_players=3, opponents=[FiveDiceOnly(), "greedy"])
    gym.make("YachtVs-v0", rules="yacht", num_players=2, opponents=FiveDiceOnly()).reset(seed=0)
    try:
        check_solvable(MAXI)
    except Unsolvable as e:         # the solver-backed agents refuse what the solver cannot solve
        for spec in ("strong", "normal"):
            with pytest.raises(ValueError, match=re.escape(f"opponent 1: {spec} cannot play rules 'maxi': ") +
                               ".*" + re.escape(str(e))):
                gym.make("YachtVs-v0", rules="maxi", num_players=2, opponents=spec)


@nb.njit
def _read_fixed(D, code):
    return D.n, D.n_holds, D.roll_index[code], D.rolls.shape[0], D.hold_keep[1, 3]


@pytest.mark.parametrize("n", [5, 6])
def test_compiled_code_reads_a_fixed_dice_as_its_tables(n):
    D, F = dice_tables(n), fixed_dice(n)
    code = 6 ** n - 1                      # every die a six
    assert _read_fixed(F, code) == (n, 2 ** n, D.roll_index[code], D.n_rolls, D.hold_keep[1, 3])
    assert F.n_keeps == D.n_keeps and F.rolls is D.rolls
    assert pickle.loads(pickle.dumps(F)) is F


def test_a_pickled_maxi_env_plays_on():
    env = gym.make("Yacht-v0", rules="maxi").unwrapped
    env.reset(seed=2)
    copy = pickle.loads(pickle.dumps(env))
    for _ in range(10):
        a = int(np.flatnonzero(env.action_masks())[0])
        o1, *_ = env.step(a)
        o2, *_ = copy.step(a)
        assert np.array_equal(o1, o2)
