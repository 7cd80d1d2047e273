"""Saved rolls above the engine: a tournament under `saved_rolls` stores the same games batched and one game at a
time with 1 and 2 workers, its records show turns longer than three rolls and are analysed, and `yacht verify`
replays every roll from the seeds; an external bot is told each sheet's saved rolls."""
import json
import sys
from pathlib import Path

import pytest

from agents.external import decide_message
from tests.fake_agents import PER_GAME
from tests.mini_rules import MINI
from tournaments.config import parse_config
from tournaments.store import Store
from tournaments.run import run_tournament
from yacht_arena.cli import main
from yacht_env.core.game import Game
from yacht_env.core.view import View
from yacht_env.rules import load

EXAMPLE_BOT = {"name": "bot", "agent": f"external:{sys.executable} "
                                       f"{Path(__file__).resolve().parents[2] / 'scripts' / 'example_bot.py'}"}


@pytest.fixture
def saved(tmp_path):
    """`mini` (tests/mini_rules.py, solved in seconds for the analysis) with up to three saved rolls."""
    path = tmp_path / "mini.yaml"
    path.write_text(MINI)
    return {"rules": str(path), "set": {"saved_rolls": 3}}


def turn_lengths(log):
    """The rolls of each turn of a game log."""
    out, n = [], 0
    for e in log:
        if "dice" in e:
            n += 1
        else:
            out.append(n)
            n = 0
    return out


@pytest.mark.parametrize("workers", [1, 2])
def test_a_saved_rolls_tournament_stores_the_same_games_every_way(tmp_path, workers, capsys, saved):
    config = parse_config({**saved, "entrants": ["random", "greedy", EXAMPLE_BOT], "games": 3, "seed": 3,
                           "move_timeout": None})
    a, b = tmp_path / "batched", tmp_path / "single"
    run_tournament(config, out=a, progress=False)
    run_tournament(config, out=b, progress=False, factory=PER_GAME, workers=workers, analysis=False)
    ra, rb = Store(a).records(), Store(b).records()
    assert sorted(ra) == sorted(rb) and len(ra) == config.total_games
    assert all(ra[k] == rb[k] for k in ra)
    longest = max(n for r in ra.values() for n in turn_lengths(r["log"]))
    assert 3 < longest <= 6
    report = (a / "report.md").read_text()
    assert "cannot be analysed" not in report and "greedy" in report
    capsys.readouterr()
    assert main(["verify", str(a), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["all_match"] and doc["total"] == config.total_games


def test_a_bot_is_told_every_sheets_saved_rolls():
    rules = load("yatzy", saved_rolls=2)
    game = Game(rules, 2, seed=5)
    game.roll()
    game.score("chance")                    # seat 0 scores on its first roll: two rolls saved
    game.roll()
    msg = decide_message(View.of(game))
    assert msg["saved_rolls"] == [2, 0] and msg["rolls_left"] == 2
    plain = Game("yatzy", 1, seed=1)
    plain.roll()
    assert "saved_rolls" not in decide_message(View.of(plain))
