"""Six dice above the engine: the agents that need no solver play whole games, tournaments and their records
(read back, verified by `yacht verify`), the terminal game holds six positions, an external bot plays hold
masks up to 62 (63 is the first box); the solver's commands take six dice, and under Maxi Yatzy what needs more
than its values (the levels' calibration, playing to win) is refused with one message before any solve."""
import io
import json
import re
import sys
import textwrap
from pathlib import Path

import pytest

from agents.base import check_playable, play_game
from agents.external import ExternalAgent
from agents.human import parse_command
from agents.registry import make_agent
from tests.scripts import load_script
from tournaments.config import parse_config
from tournaments.gamelog import GAMES, read
from tournaments.run import run_tournament
from yacht_arena.cli import main
from yacht_env.config import ConfigError
from yacht_env.core.actions import num_actions, num_holds
from yacht_env.core.dice_source import ScriptedDice
from yacht_env.core.game import Game
from yacht_env.core.view import View
from yacht_env.rules import load

# A small six-dice rule set: five boxes, so whole games take a few turns.
SIX = """\
name: six_small
description: six dice, five boxes
dice: 6
boxes:
  - {id: ones, kind: upper, face: 1}
  - {id: sixes, kind: upper, face: 6}
  - {id: two_pairs, kind: pairs, count: 2, points: matching}
  - {id: chance, kind: chance}
  - {id: maxi_yatzy, kind: yacht, points: 100}
upper_bonus: {threshold: 12, points: 20}
"""
SOLVER_SPECS = ["strong", "easy", "normal", "level?pct=90", "strong?strength=0.5", "strong?goal=win",
                "normal?goal=win"]
LEVELS_REFUSAL = "the named levels have no calibration for rules 'maxi', and one is not found on first use"
WIN_REFUSAL = "plays by the score distributions of optimal play: the score distributions of rules 'maxi' are out of"
EXAMPLE_BOT = {"name": "bot", "agent": f"external:{sys.executable} "
                                       f"{Path(__file__).resolve().parents[2] / 'scripts' / 'example_bot.py'}"}


@pytest.fixture
def six(tmp_path):
    path = tmp_path / "six.yaml"
    path.write_text(SIX)
    return path


def test_the_small_rules_roll_six_dice(six):
    rules = load(str(six))
    assert rules.dice == 6 and num_holds(rules) == 63 and num_actions(rules) == 63 + 5


@pytest.mark.parametrize("specs", [["random", "greedy"], ["greedy", "greedy", "random"]])
def test_solver_free_agents_play_whole_six_dice_games(six, specs):
    rules = load(str(six))
    for seed in range(3):
        game = play_game(Game(rules, len(specs), seed=seed), [make_agent(s) for s in specs])
        assert game.is_over
        rolls = [e for e in game.log if "dice" in e]
        assert rolls and all(len(e["dice"]) == 6 and 0 <= e["hold"] < 63 for e in rolls)
        assert sum("box" in e for e in game.log) == 5 * len(specs)


def test_a_six_dice_tournament_its_records_read_back_and_verified(six, tmp_path, capsys):
    out = tmp_path / "t"
    cfg = parse_config({"name": "six", "rules": str(six), "entrants": ["greedy", EXAMPLE_BOT], "games": 3,
                        "seed": 4})
    res = run_tournament(cfg, out=out, progress=False, workers=1)
    assert res["tournament"]["games_played"] == 6
    records = [r for _, _, r in read(out / GAMES, None)]
    rolls = [e for r in records for e in r["log"] if "dice" in e]
    assert len(records) == 6 and all(len(e["dice"]) == 6 for e in rolls)
    assert all(f is None for r in records for f in r["faults"] or ())
    assert max(e["hold"] for e in rolls) >= 32          # the bot holds its most common face, the sixth die too
    assert "cannot be analysed" not in (out / "report.md").read_text()
    capsys.readouterr()
    assert main(["verify", str(out), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["all_match"] and doc["total"] == 6
    # a planted die is caught
    lines = (out / GAMES).read_text().splitlines()
    first = json.loads(lines[0])
    roll = next(e for e in first["log"] if "dice" in e)
    roll["dice"] = [7 - d for d in roll["dice"]][::-1]
    (out / GAMES).write_text("\n".join([json.dumps(first)] + lines[1:]) + "\n")
    assert main(["verify", str(out)]) == 1
    assert "MISMATCH" in capsys.readouterr().out


def test_the_tournament_command_under_six_dice(six, tmp_path, capsys):
    config = tmp_path / "six_t.yaml"
    config.write_text(json.dumps({"name": "six_t", "rules": str(six), "entrants": ["greedy", EXAMPLE_BOT],
                                  "games": 2, "seed": 1}))
    assert main(["tournament", str(config), "--out", str(tmp_path / "o"), "--workers", "1", "--quiet",
                 "--no-analysis"]) == 0
    assert "4 games" in capsys.readouterr().out


@pytest.mark.parametrize("command", [["analyze"], ["show", "1"]])
def test_six_dice_games_are_analysed(six, tmp_path, capsys, command):
    out = tmp_path / "t"
    run_tournament(parse_config({"name": "six", "rules": str(six), "entrants": ["greedy", EXAMPLE_BOT], "games": 1}),
                   out=out, progress=False, workers=1, analysis=False)
    capsys.readouterr()
    assert main([command[0], str(out), *command[1:]]) == 0
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err and "greedy" in captured.out


@pytest.mark.parametrize("spec", SOLVER_SPECS)
def test_solver_backed_agents_take_six_dice(six, spec):
    assert check_playable({spec: make_agent(spec)}, load(str(six)), 2) is None      # no refusal


@pytest.mark.parametrize("spec, refusal", [(s, LEVELS_REFUSAL) for s in ("easy", "normal", "level?pct=90")] +
                         [("strong?goal=win", WIN_REFUSAL), ("normal?goal=win", WIN_REFUSAL)])
def test_under_maxi_the_levels_and_playing_to_win_are_refused_before_any_solve(spec, refusal):
    rules = load("maxi")
    check_playable({"strong": make_agent("strong"), "dial": make_agent("strong?strength=0.5")}, rules, 2)
    with pytest.raises(ConfigError, match=re.escape(f"agent '{spec}' cannot play rules 'maxi' at 2 seats: ") + ".*"
                       + re.escape(refusal)):
        check_playable({spec: make_agent(spec)}, rules, 2)


@pytest.mark.parametrize("argv", [
    ["evaluate", "strong", "--games", "2", "--no-progress"],
    ["solve", "--no-progress"],
    ["advise", "--dice", "1", "2", "3", "3", "5", "6"],
])
def test_the_solvers_commands_run_under_six_dice(six, capsys, argv):
    assert main([*argv, "--rules", str(six)]) == 0
    assert "Traceback" not in capsys.readouterr().err


@pytest.mark.parametrize("argv, refusal", [
    (["evaluate", "normal", "--games", "2"], LEVELS_REFUSAL),
    (["evaluate", "strong?goal=win", "--games", "2"], WIN_REFUSAL),
    (["play", "--vs", "easy"], LEVELS_REFUSAL),
])
def test_what_maxi_cannot_have_exits_2_in_one_line_before_any_solve(capsys, monkeypatch, tmp_path, argv, refusal):
    monkeypatch.setenv("YACHT_CACHE_DIR", str(tmp_path))        # no maxi table: a solve would take minutes
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert main([*argv, "--rules", "maxi"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and refusal in err[0], err
    assert list(tmp_path.iterdir()) == []


def test_play_names_the_default_opponent_and_the_ones_that_play_six_dice(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("YACHT_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert main(["play", "--rules", "maxi"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("yacht play: error: agent 'normal' cannot play rules 'maxi' at 2 seats") and \
        LEVELS_REFUSAL in err
    assert err.strip().endswith("(normal is the default opponent); random and greedy play any rules: --vs greedy")


def test_solve_gives_the_values_and_says_what_it_skipped(six, capsys, monkeypatch):
    """Score distributions past `MAX_DISTRIBUTION_STATES` (Maxi Yatzy's 89 million states) are skipped, said
    plainly; the values are still given (here with the bound lowered below the small rules' states)."""
    monkeypatch.setattr("yacht_env.solver.space.MAX_DISTRIBUTION_STATES", 100)
    assert main(["solve", "--rules", str(six), "--distribution", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "expected score" in out and ("Final score distribution: skipped: the score distributions of rules "
                                        "'six_small' are out of reach") in out
    assert main(["solve", "--rules", str(six), "--distribution", "--no-progress", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["expected_score"] > 0 and "at most 100 states" in doc["distribution"]["skipped"]


def test_advise_checks_six_dice_before_the_solver(six, capsys):
    assert main(["advise", "--rules", str(six), "--dice", "1", "2", "3", "3", "5"]) == 2
    assert "dice: six faces 1..6 are needed, got [1, 2, 3, 3, 5]" in capsys.readouterr().err


def view_of(rules, dice):
    g = Game(rules, 1, dice=ScriptedDice(list(dice) * 3))
    g.roll()
    return View.of(g)


def test_the_terminal_holds_six_positions(six):
    v = view_of(load(str(six)), [1, 2, 3, 4, 5, 6])
    assert parse_command("hold 1 3 6", v) == 0b100101
    assert parse_command("h 12345", v) == 0b011111
    assert parse_command("roll", v) == 0
    with pytest.raises(ValueError, match="'7' is not a die position: positions are 1 to 6"):
        parse_command("hold 7", v)
    with pytest.raises(ValueError, match="holding all six dice re-rolls nothing: score a box instead"):
        parse_command("hold 123456", v)
    with pytest.raises(ValueError, match="'roll' re-rolls all six dice and takes nothing after it"):
        parse_command("roll 1", v)
    with pytest.raises(ValueError, match="give positions 1-6"):
        parse_command("hold", v)


def test_a_whole_six_dice_game_at_the_terminal(six, monkeypatch, capsys):
    boxes = load(str(six)).boxes
    lines = ["hold 1 2 3 4 6", "hold 6", f"score {boxes[-1]}", ""] + [x for b in reversed(boxes[:-1])
                                                                      for x in (f"score {b}", "")] + ["n"]
    monkeypatch.setattr("sys.stdin", io.StringIO("\n".join(lines) + "\n"))
    assert main(["play", "--rules", str(six), "--vs", "greedy", "--seed", "3", "--json"]) == 0
    captured = capsys.readouterr()
    events = [json.loads(line) for line in captured.out.splitlines()]
    rolls = [e for e in events if e["event"] == "roll"]
    assert all(len(e["dice"]) == 6 for e in rolls)
    mine = [e for e in rolls if e["seat"] == 0]
    assert mine[1]["hold"] == [0, 1, 2, 3, 5] and mine[2]["hold"] == [5]
    assert "position  1   2   3   4   5   6" in captured.err
    assert events[-1]["event"] == "end" and sum(e["event"] == "score" for e in events) == 2 * len(boxes)


BOT = textwrap.dedent("""\
    import json, sys
    hello = None
    for line in sys.stdin:
        msg = json.loads(line)
        if msg["type"] == "hello":
            hello = msg
            print(json.dumps({"dice": msg["dice"], "num_actions": msg["num_actions"]}), file=sys.stderr, flush=True)
        elif msg["type"] == "decide":
            legal = msg["legal"]
            holds = [a for a in legal if a < 2 ** hello["dice"] - 1]
            assert len(msg["dice"]) == hello["dice"]
            # the largest hold mask while rolls remain (keep all but the smallest die), else the last box
            print(json.dumps({"action": max(holds) if holds else legal[-1]}), flush=True)
        elif msg["type"] == "bye":
            break
""")


def test_an_external_bot_plays_six_dice_with_hold_masks_up_to_62(six, tmp_path):
    script = tmp_path / "bot.py"
    script.write_text(BOT)
    rules = load(str(six))
    with ExternalAgent(f"{sys.executable} {script}", timeout=20) as bot:
        game = play_game(Game(rules, 2, seed=5), [bot, make_agent("greedy")])
        assert bot.faults == []
    holds = [e["hold"] for e in game.log if "dice" in e and e["seat"] == 0]
    assert 62 in holds and max(holds) == 62
    assert game.is_over and sum(e["seat"] == 0 and "box" in e for e in game.log) == 5


def test_action_63_scores_the_first_box_under_six_dice(six):
    rules = load(str(six))
    g = Game(rules, 1, dice=ScriptedDice([1, 1, 2, 3, 4, 5] * 2))
    g.roll()
    g.apply(63)
    assert g.log[-1]["box"] == "ones" and g.log[-1]["points"] == 2


def test_the_remote_bot_chooses_six_dice_holds():
    remote_bot = load_script("remote_bot")
    state = {"phase": "decide", "dice": [2, 3, 3, 3, 5, 6], "rolls_left": 1,
             "preview": {"ones@0": 0, "chance@0": remote_bot.GOOD - 1, "threes@0": 9}}
    assert remote_bot.choose(state) == {"type": "roll", "hold": [1, 2, 3]}
    state["dice"] = [4, 4, 4, 4, 4, 4]
    assert remote_bot.choose({**state, "preview": {"maxi_yatzy@0": 100}}) == {"type": "score", "box": "maxi_yatzy",
                                                                               "column": 0}


def test_odds_under_maxi(capsys):
    assert main(["odds", "--rules", "maxi"]) == 0
    out = capsys.readouterr().out
    assert "Five of a Kind or better" in out and "Maxi Yatzy" in out and "Castle" in out


def test_built_in_agents_play_maxi_in_lockstep_the_same_games_for_any_worker_count(tmp_path, capsys):
    """random and greedy under `maxi` go through the batched tables (`core.lockstep`): 63 hold
    actions, then the boxes; one worker and two store the same games, and every die verifies."""
    games = {}
    for workers in (1, 2):
        out = tmp_path / f"w{workers}"
        cfg = parse_config({"name": "maxi3", "rules": "maxi", "entrants": ["random", "greedy"],
                            "games": 4, "seed": 11})
        run_tournament(cfg, out=out, progress=False, workers=workers, analysis=False)
        games[workers] = sorted(json.dumps(r, sort_keys=True) for _, _, r in read(out / GAMES, None))
        capsys.readouterr()
        assert main(["verify", str(out), "--json"]) == 0
        assert json.loads(capsys.readouterr().out)["all_match"]
    assert games[1] == games[2] and len(games[1]) > 0
    records = [json.loads(g) for g in games[1]]
    assert all(len(e["dice"]) == 6 for r in records for e in r["log"] if "dice" in e)
    assert all(len([e for e in r["log"] if "box" in e]) == 2 * 20 for r in records)
