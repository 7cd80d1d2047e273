"""Seating: the arrangements of one table, in which every deal of it is played with the same dice. A leaf:
it knows entrants only as the members of a table, and imports nothing of the tournaments.

Without teams the arrangements are the k seat rotations (k = seats): rotation r seats entrant
(i + r) mod k at seat i, so each entrant sits in every seat, and meets every sheet's dice, once per deal.

Team rules (`teams` = T; seat i plays for team i % T, so a team has m = k / T seats) add partnerships.
A rotation keeps teams together (T divides k), so the arrangements are partnership splits times seat
rotations: arrangement `split * k + r` plays split `split` in rotation r. The splits are a smallest
family of ways to divide the table into T teams of m in which every pair of entrants is partnered
equally often (found once by search over all the ways; all of them are such a family by symmetry):

| seats | teams | ways to split | splits played | partnered per pair | arrangements per deal |
|---:|---:|---:|---:|---:|---:|
| 4 | 2 | 3 | 3 | 1 | 12 |
| 6 | 3 | 15 | 5 | 1 | 30 |
| 6 | 2 | 10 | 10 (no smaller family exists) | 4 | 60 |
| 8 | 4 | 105 | 7 | 1 | 56 |
| 8 | 2 | 35 | 7 | 3 | 56 |

For 2 teams of 2 at a table of A, B, C, D: the splits AB|CD, AC|BD, AD|BC, each in its 4 rotations,
so every pair is partners in 4 of a deal's 12 games and opponents in 8, and every entrant plays every
seat (every sheet, and every turn slot of the sheet: teammates alternate turns) 3 times.

Nothing has to divide: every deal is played in all arrangements, so the balance holds per deal, for
any number of deals, and across tables because every pair sits at the same number of tables. Teams of
one (T = k) have a single split and play like the no-team schedule.
"""
from functools import cache
from itertools import combinations
from math import comb

Split = tuple[tuple[int, ...], ...]   # teams of table positions, each sorted, ordered by first member


def all_splits(k: int, teams: int) -> list[Split]:
    """Every way to divide positions 0..k-1 into `teams` teams of k / teams, in a fixed order."""
    m = k // teams

    def split(rest: tuple[int, ...]) -> list[Split]:
        if not rest:
            return [()]
        first, others = rest[0], rest[1:]
        out = []
        for mates in combinations(others, m - 1):
            left = tuple(x for x in others if x not in mates)
            out += [((first, *mates), *tail) for tail in split(left)]
        return out

    return split(tuple(range(k)))


def partners(split: Split) -> list[tuple[int, int]]:
    """The pairs of positions a split puts on one team."""
    return [pair for team in split for pair in combinations(team, 2)]


@cache
def balanced_splits(k: int, teams: int) -> tuple[Split, ...]:
    """A smallest family of splits of k positions into `teams` teams in which every pair is partnered
    equally often; no teams (0) or teams of one give the single split of everyone on their own."""
    if not teams or teams == k:
        return (tuple((i,) for i in range(k)),)
    every = all_splits(k, teams)
    per_split = teams * comb(k // teams, 2)
    pairs = list(combinations(range(k), 2))
    for size in range(1, len(every)):
        if size * per_split % len(pairs):
            continue                      # then no family of this size can partner every pair equally
        found = _search(every, pairs, size * per_split // len(pairs))
        if found is not None:
            return tuple(every[i] for i in found)
    return tuple(every)


def _search(every: list[Split], pairs, times: int) -> list[int] | None:
    """Indices of distinct splits that partner every pair exactly `times` times (depth-first, each step
    covering the first pair still short), or None."""
    count = dict.fromkeys(pairs, 0)
    pairs_of = [partners(s) for s in every]
    chosen: list[int] = []

    def extend() -> bool:
        short = next((p for p in pairs if count[p] < times), None)
        if short is None:
            return True
        for i, ps in enumerate(pairs_of):
            if i in chosen or short not in ps or any(count[p] >= times for p in ps):
                continue
            chosen.append(i)
            for p in ps:
                count[p] += 1
            if extend():
                return True
            for p in ps:
                count[p] -= 1
            chosen.pop()
        return False

    return chosen if extend() else None


def games_per_deal(seats: int, teams: int) -> int:
    """How many arrangements (games) each deal of a table of `seats` is played in."""
    return len(balanced_splits(seats, teams)) * seats


def arrangements(members: tuple[str, ...], teams: int) -> list[tuple[str, ...]]:
    """The seatings of one table, indexed by `rotation`: every balanced split in each of its k rotations.

    A split's base seating puts member j of team t at seat t + j * teams (seat i plays for team i % teams);
    rotation r then seats the base seating's entrant (i + r) mod k at seat i."""
    k = len(members)
    t = teams or k                        # no teams: everyone is a team of one
    out = []
    for split in balanced_splits(k, teams):
        base = [members[split[i % t][i // t]] for i in range(k)]
        out += [tuple(base[(i + r) % k] for i in range(k)) for r in range(k)]
    return out
