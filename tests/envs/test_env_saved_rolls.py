"""Saved rolls (`saved_rolls`: unused rolls carried to a sheet's later turns) through every environment, on
Scandinavian Yatzy with a cap of 2: Gymnasium's, SB3's and PettingZoo's checkers, every mask against the
engine's own legality, the rolls-left entry and the Dict's `rolls_left` against `Game`, the other sheets'
saved rolls in the table observation, the vector and batched envs playing the single envs' games, render;
episodes that score early and then roll more than three times in a turn."""
import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from gymnasium.vector import AutoresetMode
from pettingzoo.test import api_test

import yacht_env  # noqa: F401 - registers the ids
from tests.envs.test_env_gymnasium_modes import closing, make_vec
from tests.envs.vector_play import assert_same_steps
from yacht_env.core.actions import num_actions
from yacht_env.core.game import Game
from yacht_env.envs.obs import dice_layout, obs_size
from yacht_env.envs.render import BG, NAME_W, ROW_H, TOP
from yacht_env.envs.table_obs import PER_OTHER, num_extra, per_other
from yacht_env.envs.vs_env import YachtVsEnv
from yacht_env.envs.vs_vector import YachtVsVectorEnv
from yacht_env.integrations.pettingzoo import env as pz_env
from yacht_env.integrations.sb3 import YachtVecEnv
from yacht_env.rules import load

CAP = 2
KNOBS = {"rules": "yatzy", "saved_rolls": CAP}
YATZY = load("yatzy", saved_rolls=CAP)
HOLDS = 31
A = num_actions(YATZY)
LEFT = dice_layout(5).rolls_left
SCALE = YATZY.rolls_per_turn + CAP


def engine_legal(state, i) -> np.ndarray:
    """The actions the engine's own transition plays at table i (its gain >= 0): each tried on a copy."""
    return state.repeat([i], A).play(np.arange(A), np.arange(A)) >= 0


def saver(mask, rng, early: float = 0.6) -> int:
    """A legal action that scores at once with probability `early` (saving the turn's rolls), else any legal one."""
    boxes = np.flatnonzero(mask[HOLDS:]) + HOLDS
    if len(boxes) and rng.random() < early:
        return int(rng.choice(boxes))
    return int(rng.choice(np.flatnonzero(mask)))


def savers(masks, rng) -> np.ndarray:
    return np.array([saver(m, rng) for m in masks], np.int64)


def test_the_sizes_with_and_without_a_cap():
    plain = load("yatzy")
    assert per_other(plain) == per_other() == PER_OTHER == 4 and per_other(YATZY) == 5
    assert num_extra(3) == num_extra(3, plain) == 9 and num_extra(3, YATZY) == 11
    assert gym.make("Yacht-v0", **KNOBS).observation_space.shape == (obs_size(YATZY),) == (obs_size(plain),)
    assert gym.make("Yacht-v0", obs_mode="dict", **KNOBS).observation_space["rolls_left"].n == SCALE + 1
    assert gym.make("Yacht-v0", rules="yatzy", obs_mode="dict").observation_space["rolls_left"].n == 4
    vs = gym.make("YachtVs-v0", num_players=3, opponents="greedy", **KNOBS)
    assert vs.observation_space.shape == (obs_size(YATZY) + 11,)
    d = gym.make("YachtVs-v0", num_players=3, opponents="greedy", obs_mode="dict", **KNOBS).observation_space
    assert d["saved"] == gym.spaces.Box(0, CAP, (3,), np.int32)
    assert "saved" not in gym.make("YachtVs-v0", rules="yatzy", num_players=3, opponents="greedy",
                                   obs_mode="dict").observation_space.spaces


@pytest.mark.parametrize("kw", [{}, {"obs_mode": "dict"}, {"action_set": "distinct", "table_obs": "full"}],
                         ids=["flat", "dict", "distinct-full"])
def test_the_checkers_pass_with_saved_rolls(kw):
    from stable_baselines3.common.env_checker import check_env as sb3_check_env
    if "table_obs" not in kw:
        check_env(gym.make("Yacht-v0", **KNOBS, **kw).unwrapped, skip_render_check=True)
    check_env(gym.make("YachtVs-v0", num_players=3, opponents="greedy", **KNOBS, **kw).unwrapped,
              skip_render_check=True)
    if not kw:
        sb3_check_env(gym.make("Yacht-v0", **KNOBS))
        sb3_check_env(gym.make("YachtVs-v0", num_players=2, opponents="greedy", **KNOBS))


def test_yacht_v0_plays_the_game_of_its_seed_and_uses_saved_rolls():
    """Every mask is the engine's legality (and Game's), the rolls-left entry and the Dict's rolls_left are
    Game's rolls left (saved ones included), the text picture names the saved rolls, and a turn rolls more
    than the rolls per turn; the episode is `Game(yatzy + saved_rolls, seed)` move for move."""
    flat = gym.make("Yacht-v0", render_mode="ansi", **KNOBS).unwrapped
    dict_env = gym.make("Yacht-v0", obs_mode="dict", **KNOBS).unwrapped
    space = dict_env.observation_space
    (obs, info), (dobs, dinfo) = flat.reset(seed=11), dict_env.reset(seed=11)
    game = Game(YATZY, seed=int(info["game_seed"]))
    game.roll()
    rng = np.random.default_rng(5)
    done, most, longest = False, 0, 0
    while not done:
        mask = info["action_mask"]
        assert np.array_equal(mask, engine_legal(flat.core.state, 0)) and np.array_equal(mask, game.legal_mask())
        assert np.array_equal(dinfo["action_mask"], mask) and space.contains(dobs)
        assert obs[LEFT] == pytest.approx(game.rolls_left / SCALE) and dobs["rolls_left"] == game.rolls_left
        assert bool(mask[:HOLDS].any()) == (game.rolls_left > 0)
        saved = min(game.saved_rolls, game.rolls_left)
        assert f"rolls left {game.rolls_left} ({saved} saved)" in flat.render()
        most = max(most, game.rolls_left)
        a = saver(mask, rng, early=0.3 if game.saved_rolls < CAP else 0.05)
        obs, _, done, _, info = flat.step(a)
        dobs, _, _, _, dinfo = dict_env.step(a)
        if a >= HOLDS:
            longest = max(longest, game.rolls_used)
        game.apply(a)
        if not game.is_over and game.phase == "roll":
            game.roll()
    assert info["total"] == game.totals()[0] and np.all(info["action_mask"] == 1)
    assert obs[LEFT] == 0.0 and dobs["rolls_left"] == 0      # the last observation shows no rolls left
    assert most > YATZY.rolls_per_turn - 1 and longest > YATZY.rolls_per_turn


def play_saving(envs, seed, steps):
    """reset(seed) then `steps` legal steps that often score at once: what reset and each step returned."""
    out = [envs.reset(seed=seed)]
    rng = np.random.default_rng(1)
    for _ in range(steps):
        out.append(envs.step(savers(out[-1][-1]["action_mask"], rng)))
    return out


def test_the_vector_env_and_sb3_play_the_single_envs_games():
    """`vector_entry_point` (one compiled loop) and `sync` (single Yacht-v0 envs) step for step, across game
    ends, with saved rolls used; the SB3 adapter plays the vector env's games."""
    runs = {}
    for mode in ("vector_entry_point", "sync"):
        def scenario(envs, mode=mode):
            runs[mode] = play_saving(envs, seed=7, steps=120)
        closing(make_vec(mode, autoreset=AutoresetMode.SAME_STEP, **KNOBS), scenario)
    native, single = runs["vector_entry_point"], runs["sync"]
    assert sum(step[2].sum() for step in native[1:]) >= 3
    assert max(step[0][:, LEFT].max() for step in native) * SCALE > YATZY.rolls_per_turn - 0.5
    assert_same_steps(native, single)
    sb3 = YachtVecEnv(3, seed=7, **KNOBS)
    obs = sb3.reset()
    assert np.array_equal(obs, native[0][0])
    rng = np.random.default_rng(1)
    for t in range(1, 40):
        obs, rewards, dones, _ = sb3.step(savers(native[t - 1][-1]["action_mask"], rng))
        assert np.array_equal(obs, native[t][0]) and np.array_equal(rewards, native[t][1]), t


def other_saved(obs, k) -> float:
    """The saved-rolls entry of the k-th other sheet of a seat's flat observation (`table_obs`)."""
    return obs[obs_size(YATZY) + 1 + per_other(YATZY) * (k - 1) + PER_OTHER]


def test_the_table_observation_shows_every_other_sheets_saved_rolls():
    """YachtVs-v0 against Greedy (which never re-rolls, so saves the cap every turn): each other sheet's saved
    rolls / the cap, the Dict's `saved` per sheet, the learner's rolls left, against the env's `Game`."""
    env = YachtVsEnv(num_players=3, opponents=["greedy", "random"], **KNOBS)
    denv = YachtVsEnv(num_players=3, opponents=["greedy", "random"], obs_mode="dict", **KNOBS)
    (obs, info), (dobs, _) = env.reset(seed=3), denv.reset(seed=3)
    rng = np.random.default_rng(2)
    seen, done = set(), False
    while not done:
        game = env.game
        order = [(env.seat + k) % 3 for k in range(3)]
        for k in (1, 2):
            assert other_saved(obs, k) == pytest.approx(game.saved_rolls_of(order[k]) / CAP)
            seen.add(game.saved_rolls_of(order[k]))
        assert list(dobs["saved"]) == [game.saved_rolls_of(s) for s in order]
        assert obs[LEFT] == pytest.approx(game.rolls_left / SCALE) and dobs["rolls_left"] == game.rolls_left
        assert np.array_equal(info["action_mask"], engine_legal(env.core.state, 0))
        a = saver(info["action_mask"], rng)
        obs, _, done, _, info = env.step(a)
        dobs, *_ = denv.step(a)
    assert CAP in seen


@pytest.mark.parametrize("kw", [
    {"num_players": 3, "opponents": ["random", "greedy"], "seat": "rotate"},
    {"num_players": 4, "opponents": "greedy", "teams": 2, "reward": "win", "action_set": "distinct"},
], ids=["rotate", "teams-distinct"])
def test_the_batched_table_env_plays_the_single_envs_games(kw):
    n = 3
    vec = YachtVsVectorEnv(num_envs=n, **KNOBS, **kw)
    obs, info = vec.reset(seed=30)
    singles = [YachtVsEnv(**KNOBS, **kw) for _ in range(n)]
    outs = [e.reset(seed=30 + i) for i, e in enumerate(singles)]
    assert np.array_equal(obs, np.stack([o for o, _ in outs]))
    rng = np.random.default_rng(4)
    ended = 0
    for step in range(90):
        actions = savers(info["action_mask"], rng)
        obs, rewards, term, _, info = vec.step(actions)
        for i, e in enumerate(singles):
            o, r, t, _, inf = e.step(int(actions[i]))
            assert r == pytest.approx(float(rewards[i])) and t == term[i]
            if t:
                ended += 1
                assert np.array_equal(info["final_obs"][i], o)
                o, inf = e.reset()
            assert np.array_equal(obs[i], o), (step, i)
            assert np.array_equal(info["action_mask"][i], inf["action_mask"]), (step, i)
            if not t and not kw.get("action_set"):
                assert np.array_equal(inf["action_mask"], engine_legal(e.core.state, 0))
    assert ended >= n


def test_pettingzoo_api_and_masks_with_saved_rolls():
    api_test(pz_env(num_players=2, **KNOBS), num_cycles=80)
    e = pz_env(num_players=3, **KNOBS)
    e.reset(seed=4)
    rng = np.random.default_rng(6)
    most = 0
    for _agent in e.agent_iter(max_iter=600):
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            e.step(None)
            continue
        mask = obs["action_mask"]
        assert np.array_equal(mask, engine_legal(e.unwrapped.core.state, 0))
        most = max(most, round(float(obs["observation"][LEFT]) * SCALE))
        e.step(saver(mask, rng))
    assert most > YATZY.rolls_per_turn - 1


def test_maxi_with_saved_rolls_checks_and_plays():
    maxi = {"rules": "maxi", "saved_rolls": 3}
    check_env(gym.make("Yacht-v0", **maxi).unwrapped, skip_render_check=True)
    env = gym.make("YachtVs-v0", num_players=2, opponents="greedy", **maxi).unwrapped
    obs, info = env.reset(seed=1)
    rules = env.rules
    assert obs.shape == (obs_size(rules) + num_extra(2, rules),) and rules.saved_rolls == 3
    rng = np.random.default_rng(0)
    done = False
    while not done:
        holds = num_actions(rules) - len(rules.boxes)
        boxes = np.flatnonzero(info["action_mask"][holds:]) + holds
        a = int(rng.choice(boxes)) if rng.random() < 0.5 else int(np.flatnonzero(info["action_mask"])[0])
        obs, _, done, _, info = env.step(a)
        assert env.observation_space.contains(obs)
        assert obs[obs_size(rules) + 1 + 4] == pytest.approx(env.game.saved_rolls_of(1 - env.seat) / 3)


def test_the_picture_has_a_row_of_saved_rolls():
    pytest.importorskip("pygame")
    env = gym.make("YachtVs-v0", num_players=2, opponents="greedy", render_mode="rgb_array", **KNOBS)
    plain = gym.make("YachtVs-v0", rules="yatzy", num_players=2, opponents="greedy", render_mode="rgb_array")
    env.reset(seed=2)
    plain.reset(seed=2)
    env.step(HOLDS)                              # score the first box: Greedy and the learner both save two
    plain.step(HOLDS)
    frame, before = env.render(), plain.render()
    assert frame.shape[0] == before.shape[0] and frame.shape[1] >= before.shape[1] and frame.dtype == np.uint8
    top = TOP + (len(YATZY.boxes) + 3) * ROW_H             # the row after upper and total
    band, empty = frame[top:top + ROW_H, :NAME_W], before[top:top + ROW_H, :NAME_W]     # its name
    assert (empty == BG).all() and not (band == BG).all()
    env.close()
    plain.close()
