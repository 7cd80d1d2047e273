"""An opponent that fails inside a table env (`YachtVs-v0`, its batched form, the SB3 VecEnv, a training
run's table evaluation) is reported -- an `OpponentFault` warning and `info["opponent_faults"]` -- and its
seat forfeits the rest of that game playing the fallback (`yacht_env.core.players.Forfeiting`); it never
stops the episode and is never replaced silently. Table training against an external bot runs end to end."""
import sys
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.fake_agents import JUNK, Flaky, Junk

from agents.registry import make_agent
from agents.training import evaluate as evaluation
from agents.training.config import load_config
from agents.training.evaluate import evaluate_table, evaluate_model
from agents.training.checkpoint import load_checkpoint
from agents.training.run import train
from yacht_env.core.actions import fallback_action, fallback_actions
from yacht_env.core.players import OpponentFault
from yacht_env.rules import load
from yacht_env.integrations.sb3 import YachtVsVecEnv
from yacht_env.envs.vs_env import YachtVsEnv
from yacht_env.envs.vs_vector import YachtVsVectorEnv

CRASH_AFTER_3 = """import json, sys
n = 0
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "decide":
        n += 1
        if n > 3:
            sys.exit(3)
        print(json.dumps({"action": msg["legal"][-1]}), flush=True)
"""


def _bot(tmp_path, source=CRASH_AFTER_3):
    path = tmp_path / "bot.py"
    path.write_text(source)
    return f"external?timeout=20:{sys.executable} {path}"


def _play_out(env, info, warned):
    """Play the learner's last legal action to the end; every fault reported on the way."""
    faults, done = list(info.get("opponent_faults", [])), False
    while not done:
        _, _, done, _, info = env.step(int(np.flatnonzero(info["action_mask"])[-1]))
        faults += info.get("opponent_faults", [])
    return faults, info


def test_fallback_actions_match_the_tournaments_fallback():
    rng = np.random.default_rng(0)
    masks = (rng.random((200, 44)) < 0.1).astype(np.int8)
    masks[np.arange(200), rng.integers(0, 44, 200)] = 1          # at least one legal action
    masks[:20, 31:] = 0                                           # only holds legal
    masks[:20, 7] = 1
    assert fallback_actions(masks).tolist() == [fallback_action(m) for m in masks]


def test_a_crashing_bot_is_reported_and_its_seat_forfeits_the_game(tmp_path):
    env = YachtVsEnv(num_players=2, opponents=[_bot(tmp_path)])
    try:
        with pytest.warns(OpponentFault, match=r"faulted \(crash\); it forfeits the rest of that game"):
            _, info = env.reset(seed=1)
            faults, info = _play_out(env, info, None)
        assert [(f["seat"], f["kind"], f["table"]) for f in faults] == [(1, "crash", 0)]
        assert "exited with code 3" in faults[0]["cause"] and faults[0]["game_seed"] == int(info["game_seed"])
        assert info["winners"] and sum(info["totals"]) > 0          # the game ran to its end
        # the next game asks the bot again (started afresh): it crashes again after its third decision
        with pytest.warns(OpponentFault):
            _, info = env.reset()
            faults, _ = _play_out(env, info, None)
        assert [f["kind"] for f in faults] == ["crash"]
    finally:
        env.close()


def test_a_raising_opponent_is_not_asked_again_until_the_next_game():
    flaky = Flaky()
    env = YachtVsEnv(num_players=2, opponents=flaky, seat=0)
    with pytest.warns(OpponentFault, match=r"opponent Flaky faulted \(error\)"):
        _, info = env.reset(seed=2)
        faults, info = _play_out(env, info, None)
    assert [(f["seat"], f["kind"], f["cause"]) for f in faults] == [(1, "error", "RuntimeError: boom")]
    assert flaky.calls == 3 and info["winners"]                # forfeited: the fallback played its seat
    env.reset()
    env.step(int(np.flatnonzero(env.action_masks())[-1]))     # a box: the opponent's turn follows
    assert flaky.calls > 3                                     # a new game asks it again
    env.close()


def test_a_failing_batched_opponent_forfeits_only_where_it_failed():
    env = YachtVsVectorEnv(num_envs=3, num_players=2, opponents=[Flaky()], seat=0)
    seen = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _, info = env.reset(seed=5)
        for _ in range(80):
            _, _, _, _, info = env.step(np.array([np.flatnonzero(m)[-1] for m in info["action_mask"]]))
            if "opponent_faults" in info:
                seen += [f for per in info["opponent_faults"] for f in per]
                assert info["_opponent_faults"].tolist() == [len(x) > 0 for x in info["opponent_faults"]]
    env.close()
    assert [(f["kind"], f["table"]) for f in seen[:3]] == [("error", 0), ("error", 1), ("error", 2)]
    assert all(f["cause"] == "RuntimeError: boom" for f in seen[:3])
    illegal = [f for f in seen if f["kind"] == "illegal"]
    assert illegal and {f["table"] for f in illegal} == {1} and illegal[0]["cause"] == "illegal action 99"
    assert sum(issubclass(w.category, OpponentFault) for w in caught) == len(seen)


def test_vector_and_sb3_envs_hand_the_faults_over(tmp_path):
    spec = _bot(tmp_path)
    vec = YachtVsVecEnv(2, num_players=2, opponents=[spec], seat=0, seed=3)
    try:
        vec.reset()
        faults = []
        with pytest.warns(OpponentFault):
            for _ in range(40):
                vec.step_async(np.array([np.flatnonzero(m)[-1] for m in vec.action_masks()]))
                _, _, _, infos = vec.step_wait()
                faults += [(i, f["kind"]) for i, d in enumerate(infos) for f in d.get("opponent_faults", [])]
        assert set(faults) == {(0, "crash"), (1, "crash")}        # one per table and game (13 steps each)
    finally:
        vec.close()


def test_table_evaluation_against_bots_is_the_same_in_any_chunking(tmp_path, monkeypatch):
    """Per-game opponents play PER_GAME_TABLES games at a time (at most that many bot processes): the
    results are the same for any chunk; a crashing bot's faults are counted, not raised."""
    rules = load("yacht")
    player = make_agent("greedy")
    example = f"external:{sys.executable} scripts/example_bot.py"
    results = []
    for chunk in (2, 5):
        monkeypatch.setattr(evaluation, "PER_GAME_TABLES", chunk)
        results.append(evaluate_table(player, rules, 2, [example], 5, 40))
    assert results[0].shares.tolist() == results[1].shares.tolist()
    assert results[0].mean == results[1].mean and results[0].opponent_faults == 0
    with pytest.warns(OpponentFault):
        crashed = evaluate_table(player, rules, 2, [_bot(tmp_path)], 3, 40)
    assert crashed.opponent_faults == 3 and "3 opponent fault(s)" in crashed.line()


def test_table_training_against_an_external_bot_runs_end_to_end(tmp_path):
    cfg = load_config("configs/train/smoke-table.yaml", out=str(tmp_path / "run"),
                      settings={"total_timesteps": 128, "n_envs": 2, "num_players": 2, "eval_every": 128,
                                "eval_games": 4, "checkpoint_every": 128, "ppo.n_steps": 64, "ppo.batch_size": 64,
                                "opponents": f"external:{sys.executable} scripts/example_bot.py"})
    res = train(cfg, progress=False)
    assert res.evaluation.games == 4 and res.evaluation.opponent_faults == 0
    doc = load_checkpoint(str(tmp_path / "run" / "best.pt"))
    again = evaluate_model(doc, cfg.ruleset, 4, cfg.eval_seed)
    assert again.shares.tolist() == res.evaluation.shares.tolist()


def test_a_forfeit_plays_the_same_games_in_the_single_and_the_batched_env(tmp_path):
    spec = _bot(tmp_path)
    vec = YachtVsVectorEnv(num_envs=2, num_players=2, opponents=[spec], seat=1)
    singles = [YachtVsEnv(num_players=2, opponents=[spec], seat=1) for _ in range(2)]
    try:
        with pytest.warns(OpponentFault):
            _, info = vec.reset(seed=7)
            for i, e in enumerate(singles):
                assert e.reset(seed=7 + i)[1]["totals"] == info["totals"][i].tolist()
            for _ in range(30):
                actions = np.array([np.flatnonzero(m)[-1] for m in info["action_mask"]])
                _, _, _, _, info = vec.step(actions)
                batched = info.get("opponent_faults", [[], []])
                key = ("seat", "kind", "cause", "game_seed")
                for i, e in enumerate(singles):
                    _, _, over, _, one = e.step(int(actions[i]))
                    faults = one.get("opponent_faults", [])
                    if over:                                   # the batched env starts the next game at once
                        one = e.reset()[1]
                        faults += one.get("opponent_faults", [])
                    assert one["totals"] == info["totals"][i].tolist()
                    assert [[f[k] for k in key] for f in faults] == [[f[k] for k in key] for f in batched[i]]
    finally:
        vec.close()
        for e in singles:
            e.close()


@settings(max_examples=25, deadline=None)
@given(plan=st.lists(st.sampled_from(JUNK), min_size=1, max_size=6), tables=st.integers(1, 3))
def test_any_junk_from_an_opponent_ends_in_reports_never_in_a_traceback(plan, tables):
    """Hypothesis: whatever an opponent answers, the batched env plays every game to its end, and every
    fault is reported: the opponent is asked again only at tables where it has not faulted this game."""
    env = YachtVsVectorEnv(num_envs=tables, num_players=2, opponents=[Junk(plan)], seat=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OpponentFault)
        _, info = env.reset(seed=3)
        faults, ended = [], np.zeros(tables, bool)
        for _ in range(200):
            _, _, over, _, info = env.step(np.array([np.flatnonzero(m)[-1] for m in info["action_mask"]]))
            faults += [f for per in info.get("opponent_faults", []) for f in per]
            ended |= over
            if ended.all():
                break
    env.close()
    assert ended.all()
    assert all(f["kind"] in ("error", "illegal") and "\n" not in f["cause"] for f in faults)
    if set(plan) == {"legal"}:
        assert faults == []
    elif plan[0] != "legal":
        assert faults                              # its first answer is already a fault


BOTS = {   # what the bot does at its second decision; first: a legal move
    "crash": "sys.exit(3)",
    "garbage": "print('nope', flush=True)",
    "illegal": "print(json.dumps({'action': 10**6}), flush=True)",
    "timeout": "time.sleep(3600)",
}


@pytest.mark.parametrize("kind", list(BOTS))
def test_every_kind_of_bot_fault_is_reported_with_its_kind(tmp_path, kind):
    source = ("import json, sys, time\nn = 0\nfor line in sys.stdin:\n    msg = json.loads(line)\n"
              "    if msg['type'] == 'decide':\n        n += 1\n        if n == 2:\n"
              f"            {BOTS[kind]}\n            continue\n"
              "        print(json.dumps({'action': msg['legal'][-1]}), flush=True)\n")
    path = tmp_path / "bot.py"
    path.write_text(source)
    limit = 1 if kind == "timeout" else 30          # the others answer at once: a stall is no timeout
    env = YachtVsEnv(num_players=2, opponents=[f"external?timeout={limit}:{sys.executable} {path}"], seat=0)
    try:
        with pytest.warns(OpponentFault, match=rf"faulted \({kind}\)"):
            _, info = env.reset(seed=4)
            faults, info = _play_out(env, info, None)
    finally:
        env.close()
    assert [(f["kind"], f["seat"]) for f in faults] == [(kind, 1)] and info["winners"]
