"""Stored games held compactly for the statistics: what the report reads of a record, without its move log.

A record read from `games.jsonl` is a few KB of Python objects, most of it the move log; 400,000 of
them would not fit in memory. `Game` keeps the fields the statistics read (`tournaments.stats`,
`tournaments.ratings`) in slots, the sheets as one small integer array, the repeated tuples (seatings,
places, bonuses, faults) shared, and from the log only what the team statistics need (each seat's own
turns, box points and bonus points), so a game costs a few hundred bytes. It answers `game["totals"]`
and `game.get("sheet_of")` as a record does. The move analysis reads the logs again, in chunks
(`chunks`), unless the store holds no more than one chunk: then `read` keeps the records it parsed for it.
"""
import json

import numpy as np

from yacht_env.safe_file import open_read

from .stats import contributions, sheets_of

FIELDS = ("key", "table", "deal", "rotation", "seed", "agents", "sheet_of", "totals", "places", "sheets",
          "upper_bonus", "extra_bonus", "faults", "contributions")
SHARED = ("agents", "sheet_of", "places", "upper_bonus", "extra_bonus", "faults")


class Game:
    """One stored game's figures (see the module docstring); `contributions` is None unless seats share
    sheets (team rules)."""

    __slots__ = FIELDS + ("offset",)

    def __getitem__(self, name):
        try:
            return getattr(self, name)
        except AttributeError:
            raise KeyError(name) from None

    def get(self, name, default=None):
        return getattr(self, name, default)

    def __contains__(self, name) -> bool:
        return name in FIELDS


def compact(record: dict, offset: int, shared: dict) -> Game:
    """The `Game` of a stored record found at byte `offset` of games.jsonl; `shared` interns the
    repeated tuples across games."""
    g = Game()
    for name in ("key", "table", "deal", "rotation", "seed", "totals"):
        setattr(g, name, record[name])
    g.totals = tuple(g.totals)
    for name in SHARED:
        if name == "faults" and any(f is not None for f in record["faults"]):
            g.faults = tuple(record["faults"])          # rare: kept as they are
            continue
        value = tuple(record[name])
        setattr(g, name, shared.setdefault((name, value), value))
    g.sheets = np.asarray(record["sheets"], dtype=np.int16)
    g.contributions = tuple(contributions(record)) if len(set(sheets_of(record))) < len(record["agents"]) else None
    g.offset = offset
    return g


CHUNK = 2000        # full records the move analysis holds at once (`chunks`)


class Games(list):
    """The `Game`s of a store (a list), and while they are no more than one chunk their full records as read
    (`full`: byte offset -> record), which `chunks` then gives instead of reading and parsing them again."""
    full: dict | None = None


def read(store, keep: int = CHUNK) -> Games:
    """Every stored game of `store`, compact, sorted by (table, deal, rotation): read as a stream, one
    record at a time. The full records are kept as read while there are at most `keep` of them (one
    chunk of the move analysis: the memory that analysis holds anyway)."""
    shared: dict = {}
    full: dict | None = {} if keep > 0 else None
    out = Games()
    for offset, rec in store.stream(offsets=True):
        out.append(compact(rec, offset, shared))
        if full is not None:
            full[offset] = rec
            if len(full) > keep:
                full = None
    out.sort(key=lambda g: (g.table, g.deal, g.rotation))
    out.full = full
    return out


def chunks(store, games: list[Game], size: int = CHUNK):
    """The full records of `games` (with their logs), read again from the store `size` at a time, in the
    order of `games`: the same chunks whatever order the file holds them in. Records `read` kept are given
    as they are, without reading the file (once: they are let go as they are given)."""
    full = getattr(games, "full", None)
    if full is not None and len(games) <= size and all(g.offset in full for g in games):
        games.full = None
        yield [full[g.offset] for g in games]
        return
    with open_read(store.games_path, "games file") as f:
        for lo in range(0, len(games), size):
            out = []
            for g in games[lo:lo + size]:
                f.seek(g.offset)
                out.append(json.loads(f.readline()))
            yield out
