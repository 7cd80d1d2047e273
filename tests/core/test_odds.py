"""`yacht odds` reproduces seed 000's odds table and its two turn facts."""
import json

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
    assert set(doc) == {"rules", "odds", "chase_one_number_dice", "chance_only_points"}
    assert set(doc["odds"]) == set(SEED_000) and doc["rules"]["name"] == "yacht"
    assert all(0 <= p <= 1 for box in SEED_000 for p in doc["odds"][box])


def test_cli_bad_rules(capsys):
    assert main(["odds", "--rules", "nope"]) == 2
    assert "no such rule set" in capsys.readouterr().err


def test_two_roll_rule_shortens_the_table():
    assert len(combination_odds(load("classic", rolls_per_turn=2))["yacht"]) == 2
