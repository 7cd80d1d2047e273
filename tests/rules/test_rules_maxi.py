"""Six dice and the box kinds Maxi Yatzy brought: three pairs, n of a kind up to the dice count, runs up to
six faces, groups of alike dice of different faces (Full House 3+2, Castle 3+3, Tower 4+2) and all dice alike.
Every kind is checked on every roll of five dice (252) and of six (462) against scoring written here from the
dice alone (itertools over the dice), and every refusal names the file, the key and what is allowed."""
from collections import Counter
from itertools import combinations

import pytest

from tests.rules.golden_scoring import maxi
from yacht_env.core.dice import dice_tables
from yacht_env.rules import RuleError, load


def one_box(spec, n):
    """A rule set of n dice with one box (and nothing else that scores)."""
    return load({"dice": n, "boxes": [{"id": "box", **spec}], "upper_bonus": False, "joker": "none",
                 "extra_yacht_bonus": 0})


def independent(spec, dice) -> int:
    """What a box of the spec scores, found by trying every way of picking dice of the roll."""
    kind, points = spec["kind"], spec.get("points", "sum")
    if kind == "chance":
        return sum(dice) if points == "sum" else points
    if kind == "yacht":
        return points if len(set(dice)) == 1 else 0
    if kind == "straight":
        return points if any(set(run) <= set(dice) for run in spec["runs"]) else 0
    if kind == "pairs":
        sizes = [2] * spec["count"]
    elif kind == "of_a_kind":
        sizes = [spec["count"]]
    else:
        sizes = spec["sizes"]
    best = None                  # the most the dice of one fitting pick add up to
    for pick in combinations(dice, sum(sizes)):
        if len(sizes) == 1:
            fits = len(set(pick)) == 1
        else:
            fits = sorted(Counter(pick).values()) == sorted(sizes)
        if fits:
            best = max(best or 0, sum(pick))
    if best is None:
        return 0
    return best if points == "matching" else sum(dice) if points == "sum" else points


def specs(n):
    """Box specs of every new kind that n dice can make."""
    out = [{"kind": "pairs", "count": c, "points": p} for c in range(1, n // 2 + 1) for p in ("matching", "sum", 7)]
    out += [{"kind": "of_a_kind", "count": c, "points": p} for c in range(2, n + 1) for p in ("matching", "sum", 9)]
    out += [{"kind": "straight", "runs": [list(range(s, s + length))], "points": 10 + length}
            for length in range(4, n + 1) for s in range(1, 8 - length)]
    out += [{"kind": "groups", "sizes": sizes, "points": p}
            for sizes in ([2], [3], [n], [3, 2], [2, 2], [2, 2, 2], [3, 3], [4, 2], [2, 4], [4, 1], [3, 1, 1])
            if sum(sizes) <= n for p in ("matching", "sum", 30)]
    out += [{"kind": "yacht", "points": 100}, {"kind": "chance"}]
    return out


CASES = [(n, spec) for n in (5, 6) for spec in specs(n)]


@pytest.mark.parametrize("n,spec", CASES, ids=[f"{n}-" + "-".join(str(v) for v in s.values()) for n, s in CASES])
def test_every_box_kind_on_every_roll(n, spec):
    rules = one_box(spec, n)
    box = rules.boxes_spec[0]
    assert rules.dice == n and rules.tables.dice is dice_tables(n)
    for r, dice in enumerate(dice_tables(n).rolls):
        dice = [int(d) for d in dice]
        want = independent(spec, dice)
        assert rules.tables.score[0, r] == want, (spec, dice)
        bright = [d for d, c in zip(dice, box.counting(dice, want)) if c]     # the dice a table leaves bright
        if spec.get("points") == "matching" and spec["kind"] != "straight":
            assert sum(bright) == want, (spec, dice, bright)
        if not want:
            assert not bright


def test_maxi_sheet_on_every_roll():
    rules = load("maxi")
    assert rules.dice == 6 and len(rules.boxes) == 20 and rules.rounds == 20
    assert (rules.upper_bonus_threshold, rules.upper_bonus) == (84, 100)
    assert (rules.joker, rules.extra_yacht_bonus) == ("none", 0)
    for r, dice in enumerate(dice_tables(6).rolls):
        want = maxi([int(d) for d in dice])
        assert {b: int(rules.tables.score[i, r]) for i, b in enumerate(rules.boxes)} == want, list(dice)
    assert list(rules.tables.roll_yacht.nonzero()[0]) == [dice_tables(6).index([f] * 6) for f in range(1, 7)]


@pytest.mark.parametrize("box,dice,points", [
    # maxiyatzy.com's examples, box by box
    ("ones", [3, 1, 1, 6, 1, 4], 3), ("sixes", [4, 6, 3, 1, 6, 6], 18), ("one_pair", [6, 4, 2, 6, 5, 1], 12),
    ("two_pairs", [2, 1, 3, 3, 5, 5], 16), ("three_pairs", [2, 2, 5, 5, 6, 6], 26),
    ("three_of_a_kind", [4, 5, 3, 5, 5, 4], 15), ("four_of_a_kind", [2, 4, 2, 2, 5, 2], 8),
    ("five_of_a_kind", [3, 3, 2, 3, 3, 3], 15), ("small_straight", [1, 2, 3, 4, 5, 3], 15),
    ("large_straight", [2, 3, 4, 5, 6, 6], 20), ("full_straight", [1, 2, 3, 4, 5, 6], 21),
    ("full_house", [3, 4, 4, 6, 6, 6], 26), ("castle", [2, 2, 2, 5, 5, 5], 21), ("tower", [3, 3, 6, 6, 6, 6], 30),
    ("chance", [3, 4, 2, 6, 5, 4], 24), ("maxi_yatzy", [4, 4, 4, 4, 4, 4], 100),
    # groups need different faces
    ("castle", [5] * 6, 0), ("tower", [5] * 6, 0), ("three_pairs", [2, 2, 2, 2, 5, 5], 0),
    ("full_house", [6, 6, 6, 6, 4, 4], 26), ("full_house", [6, 6, 6, 4, 4, 4], 26),
])
def test_maxi_examples(box, dice, points):
    assert load("maxi").score(box, dice) == points


def test_the_dice_count_is_part_of_the_rules():
    assert load("yatzy").dice == 5 and "dice" not in load("yatzy").to_dict()      # five-dice hashes stay
    six = load("maxi")
    assert six.to_dict()["dice"] == 6 and load(six.to_dict()) == six
    assert load("maxi", dice=6) == six


BASE = {"dice": 5, "upper_bonus": False, "joker": "none", "extra_yacht_bonus": 0}


@pytest.mark.parametrize("rules,key,allowed", [
    ({"dice": 7}, "dice", "must be a whole number from 5 to 6, got 7"),
    ({"dice": True}, "dice", "must be a whole number from 5 to 6"),
    ({"dice": 6.0}, "dice", "must be a whole number from 5 to 6"),
    ({"boxes": [{"id": "b", "kind": "pairs", "count": 3}]}, "boxes.b.count",
     "3 pairs of different faces need 6 dice; with 5 dice a pairs box takes count 1 to 2"),
    ({"boxes": [{"id": "b", "kind": "of_a_kind", "count": 6}]}, "boxes.b.count", "from 2 to 5"),
    ({"dice": 6, "boxes": [{"id": "b", "kind": "of_a_kind", "count": 7}]}, "boxes.b.count", "from 2 to 6"),
    ({"boxes": [{"id": "b", "kind": "straight", "runs": [[1, 2, 3, 4, 5, 6]], "points": 21}]}, "boxes.b.runs",
     "a run longer than the dice (5) can never be made; runs of 1 to 5 faces are allowed"),
    ({"boxes": [{"id": "b", "kind": "straight", "length": 6, "points": 21}]}, "boxes.b.length", "from 2 to 5"),
    ({"boxes": [{"id": "b", "kind": "groups", "sizes": [3, 3]}]}, "boxes.b.sizes",
     "groups of 3 + 3 dice need 6 dice; with 5 dice the sizes may add up to at most 5"),
    ({"dice": 6, "boxes": [{"id": "b", "kind": "groups", "sizes": [4, 3]}]}, "boxes.b.sizes",
     "with 6 dice the sizes may add up to at most 6"),
    ({"boxes": [{"id": "b", "kind": "groups", "sizes": [6]}]}, "boxes.b.sizes",
     "a list of 1 to 6 group sizes, each a whole number from 1 to 5"),
    ({"boxes": [{"id": "b", "kind": "groups", "sizes": []}]}, "boxes.b.sizes", "a list of 1 to 6 group sizes"),
    ({"boxes": [{"id": "b", "kind": "groups", "sizes": 3}]}, "boxes.b.sizes", "e.g. [3, 2] for a full house"),
    ({"boxes": [{"id": "b", "kind": "groups", "sizes": [2, True]}]}, "boxes.b.sizes", "a list of 1 to 6"),
    ({"boxes": [{"id": "b", "kind": "groups"}]}, "boxes.b.sizes", "got None"),
    ({"boxes": [{"id": "b", "kind": "groups", "sizes": [3, 2], "count": 3}]}, "boxes.b.count",
     "a groups box does not use count (its keys: id, kind, sizes, points)"),
    ({"boxes": [{"id": "b", "kind": "pairs", "count": 1, "sizes": [2]}]}, "boxes.b.sizes",
     "a pairs box does not use sizes"),
    ({"dice": 6, "boxes": [{"id": "b", "kind": "full_house"}]}, "boxes.b.kind",
     "a full_house (three and two of a kind, nothing else) can never be made with 6 dice; write kind: groups, "
     "sizes: [3, 2]"),
    ({"dice": 6, "boxes": [{"id": "ones", "kind": "upper", "face": 1}],
      "upper_bonus": {"threshold": 127, "points": 50}}, "upper_bonus.threshold", "from 0 to 126"),
])
def test_bad_six_dice_rules_name_the_file_key_and_what_is_allowed(rules, key, allowed):
    data = {**BASE, "boxes": [{"id": "chance", "kind": "chance"}], **rules}
    with pytest.raises(RuleError) as e:
        load(data)
    assert str(e.value).startswith(f"<dict>: {key}: ") and allowed in str(e.value), str(e.value)


def test_a_rules_file_names_itself(tmp_path):
    path = tmp_path / "mine.yaml"
    path.write_text("extends: maxi\ndice: 5\n")
    with pytest.raises(RuleError) as e:
        load(str(path))
    assert str(e.value).startswith(f"{path}: boxes.three_pairs.count: 3 pairs of different faces need 6 dice")
    with pytest.raises(RuleError) as e:
        load("maxi", dice=5)
    assert str(e.value).startswith("maxi: boxes.three_pairs.count: ") and "with 5 dice" in str(e.value)
