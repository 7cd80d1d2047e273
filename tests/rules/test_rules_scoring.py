"""Box scoring of every preset against golden tables and the seeds' own examples."""
import pytest

from tests.rules.golden_scoring import GOLDEN
from yacht_env.rules import load, presets


def test_every_preset_has_a_golden_table():
    assert set(presets()) == set(GOLDEN)


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_every_roll_matches_golden(name):
    rules = load(name)
    table = rules.tables.score
    assert table.shape[1] == len(rules.dice_tables.rolls) == (252 if rules.dice == 5 else 462)
    for r, dice in enumerate(rules.dice_tables.rolls):
        want = GOLDEN[name]([int(d) for d in dice])
        assert set(want) == set(rules.boxes)
        got = {box: int(table[b, r]) for b, box in enumerate(rules.boxes)}
        assert got == want, f"{name} {list(dice)}"


@pytest.mark.parametrize("box,dice,points", [
    # seed 000's scorecard table
    ("fours", [4, 4, 4, 2, 1], 12), ("three_of_a_kind", [5, 5, 5, 2, 6], 23),
    ("four_of_a_kind", [2, 2, 2, 2, 6], 14), ("full_house", [3, 3, 3, 6, 6], 25),
    ("small_straight", [1, 2, 3, 4, 6], 30), ("large_straight", [2, 3, 4, 5, 6], 40),
    ("yacht", [4, 4, 4, 4, 4], 50), ("chance", [6, 5, 4, 3, 1], 19),
    # seed 000's special rules
    ("three_of_a_kind", [6, 6, 6, 5, 4], 27), ("three_of_a_kind", [1, 1, 1, 2, 3], 8),
    ("small_straight", [2, 3, 4, 5, 5], 30), ("full_house", [4, 4, 4, 4, 4], 0),
    ("full_house", [2, 2, 3, 3, 5], 0), ("full_house", [2, 2, 2, 2, 3], 0),
    ("three_of_a_kind", [4, 4, 4, 4, 4], 20), ("four_of_a_kind", [4, 4, 4, 4, 4], 20),
])
def test_seed_000_examples(box, dice, points):
    assert load("yacht").score(box, dice) == points


@pytest.mark.parametrize("box,dice,points", [
    ("four_of_a_kind", [5, 5, 5, 5, 2], 20), ("four_of_a_kind", [3, 3, 3, 3, 3], 12),
    ("full_house", [2, 2, 5, 5, 5], 19), ("full_house", [6, 6, 6, 6, 6], 0),
    ("little_straight", [1, 2, 3, 4, 5], 30), ("little_straight", [2, 3, 4, 5, 6], 0),
    ("big_straight", [2, 3, 4, 5, 6], 30), ("choice", [1, 2, 3, 4, 6], 16), ("yacht", [2, 2, 2, 2, 2], 50),
])
def test_seed_003_classic_examples(box, dice, points):
    assert load("classic").score(box, dice) == points


def test_cheerio_and_flat_full_house():
    r = load("cheerio")
    assert "little_straight" not in r.boxes
    assert r.score("straight", [1, 2, 3, 4, 5]) == r.score("straight", [6, 5, 4, 3, 2]) == 25
    assert r.score("full_house", [2, 2, 5, 5, 5]) == 19
    assert load("cheerio", full_house_flat=25).score("full_house", [2, 2, 5, 5, 5]) == 25


def test_extended_three_of_a_kind_and_two_pairs():
    r = load("extended")
    assert len(r.boxes) == 15
    assert r.score("three_of_a_kind", [4, 4, 4, 1, 2]) == 12
    assert r.score("two_pairs", [3, 3, 5, 5, 1]) == 17
    assert r.score("two_pairs", [3, 3, 5, 5, 5]) == 21   # a full house counts
    assert r.score("two_pairs", [3, 3, 3, 3, 5]) == 0    # four of a kind does not
    assert r.score("two_pairs", [6, 6, 6, 6, 6]) == 0


def test_knizia_matches_openspiel_reading():
    r = load("knizia")
    assert r.score("four_of_a_kind", [5, 5, 5, 5, 2]) == 22
    assert r.score("full_house", [6, 6, 6, 6, 6]) == 30


def test_dice_in_any_order():
    r = load("yacht")
    assert r.score("large_straight", [6, 2, 5, 3, 4]) == 40
