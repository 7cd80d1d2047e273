"""`yacht evaluate` and `yacht levels`: JSON documents, identical dice, files written, errors."""
import json
import sys

import numpy as np
import pytest

from agents.evaluation import head_to_head, solitaire
from agents.registry import make_agent
from yacht_arena.cli import main
from yacht_env.rules import load

EVALUATE_KEYS = {"agent", "rules", "seed", "games", "mean", "ci95", "std", "median", "quantiles", "per_box_mean",
                 "upper_bonus_mean", "extra_bonus_mean", "p_upper_bonus", "faults", "fault_gate", "files"}


def run_json(argv, capsys):
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def test_evaluate_json_keys_and_values(capsys):
    doc = run_json(["evaluate", "greedy", "--games", "30", "--seed", "4", "--json", "--no-progress"], capsys)
    assert set(doc) == EVALUATE_KEYS
    assert doc["agent"] == "greedy" and doc["rules"]["name"] == "yacht" and doc["games"] == 30
    assert set(doc["rules"]) == {"name", "set", "hash"} and doc["faults"]["count"] == 0
    lo, hi = doc["ci95"]
    assert lo < doc["mean"] < hi and doc["std"] > 0
    assert list(doc["per_box_mean"]) == list(load("yacht").boxes)
    assert 0 <= doc["p_upper_bonus"] <= 1
    assert doc["quantiles"]["p5"] <= doc["median"] <= doc["quantiles"]["p95"]
    boxes = sum(doc["per_box_mean"].values()) + doc["upper_bonus_mean"] + doc["extra_bonus_mean"]
    assert abs(boxes - doc["mean"]) < 1e-9       # the lines add up to the mean


def test_evaluate_is_seeded(capsys):
    argv = ["evaluate", "easy", "--games", "5", "--seed", "9", "--json", "--no-progress"]
    assert run_json(argv, capsys) == run_json(argv, capsys)


def test_evaluate_columns_key_boxes_by_column(capsys):
    doc = run_json(["evaluate", "greedy", "--games", "3", "--set", "columns=2", "--json", "--no-progress"], capsys)
    assert "chance@2" in doc["per_box_mean"] and len(doc["per_box_mean"]) == 26


def test_evaluate_text(capsys):
    assert main(["evaluate", "random", "--games", "5", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "random under yacht: 5 games, seed 0" in out and "upper bonus in" in out



def test_text_names_the_overrides_with_the_rule_set(capsys):
    assert main(["evaluate", "random", "--games", "5", "--no-progress", "--set", "rolls_per_turn=2",
                 "--set", "extra_yacht_bonus=false"]) == 0
    assert "random under yacht with rolls_per_turn=2, extra_yacht_bonus=false: 5 games" in capsys.readouterr().out
    from yacht_arena.cli import build_parser
    from yacht_arena.cli.options import rules_block_from_args
    from yacht_env.rules import rules_label
    args = build_parser().parse_args(["solve", "--rules", "classic", "--set", "joker=free"])
    assert rules_label(rules_block_from_args(args)) == "classic with joker=free"
    assert rules_label({"name": "yacht", "set": {}, "hash": "x"}) == "yacht"


@pytest.mark.parametrize("argv, message", [
    (["evaluate", "greedy", "--games", "0"], "--games must be from 1 to 10,000,000, got 0"),
    (["evaluate", "wizard"], "unknown agent 'wizard'"),
    (["evaluate", "greedy", "--rules", "nope"], "no such rule set"),
    (["evaluate", "greedy", "--set", "teams=2"],
     "yacht evaluate plays one-player games: 1 player cannot split into 2 teams"),
    (["levels", "--games", "3"], "--games must be an even number from 2 to 10,000,000, got 3"),
    (["levels", "--only", "greedy"], "need at least two agents to compare"),
    (["levels", "--only", "greedy", "greedy"], "agent 'greedy' is listed twice"),
    (["levels", "--only", "greedy", "wizard"], "unknown agent 'wizard'"),
])
def test_command_errors(argv, message, capsys):
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_levels_json_and_files(tmp_path, capsys):
    doc = run_json(["levels", "--only", "random", "greedy", "easy", "--games", "6", "--out", str(tmp_path),
                    "--json", "--no-progress"], capsys)
    assert set(doc) == {"rules", "note", "fault_gate", "games", "seed", "seats", "agents", "head_to_head", "ladder",
                        "settings", "analysis", "files", "specs", "sources"}
    assert doc["rules"]["name"] == "yacht" and doc["games"] == 6
    assert list(doc["agents"]) == ["random", "greedy", "easy"] and list(doc["settings"]) == ["easy"]
    assert all({"mean", "ci95", "std", "strength", "loss_per_game", "accuracy"} <= set(v)
               for v in doc["agents"].values())
    assert doc["agents"]["easy"]["strength"] == doc["settings"]["easy"]["strength"]
    assert [(s["upper"], s["lower"]) for s in doc["ladder"]] == [("greedy", "random"), ("easy", "greedy")]
    assert str(tmp_path / "levels.json") in doc["files"]
    pairs = [(h["a"], h["b"]) for h in doc["head_to_head"]]
    assert pairs == [("greedy", "random"), ("easy", "random"), ("easy", "greedy")]
    for h in doc["head_to_head"]:
        assert set(h) == {"a", "b", "games", "win_rate_a", "ci95"} and h["games"] == 6
        assert h["ci95"][0] <= h["win_rate_a"] <= h["ci95"][1]
    assert (tmp_path / "levels_hist.png").stat().st_size > 1000
    assert json.loads((tmp_path / "levels.json").read_text())["agents"] == doc["agents"]


def test_levels_skips_an_unavailable_ladder_agent_with_a_warning(capsys, monkeypatch):
    monkeypatch.setattr("yacht_arena.cli.levels.LADDER", ("random", "greedy", "learned:/no/such/model.zip"))
    assert main(["levels", "--games", "2", "--no-progress"]) == 0
    captured = capsys.readouterr()
    assert "warning: skipping 'learned:/no/such/model.zip'" in captured.err
    assert "greedy beats random" in captured.out


def test_identical_dice_for_every_agent():
    rules = load("yacht")
    a = solitaire(make_agent("greedy"), rules, 4, seed=2, progress=False)
    b = solitaire(make_agent("greedy"), rules, 4, seed=2, progress=False)
    assert np.array_equal(a["totals"], b["totals"])


def test_head_to_head_of_an_agent_with_itself_is_even():
    h = head_to_head(make_agent("greedy"), make_agent("greedy"), load("yacht"), 5, seed=1, progress=False)
    assert h["win_rate_a"] == 0.5 and h["games"] == 10     # seats swapped on identical dice


def test_evaluate_reports_bot_faults(tmp_path, capsys):
    bot = tmp_path / "bad.py"
    bot.write_text("import sys\nfor line in sys.stdin:\n"
                   "    if '\"decide\"' in line:\n        print('nope', flush=True)\n")
    argv = ["evaluate", f"external:{sys.executable} {bot}", "--games", "1", "--json", "--no-progress"]
    assert main(argv) == 3                                        # a fault in every game: the gate's exit status
    captured = capsys.readouterr()
    doc = json.loads(captured.out)
    assert set(doc) == EVALUATE_KEYS
    assert doc["faults"]["count"] == 13 and doc["faults"]["games"] == 1 and doc["faults"]["by_kind"] == {"garbage": 13}
    assert doc["faults"]["first"][0] == {"game": 0, "move": 1, "kind": "garbage", "cause": "reply is not JSON: 'nope'"}
    assert ("13 fault(s) in 1 of 1 games (13 garbage); their fallback moves are in the scores; first in game 0, "
            "move 1: reply is not JSON: 'nope'") in captured.err


def test_levels_reports_bot_faults(tmp_path, capsys):
    bot = tmp_path / "crash.py"
    bot.write_text("import sys\nsys.exit(3)\n")
    spec = f"external:{sys.executable} {bot}"
    assert main(["levels", "--only", "greedy", spec, "--games", "4", "--json", "--no-progress"]) == 3
    captured = capsys.readouterr()
    doc = json.loads(captured.out)
    assert doc["agents"]["greedy"]["faults"]["count"] == 0
    faults = doc["agents"][spec]["faults"]
    assert faults["count"] == faults["games"] == 8 and faults["by_kind"] == {"crash": 8}    # 4 alone + 4 v greedy
    assert f"{spec}: 8 fault(s) in 8 of 8 games (8 crash)" in captured.err
