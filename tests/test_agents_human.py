"""Human play in the terminal, driven by scripted input: commands, typos, undo, whole games."""
import io

import pytest

from agents.base import View
from agents.commands.play import play
from agents.human import HumanAgent, HumanQuit, parse_command, scorecard
from agents.simple import GreedyAgent
from tournaments.cli import main
from yacht_env.dice_source import ScriptedDice
from yacht_env.game import Game


def view_of(dice, rules="yacht", rolls=1, **overrides):
    g = Game(rules, 1, dice=ScriptedDice(list(dice) * 3), **overrides)
    g.roll()
    for _ in range(rolls - 1):
        g.roll(0)
    return View.of(g)


def test_hold_by_position_and_roll():
    v = view_of([1, 2, 3, 4, 6])
    assert parse_command("hold 1 3 5", v) == 0b10101
    assert parse_command("h 135", v) == 0b10101
    assert parse_command("H 1,3,5", v) == 0b10101
    assert parse_command("roll", v) == 0


def test_score_by_name_prefix_and_spaces():
    v = view_of([2, 2, 3, 3, 3])
    boxes = v.rules.boxes
    assert parse_command("score full_house", v) == 31 + boxes.index("full_house")
    assert parse_command("full house", v) == 31 + boxes.index("full_house")
    assert parse_command("s CHANCE", v) == 31 + boxes.index("chance")
    assert parse_command("three_of", v) == 31 + boxes.index("three_of_a_kind")
    with pytest.raises(ValueError, match="'thr' could be threes, three_of_a_kind: type more of the name"):
        parse_command("thr", v)


@pytest.mark.parametrize("line, message", [
    ("", "type a command: hold 1 3 5, roll, score BOX"),
    ("hold 6", "'6' is not a die position: positions are 1 to 5"),
    ("hold 0", "'0' is not a die position"),
    ("hold 1 1", "die 1 is given twice"),
    ("hold x", "'x' is not a die position"),
    ("hold", "hold which dice? give positions 1-5"),
    ("hold 12345", "holding all five dice re-rolls nothing: score a box instead"),
    ("roll 1 2", "'roll' re-rolls all five dice and takes nothing after it; to keep dice: hold 1 2"),
    ("1 3", "to keep dice, type: hold 1 3"),
    ("score", "score which box? open: ones, twos"),
    ("fulhouse", "unknown command or box 'fulhouse'; did you mean full_house"),
    ("xyzzy", "unknown command or box 'xyzzy'; boxes: ones, twos"),
    ("f", "'f' could be fours, fives, four_of_a_kind, full_house: type more of the name"),
    ("undo", "nothing to undo: undo works right after you score, until the next roll"),
])
def test_typo_messages(line, message):
    with pytest.raises(ValueError) as e:
        parse_command(line, view_of([1, 2, 3, 4, 6]))
    assert message in str(e.value)


def test_no_rolls_left_and_filled_box():
    v = view_of([1, 2, 3, 4, 6], rolls=3)
    with pytest.raises(ValueError, match="no re-rolls left this turn: score a box"):
        parse_command("hold 1", v)
    scores = v.game.sheets[0].scores.copy()
    scores[0, v.rules.boxes.index("chance")] = 20
    v.game.set_sheet(0, scores)
    v = View.of(v.game)
    with pytest.raises(ValueError, match="chance is already filled; open: ones"):
        parse_command("chance", v)


def test_columns_need_a_column():
    v = view_of([1, 2, 3, 4, 6], columns=2)
    assert parse_command("chance@2", v) == 31 + 13 + v.rules.boxes.index("chance")
    assert parse_command("chance 2", v) == 31 + 13 + v.rules.boxes.index("chance")
    with pytest.raises(ValueError, match=r"which column\? type chance@1 .. chance@2"):
        parse_command("chance", v)
    with pytest.raises(ValueError, match="column '3' does not exist: columns are 1 to 2"):
        parse_command("chance@3", v)


def test_scorecard_shows_what_open_boxes_would_score():
    v = view_of([2, 3, 4, 5, 6])
    card = scorecard(v.game, {0: "you"}, preview_sheet=0)
    assert "large_straight" in card and "(40)" in card and "(20)" in card


def session(lines, opponents=1, dice=None, seed=1):
    out = io.StringIO()
    human = HumanAgent(io.StringIO("".join(line + "\n" for line in lines)), out, {0: "you", 1: "cpu"})
    g = Game("yacht", 1 + opponents, seed=seed, dice=dice)
    agents = [human] + [GreedyAgent() for _ in range(opponents)]
    for s, a in enumerate(agents):
        a.reset(g.rules, s, g.num_players, seed=s)
    try:
        play(g, agents, 0, human, {0: "you", 1: "cpu"})
    except HumanQuit:
        pass
    return g, out.getvalue()


def test_undo_gives_the_same_dice_back():
    g, text = session(["chance", "undo", "ones", "", "quit"], opponents=0, dice=ScriptedDice([1, 1, 2, 3, 5] * 4))
    sheet = g.sheets[0]
    boxes = g.rules.boxes
    assert "scored 12 in chance" in text and "undone: same dice, choose again" in text
    assert sheet.scores[0, boxes.index("chance")] == -1 and sheet.scores[0, boxes.index("ones")] == 2
    assert text.count("[1]  [1]  [2]  [3]  [5]") >= 2


def test_undo_is_only_offered_until_the_next_roll():
    g, text = session(["ones", "", "undo", "quit"], opponents=1)
    assert "nothing to undo: undo works right after you score" in text


def test_after_score_prompt_rejects_other_input():
    g, text = session(["chance", "hold 1", "", "quit"], opponents=0)
    assert "'hold 1': press Enter to go on, or type undo" in text


def test_whole_game_against_a_cpu_from_the_command_line(monkeypatch, capsys):
    boxes = Game("yacht").rules.boxes
    script = "".join(f"score {b}\n\n" for b in reversed(boxes))   # from chance down to ones
    monkeypatch.setattr("sys.stdin", io.StringIO(script))
    assert main(["play", "--vs", "greedy", "--seed", "3"]) == 0
    text = capsys.readouterr().out
    assert "winner:" in text and text.count("scored ") == len(boxes)


def test_end_of_input_abandons_the_game(monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO("hold 1\n"))
    assert main(["play", "--vs", "easy"]) == 0
    assert "game abandoned" in capsys.readouterr().out


@pytest.mark.parametrize("argv, message", [
    (["play", "--vs", "nobody"], "unknown agent 'nobody'"),
    (["play", "--seat", "3"], "--seat must be 1..2 with 1 opponent(s), got 3"),
    (["play", "--vs"] + ["random"] * 8, "allow 1 to 8 players; you and 8 CPU(s) make 9"),
    (["play", "--set", "teams=2", "--vs", "random", "random"], "3 players cannot split into 2 teams"),
])
def test_play_argument_errors(argv, message, capsys):
    assert main(argv) == 2
    assert message in capsys.readouterr().err
