"""`learned?lookahead=K:PATH`: the critic's values, the look-ahead's arithmetic checked by brute force over
the dice, the same games batched or one at a time, and the specs and models it refuses."""
import itertools

import numpy as np
import pytest
from tests.same_games import assert_same, both_ways
from tests.fake_agents import OneGameAtATime

from agents.evaluation import solitaire
from agents.features import policy_input, upper_par_potential
from agents.learned import LearnedAgent
from agents.lookahead import action_values
from agents.registry import AgentSpecError, make_agent
from yacht_env.core.actions import NUM_HOLDS
from yacht_env.core.dice import ROLLS, roll_index
from yacht_env.core.dice_source import game_seeds
from yacht_env.core.engine import ROLL, ROLLS_USED, State
from yacht_env.envs.obs import observe
from yacht_env.rules import load

MODEL = "models/ppo-yacht.pt"
SPEC = f"learned?lookahead=3:{MODEL}"
YACHT = load("yacht")


SHEETS = [[-1] * 13,
          [3, 8, 9, -1, 15, -1, 20, -1, 25, -1, -1, -1, 22],
          [2, 4, 9, 12, -1, 18, -1, 0, 25, 30, -1, 50, -1],
          [-1, -1, -1, -1, -1, 24, -1, -1, -1, -1, 40, -1, -1],
          [1, 6, 12, 16, 20, 24, 25, 0, 25, 30, 40, -1, -1],
          [0, -1, 3, -1, -1, -1, -1, -1, -1, -1, -1, 0, -1]]


def positions(n=6):
    """A one-player State of n positions with dice in hand: the sheets of SHEETS, the first roll of a
    turn at even tables and the second at odd ones."""
    state = State(YACHT, n, 1)
    state.reset(game_seeds(3, last=np.arange(n)))
    for i in range(n):
        sheet = SHEETS[i % len(SHEETS)]
        state.set_scores(i, 0, [sheet])
        state.ints[i, 0] = sum(x >= 0 for x in sheet)
    state.roll(np.arange(n))
    odd = np.arange(1, n, 2)
    state.put_rolls(odd, state.ints[odd, ROLL], 2)
    return state


def test_the_critic_is_the_value_head_in_points():
    """points_to_come = value head / reward_scale + the upper-par potential, as SB3's policy computes it."""
    import torch

    from agents.training.checkpoint import build_policy, load_checkpoint
    agent = LearnedAgent(MODEL, lookahead=3)
    state = positions()
    rows = np.arange(state.num_tables)
    obs = observe(state, rows)
    x = policy_input(obs, state.dice, agent.config, YACHT)
    policy = build_policy(load_checkpoint(MODEL))
    with torch.no_grad():
        value = policy.predict_values(torch.as_tensor(x))[:, 0].numpy().astype(np.float64)
    expected = value / agent.config["reward_scale"] + upper_par_potential(obs, YACHT, agent.config["upper_shaping"])
    assert np.allclose(agent.critic.points_to_come(state, rows, YACHT), expected, atol=1e-3)


def _brute_hold(agent, state, i, hold):
    """A hold's worth by every ordered outcome of the re-rolled dice (6^k of them, equally likely)."""
    dice = state.dice[i].tolist()
    kept = [d for k, d in enumerate(dice) if hold >> k & 1]
    free = 5 - len(kept)
    outcomes = [roll_index(kept + list(faces)) for faces in itertools.product(range(1, 7), repeat=free)]
    ahead = state.repeat([i], len(outcomes))
    ahead.put_rolls(np.arange(len(outcomes)), outcomes, state.ints[i, ROLLS_USED] + 1)
    return agent.critic.points_to_come(ahead, np.arange(len(outcomes)), YACHT).mean()


def _brute_box(agent, state, i, action):
    """A box's worth: its points plus the critic's value of every ordered first roll of the next turn."""
    scored = state.repeat([i], 1)
    points = float(scored.play([0], [action])[0])
    if scored.over()[0]:
        return points
    outcomes = [roll_index(list(faces)) for faces in itertools.product(range(1, 7), repeat=5)]
    ahead = scored.repeat([0], len(outcomes))
    ahead.put_rolls(np.arange(len(outcomes)), outcomes, 1)
    return points + agent.critic.points_to_come(ahead, np.arange(len(outcomes)), YACHT).mean()


def test_action_values_match_brute_force_over_the_dice():
    agent = LearnedAgent(MODEL, lookahead=2)
    state = positions(n=3)
    masks = state.masks(np.arange(3)).astype(bool)
    values = action_values(agent.net, agent.critic, state, masks, YACHT, 2, distinct_holds=False)
    for i in range(3):
        holds = np.flatnonzero(np.isfinite(values[i, :NUM_HOLDS]))
        boxes = np.flatnonzero(np.isfinite(values[i, NUM_HOLDS:])) + NUM_HOLDS
        assert len(boxes) == min(2, masks[i, NUM_HOLDS:].sum())
        assert holds.tolist() == (np.flatnonzero(masks[i, :NUM_HOLDS]).tolist())
        for h in holds[::7]:
            assert values[i, h] == pytest.approx(_brute_hold(agent, state, i, int(h)), abs=1e-6)
        for a in boxes:
            assert values[i, a] == pytest.approx(_brute_box(agent, state, i, int(a)), abs=1e-6)


def test_the_boxes_valued_are_the_policys_likeliest():
    agent = LearnedAgent(MODEL, lookahead=1)
    state = positions()
    rows = np.arange(state.num_tables)
    masks = state.masks(rows).astype(bool)
    values = action_values(agent.net, agent.critic, state, masks, YACHT, 1, distinct_holds=True)
    logits = agent.net(policy_input(observe(state, rows), state.dice, agent.config, YACHT))
    best_box = np.where(masks[:, NUM_HOLDS:], logits[:, NUM_HOLDS:], -np.inf).argmax(axis=1) + NUM_HOLDS
    assert (np.isfinite(values[:, NUM_HOLDS:]).sum(axis=1) == 1).all()
    assert np.isfinite(values[rows, best_box]).all()


def test_with_no_rolls_left_only_boxes_are_valued():
    state = State(YACHT, 1, 1)
    state.reset(game_seeds(1, last=np.arange(1)))
    state.set_scores(0, 0, [[1, 2, 3, 4, 5, 6, 10, 0, 25, 30, 40, -1, -1]])
    state.ints[0, 0] = 11
    state.put_rolls([0], [roll_index([6, 6, 6, 6, 6])], 3)
    agent = LearnedAgent(MODEL, lookahead=13)
    masks = state.masks([0]).astype(bool)
    values = action_values(agent.net, agent.critic, state, masks, YACHT, 13, True)[0]
    assert values[NUM_HOLDS + 11] > values[NUM_HOLDS + 12]      # five sixes: the Yacht before chance
    assert not np.isfinite(values[:NUM_HOLDS]).any()             # no rolls left: no holds


@pytest.mark.parametrize("name,overrides,specs", [
    ("yacht", {}, [SPEC]),
    ("yacht", {}, [SPEC, "greedy", SPEC]),
    ("yacht", {"rolls_per_turn": 2}, [f"learned?lookahead=2&insist=1:{MODEL}"]),
])
def test_games_are_the_same_batched_or_one_at_a_time(name, overrides, specs):
    rules = load(name, **overrides)
    assert_same(*both_ways(rules, specs, game_seeds(13, last=np.arange(4))))


def test_evaluation_is_the_same_batched_or_not():
    agent = make_agent(SPEC)
    batched = solitaire(agent, YACHT, 6, seed=8, progress=False)
    single = solitaire(OneGameAtATime(agent), YACHT, 6, seed=8, progress=False)
    assert np.array_equal(batched["totals"], single["totals"])


def test_lookahead_zero_is_the_policy():
    a, b = make_agent(f"learned?lookahead=0:{MODEL}"), make_agent(f"learned:{MODEL}")
    assert np.array_equal(solitaire(a, YACHT, 8, seed=1, progress=False)["totals"],
                          solitaire(b, YACHT, 8, seed=1, progress=False)["totals"])


@pytest.mark.parametrize("value", ["-1", "1.5", "nan", "inf", "65", "x"])
def test_bad_lookahead_values(value):
    with pytest.raises(AgentSpecError, match="lookahead"):
        make_agent(f"learned?lookahead={value}:{MODEL}")


def test_table_models_cannot_look_ahead():
    with pytest.raises((AgentSpecError, ValueError), match="cannot look ahead: it was trained at a table of 4 seats"):
        make_agent("learned?lookahead=3:models/ppo-win4.pt")


def test_team_tables_are_the_same_batched_or_one_at_a_time():
    """Partners share a sheet; the look-ahead plays it as one player alone would (`State.solo`)."""
    rules = load("yacht", teams=2)
    assert_same(*both_ways(rules, [SPEC, "greedy", SPEC, "random"], game_seeds(17, last=np.arange(3))))


def test_put_rolls_and_solo():
    state = State(YACHT, 2, 3)
    state.reset(game_seeds(2, last=np.arange(2)))
    state.roll([0, 1])
    state.play([0, 1], [NUM_HOLDS + 5, NUM_HOLDS + 6])
    state.roll([0, 1])
    solo = state.solo([1, 0])
    assert np.array_equal(observe(solo, [0, 1]), observe(state, [1, 0]))
    copies = solo.repeat([0], 3)
    copies.put_rolls([0, 1, 2], [0, 100, 251], [1, 2, 3])
    assert copies.dice.tolist() == [ROLLS[0].tolist(), ROLLS[100].tolist(), ROLLS[251].tolist()]
    assert copies.ints[:, ROLL].tolist() == [0, 100, 251] and copies.ints[:, ROLLS_USED].tolist() == [1, 2, 3]
    assert copies.preview[2, 0, 11] == 50                        # five sixes score the open Yacht box
    for rolls, used in (([252], [1]), ([-1], [1]), ([0], [0]), ([0], [4])):
        with pytest.raises(ValueError, match="rolls must be"):
            copies.put_rolls([0], rolls, used)


@pytest.mark.parametrize("key,value", [("reward_scale", 0), ("reward_scale", float("nan")), ("reward_scale", "x"),
                                       ("reward_scale", -1), ("upper_shaping", float("inf")), ("upper_shaping", True),
                                       ("reward", "win"), ("reward_scale", 1e300)])
def test_a_crafted_critic_config_is_refused(tmp_path, key, value):
    import json

    import torch
    raw = torch.load(MODEL, map_location="cpu", weights_only=True)
    cfg = json.loads(raw["config"])
    cfg[key] = value
    path = tmp_path / "crafted.pt"
    torch.save({**raw, "config": json.dumps(cfg)}, path)
    with pytest.raises((AgentSpecError, ValueError), match=f"cannot look ahead: .*{key}"):
        make_agent(f"learned?lookahead=3:{path}")
    make_agent(f"learned:{path}")          # the policy alone does not read them
