"""`yacht odds` reproduces seed 000's odds table and its two turn facts."""
import json

import pytest

from yacht_arena.cli import main
from yacht_env.core.odds import chance_only_points, chase_one_number_dice, combination_odds
from yacht_env.rules import load

SEED_000 = {  # rounded percentages from seed 000
    "three_of_a_kind": ("21.3", "54.1", "74.3"), "four_of_a_kind": ("2.0", "13.2", "29.1"),
    "full_house": ("3.9", "19.1", "36.3"), "small_straight": ("15.4", "41.2", "61.5"),
    "large_straight": ("3.1", "13.0", "26.1"), "yacht": ("0.08", "1.3", "4.6"),
}


def test_table_matches_seed_000():
    odds = combination_odds(load("yacht"))
    for box, want in SEED_000.items():
        got = tuple(f"{100 * p:.2f}" if w.count(".") and len(w.split(".")[1]) == 2 else f"{100 * p:.1f}"
                    for p, w in zip(odds[box], want))
        assert got == want, box


def test_turn_facts():
    assert round(chase_one_number_dice(load("yacht")), 1) == 2.1
    assert round(chance_only_points(load("yacht"))) == 23


def test_cli_text_and_json(capsys):
    assert main(["odds"]) == 0
    text = capsys.readouterr().out
    for row in ("Three of a Kind or better          21.3%       54.1%       74.3%",
                "Yacht                              0.08%        1.3%        4.6%"):
        assert row in text
    assert main(["odds", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert set(doc) == {"rules", "rolls", "odds", "chase_one_number_dice", "chance_only_points"} and doc["rolls"] == 3
    assert set(doc["odds"]) == set(SEED_000) and doc["rules"]["name"] == "yacht"
    assert all(0 <= p <= 1 for box in SEED_000 for p in doc["odds"][box])


def test_cli_bad_rules(capsys):
    assert main(["odds", "--rules", "nope"]) == 2
    assert "no such rule set" in capsys.readouterr().err


def test_two_roll_rule_shortens_the_table():
    assert len(combination_odds(load("classic", rolls_per_turn=2))["yacht"]) == 2


def test_saved_rolls_show_the_longer_turns(capsys):
    """Under saved rolls a turn may roll up to rolls_per_turn + saved_rolls times: `--rolls N` gives the odds
    by each of those rolls (the first three as without it), and says so when it is left out; beyond the
    most a turn can roll, or below one, is one message and exit 2."""
    maxi = load("maxi", saved_rolls=4)
    short, long = combination_odds(maxi), combination_odds(maxi, 7)
    for box in short:
        assert long[box][:3] == short[box] and len(long[box]) == 7
        assert all(a <= b for a, b in zip(long[box], long[box][1:]))
    assert long["maxi_yatzy"][-1] > 10 * short["maxi_yatzy"][-1]
    assert chance_only_points(maxi, rolls=7) > chance_only_points(maxi) > chance_only_points(maxi, rolls=1)
    assert main(["odds", "--rules", "maxi", "--set", "saved_rolls=4"]) == 0
    assert "add --rolls 7 to see those turns" in capsys.readouterr().out
    assert main(["odds", "--rules", "maxi", "--set", "saved_rolls=4", "--rolls", "7", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["rolls"] == 7 and doc["odds"]["maxi_yatzy"] == long["maxi_yatzy"]
    assert main(["odds", "--rules", "maxi", "--set", "saved_rolls=4", "--rolls", "7"]) == 0
    out = capsys.readouterr().out
    assert "By roll 7" in out and "A turn of 7 rolls" in out and "add --rolls" not in out
    for argv, why in ((["--rolls", "4"], "must be 1 to 3 under 'yacht' (3 a turn, none saved), got 4"),
                      (["--rolls", "0"], "must be 1 to 3 under 'yacht'"),
                      (["--rules", "maxi", "--set", "saved_rolls=4", "--rolls", "8"],
                       "must be 1 to 7 under 'maxi' (3 a turn and 4 saved), got 8"),
                      (["--rolls", "9" * 30], "must be 1 to 3")):
        assert main(["odds", *argv]) == 2
        err = capsys.readouterr().err
        assert why in err and len(err.strip().splitlines()) == 1, err
    with pytest.raises(SystemExit) as usage:
        main(["odds", "--rolls", "two"])
    assert usage.value.code == 2 and "--rolls: invalid int value: 'two'" in capsys.readouterr().err
