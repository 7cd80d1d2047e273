"""The joker rules and the extra-Yacht bonus, turn by turn with scripted dice."""
import pytest

from yacht_env import Game, IllegalMove
from yacht_env.core.dice_source import ScriptedDice

FIVES = [5] * 5


def game(rules="yacht", rolls=(), **overrides):
    faces = [f for r in rolls for f in r]
    return Game(rules, 1, dice=ScriptedDice(faces), **overrides)


def play(g, box, dice=None):
    g.roll()
    return g.score(box)


def test_forced_joker_matching_upper_box_first():
    g = game(rolls=[FIVES, FIVES])
    assert play(g, "yacht") == 50
    g.roll()
    assert g.preview() == {(0, "fives"): 25}
    with pytest.raises(IllegalMove, match="joker rule"):
        g.score("full_house")
    assert g.score("fives") == 25 + 100
    assert g.sheets[0].extra_yachts[0] == 1


def test_forced_joker_then_lower_at_joker_value_then_upper_zero():
    g = game(rolls=[FIVES, [1, 1, 1, 2, 2], FIVES])
    play(g, "yacht")
    play(g, "fives")  # 1,1,1,2,2 scratched in fives -> 0
    g.roll()
    prev = g.preview()
    assert set(b for _, b in prev) == {"three_of_a_kind", "four_of_a_kind", "full_house", "small_straight",
                                       "large_straight", "chance"}
    assert prev[(0, "full_house")] == 25 and prev[(0, "small_straight")] == 30
    assert prev[(0, "large_straight")] == 40 and prev[(0, "chance")] == 25
    assert g.score("large_straight") == 140


def test_forced_joker_upper_boxes_score_zero_when_lower_full():
    lower = ["three_of_a_kind", "four_of_a_kind", "full_house", "small_straight", "large_straight", "chance"]
    g = game(rolls=[FIVES] + [[1, 2, 3, 4, 6]] * 6 + [[6] * 5])
    play(g, "yacht")
    for box in lower:
        play(g, box)
    g.roll()
    assert g.preview() == {(0, "sixes"): 30}  # matching upper still first
    g2 = game(rolls=[FIVES] + [[1, 2, 3, 4, 6]] * 7 + [[6] * 5])
    play(g2, "yacht")
    for box in lower + ["sixes"]:
        play(g2, box)
    g2.roll()
    assert g2.preview() == {(0, b): 0 for b in ["ones", "twos", "threes", "fours", "fives"]}
    assert g2.score("ones") == 100


def test_forced_joker_applies_after_a_scratched_yacht_but_pays_no_bonus():
    g = game(rolls=[[1, 2, 3, 4, 6], FIVES])
    play(g, "yacht")
    g.roll()
    assert g.preview() == {(0, "fives"): 25}
    assert g.score("fives") == 25


def test_switch_off_means_no_bonus_and_no_joker():
    g = game(rolls=[FIVES, FIVES], extra_yacht_bonus=False)
    play(g, "yacht")
    g.roll()
    prev = g.preview()
    assert prev[(0, "full_house")] == 0 and prev[(0, "ones")] == 0
    assert g.score("chance") == 25


def test_free_joker_any_box_at_joker_value():
    g = game(rolls=[FIVES, FIVES], joker="free")
    play(g, "yacht")
    g.roll()
    prev = g.preview()
    assert prev[(0, "full_house")] == 25 and prev[(0, "ones")] == 0 and prev[(0, "fives")] == 25
    assert g.score("large_straight") == 140


def test_verhoeff_joker_points_only_once_matching_upper_filled():
    g = game("verhoeff", rolls=[FIVES, FIVES, FIVES])
    play(g, "yacht")
    g.roll()
    assert g.preview()[(0, "full_house")] == 0  # fives still open
    assert g.score("fives") == 125
    g.roll()
    assert g.preview()[(0, "full_house")] == 25
    assert g.score("full_house") == 125


def test_kirakuken_needs_yacht_scored_for_50():
    g = game("kirakuken", rolls=[[1, 2, 3, 4, 6], FIVES])
    play(g, "yacht")
    g.roll()
    assert g.preview()[(0, "full_house")] == 0
    assert g.score("full_house") == 0
    g = game("kirakuken", rolls=[FIVES, FIVES])
    play(g, "yacht")
    g.roll()
    assert g.preview()[(0, "small_straight")] == 30 and g.preview()[(0, "ones")] == 0
    assert g.score("small_straight") == 130


def test_classic_has_no_joker_and_four_of_a_kind_counts_four_dice():
    g = game("classic", rolls=[FIVES, FIVES])
    play(g, "yacht")
    g.roll()
    assert g.preview()[(0, "four_of_a_kind")] == 20
    assert g.preview()[(0, "full_house")] == 0


def test_upper_bonus_paid_once_at_threshold():
    g = game(rolls=[[6, 6, 6, 6, 1], [5, 5, 5, 5, 1], [4, 4, 4, 4, 1], [3, 3, 3, 1, 1]])
    assert play(g, "sixes") == 24
    assert play(g, "fives") == 20
    assert play(g, "fours") == 16
    assert play(g, "threes") == 9 + 35  # 69 >= 63
    assert g.sheets[0].total == 69 + 35
