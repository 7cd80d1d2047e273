"""`yacht play` under saved rolls (`--set saved_rolls=2`): the person scores the first roll, then rolls five
times in the next turn; the dice line says the re-rolls left with the saved ones, the scorecard has a row of
each sheet's saved rolls, every score says the rolls saved, and without saved rolls none of it is printed."""
import io
import json
import re

from agents.base import View
from agents.human import dice_line, scorecard
from yacht_arena.cli import main
from yacht_env.core.game import Game
from yacht_env.rules import load

BOXES = load("yatzy").boxes


def test_a_terminal_game_that_saves_rolls_and_spends_them(monkeypatch, capsys):
    lines = ["score chance", ""] + ["roll"] * 4 + ["roll", "score ones", ""]
    lines += [x for b in BOXES if b not in ("chance", "ones") for x in (f"score {b}", "")] + ["n"]
    monkeypatch.setattr("sys.stdin", io.StringIO("\n".join(lines) + "\n"))
    assert main(["play", "--rules", "yatzy", "--set", "saved_rolls=2", "--vs", "greedy", "--seed", "3",
                 "--json"]) == 0
    captured = capsys.readouterr()
    events = [json.loads(line) for line in captured.out.splitlines()]
    mine = [e for e in events if e["event"] in ("roll", "score") and e["seat"] == 0]
    turns, rolls = [], 0
    for e in mine:
        if e["event"] == "roll":
            rolls += 1
        else:
            turns.append(rolls)
            rolls = 0
    assert turns[:3] == [1, 5, 1] and len(turns) == len(BOXES)
    assert [e["rolls_left"] for e in mine if e["event"] == "roll"][1:6] == [4, 3, 2, 1, 0]
    err = captured.err
    assert "(2 re-rolls left, 0 saved)" in err                      # turn 1
    assert "(4 re-rolls left, 2 saved)" in err and "(1 re-roll left, 1 saved)" in err
    assert "(0 re-rolls left, 0 saved)" in err
    assert "no re-rolls left this turn: score a box" in err           # the fifth 'roll' of turn 2
    assert re.search(r"scored \d+ in chance, 2 rolls saved for later turns", err)
    assert re.search(r"scored \d+ in ones, 0 rolls saved for later turns", err)
    assert re.search(r"(?i)greedy scores \d+ in \w+ with \[[\d, ]+\], 2 rolls saved for later turns", err)
    assert re.search(r"\nsaved rolls +\d+ +2\n", err)                # the final scorecard
    assert events[-1]["event"] == "end"


def test_without_saved_rolls_nothing_is_said_of_them():
    game = Game("yatzy", 2, seed=1)
    game.roll()
    view = View.of(game)
    assert dice_line(view).endswith("(2 re-rolls left)") and "saved" not in scorecard(game, preview_sheet=0)
    saving = Game(load("yatzy", saved_rolls=3), 2, seed=1)
    saving.roll()
    assert dice_line(View.of(saving)).endswith("(2 re-rolls left, 0 saved)")
    assert scorecard(saving).splitlines()[-1].split() == ["saved", "rolls", "0", "0"]
