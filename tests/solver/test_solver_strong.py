"""The strong agent plays the solver's policy: same games as the batch simulator, mean within the 99% CI."""
import numpy as np
import pytest
from tests.solver_tables import PAST_MEMORY, past_memory, solved, temp_cache

from agents.base import play_game
from agents.simple import GreedyAgent
from agents.strong import StrongAgent
from yacht_env.core.game import Game
from yacht_env.rules import load
from yacht_env.solver.simulate import simulate


@pytest.fixture
def cache(monkeypatch):
    with temp_cache() as d:
        monkeypatch.setenv("YACHT_CACHE_DIR", d)
        yield d


@pytest.mark.parametrize("name,overrides", [("yacht", {}), ("classic", {"rolls_per_turn": 2})])
def test_agent_plays_the_simulated_policy(cache, name, overrides):
    rules, s = solved(name, **overrides)
    agent = StrongAgent()
    seeds = list(range(12))
    played = [play_game(Game(rules, seed=g), [agent]).totals()[0] for g in seeds]
    assert played == simulate(rules, s, seeds).tolist()


@pytest.mark.parametrize("name,games", [("yacht", 8000), ("kirakuken", 4000), ("extended", 4000)])
def test_mean_score_within_99_percent_ci(name, games):
    rules, s = solved(name)
    scores = simulate(rules, s, np.arange(10_000, 10_000 + games))
    half = 2.576 * s.std / np.sqrt(games)
    assert abs(scores.mean() - s.expected_score) < half, (scores.mean(), s.expected_score, half)
    assert abs(scores.std() - s.std) < 0.05 * s.std


def test_same_seed_same_scores():
    rules, s = solved("classic")
    assert np.array_equal(simulate(rules, s, [5, 6, 7]), simulate(rules, s, [5, 6, 7]))


def _mean(rules, agent, seeds, players=1):
    return np.mean([play_game(Game(rules, players, seed=g), [agent] * players).totals()[0] for g in seeds])


def test_several_columns_play_column_additive(cache):
    solved("classic")
    rules = load("classic", columns=2)
    strong, greedy = _mean(rules, StrongAgent(), range(4)), _mean(rules, GreedyAgent(), range(4))
    assert strong > greedy + 40  # about 2 x 167 against greedy's far lower play


def test_multiplayer_and_teams_play_their_own_sheet(cache):
    rules, s = solved("classic")
    solitaire = simulate(rules, s, [3])[0]  # sheet 0 sees the same dice in all three games
    two = Game(load("classic"), 2, seed=3)
    play_game(two, [StrongAgent(), StrongAgent()])
    assert two.is_over and two.totals()[0] == solitaire
    team = Game(load("classic", teams=2), 4, seed=3)
    play_game(team, [StrongAgent() for _ in range(4)])
    assert team.is_over and team.totals()[0] == team.totals()[2] == solitaire  # seats 0 and 2 share sheet 0


def test_unsolvable_rules_fail_clearly(cache):
    with pytest.raises(ValueError, match="strong cannot play rules 'big': .*" + PAST_MEMORY):
        StrongAgent().reset(load(past_memory()), 0, 1)
