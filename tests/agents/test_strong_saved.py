"""The solver's players under saved rolls (`saved_rolls`), on a four-box rule set solved in a moment: strong plays
the solved value on average, strong and the dial play the same games batched, one game at a time and through the
compiled fast path, the analysis values their moves (strong's all optimal), and what does not follow saved rolls
(playing to win, risk-taking, several columns) is refused with its reason."""
import numpy as np
import pytest
from tests.same_games import batched_as_alone
from tests.solver_tables import solve_once, temp_cache, tiny_saved

from agents.analysis import AnalysisError, analyze, solution_of
from agents.base import play_game
from agents.registry import make_agent
from agents.strong import StrongAgent
from yacht_env.core.game import Game
from yacht_env.solver import Unsolvable
from yacht_env.solver.risk import risk_values
from yacht_env.solver.simulate import simulate


@pytest.fixture(autouse=True)
def cache():
    with temp_cache():
        yield


@pytest.fixture(scope="module")
def solved():
    rules = tiny_saved(2)
    return rules, solve_once(rules)


def test_strong_scores_the_solved_value_within_its_interval(solved):
    rules, solution = solved
    games = 20_000
    scores = simulate(rules, solution, np.arange(games, dtype=np.uint64) + 7)
    half = 2.576 * solution.std / np.sqrt(games)
    assert abs(scores.mean() - solution.expected_score) < half, (scores.mean(), solution.expected_score, half)


def test_strong_one_game_at_a_time_plays_the_simulated_games(solved):
    rules, solution = solved
    seeds = list(range(12))
    agent = StrongAgent()
    games = [play_game(Game(rules, seed=g), [agent]) for g in seeds]
    assert [g.totals()[0] for g in games] == simulate(rules, solution, seeds).tolist()


def test_strong_and_the_dial_play_the_same_games_batched_and_one_at_a_time(solved):
    rules, solution = solved
    seeds = np.arange(8, dtype=np.uint64)
    specs = ["strong", "strong?strength=0.6"]
    alone = batched_as_alone(rules, specs, seeds)
    # the analysis: strong's every decision optimal, the dial's lose what they lose, turns longer than three rolls
    records = [{"agents": specs, "log": [dict(e) for e in g.log]} for g in alone]
    a = analyze(records, rules, solution)
    assert len(a.rec) > 0 and (a.loss[a.seat == 0] == 0).all() and (a.loss[a.seat == 1] > 0).any()
    assert (a.loss >= 0).all() and a.left.max() > rules.rolls_per_turn - 1
    rows = a.game(0)
    assert max(r["roll"] for r in rows) > rules.rolls_per_turn and min(r["roll"] for r in rows) == 1
    # a game's first decision: the optimum plus what its first roll was worth, valued from the solved table
    d0 = int(np.flatnonzero((a.rec == 0) & (a.seat == 0))[0])
    assert a.left[d0] == rules.rolls_per_turn - 1 and a.best_value[d0] == a.played_value[d0]


def test_what_does_not_follow_saved_rolls_is_refused(solved):
    rules, solution = solved
    with pytest.raises(ValueError, match=r"carry unused rolls to later turns \(saved_rolls 2\): playing to win"):
        make_agent("strong?goal=win").check_rules(rules, 2)
    with pytest.raises(Unsolvable, match="risk-taking play"):
        risk_values(rules, solution.space, 0.05)
    wide = tiny_saved(1, columns=2)
    with pytest.raises(ValueError, match="several columns' additive play"):
        StrongAgent().check_rules(wide, 1)
    with pytest.raises(AnalysisError, match="several columns' additive play"):
        solution_of(wide)
