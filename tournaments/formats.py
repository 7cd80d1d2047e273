"""Tournament formats: which entrants meet at which table. Small classes, one per format, beside the
schedule (which turns a table into its games) and the statistics.

- `RoundRobin`: every combination of `seats` entrants is a table, in `itertools.combinations` order.
- `Gauntlet`: every candidate against the rest: a table is one candidate and `seats - 1` of the
  other entrants (not candidates), every such combination, candidate by candidate.
- `Swiss`: `rounds` rounds; each round seats the entrants at tables of `seats` by their standings
  (see `Swiss.pair`), avoiding repeat meetings where possible; the entrants left over when the
  field does not divide by `seats` sit the round out (a bye).
- `Adaptive` (`schedule: adaptive`): a round robin's field ranked in rounds, tables of neighbours in the
  ranking where its order is least certain, until a chosen confidence (`tournaments.adaptive`).

Tables are numbered from 0 and a table's number fixes its dice (`game_seed(seed, table, deal)`).
Round robins and gauntlets know every table in advance: `members(t)` computes table t's entrants
from its number alone (combinations are ranked, not listed), and `tables()` yields them one by one,
so start-up time and memory do not depend on the number of combinations. A Swiss round depends on
the results of the rounds before it: its table t is round t // per_round, and `pair(round, standings)`
gives that round's tables; `members` is None for it (the run checks stored games against the
pairings it recomputes).
"""
from itertools import combinations, islice
from math import comb

import numpy as np

from .stats import clean_seats, opponents

FORMATS = ("round_robin", "gauntlet", "swiss")
SCHEDULES = ("fixed", "adaptive")   # adaptive: a round robin's field ranked where it is least certain
BACKTRACK = 3          # Swiss: tables before the first repeat meeting searched again
SEARCH_STEPS = 5_000   # Swiss: steps of that search


def _repeats(table, met) -> bool:
    return any(b in met[a] for a, b in combinations(table, 2))


def _greedy(order: list[int], k: int, met) -> list[list[int]]:
    """Tables down `order`: each starts with the first free entrant and takes the next ones who have met
    none of its members, else the next ones."""
    free = list(order)
    tables = []
    while free:
        table = [free.pop(0)]
        seen = set(met[table[0]])
        j = 0
        while len(table) < k and j < len(free):
            if free[j] not in seen:
                x = free.pop(j)
                table.append(x)
                seen |= met[x]
            else:
                j += 1
        while len(table) < k:
            table.append(free.pop(0))
        tables.append(table)
    return tables


def _search(free: list[int], k: int, met) -> list[list[int]] | None:
    """Tables of k from `free` (in standings order) without a repeat meeting, closest in standings first,
    or None if none is found within SEARCH_STEPS steps."""
    steps = [0]

    def fill(free):
        if not free:
            return []
        first, rest = free[0], free[1:]
        for combo in combinations(range(len(rest)), k - 1):
            steps[0] += 1
            if steps[0] > SEARCH_STEPS:
                return None
            table = [first, *(rest[i] for i in combo)]
            if _repeats(table, met):
                continue
            chosen = set(combo)
            tail = fill([x for i, x in enumerate(rest) if i not in chosen])
            if tail is not None:
                return [table, *tail]
        return None

    return fill(free)


def unrank(n: int, k: int, rank: int) -> tuple[int, ...]:
    """The `rank`-th k-combination of range(n) in `itertools.combinations` order (0 <= rank < C(n, k))."""
    out, x = [], 0
    for i in range(k):
        while True:
            c = comb(n - x - 1, k - i - 1)
            if rank < c:
                break
            rank -= c
            x += 1
        out.append(x)
        x += 1
    return tuple(out)


class RoundRobin:
    """Every combination of `seats` entrants, once."""

    name = "round_robin"
    rounds = 1

    def __init__(self, entrants: list[str], seats: int):
        self.entrants, self.seats = list(entrants), seats

    @property
    def table_count(self) -> int:
        return comb(len(self.entrants), self.seats)

    def members(self, t: int) -> tuple[str, ...] | None:
        """Table t's entrants, in entrant order (None if there is no table t)."""
        if not 0 <= t < self.table_count:
            return None
        return tuple(self.entrants[i] for i in unrank(len(self.entrants), self.seats, t))

    def tables(self, start: int = 0):
        """(t, members) for every table from `start`, lazily."""
        return islice(enumerate(combinations(self.entrants, self.seats)), start, None)


class Gauntlet:
    """Each candidate against the other entrants: every table is one candidate and `seats - 1` others."""

    name = "gauntlet"
    rounds = 1

    def __init__(self, entrants: list[str], seats: int, candidates: list[str]):
        self.candidates = list(candidates)
        chosen = set(candidates)
        self.others = [e for e in entrants if e not in chosen]
        self.seats = seats

    @property
    def per_candidate(self) -> int:
        return comb(len(self.others), self.seats - 1)

    @property
    def table_count(self) -> int:
        return len(self.candidates) * self.per_candidate

    def members(self, t: int) -> tuple[str, ...] | None:
        """Table t's entrants, the candidate first (None if there is no table t)."""
        if not 0 <= t < self.table_count:
            return None
        c, rest = divmod(t, self.per_candidate)
        return (self.candidates[c], *(self.others[i] for i in unrank(len(self.others), self.seats - 1, rest)))

    def tables(self, start: int = 0):
        def every():
            for candidate in self.candidates:
                for rest in combinations(self.others, self.seats - 1):
                    yield (candidate, *rest)
        return islice(enumerate(every()), start, None)


class RoundTables:
    """Tables numbered round by round: round r's tables are r * per_round + i (a Swiss, an adaptive
    schedule). Which entrants sit at a table is known only once its round is paired (`members` is None)."""

    rounds: int
    per_round: int

    @property
    def table_count(self) -> int:
        return self.rounds * self.per_round

    def members(self, t: int) -> None:
        return None

    def round_of(self, t: int) -> int:
        return t // self.per_round


class Swiss(RoundTables):
    """`rounds` rounds of tables of `seats`, paired by standings.

    Standings before a round: points (each table played gives each of its entrants its share of the
    results there: (wins + draws / 2) / results over every opponent in every game of the table, so
    0 to 1 per round; a bye gives 0.5, the average), then mean score per game (the rating tiebreak:
    duplicate dice make it a fair measure of strength), then the entrants' config order (the seeding).

    Pairing (`pair`): down the standings, a table starts with the best entrant not yet seated and takes
    the next entrants in standings order who have met none of the table's members in an earlier round;
    when no such entrant is left, the next ones in order (a repeat meeting). If that leaves a repeat,
    the tables from `BACKTRACK` before the first repeat on are searched again (depth first, closest in
    standings first, at most `SEARCH_STEPS` steps) for seatings without one; if none is found in
    that budget, the greedy tables stand. When the field does not
    divide, the lowest-placed entrants among those with the fewest byes sit out. Deterministic: the
    same results give the same pairings, whatever order the games finished in.
    """

    name = "swiss"

    def __init__(self, entrants: list[str], seats: int, rounds: int):
        self.entrants, self.seats, self.rounds = list(entrants), seats, rounds
        self.per_round = len(self.entrants) // seats

    def pair(self, rnd: int, standings: "SwissStandings") -> tuple[list[tuple[int, tuple[str, ...]]], list[str]]:
        """Round `rnd`'s tables as (table number, members in standings order) and its byes, from the
        standings of the rounds before it. Records the meetings and byes in `standings`."""
        n, k = len(self.entrants), self.seats
        order = standings.order()
        byes_n = n - self.per_round * k
        byes: list[int] = []
        if byes_n:
            # the lowest placed among those with the fewest byes so far sit out
            byes = sorted(order[::-1], key=lambda i: standings.byes[i])[:byes_n]
            out = set(byes)
            order = [i for i in order if i not in out]
        tables = _greedy(order, k, standings.met)
        repeat = next((i for i, t in enumerate(tables) if _repeats(t, standings.met)), None)
        if repeat is not None:                 # search the last tables again, from a few tables earlier
            keep = max(0, repeat - BACKTRACK)
            tail = [i for t in tables[keep:] for i in t]
            found = _search(sorted(tail, key=order.index), k, standings.met)
            if found is not None:
                tables = tables[:keep] + found
        for table in tables:
            for i in table:
                standings.met[i].update(x for x in table if x != i)
        for i in byes:
            standings.byes[i] += 1
            standings.points[i] += 0.5
        first = rnd * self.per_round
        return ([(first + t, tuple(self.entrants[i] for i in table)) for t, table in enumerate(tables)],
                [self.entrants[i] for i in byes])


class Adaptive(RoundTables):
    """The tables of an adaptive schedule (`tournaments.adaptive`, whose docstring tells the rules):
    N - seats + 1 windows of `seats` neighbours in a ranking, a round at a time."""

    name = "adaptive"

    def __init__(self, entrants: list[str], seats: int, rounds: int, confidence: float):
        self.entrants, self.seats, self.rounds, self.confidence = list(entrants), seats, rounds, confidence
        self.per_round = len(self.entrants) - seats + 1

    def pair(self, rnd: int, order: list[int], sure: list[float] | None) -> list[tuple[int, tuple[str, ...]]]:
        """Round `rnd`'s tables as (table number, members in ranking order). `order`: entrant indices, best
        first; `sure`: the confidence of each pair of neighbours in it (None in round 0: every window)."""
        k = self.seats
        windows = list(range(self.per_round))
        if sure is not None:
            conf = [min(sure[j:j + k - 1]) for j in windows]
            windows = sorted((j for j in windows if conf[j] < self.confidence), key=lambda j: (conf[j], j))
        first = rnd * self.per_round
        return [(first + i, tuple(self.entrants[x] for x in order[j:j + k])) for i, j in enumerate(windows)]


class SwissStandings:
    """Running standings of a Swiss tournament: points, score sums, meetings and byes per entrant (arrays
    and sets of entrant indices; nothing per game is kept)."""

    def __init__(self, entrants: list[str]):
        self.index = {e: i for i, e in enumerate(entrants)}
        n = len(entrants)
        self.points = np.zeros(n)
        self.score_sum = np.zeros(n)
        self.scored = np.zeros(n, dtype=np.int64)
        self.byes = np.zeros(n, dtype=np.int64)
        self.met: list[set[int]] = [set() for _ in range(n)]

    def order(self) -> list[int]:
        """Entrant indices by points, then mean score, then config order."""
        mean = np.divide(self.score_sum, self.scored, out=np.zeros_like(self.score_sum), where=self.scored > 0)
        return np.lexsort((np.arange(len(self.points)), -mean, -self.points)).tolist()

    def merge(self, other: "SwissStandings") -> None:
        """Add another tally's points and scores (a round's games) to these standings."""
        self.points += other.points
        self.score_sum += other.score_sum
        self.scored += other.scored

    def add(self, record: dict, games_per_table: int) -> None:
        """Count one stored game: each seat's share of its results (over `games_per_table` games a table)
        and its score when its sheet finished without a fault."""
        agents, places = record["agents"], record["places"]
        wins = [0.0] * len(agents)
        met = [0] * len(agents)
        for i, j in opponents(record):
            res = 1.0 if places[i] < places[j] else 0.5 if places[i] == places[j] else 0.0
            wins[i] += res
            wins[j] += 1 - res
            met[i] += 1
            met[j] += 1
        for s, (name, ok) in enumerate(zip(agents, clean_seats(record))):
            i = self.index[name]
            if met[s]:
                self.points[i] += wins[s] / met[s] / games_per_table
            if ok:
                self.score_sum[i] += record["totals"][s]
                self.scored[i] += 1


class SwissReplay:
    """A Swiss tournament's rounds rebuilt from its stored games (read once, as a stream): the points
    each stored game gives, per round, and each stored table's entrants. `pairings(rounds)` then pairs
    round after round from the standings of the complete rounds before it, exactly as the run did, and
    checks the stored tables against those pairings."""

    def __init__(self, config, records=()):
        from .schedule import games_per_deal

        self.config, self.fmt = config, Swiss(list(config.entrants), config.seats, config.rounds)
        self.per_table = config.games * games_per_deal(config.seats, config.ruleset.teams)
        self.by_round = [SwissStandings(self.fmt.entrants) for _ in range(config.rounds)]
        self.seen: dict[int, frozenset] = {}
        for rec in records:
            self.add(rec)

    def add(self, record: dict) -> None:
        """Count a stored (or just played) game in its round."""
        t = record["table"]
        self.by_round[self.fmt.round_of(t)].add(record, self.per_table)
        self.seen.setdefault(t, frozenset(record["agents"]))

    def pairings(self, rounds: int | None = None):
        """Yield (round, tables, byes) for the first `rounds` rounds (default: all), each paired from the
        standings after the rounds before it; raises ValueError naming a stored table that sits other
        entrants than its round's pairing gives (a store written by another version of the pairing)."""
        standings = SwissStandings(self.fmt.entrants)
        for rnd in range(self.config.rounds if rounds is None else rounds):
            tables, byes = self.fmt.pair(rnd, standings)
            for t, members in tables:
                if t in self.seen and self.seen[t] != frozenset(members):
                    raise ValueError(f"table {t} (round {rnd + 1}) holds {sorted(self.seen[t])} but the pairing "
                                     f"gives {sorted(members)}")
            yield rnd, tables, byes
            standings.merge(self.by_round[rnd])


def make_format(config):
    """The format object of a tournament config (an adaptive schedule's is `adaptive.Adaptive`)."""
    entrants = list(config.entrants)
    if config.schedule == "adaptive":
        return Adaptive(entrants, config.seats, config.rounds, config.confidence)
    if config.format == "gauntlet":
        return Gauntlet(entrants, config.seats, config.candidates)
    if config.format == "swiss":
        return Swiss(entrants, config.seats, config.rounds)
    return RoundRobin(entrants, config.seats)


def make_replay(config):
    """The replay of a tournament whose tables depend on results (a Swiss: `SwissReplay`; an adaptive
    schedule: `adaptive.AdaptiveReplay`), with no games counted yet; None for the other formats."""
    if config.schedule == "adaptive":
        from .adaptive import AdaptiveReplay   # it imports this module
        return AdaptiveReplay(config)
    return SwissReplay(config) if config.format == "swiss" else None


def table_count(fmt: str, entrants: int, seats: int, candidates: int = 0, rounds: int = 0,
                schedule: str = "fixed") -> int:
    """Tables a format schedules, from the sizes alone (what the config checks before building anything);
    for an adaptive schedule, the most it may play."""
    if schedule == "adaptive":
        return rounds * (entrants - seats + 1)
    if fmt == "gauntlet":
        return candidates * comb(entrants - candidates, seats - 1)
    if fmt == "swiss":
        return rounds * (entrants // seats)
    return comb(entrants, seats)
