"""Stored games held compactly for the statistics: what the report reads of a record, without its move log.

A record read from `games.jsonl` is a few KB of Python objects, most of it the move log; 400,000 of
them would not fit in memory, and even a few hundred bytes of Python objects a game add up. `Games`
keeps the fields the statistics read (`tournaments.stats`, `tournaments.ratings`) in flat columns, one
row a game, sorted by (table, deal, rotation): numbers in numpy arrays (about 40 bytes a two-seat game
with its sheets), the repeated tuples (seatings, sheet maps, places, bonuses) as indices into one list of
the distinct ones, faults (rare) in a dict. Iterating gives one `GameRow` view a game, made on the fly, that
answers `game["totals"]`, `game.get("sheet_of")` and `game.totals` as a record does; the statistics keep
running sums, not the views. The move analysis reads the logs again, in chunks (`chunks`), unless the
store holds no more than one chunk: then `read` keeps the records it parsed for it.
"""
from array import array

import numpy as np

from . import gamelog
from .schedule import game_key
from .stats import contributions, sheets_of

INTERNED = ("agents", "sheet_of", "places", "upper_bonus", "extra_bonus")


class GameRow:
    """One game of a `Games` (row `i`): reads its columns when asked (see the module docstring);
    `contributions` is None unless seats share sheets (team rules)."""

    __slots__ = ("_g", "_i")

    def __init__(self, games: "Games", i: int):
        self._g, self._i = games, i

    def __getattr__(self, name):
        try:
            return self._g.field(self._i, name)
        except KeyError:
            raise AttributeError(name) from None

    def __getitem__(self, name):
        return self._g.field(self._i, name)

    def get(self, name, default=None):
        try:
            return self._g.field(self._i, name)
        except KeyError:
            return default

    def __contains__(self, name) -> bool:
        return name in Games.FIELDS


class Games:
    """Every stored game of a store as columns (`read` makes one); a sequence of `GameRow` views in game order
    (`ordered` says so to `tournaments.stats.ordered`, which then does not sort again)."""

    FIELDS = ("key", "table", "deal", "rotation", "agents", "sheet_of", "totals", "places", "sheets",
              "upper_bonus", "extra_bonus", "faults", "contributions", "offset")
    ordered = True

    def __init__(self):
        self.table, self.deal, self.rotation = array("q"), array("q"), array("q")
        self.offset = array("q")
        self.totals = array("i")                 # seats a game, flat
        self.sheets: list[np.ndarray] = []       # blocks of (games, seats, columns, boxes) int16
        self._sheet_rows: list[np.ndarray] = []  # the rows being read, turned into a block every BLOCK games
        self.interned: list[tuple] = []          # the distinct tuples of INTERNED fields
        self._index: dict = {}
        self.refs = {name: array("i") for name in INTERNED}
        self.faults: dict[int, tuple] = {}       # row -> faults, for the games with one
        self.team_parts: dict[int, tuple] | None = None     # row -> contributions, under team rules
        self.seats = 0
        self.full: dict | None = None           # offset -> full record, kept by `read` for a store of one chunk

    BLOCK = 4096

    def add(self, record: dict, offset: int) -> None:
        """Append a stored record found at byte `offset` of games.jsonl (in any order; `finish` sorts)."""
        i = len(self.table)
        self.table.append(record["table"])
        self.deal.append(record["deal"])
        self.rotation.append(record["rotation"])
        self.offset.append(offset)
        self.totals.extend(record["totals"])
        self.seats = len(record["totals"])
        for name in INTERNED:
            value = tuple(record[name])
            ref = self._index.get((name, value))
            if ref is None:
                ref = self._index[(name, value)] = len(self.interned)
                self.interned.append(value)
            self.refs[name].append(ref)
        if any(f is not None for f in record["faults"]):
            self.faults[i] = tuple(record["faults"])
        if len(set(sheets_of(record))) < len(record["agents"]):
            if self.team_parts is None:
                self.team_parts = {}
            self.team_parts[i] = tuple(contributions(record))
        self._sheet_rows.append(np.asarray(record["sheets"], dtype=np.int16))
        if len(self._sheet_rows) == self.BLOCK:
            self.sheets.append(np.stack(self._sheet_rows))
            self._sheet_rows = []

    def finish(self) -> "Games":
        """Sort the rows by (table, deal, rotation) and freeze the columns as arrays."""
        if self._sheet_rows:
            self.sheets.append(np.stack(self._sheet_rows))
            self._sheet_rows = []
        n = len(self.table)
        table, deal, rotation = (np.frombuffer(c, dtype=np.int64) if n else np.zeros(0, np.int64)
                                 for c in (self.table, self.deal, self.rotation))
        order = np.lexsort((rotation, deal, table))
        sorted_ = bool(np.all(order == np.arange(n)))
        self.table, self.deal, self.rotation = table[order], deal[order], rotation[order]
        self.offset = (np.frombuffer(self.offset, dtype=np.int64) if n else np.zeros(0, np.int64))[order]
        k = self.seats
        self.totals = (np.frombuffer(self.totals, dtype=np.int32) if n else np.zeros(0, np.int32)).reshape(n, k)[order]
        self.refs = {name: (np.frombuffer(c, dtype=np.int32) if n else np.zeros(0, np.int32))[order]
                     for name, c in self.refs.items()}
        sheets = np.concatenate(self.sheets) if self.sheets else np.zeros((0,), np.int16)
        self.sheets = sheets if sorted_ else sheets[order]
        if not sorted_:
            where = np.empty(n, dtype=np.int64)
            where[order] = np.arange(n)
            self.faults = {int(where[i]): f for i, f in self.faults.items()}
            if self.team_parts is not None:
                self.team_parts = {int(where[i]): c for i, c in self.team_parts.items()}
        self._index = None
        return self

    def __len__(self) -> int:
        return len(self.table)

    def __getitem__(self, i: int) -> GameRow:
        if not -len(self) <= i < len(self):
            raise IndexError(i)
        return GameRow(self, i % len(self))

    def __iter__(self):
        for i in range(len(self)):
            yield GameRow(self, i)

    def field(self, i: int, name: str):
        """Field `name` of game `i`, as a record holds it (numbers as Python ints, lists as tuples)."""
        if name in self.refs:
            return self.interned[self.refs[name][i]]
        if name == "totals":
            return tuple(self.totals[i].tolist())
        if name in ("table", "deal", "rotation", "offset"):
            return int(getattr(self, name)[i])
        if name == "faults":
            return self.faults.get(i) or (None,) * self.seats
        if name == "sheets":
            return self.sheets[i]
        if name == "key":
            return game_key(int(self.table[i]), int(self.deal[i]), int(self.rotation[i]))
        if name == "contributions":
            return None if self.team_parts is None else self.team_parts.get(i)
        raise KeyError(name)


CHUNK = 2000        # full records the move analysis holds at once (`chunks`)


def read(store, keep: int = CHUNK) -> Games:
    """Every stored game of `store`, compact, sorted by (table, deal, rotation): read as a stream, one
    record at a time. The full records are kept as read (`Games.full`: byte offset -> record) while there
    are at most `keep` of them (one chunk of the move analysis: the memory that analysis holds anyway)."""
    games = Games()
    full: dict | None = {} if keep > 0 else None
    for offset, rec in store.stream(offsets=True):
        games.add(rec, offset)
        if full is not None:
            full[offset] = rec
            if len(full) > keep:
                full = None
    games = games.finish()
    games.full = full
    return games


def chunks(store, games: Games, size: int = CHUNK):
    """The full records of `games` (with their logs), read again from the store `size` at a time, in the
    order of `games`: the same chunks whatever order the file holds them in. Records `read` kept are given
    as they are, without reading the file (once: they are let go as they are given)."""
    offsets, full = games.offset, games.full
    if full is not None and len(games) <= size:
        ats = offsets.tolist()
        if all(at in full for at in ats):
            games.full = None
            yield [full[at] for at in ats]
            return
    for lo in range(0, len(games), size):
        yield list(gamelog.read_at(store.games_path, offsets[lo:lo + size].tolist()))
