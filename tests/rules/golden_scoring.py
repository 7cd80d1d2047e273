"""Scoring written straight from the seed documents, independently of yacht_env.rules.

Each function maps the dice of a roll to {box: points} for one preset. Tests compare these,
over every sorted roll (252 of five dice, 462 of six), with the compiled tables.
"""
from collections import Counter
from itertools import combinations


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


def _best_pairs(dice, n, four_alike=False):
    """Points of the best n pairs among the dice (two dice of one face each), found by trying every way of
    picking 2n of the dice: pairs of different faces, or with `four_alike` also two pairs of one face;
    0 when no way gives n pairs."""
    best = 0
    for pick in combinations(range(len(dice)), 2 * n):
        faces = sorted(dice[i] for i in pick)
        pairs = [faces[k] for k in range(0, 2 * n, 2)]
        if any(faces[k] != faces[k + 1] for k in range(0, 2 * n, 2)):
            continue
        if max(Counter(pairs).values()) > (2 if four_alike else 1):
            continue
        best = max(best, 2 * sum(pairs))
    return best


def yatzy(dice, fh5=False, tp4=False):
    """Scandinavian Yatzy (issue 38; yatzy-solver's reading): pairs and kinds score the matching dice, the two
    full straights 15 and 20, Full House (three and two of different faces; `fh5`: or five alike) and Chance
    the sum, Yatzy 50; `tp4`: four alike also make Two Pairs."""
    cnt = Counter(dice)
    c = sorted(cnt.values())
    out = _upper(dice)
    out["one_pair"] = _best_pairs(dice, 1)
    out["two_pairs"] = _best_pairs(dice, 2, tp4)
    for name, n in (("three_of_a_kind", 3), ("four_of_a_kind", 4)):
        out[name] = max((n * f for f, k in cnt.items() if k >= n), default=0)
    out["small_straight"] = 15 if sorted(dice) == [1, 2, 3, 4, 5] else 0
    out["large_straight"] = 20 if sorted(dice) == [2, 3, 4, 5, 6] else 0
    out["full_house"] = sum(dice) if c == [2, 3] or (fh5 and c == [5]) else 0
    out["chance"] = sum(dice)
    out["yatzy"] = 50 if c == [5] else 0
    return out


def best_groups(dice, sizes):
    """Points of the best groups of alike dice, one group per size, of different faces, found by trying every
    way of picking sum(sizes) of the dice: the picked dice must show as many faces as there are sizes, each
    face exactly as often as one size; 0 when no way does."""
    best = 0
    for pick in combinations(dice, sum(sizes)):
        if sorted(Counter(pick).values()) == sorted(sizes):
            best = max(best, sum(pick))
    return best


def maxi(dice):
    """Maxi Yatzy (maxiyatzy.com's rules): six dice; pairs, kinds, Full House 3+2, Castle 3+3 and Tower 4+2 score
    the dice they use (groups of different faces), the straights 15, 20 and 21, Chance the sum, Maxi Yatzy 100."""
    assert len(dice) == 6
    out = _upper(dice)
    out["one_pair"] = _best_pairs(dice, 1)
    out["two_pairs"] = _best_pairs(dice, 2)
    out["three_pairs"] = _best_pairs(dice, 3)
    for name, n in (("three_of_a_kind", 3), ("four_of_a_kind", 4), ("five_of_a_kind", 5)):
        out[name] = best_groups(dice, [n])
    out["small_straight"] = 15 if {1, 2, 3, 4, 5} <= set(dice) else 0
    out["large_straight"] = 20 if {2, 3, 4, 5, 6} <= set(dice) else 0
    out["full_straight"] = 21 if sorted(dice) == [1, 2, 3, 4, 5, 6] else 0
    out["full_house"] = best_groups(dice, [3, 2])
    out["castle"] = best_groups(dice, [3, 3])
    out["tower"] = best_groups(dice, [4, 2])
    out["chance"] = sum(dice)
    out["maxi_yatzy"] = 100 if len(set(dice)) == 1 else 0
    return out


GOLDEN = {"yacht": modern, "verhoeff": modern, "kirakuken": modern, "classic": classic, "cheerio": cheerio,
          "extended": extended, "knizia": knizia, "yatzy": yatzy,
          "maxi": maxi}
