"""The batched YachtVs-v0: opponents as agent specs inside the step, the games of the single env, autoreset."""
import sys
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from tests.envs.vector_play import first_legal, last_legal, plays_the_single_envs_games
from tests.solver_tables import solve_once, temp_cache

import yacht_env  # noqa: F401 - registers the ids
from agents.registry import make_agent
from yacht_env.rules import load
from yacht_env.envs.step_threads import MIN_SLICE
from yacht_env.envs.vs_env import YachtVsEnv
from yacht_env.envs.vs_vector import YachtVsVectorEnv

BOT = Path(__file__).resolve().parents[2] / "scripts" / "example_bot.py"


@pytest.fixture(autouse=True)
def cache():
    with temp_cache():
        solve_once(load("yacht"))
        yield


@pytest.mark.parametrize("kw", [
    {"num_players": 2, "opponents": ["strong"]},
    {"num_players": 3, "opponents": ["random", "greedy"], "seat": 1, "reward": "win"},
    {"num_players": 4, "opponents": "strong", "teams": 2, "seat": "rotate"},
    {"num_players": 2, "opponents": ["normal"], "rolls_per_turn": 2},
    {"num_players": 2, "opponents": [f"external:{sys.executable} {BOT}"]},   # a per-game agent, one per table
], ids=["strong", "three-seats-win", "teams-rotate", "normal", "per-game-opponent"])
def test_every_table_plays_the_single_env_games(kw):
    n = 3
    vec = YachtVsVectorEnv(num_envs=n, **kw)
    singles = [YachtVsEnv(**kw) for _ in range(n)]
    ended = plays_the_single_envs_games(vec, singles, 10, 90,
                                        lambda step, mask: last_legal(mask) if step % 3 else first_legal(mask))
    assert ended >= n


@pytest.mark.parametrize("opponents", [["strong"], ["greedy"]], ids=["planned", "lockstep"])
def test_two_threads_step_the_same_games(opponents):
    """Enough tables for SliceThreads to split them (2 x MIN_SLICE): observations, rewards, ends and masks
    are the same with one thread and two, step by step, through resets and new strong plans."""
    n = 2 * MIN_SLICE + 5
    envs = [YachtVsVectorEnv(num_envs=n, num_players=2, opponents=opponents, seat="rotate", num_threads=k)
            for k in (1, 2)]
    outs = [e.reset(seed=3) for e in envs]
    assert np.array_equal(outs[0][0], outs[1][0])
    rng = np.random.default_rng(0)
    for step in range(120):
        mask = outs[0][1]["action_mask"]
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in mask], np.int64)
        outs = [e.step(actions) for e in envs]
        (o1, r1, t1, _, i1), (o2, r2, t2, _, i2) = outs
        assert np.array_equal(o1, o2) and np.array_equal(r1, r2) and np.array_equal(t1, t2), step
        assert np.array_equal(i1["action_mask"], i2["action_mask"]), step
        outs = [(o1, i1), (o2, i2)]
    for e in envs:
        e.close()


@pytest.mark.parametrize("mode", ["SameStep", "NextStep"])
def test_returned_observations_stay_as_they_were(mode):
    """With one planned opponent the table core keeps the learner's observations between steps and hands
    them out: a later step, autoreset or partial reset writes into a copy, never into an array returned."""
    env = gym.make_vec("YachtVs-v0", num_envs=4, vectorization_mode="vector_entry_point", num_players=2,
                       opponents="strong", autoreset_mode=mode)
    obs, info = env.reset(seed=5)
    kept = [(obs, obs.copy())]
    rng = np.random.default_rng(1)
    for step in range(80):
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in info["action_mask"]])
        obs, _, _, _, info = env.step(actions)
        kept.append((obs, obs.copy()))
        if step % 20 == 10:
            obs, info = env.reset(options={"reset_mask": np.array([True, False, True, False])})
            kept.append((obs, obs.copy()))
    assert all(np.array_equal(returned, copy) for returned, copy in kept)
    env.close()


def test_points_returns_are_the_final_totals_and_strong_beats_random():
    vec = gym.make_vec("YachtVs-v0", num_envs=64, vectorization_mode="vector_entry_point", num_players=2,
                       opponents=["strong"])
    obs, info = vec.reset(seed=0)
    returns, finals = np.zeros(64), []
    rng = np.random.default_rng(0)
    while len(finals) < 64:
        mask = info["action_mask"]
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
        obs, r, term, _, info = vec.step(actions)
        returns += r
        for i in np.flatnonzero(term):
            assert returns[i] == info["final_total"][i]
            finals.append(returns[i])
            returns[i] = 0
    assert np.mean(finals) < 100          # a random learner; its opponent plays the optimum


def test_opponents_errors_are_clear():
    with pytest.raises(ValueError, match="plays one game at a time and cannot sit at 4 tables"):
        YachtVsVectorEnv(num_envs=4, opponents=[make_agent(f"external:{sys.executable} {BOT}")])
    with pytest.raises(ValueError, match="unknown agent 'nobody'"):
        YachtVsVectorEnv(num_envs=2, opponents=["nobody"])
    with pytest.raises(ValueError, match="a list of 2, one per other seat"):
        YachtVsVectorEnv(num_envs=2, num_players=3, opponents=["strong"])
    for seat in ("all", 2, True):       # every seat deciding is PettingZoo's table, not a learner's seat
        with pytest.raises(ValueError, match="seat must be 0..1 or 'rotate'"):
            YachtVsVectorEnv(num_envs=2, seat=seat)
        with pytest.raises(ValueError, match="seat must be 0..1 or 'rotate'"):
            YachtVsEnv(seat=seat)
    vec = YachtVsVectorEnv(num_envs=2)
    vec.reset(seed=0)
    with pytest.raises(ValueError, match="actions must be integers"):
        vec.step(np.array([31.0, 31.0]))


def test_sync_vectorization_works_too():
    """Gymnasium's own sync vectorization plays its first copy as the single env seeded alike (autoreset on
    the step after a game ends), across three games."""
    envs = gym.make_vec("YachtVs-v0", num_envs=2, vectorization_mode="sync", num_players=2, opponents="greedy")
    single = gym.make("YachtVs-v0", num_players=2, opponents="greedy")
    obs, info = envs.reset(seed=3)
    one, one_info = single.reset(seed=3)
    ended, reset_next = np.zeros(2, int), False
    for _ in range(40):
        assert envs.observation_space.contains(obs)
        np.testing.assert_array_equal(obs[0], one)
        np.testing.assert_array_equal(info["action_mask"][0], one_info["action_mask"])
        actions = last_legal(info["action_mask"])
        obs, r, term, trunc, info = envs.step(actions)
        if reset_next:
            (one, one_info), one_r, one_term = single.reset(), 0.0, False
        else:
            one, one_r, one_term, _, one_info = single.step(actions[0])
        assert (r[0], bool(term[0])) == (one_r, one_term) and not trunc.any()
        reset_next = one_term
        ended += term
    assert (ended >= 2).all()
    envs.close()


def test_one_spec_for_every_seat_is_one_batched_agent():
    """`opponents="strong"` (or the same spec repeated) at 4 seats: one agent plays every other seat, from
    its kept plans in compiled code; a per-game spec still gets its own players per seat."""
    for opponents in ("strong", ["strong"] * 3):
        t = YachtVsVectorEnv(num_envs=4, num_players=4, opponents=opponents).core
        assert len({id(p) for p in t.players[1:]}) == 1 and t.planned is t.players[1]
    t = YachtVsVectorEnv(num_envs=2, num_players=3, opponents=f"external:{sys.executable} {BOT}").core
    assert len({id(p) for p in t.players[1:]}) == 2 and t.planned is None
    t.close()


def finished_games(mode, kw, steps=160):
    """(table, game seed, learner's final total) of every game the batched env finished; the moves are a
    function of the observation (so a step a mode spends restarting a game changes none of them)."""
    env = gym.make_vec("YachtVs-v0", num_envs=3, vectorization_mode="vector_entry_point", autoreset_mode=mode, **kw)
    obs, info = env.reset(seed=11)
    games = []
    for _ in range(steps):
        acts = np.array([np.flatnonzero(m)[int(o.sum() * 997) % m.sum()] for m, o in zip(info["action_mask"], obs)])
        obs, _, term, _, info = env.step(acts)
        for i in np.flatnonzero(term):
            last = {k: v[i] for k, v in info["final_info"].items()} if mode == "SameStep" else \
                {k: v[i] for k, v in info.items() if not k.startswith("final")}
            games.append((int(i), int(last["game_seed"]), int(last["totals"][last["seat"]])))
        if mode == "Disabled" and term.any():
            obs, info = env.reset(options={"reset_mask": term.copy()})
    env.close()
    return games


@pytest.mark.parametrize("kw", [{"num_players": 2, "opponents": "strong", "seat": "rotate"},
                                {"num_players": 3, "opponents": ["greedy", "random"], "reward": "win"}],
                         ids=["strong", "greedy-random"])
def test_every_autoreset_mode_plays_the_same_games(kw):
    """The three Gymnasium autoreset modes of the shared batched core: the same games, table by table."""
    runs = [finished_games(mode, kw) for mode in ("SameStep", "NextStep", "Disabled")]
    # NEXT_STEP spends a step per ended game: compare, table by table, the games every mode finished
    for table in range(3):
        games = [[g for g in run if g[0] == table] for run in runs]
        k = min(map(len, games))
        assert k >= 1 and games[0][:k] == games[1][:k] == games[2][:k]


def test_seeds_are_checked_and_reset_continues_the_streams():
    env = gym.make_vec("YachtVs-v0", num_envs=2, vectorization_mode="vector_entry_point")
    with pytest.raises(ValueError, match=r"a seed must be an integer 0 \.\. 2\*\*64 - 2 for 2 envs"):
        env.reset(seed=2 ** 64 - 1)
    with pytest.raises(ValueError, match="a seed must be an integer 0 .. 2\\*\\*64 - 1"):
        env.reset(seed=[1, -1])
    _, first = env.reset(seed=3)
    _, again = env.reset()                       # the next episode of streams 3 and 4, as YachtVs-v0's reset()
    single = gym.make("YachtVs-v0")
    single.reset(seed=4)
    _, second = single.reset()
    assert again["game_seed"][1] == second["game_seed"] != first["game_seed"][1]
    _, part = env.reset(options={"reset_mask": np.array([True, False])})
    assert part["_game_seed"].tolist() == [True, False]
