"""The same games played two ways: one `Game` at a time through `play_game` (the agent answers `act(view)`) and
batched through the engine's lockstep runner (tests/core/test_batched_play.py, and wherever an agent must play
the same games batched as one at a time)."""
import numpy as np

from agents.base import play_game
from agents.registry import make_agent
from tests.solver_tables import solve_once
from yacht_env.core.engine import State
from yacht_env.core.game import Game
from yacht_env.core.lockstep import Record, play, sheet_ranks
from yacht_env.rules import load


def both_ways(rules, specs, seeds):
    """(per-game Games, batched State, batched logs) for one table of len(specs) seats per seed."""
    if any(s.split("?")[0] in ("strong", "easy", "normal", "level") for s in specs):
        solve_once(load(rules, columns=1))
    players = [make_agent(s) for s in specs]
    games = [play_game(Game(rules, len(specs), seed=int(s)), players) for s in seeds]
    state, record = play_batched(rules, players, seeds, Record(len(seeds)))
    return games, state, record.logs(rules)


def play_batched(rules, players, seeds, record=None):
    """(State, record) after one table of len(players) seats per seed, played batched by the lockstep runner."""
    state = State(rules, len(seeds), len(players))
    state.reset(np.asarray(seeds, np.uint64))
    play(state, players, np.tile(np.arange(len(players)), (len(seeds), 1)), record=record)
    return state, record


def assert_same(games, state, logs):
    """The per-game and the batched side of `both_ways` played the same games: same moves, totals, scores, ranks."""
    ranks = sheet_ranks(state)
    for i, g in enumerate(games):
        assert logs[i] == g.log, f"table {i}: moves differ"
        assert state.totals[i].tolist() == g.sheet_totals()
        assert state.scores[i].tolist() == [s.scores.tolist() for s in g.sheets]
        assert ranks[i].tolist() == g.sheet_ranks()


def batched_as_alone(rules, specs, seeds) -> list:
    """One table of len(specs) seats per seed, played one `Game` at a time and batched twice with fresh agents:
    with a record (the same logs) and without one (where `strong` plays its kept plans in compiled code: the same
    totals). Returns the per-game Games, for a test's further checks."""
    alone = [play_game(Game(rules, len(specs), seed=int(s)), [make_agent(x) for x in specs]) for s in seeds]
    _, record = play_batched(rules, [make_agent(x) for x in specs], seeds, Record(len(seeds)))
    assert record.logs(rules) == [g.log for g in alone]
    fast, _ = play_batched(rules, [make_agent(x) for x in specs], seeds)
    assert fast.totals.tolist() == [[int(t) for t in g.totals()] for g in alone]
    return alone
