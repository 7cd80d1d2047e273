"""`yacht advise`: best move first, every alternative's expected final score, clear errors."""
import json

import pytest
from tests.solver_tables import solved, temp_cache

from yacht_arena.cli import main
from yacht_env.core.dice import roll_index
from yacht_env.solver.policy import Policy


@pytest.fixture(autouse=True)
def cache(monkeypatch):
    solved("classic")
    solved("yacht")
    with temp_cache() as d:
        monkeypatch.setenv("YACHT_CACHE_DIR", d)
        yield d


def _json(capsys, argv):
    assert main(["advise", "--json", *argv]) == 0
    return json.loads(capsys.readouterr().out)


def test_best_first_and_matches_the_agent(capsys):
    doc = _json(capsys, ["--dice", "1", "2", "3", "3", "5", "--rolls-left", "2", "--filled", "ones=3", "yacht=50"])
    values = [a["expected_final_score"] for a in doc["alternatives"]]
    assert values == sorted(values, reverse=True) and doc["best"] == doc["alternatives"][0]
    assert doc["banked"] == 53 and doc["best"]["move"] == "hold 3 3"
    rules, s = solved("yacht")
    scores = [-1] * 13
    scores[0], scores[11] = 3, 50
    assert doc["best"]["action"] == Policy(rules, s).action([scores], [3], roll_index([1, 2, 3, 3, 5]), 2)
    assert len({a["move"] for a in doc["alternatives"]}) == len(doc["alternatives"])  # holds listed once


def test_first_roll_yacht_beats_the_optimum(capsys):
    # a Yacht on the first roll of classic is worth far more than the average start (the optimum)
    doc = _json(capsys, ["--rules", "classic", "--dice", "6", "6", "6", "6", "6", "--rolls-left", "2"])
    assert doc["best"]["move"] == "score yacht" and doc["best"]["expected_final_score"] > 166.9551 + 30


def test_text_output_and_state_file(capsys, tmp_path):
    assert main(["advise", "--rules", "classic", "--dice", "2", "2", "2", "5", "6", "--filled", "twos=6",
                 "--top", "3"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("Dice 2 2 2 5 6, 0 re-roll(s) left, 6 points on the sheet (classic).\nBest: score ")
    assert len(text.strip().splitlines()) == 2 + 3
    state = tmp_path / "pos.json"
    state.write_text(json.dumps({"dice": [6, 5, 2, 2, 2], "rolls_left": 0, "filled": {"twos": 6}}))
    a = _json(capsys, ["--rules", "classic", "--dice", "2", "2", "2", "5", "6", "--filled", "twos=6"])
    b = _json(capsys, ["--rules", "classic", "--state", str(state)])
    assert a == b


def test_several_columns_use_box_at_column(capsys):
    doc = _json(capsys, ["--rules", "classic", "--set", "columns=2", "--dice", "1", "2", "3", "4", "5",
                         "--filled", "ones@1=3", "--top", "40"])
    moves = [a["move"] for a in doc["alternatives"]]
    assert "score little_straight@1" in moves and "score little_straight@2" in moves
    assert not any(m.startswith("score ones@1") for m in moves)


BAD = [
    (["--dice", "1", "2", "3"], "dice: five faces 1..6 are needed, got [1, 2, 3]"),
    (["--dice", "1", "2", "3", "4", "7"], "dice: five faces 1..6 are needed"),
    ([], "no dice: give --dice with five faces"),
    (["--dice", "1", "2", "3", "4", "5", "--rolls-left", "3"], "rolls left must be 0..2 under 'yacht'"),
    (["--dice", "1", "2", "3", "4", "5", "--filled", "sevens=3"], "no box 'sevens' in rules 'yacht'"),
    (["--dice", "1", "2", "3", "4", "5", "--filled", "ones"], "--filled takes BOX=POINTS, got 'ones'"),
    (["--dice", "1", "2", "3", "4", "5", "--filled", "ones=x"], "points must be a whole number"),
    (["--dice", "1", "2", "3", "4", "5", "--filled", "ones=-1"], "points must be a whole number >= 0"),
    (["--dice", "1", "2", "3", "4", "5", "--filled", "yacht=30"],
     "box 'yacht' cannot hold 30 points under 'yacht'; possible: 0, 50"),
    (["--dice", "1", "2", "3", "4", "5", "--upper", "1", "2"], "upper: one whole number >= 0 per column (1)"),
    (["--dice", "1", "2", "3", "4", "5", "--bonus", "-5"], "bonus must be a whole number >= 0"),
    (["--set", "columns=2", "--dice", "1", "2", "3", "4", "5", "--filled", "ones=1"], "name boxes as ones@COLUMN"),
    (["--set", "columns=2", "--dice", "1", "2", "3", "4", "5", "--filled", "ones@3=1"], "column must be 1..2"),
    (["--state", "/nonexistent/pos.json"], "cannot read --state /nonexistent/pos.json"),
    (["--state", "x.json", "--dice", "1", "2", "3", "4", "5"], "either with --state or with --dice"),
]


@pytest.mark.parametrize("argv,message", BAD)
def test_bad_input(capsys, argv, message):
    assert main(["advise", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("yacht advise: error: ") and message in err


def test_bad_state_files(capsys, tmp_path):
    for text, message in [("{", "is not valid JSON"), ('{"dice": [1,2,3,4,5], "holds": 3}', "unknown key ['holds']"),
                          ('{"dice": [1,2,3,4,5], "filled": [1]}', "filled must map box names to points")]:
        f = tmp_path / "s.json"
        f.write_text(text)
        assert main(["advise", "--state", str(f)]) == 2
        assert message in capsys.readouterr().err


def test_full_sheet_has_nothing_to_advise(capsys):
    filled = [f"{b}=0" for b in ("ones", "twos", "threes", "fours", "fives", "sixes", "full_house",
                                 "four_of_a_kind", "little_straight", "big_straight", "yacht")] + ["choice=5"]
    assert main(["advise", "--rules", "classic", "--dice", "1", "2", "3", "4", "5", "--filled", *filled]) == 2
    assert "every box is filled: the game is over" in capsys.readouterr().err
