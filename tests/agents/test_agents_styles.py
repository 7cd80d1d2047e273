"""Random, greedy, easy, normal and the dial: legal play for every rule set, seat count, column and team knob;
determinism; greedy's choices; and the ladder order on fixed dice."""
import numpy as np
import pytest
from tests.five_dice import five_dice_presets
from tests.solver_tables import temp_cache

from agents.base import View, play_game
from agents.registry import make_agent
from agents.simple import greedy_action
from yacht_env.core.actions import NUM_HOLDS
from yacht_env.core.dice_source import ScriptedDice
from yacht_env.core.game import Game
from yacht_env.rules import load

SPECS = ["random", "greedy", "easy", "normal"]


@pytest.fixture(autouse=True)
def cache():
    with temp_cache():
        yield


@pytest.mark.parametrize("preset", five_dice_presets())
def test_every_agent_finishes_every_preset(preset):
    rules = load(preset)
    n = min(2, rules.max_players)
    for spec in SPECS:
        g = play_game(Game(rules, n, seed=11), [make_agent(spec) for _ in range(n)])
        assert g.is_over and all(t >= 0 for t in g.totals())


@pytest.mark.parametrize("overrides, players, specs", [
    ({"columns": 3}, 2, ["strong?strength=0.5", "greedy"]), ({"teams": 2}, 4, SPECS), ({"rolls_per_turn": 4}, 1, SPECS),
    ({"joker": "free"}, 1, SPECS), ({"extra_yacht_bonus": False}, 3, SPECS)])
def test_agents_follow_rule_knobs(overrides, players, specs):
    rules = load("yacht", **overrides)
    agents = [make_agent(specs[i % len(specs)]) for i in range(players)]
    g = play_game(Game(rules, players, seed=2), agents)
    assert g.is_over


def test_same_seed_same_game():
    for spec in [*SPECS, "strong?strength=0.4"]:
        logs = [play_game(Game("yacht", 2, seed=7), [make_agent(spec), make_agent(spec)]).log for _ in range(2)]
        assert logs[0] == logs[1]


def test_greedy_scores_the_best_box_and_never_rerolls():
    # 6 6 6 6 6 first: the yacht box pays 50; then 2 3 4 5 6: the large straight pays 40
    g = Game("yacht", 1, dice=ScriptedDice([6] * 5 + [2, 3, 4, 5, 6]))
    agent = make_agent("greedy")
    agent.reset(g.rules, 0, 1, seed=0)
    g.roll()
    assert g.action_name(agent.act(View.of(g))) == "score yacht"
    g.apply(agent.act(View.of(g)))
    g.roll()
    assert g.action_name(agent.act(View.of(g))) == "score large_straight"


def test_greedy_counts_the_upper_bonus():
    # upper at 60 with fives open: 5 5 1 1 2 pays 10 + 35 bonus in fives, more than chance (14)
    g = Game("yacht", 1, dice=ScriptedDice([5, 5, 1, 1, 2]))
    scores = g.sheets[0].scores.copy()
    for box, pts in [("ones", 3), ("twos", 6), ("threes", 9), ("fours", 16), ("sixes", 26)]:
        scores[0, g.rules.boxes.index(box)] = pts
    g.set_sheet(0, scores)
    assert g.sheets[0].upper[0] == 60
    g.roll()
    assert g.action_name(greedy_action(View.of(g))) == "score fives"


def test_ladder_order_on_fixed_dice():
    totals = {spec: np.mean([play_game(Game("yacht", 1, seed=s), [make_agent(spec)]).totals()[0]
                             for s in range(25)]) for spec in [*SPECS, "strong"]}
    assert totals["random"] < totals["greedy"] < totals["easy"] < totals["normal"] < totals["strong"]


def test_agents_only_choose_legal_actions():
    rng = np.random.default_rng(0)
    for spec in [*SPECS, "strong?strength=0.2"]:
        agent = make_agent(spec)
        for seed in rng.integers(0, 2**32, 3):
            g = Game("yacht", 1, seed=int(seed))
            agent.reset(g.rules, 0, 1, seed=int(seed))
            while not g.is_over:
                if g.phase == "roll":
                    g.roll()
                    continue
                a = agent.act(View.of(g))
                assert g.legal_mask()[a] == 1 and (a >= NUM_HOLDS or g.rolls_left > 0)
                g.apply(a)
