"""Swiss (`format: swiss`): `rounds` rounds; each round seats the entrants at tables of `seats` by their
standings (see `Swiss.pair`), avoiding repeat meetings where possible; the entrants left over when the field
does not divide by `seats` sit the round out (a bye). A round depends on the results of the rounds before it:
its table t is round t // per_round, and `pair(round, standings)` gives that round's tables; `members` is None
for it (the run checks stored games against the pairings it recomputes, `SwissReplay`).
"""
from itertools import combinations

import numpy as np

from ..document import Cell, Grid, Section
from ..stats import clean_seats, opponents, score, swiss_standings
from .base import RoundReplay, RoundTables, check_rounds

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

    format = "swiss"
    called = "a Swiss"
    keys = {"rounds": "has rounds"}

    def __init__(self, entrants: list[str], seats: int, rounds: int):
        super().__init__(entrants, seats)
        self.rounds = rounds
        self.per_round = len(self.entrants) // seats

    @classmethod
    def check(cls, source, data: dict, entrants: dict, seats: int) -> dict:
        return {"rounds": check_rounds(source, data, "a Swiss needs the number of rounds")}

    @classmethod
    def replay(cls, config) -> "SwissReplay":
        return SwissReplay(config)

    @staticmethod
    def describe(t: dict) -> str:
        n = len(t["entrants"])
        return (f"Format: Swiss, {t['rounds']} rounds of {n // t['seats']} tables. Each round seats the entrants "
                f"down the standings (points: the share of results won at each table, 0 to 1 a round, a bye "
                f"0.5; then mean score; then config order), avoiding repeat meetings where it can; "
                f"{n % t['seats']} entrants sit each round out (the lowest placed with the fewest byes).")

    @staticmethod
    def report_section(res: dict) -> Section | None:
        """A Swiss as people read one: points with Buchholz and Sonneborn–Berger, byes and games, and who
        played whom in every round (`stats.swiss_standings`)."""
        sw = res.get("swiss_standings")
        if not sw:
            return None

        def num(x, nd):
            return Cell(f"{x:.{nd}f}", x)

        rows = [[Cell(str(x["rank"]), x["rank"]), x["agent"], num(x["points"], 2), num(x["buchholz"], 2),
                 num(x["sonneborn_berger"], 2), Cell(str(x["rounds_played"]), x["rounds_played"]),
                 ", ".join(map(str, x["byes"])) or "–", Cell(str(x["games"]), x["games"])] for x in sw["standings"]]
        blocks = [Grid(["rank", "agent", "points", "Buchholz", "Sonneborn–Berger", "rounds played", "byes (round)",
                        "games"], rows, "rlrrrrlr"),
                  "Points as the pairing counts them: at each table an entrant's share of the results it won there "
                  "((wins + draws / 2) / results, 0 to 1 a round), and 0.5 for a bye. Ties are broken by Buchholz "
                  "(the opponents' points, summed over the rounds played; at a table of k seats each opponent "
                  "counts 1 / (k − 1)) and then by Sonneborn–Berger (each opponent's points times the share won "
                  "against that opponent there); a bye adds to neither. This order can differ from the Standings "
                  "above, which rank every result alike by score rate."]
        if not sw["equal_games"]:
            most = max(y["games"] for y in sw["standings"])
            fewer = [f"{x['agent']} ({x['games']})" for x in sw["standings"] if x["games"] < most]
            blocks.append("Game counts differ (a bye is a round without games): " + ", ".join(fewer)
                          + " played fewer games than the most any entrant played; their points count 0.5 a bye.")
        for r in sw["rounds"]:
            table_rows = []
            for t in r["tables"]:
                who = " – ".join(m["agent"] for m in t["members"])
                result = " – ".join(f"{m['points']:.2f}" for m in t["members"])
                wdl = "; ".join(f"{m['agent']} {m['wins']}-{m['draws']}-{m['losses']}" for m in t["members"])
                table_rows.append([f"t{t['table']}", who, result, wdl])
            for b in r["byes"]:
                table_rows.append(["bye", b, "0.50", "–"])
            blocks += [f"Round {r['round']}:", Grid(["table", "who played whom", "points", "W-D-L"], table_rows,
                                                    "llll", sortable=False)]
        return Section("Swiss standings and pairings", blocks)

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
            res = score(places[i], places[j])
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


class SwissReplay(RoundReplay):
    """A Swiss tournament's rounds rebuilt from its stored games: the points each stored game gives, per round,
    and each stored table's entrants; `pairings(rounds)` then pairs round after round from the standings of
    the complete rounds before it."""

    def __init__(self, config, records=()):
        super().__init__(config, Swiss.of(config))
        self.by_round = [SwissStandings(self.fmt.entrants) for _ in range(config.rounds)]
        for rec in records:
            self.add(rec)

    def add(self, record: dict) -> None:
        """Count a stored (or just played) game in its round."""
        t = self.seen_at(record)
        self.by_round[self.fmt.round_of(t)].add(record, self.per_table)

    def pairings(self, rounds: int | None = None):
        """Yield (round, tables, byes) for the first `rounds` rounds (default: all), each paired from the
        standings after the rounds before it; raises ValueError naming a stored table that sits other
        entrants than its round's pairing gives (`check`)."""
        standings = SwissStandings(self.fmt.entrants)
        for rnd in range(self.config.rounds if rounds is None else rounds):
            tables, byes = self.fmt.pair(rnd, standings)
            self.check(rnd, tables)
            yield rnd, tables, byes
            standings.merge(self.by_round[rnd])

    def results(self, rounds: list[dict], records, entrants) -> dict:
        return {"swiss": rounds, "swiss_standings": swiss_standings(records, rounds, entrants)}
