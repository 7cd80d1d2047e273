"""What every format is: a `Format` says which entrants meet at which table, checks its own config keys and
words itself in the report; `RoundTables` and `RoundReplay` are the part of the formats whose tables are
paired round by round from the results (a Swiss, an adaptive schedule).

Tables are numbered from 0 and a table's number fixes its dice (`game_seed(seed, table, deal)`).
"""
from abc import ABC, abstractmethod
from math import comb

from yacht_env.config import ConfigError, whole

from ..seating import games_per_deal

MAX_ROUNDS = 1000             # Swiss rounds, adaptive rounds


class Format(ABC):
    """One format. A subclass sets the class attributes below and the table layout (`table_count`, `members`,
    and `tables` when every table is known in advance, else `pair`).

    - `format`, `schedule`: the values of the config keys that choose it (`schedule` is "fixed" unless the
      format is a schedule over another format's field).
    - `called`: how a message names it ("a gauntlet"); `scope`: what a schedule applies to, said when a
      config asks it of another format.
    - `keys`: the config keys only it (and the other formats that list them) takes, each with what a format
      that has it does ("has candidates"); `check` validates them.
    - `hash_keys`: the config fields its config hash adds; `record_omits`: the config fields its recorded
      config leaves out (so the folders of the formats before adaptive schedules read as they did).
    - `until`: for a format that stops when its answer is sure, what ends it (its game count is a most).
    """

    format: str
    schedule = "fixed"
    called: str
    scope = ""
    keys: dict[str, str] = {}
    hash_keys: tuple[str, ...] = ("format", "candidates", "rounds")
    record_omits: tuple[str, ...] = ("schedule", "confidence")
    until: str | None = None

    def __init__(self, entrants: list[str], seats: int):
        self.entrants, self.seats = list(entrants), seats

    @classmethod
    def of(cls, config) -> "Format":
        """The format of a tournament config."""
        return cls(list(config.entrants), config.seats, **{k: getattr(config, k) for k in cls.keys})

    @classmethod
    def check(cls, source, data: dict, entrants: dict, seats: int) -> dict:
        """Its own config keys' values, checked (`ConfigError` naming the file, key and what is allowed)."""
        return {}

    @classmethod
    def replay(cls, config):
        """The replay of a config's stored games, with none counted yet (`RoundReplay`); None when every table
        is known in advance."""
        return None

    @staticmethod
    @abstractmethod
    def describe(t: dict) -> str:
        """The format in one sentence of the report, from its `tournament` block."""

    @staticmethod
    def report_blocks(res: dict) -> list:
        """The report's blocks after that sentence (an adaptive schedule's ranking)."""
        return []

    @staticmethod
    def report_section(res: dict):
        """A section of the report of the format's own, after the standings (a Swiss's points, tiebreaks and
        pairings), or None."""
        return None

    @property
    @abstractmethod
    def table_count(self) -> int:
        """Tables it schedules (for a format with `until`, the most it may play)."""

    @abstractmethod
    def members(self, t: int) -> tuple[str, ...] | None:
        """Table t's entrants (None if there is no table t, or if its round decides them)."""


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


def check_rounds(source, data: dict, missing: str) -> int:
    """A config's `rounds`, 1 .. MAX_ROUNDS; `missing` says what needs them when they are not given."""
    value = data.get("rounds")
    if value is None:
        raise ConfigError(source, "rounds", f"{missing} (1 to {MAX_ROUNDS})")
    return whole(source, "rounds", value, 1, MAX_ROUNDS)


class RoundTables(Format):
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


class RoundReplay:
    """A round format's rounds rebuilt from its stored games (read once, as a stream). A subclass counts a
    game in its round (`add`, calling `seen_at`) and pairs round after round (`pairings`: yields (round,
    tables, byes), each from the games of the complete rounds before it, exactly as the run did), checking
    every stored table against its round's pairing (`check`)."""

    pairing = "the pairing"       # what gives a round's tables, in the message for a store that differs

    def __init__(self, config, fmt: RoundTables):
        self.config, self.fmt = config, fmt
        self.per_table = config.games * games_per_deal(config.seats, config.ruleset.teams)
        self.seen: dict[int, frozenset] = {}

    def seen_at(self, record: dict) -> int:
        """Note a stored game's table and entrants; return its table."""
        t = record["table"]
        self.seen.setdefault(t, frozenset(record["agents"]))
        return t

    def check(self, rnd: int, tables) -> None:
        """ValueError naming a stored table that sits other entrants than round `rnd`'s pairing gives (a store
        written by another version of the pairing)."""
        for t, members in tables:
            if t in self.seen and self.seen[t] != frozenset(members):
                raise ValueError(f"table {t} (round {rnd + 1}) holds {sorted(self.seen[t])} but {self.pairing} "
                                 f"gives {sorted(members)}")

    def progress(self, rnd: int) -> str | None:
        """What a run's progress bar says beside its game count while round `rnd` plays (None: nothing)."""
        return None

    def finished(self) -> str | None:
        """What the progress bar says once `pairings` has run out (None: nothing)."""
        return None

    def results(self, rounds: list[dict], records, entrants) -> dict:
        """The results' entries of the format, from its rounds ({round, tables, byes}) re-paired, the stored
        games and the agents in standings order."""
        return {}

    def complete(self, played: int, planned: int) -> bool:
        """Whether the run is over, `played` of the `planned` games stored."""
        return played == planned
