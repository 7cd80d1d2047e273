"""Scoring written straight from the seed documents, independently of yacht_env.rules.

Each function maps five dice to {box: points} for one preset. Tests compare these,
over all 252 sorted rolls, with the compiled tables.
"""
from collections import Counter


def _runs(dice, runs):
    s = set(dice)
    return any(set(r) <= s for r in runs)


def _upper(dice):
    return {name: f * dice.count(f) for f, name in
            enumerate(["ones", "twos", "threes", "fours", "fives", "sixes"], start=1)}


def modern(dice):
    """Seed 000 (and 004): the modern 13-box sheet."""
    c = sorted(Counter(dice).values())
    total = sum(dice)
    out = _upper(dice)
    out["three_of_a_kind"] = total if c[-1] >= 3 else 0
    out["four_of_a_kind"] = total if c[-1] >= 4 else 0
    out["full_house"] = 25 if c == [2, 3] else 0
    out["small_straight"] = 30 if _runs(dice, [(1, 2, 3, 4), (2, 3, 4, 5), (3, 4, 5, 6)]) else 0
    out["large_straight"] = 40 if _runs(dice, [(1, 2, 3, 4, 5), (2, 3, 4, 5, 6)]) else 0
    out["yacht"] = 50 if c == [5] else 0
    out["chance"] = total
    return out


def classic(dice):
    """Seed 003: the 12-box Yacht."""
    cnt = Counter(dice)
    c = sorted(cnt.values())
    out = _upper(dice)
    out["full_house"] = sum(dice) if c == [2, 3] else 0
    four = [f for f, n in cnt.items() if n >= 4]
    out["four_of_a_kind"] = 4 * four[0] if four else 0
    out["little_straight"] = 30 if sorted(dice) == [1, 2, 3, 4, 5] else 0
    out["big_straight"] = 30 if sorted(dice) == [2, 3, 4, 5, 6] else 0
    out["choice"] = sum(dice)
    out["yacht"] = 50 if c == [5] else 0
    return out


def cheerio(dice):
    out = classic(dice)
    out["straight"] = 25 if sorted(dice) in ([1, 2, 3, 4, 5], [2, 3, 4, 5, 6]) else 0
    del out["little_straight"], out["big_straight"]
    return out


def extended(dice):
    cnt = Counter(dice)
    out = classic(dice)
    three = [f for f, n in cnt.items() if n >= 3]
    out["three_of_a_kind"] = 3 * three[0] if three else 0
    out["two_pairs"] = sum(dice) if sum(1 for n in cnt.values() if n >= 2) >= 2 else 0
    out["chance"] = sum(dice)
    return out


def knizia(dice):
    """OpenSpiel's yacht: Four of a Kind and Full House score all five dice; FH takes five alike."""
    c = sorted(Counter(dice).values())
    out = classic(dice)
    out["four_of_a_kind"] = sum(dice) if c[-1] >= 4 else 0
    out["full_house"] = sum(dice) if c in ([2, 3], [5]) else 0
    return out


GOLDEN = {"yacht": modern, "verhoeff": modern, "kirakuken": modern, "classic": classic, "cheerio": cheerio,
          "extended": extended, "knizia": knizia}
