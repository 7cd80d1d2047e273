"""Scandinavian Yatzy and the box kinds it brought: pairs scored by the matching dice, four alike as two pairs,
n of a kind by the matching dice, forced order. Every kind is checked on every roll of 252 against the
independent scoring of tests/rules/golden_scoring.py (which tries every way of picking the dice)."""
from collections import Counter

import pytest

from tests.rules.golden_scoring import _best_pairs, yatzy
from yacht_arena.cli import main
from yacht_env import Game
from yacht_env.core.dice import ROLLS
from yacht_env.rules import RuleError, load

FH5 = {"boxes.full_house.five_alike": True}
TP4 = {"boxes.two_pairs.four_alike": True}


def one_box(spec):
    """A rule set of one box (and nothing else that scores)."""
    return load({"boxes": [{"id": "box", **spec}], "upper_bonus": False, "joker": "none", "extra_yacht_bonus": 0})


def independent(spec, dice) -> int:
    """What a box of the spec scores, from the dice alone (golden_scoring's pair search)."""
    cnt = Counter(dice)
    n = spec.get("count", 2)
    if spec["kind"] == "of_a_kind":
        best = max((n * f for f, k in cnt.items() if k >= n), default=0)
    else:
        best = _best_pairs(dice, n, spec.get("four_alike", False))
    points = spec.get("points", "sum")
    if not best:
        return 0
    return best if points == "matching" else sum(dice) if points == "sum" else points


KIND_SPECS = [
    *({"kind": "pairs", "count": n, "points": p} for n in (1, 2) for p in ("matching", "sum", 25)),
    *({"kind": "pairs", "count": 2, "points": p, "four_alike": True} for p in ("matching", "sum", 25)),
    *({"kind": "two_pairs", "points": p, "four_alike": f} for p in ("matching", "sum", 25) for f in (False, True)),
    *({"kind": "of_a_kind", "count": n, "points": "matching"} for n in (2, 3, 4, 5)),
]


@pytest.mark.parametrize("spec", KIND_SPECS, ids=lambda s: "-".join(str(v) for v in s.values()))
def test_every_new_box_kind_on_every_roll(spec):
    rules = one_box(spec)
    box = rules.boxes_spec[0]
    for r, dice in enumerate(ROLLS):
        dice = [int(d) for d in dice]
        want = independent(spec, dice)
        assert rules.tables.score[0, r] == want, (spec, dice)
        counting = box.counting(dice, want)
        bright = [d for d, c in zip(dice, counting) if c]      # the dice a table leaves bright
        if spec.get("points") == "matching":
            assert sum(bright) == want, (spec, dice, counting)
        elif spec["kind"] != "of_a_kind" and spec["points"] != "sum" and want:   # the pairs' dice
            assert len(bright) == 2 * spec.get("count", 2) and sum(bright) == independent(
                {**spec, "points": "matching"}, dice), (spec, dice, counting)


@pytest.mark.parametrize("fh5", [False, True])
@pytest.mark.parametrize("tp4", [False, True])
def test_yatzy_and_its_variants_on_every_roll(fh5, tp4):
    rules = load("yatzy", **(FH5 if fh5 else {}), **(TP4 if tp4 else {}))
    for r, dice in enumerate(ROLLS):
        want = yatzy([int(d) for d in dice], fh5, tp4)
        assert {b: int(rules.tables.score[i, r]) for i, b in enumerate(rules.boxes)} == want, list(dice)


def test_yatzy_sheet():
    r = load("yatzy")
    assert len(r.boxes) == 15 and (r.upper_bonus_threshold, r.upper_bonus) == (63, 50)
    assert (r.joker, r.extra_yacht_bonus, r.forced_order) == ("none", 0, False)
    assert r.score("one_pair", [6, 6, 5, 5, 1]) == 12 and r.score("two_pairs", [6, 6, 5, 5, 1]) == 22
    assert r.score("two_pairs", [3, 3, 3, 3, 2]) == 0 and load("yatzy", **TP4).score("two_pairs", [3, 3, 3, 3, 2]) == 12
    assert r.score("full_house", [4, 4, 4, 4, 4]) == 0 and load("yatzy", **FH5).score("full_house", [4] * 5) == 20
    assert r.score("small_straight", [5, 4, 3, 2, 1]) == 15 and r.score("large_straight", [6, 5, 4, 3, 2]) == 20


def test_forced_order_fills_top_to_bottom():
    rules = load("yatzy", forced_order=True)
    assert rules.tables.forced_order == 1 and rules.to_dict()["forced_order"] is True
    assert "forced_order" not in load("yatzy").to_dict()      # the rules hash of every other rule set stays
    game = Game(rules, seed=5)
    for box in rules.boxes:
        game.roll()
        assert game.legal_boxes() == [box]
        game.score(box)
    assert game.is_over


@pytest.mark.parametrize("overrides,key,allowed", [
    ({"boxes.one_pair.count": 3}, "boxes.one_pair.count", "3 pairs of different faces need 6 dice"),
    ({"boxes.one_pair.count": 0}, "boxes.one_pair.count", "from 1 to 3"),
    ({"boxes.one_pair.four_alike": True}, "boxes.one_pair.four_alike", "needs a box of 2 or more pairs"),
    ({"boxes.two_pairs.four_alike": "yes"}, "boxes.two_pairs.four_alike", "true or false, got 'yes'"),
    ({"boxes.full_house.four_alike": True}, "boxes.full_house.four_alike", "does not use four_alike"),
    ({"boxes.full_house.points": "matching"}, "boxes.full_house.points",
     "only for of_a_kind, pairs, two_pairs and groups"),
    ({"boxes.four_of_a_kind.count": 6}, "boxes.four_of_a_kind.count", "from 2 to 5"),
    ({"forced_order": 1}, "forced_order", "true (boxes filled top to bottom) or false, got 1"),
    ({"forced_order": True, "joker": "forced", "extra_yacht_bonus": 100}, "forced_order", "joker must be none"),
])
def test_bad_yatzy_settings_name_the_key_and_what_is_allowed(overrides, key, allowed):
    with pytest.raises(RuleError) as e:
        load("yatzy", **overrides)
    assert str(e.value).startswith(f"yatzy (override): {key}: ") and allowed in str(e.value)


def test_yacht_rules_shows_yatzy(capsys):
    assert main(["rules", "--rules", "yatzy", "--set", "forced_order=true"]) == 0
    out = capsys.readouterr().out
    assert "two_pairs" in out and "pairs -> matching" in out and "forced_order: True" in out
