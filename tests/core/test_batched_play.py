"""Batched play gives the same games as one `Game` at a time: same dice, same moves, same logs, same places.

Every built-in batched agent, under every preset and the knobs rolls_per_turn, columns, teams, joker,
extra_yacht_bonus and tiebreak, alone and at mixed tables; the per-game side is `play_game` (the agent
answers `act(view)`), the batched side the engine's lockstep runner. The named levels (easy, normal: the
dial at a strength found per rule set) play under the configurations whose settings are quick to find.
"""
import numpy as np
import pytest
from tests.fake_agents import BatchedIllegal, OneGameAtATime
from tests.same_games import assert_same, both_ways
from tests.solver_tables import temp_cache

from agents.evaluation import head_to_head, solitaire
from agents.registry import make_agent
from yacht_env.core.dice_source import game_seeds
from yacht_env.core.engine import State
from yacht_env.core.game import Game
from yacht_env.core.lockstep import PlayerError, play
from yacht_env.rules import load

CONFIGS = [("yacht", {}), ("verhoeff", {}), ("kirakuken", {}), ("classic", {}), ("cheerio", {}), ("extended", {}),
           ("knizia", {}), ("yacht", {"rolls_per_turn": 1}), ("yacht", {"rolls_per_turn": 2}),
           ("classic", {"rolls_per_turn": 4}), ("yacht", {"columns": 2}), ("classic", {"columns": 3}),
           ("yacht", {"joker": "free"}), ("yacht", {"joker": "none"}), ("yacht", {"extra_yacht_bonus": False}),
           ("classic", {"tiebreak": "sudden_death"})]
IDS = [f"{n}-{'-'.join(f'{k}={v}' for k, v in o.items()) or 'preset'}" for n, o in CONFIGS]
# the levels' settings are found once per rule set (a few seconds each): rule sets the ladder test finds too
LEVEL_CONFIGS = [("yacht", {}), ("kirakuken", {}), ("classic", {}), ("knizia", {}), ("yacht", {"rolls_per_turn": 1}),
                 ("yacht", {"rolls_per_turn": 2})]
DIAL = "strong?strength=0.6"


@pytest.fixture(autouse=True)
def cache():
    with temp_cache():
        yield


@pytest.mark.parametrize("name,overrides", CONFIGS, ids=IDS)
@pytest.mark.parametrize("spec", ["random", "greedy", "strong", DIAL])
def test_solitaire_games_are_the_same(name, overrides, spec):
    rules = load(name, **overrides)
    assert_same(*both_ways(rules, [spec], game_seeds(7, last=np.arange(6))))


@pytest.mark.parametrize("name,overrides", LEVEL_CONFIGS, ids=[IDS[CONFIGS.index(c)] for c in LEVEL_CONFIGS])
def test_the_levels_play_the_same_games(name, overrides):
    rules = load(name, **overrides)
    n = min(2, rules.max_players)
    assert_same(*both_ways(rules, ["easy", "normal"][:n], game_seeds(9, last=np.arange(4))))


@pytest.mark.parametrize("name,overrides", [("yacht", {}), ("classic", {"tiebreak": "sudden_death"}),
                                            ("yacht", {"columns": 2}), ("yacht", {"rolls_per_turn": 2})])
def test_mixed_tables_are_the_same(name, overrides):
    rules = load(name, **overrides)
    assert_same(*both_ways(rules, ["strong", "random", "greedy", DIAL], game_seeds(3, last=np.arange(5))))


def test_team_tables_are_the_same():
    rules = load("yacht", teams=2)
    assert_same(*both_ways(rules, ["strong", "random", "normal", DIAL], game_seeds(5, last=np.arange(4))))


def test_ties_go_to_the_sudden_death_roll_off():
    rules = load("classic", tiebreak="sudden_death", rolls_per_turn=1)
    seeds = game_seeds(11, last=np.arange(300))
    games, state, logs = both_ways(rules, ["greedy", "greedy"], seeds)   # same player, same dice: ties
    assert_same(games, state, logs)
    assert any(g.tiebreak() for g in games)


@pytest.mark.parametrize("spec", ["random", "greedy", "strong", DIAL, "easy", "level?pct=80"])
def test_evaluation_is_the_same_batched_or_not(spec):
    rules = load("yacht")
    agent = make_agent(spec)
    batched = solitaire(agent, rules, 20, seed=4, progress=False)
    single = solitaire(OneGameAtATime(agent), rules, 20, seed=4, progress=False)
    for key in ("totals", "boxes", "upper_bonus"):
        assert np.array_equal(batched[key], single[key])


def test_head_to_head_is_the_same_batched_or_not():
    rules = load("classic", tiebreak="sudden_death")
    a, b = make_agent("strong"), make_agent("normal")
    batched = head_to_head(a, b, rules, 30, seed=2, progress=False)
    assert head_to_head(OneGameAtATime(a), OneGameAtATime(b), rules, 30, seed=2, progress=False) == batched


def test_an_illegal_batched_answer_is_refused_and_not_played():
    rules = load("yacht")
    state = State(rules, 3, 1)
    state.reset([1, 2, 3])
    with pytest.raises(PlayerError, match="illegal action"):
        play(state, [BatchedIllegal()])
    assert (state.ints[:, 0] == 1).all()       # the first turn was played; the illegal second move was not


def test_first_player_by_roll_off():
    """Seed 003: every seat rolls one die, the highest starts, ties roll again; the same in batches."""
    rules = load("classic", first_player="roll_off")
    starts = [Game(rules, 3, seed=int(s)).first_seat for s in game_seeds(2, last=np.arange(60))]
    assert set(starts) == {0, 1, 2}
    g = Game(rules, 3, seed=5)
    rounds = g.roll_off_dice
    assert rounds and len(rounds[-1]) >= 1 and all(len(r) >= 2 for r in rounds[:-1] or [[0, 0]])
    winner_round = rounds[-1]
    assert winner_round.count(max(winner_round)) == 1
    assert Game(rules, 3, seed=5, first_seat=2).first_seat == 2 and Game(load("classic"), 3, seed=5).first_seat == 0
    assert g.rematch().first_seat == (g.first_seat + 1) % 3
    assert_same(*both_ways(rules, ["strong", "random", "greedy"], game_seeds(9, last=np.arange(6))))
