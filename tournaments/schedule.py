"""The schedule: tables, deals and seat arrangements, each game with its duplicate-dice seed.

Which entrants sit at which table is the format's (`tournaments.formats`: round robin, gauntlet, Swiss); in a
round robin every combination of `seats` entrants is a table, so every pair of entrants meets at the same
number of tables. Each table plays `games` deals. A deal is played once in every arrangement of the table, and
all arrangements of a deal share one game seed (`game_seed(tournament seed, table, deal)`). Dice are drawn per
(seed, sheet, turn, roll, die), so in every arrangement each sheet gets the same dice.

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
import re
from dataclasses import dataclass
from functools import cache, lru_cache
from itertools import combinations
from math import comb

import numpy as np

from yacht_env.core.dice_source import game_seed, game_seeds

from .formats import make_format


Split = tuple[tuple[int, ...], ...]   # teams of table positions, each sorted, ordered by first member


@dataclass(frozen=True)
class Job:
    """One game to play: `agents[i]` sits at seat i."""
    table: int
    deal: int
    rotation: int       # the arrangement's index (see the module docstring)
    seed: int
    agents: tuple[str, ...]

    @property
    def key(self) -> str:
        return game_key(self.table, self.deal, self.rotation)


def game_key(table: int, deal: int, rotation: int) -> str:
    """The store's unique key of a game."""
    return f"t{table}-d{deal}-r{rotation}"


KEY = re.compile(r"t(\d{1,12})-d(\d{1,12})-r(\d{1,6})")


def parse_key(key) -> tuple[int, int, int] | None:
    """(table, deal, arrangement) of a game key, or None if it is not one."""
    m = KEY.fullmatch(key) if isinstance(key, str) else None
    return None if m is None else tuple(int(x) for x in m.groups())


def tables(config) -> list[tuple[str, ...]]:
    """Every table of a round robin or gauntlet as a list (index = table id); for small fields and
    tests: `formats` yields them lazily. A Swiss or an adaptive schedule has no tables before its rounds
    are paired: []."""
    fmt = make_format(config)
    return [members for _, members in fmt.tables()] if hasattr(fmt, "tables") else []


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


def table_jobs(config, t: int, members: tuple[str, ...], teams: int | None = None, deals=None) -> list[Job]:
    """The games of table t (entrants `members`): deal by deal (`deals`, a range; default: all),
    arrangement by arrangement."""
    teams = config.ruleset.teams if teams is None else teams
    seatings = arrangements(members, teams)
    deals = range(config.games) if deals is None else deals
    seeds = game_seeds(config.seed, t, last=np.arange(deals.start, deals.stop)).tolist()   # game_seed(seed, t, d)
    return [Job(t, d, r, seed, agents) for d, seed in zip(deals, seeds) for r, agents in enumerate(seatings)]


def jobs(config, tables_=None):
    """The games of `tables_` ((t, members) pairs; default: every table of a round robin or gauntlet),
    lazily, table by table, deal by deal, arrangement by arrangement."""
    teams = config.ruleset.teams
    for t, members in (make_format(config).tables() if tables_ is None else tables_):
        yield from table_jobs(config, t, members, teams)


def schedule(config) -> list[Job]:
    """All games of a round robin or gauntlet as a list (for small fields and tests; runs use `jobs`)."""
    return list(jobs(config))


def job_of(config, key, members=None, teams: int | None = None, fmt=None) -> Job | None:
    """The scheduled game with this key (None if there is none). `members`: the table's entrants when the
    format cannot know them from the table number (a Swiss round); without them a Swiss game's seats
    are left empty. `teams`, `fmt`: the rules' teams and the format object, if already at hand."""
    parsed = parse_key(key)
    if parsed is None:
        return None
    t, d, r = parsed
    fmt = make_format(config) if fmt is None else fmt
    teams = config.ruleset.teams if teams is None else teams
    if not (t < fmt.table_count and d < config.games and r < games_per_deal(config.seats, teams)):
        return None
    members = fmt.members(t) if members is None else members
    agents = _seating(members, teams, r) if members is not None else ()
    return Job(t, d, r, game_seed(config.seed, t, d), agents)


@lru_cache(maxsize=4096)
def _seating(members: tuple[str, ...], teams: int, r: int) -> tuple[str, ...]:
    return arrangements(members, teams)[r]
