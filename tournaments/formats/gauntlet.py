"""Gauntlet (`format: gauntlet`): every candidate against the rest. A table is one candidate and `seats - 1`
of the other entrants (not candidates), every such combination, candidate by candidate."""
from itertools import combinations, islice
from math import comb

from yacht_env.config import ConfigError

from ..document import listed
from .base import Format, unrank


class Gauntlet(Format):
    """Each candidate against the other entrants: every table is one candidate and `seats - 1` others."""

    format = "gauntlet"
    called = "a gauntlet"
    keys = {"candidates": "has candidates"}

    def __init__(self, entrants: list[str], seats: int, candidates: list[str]):
        super().__init__(entrants, seats)
        self.candidates = list(candidates)
        chosen = set(candidates)
        self.others = [e for e in self.entrants if e not in chosen]

    @classmethod
    def check(cls, source, data: dict, entrants: dict, seats: int) -> dict:
        """`candidates`: entrant names, at least one, leaving at least seats - 1 others."""
        value = data.get("candidates")
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not value:
            raise ConfigError(source, "candidates", "a gauntlet needs a non-empty list of entrant names that play "
                                                    "against all the others")
        out = []
        for i, name in enumerate(value):
            if not isinstance(name, str) or name not in entrants:
                names = ", ".join(list(entrants)[:10]) + (", ..." if len(entrants) > 10 else "")
                raise ConfigError(source, f"candidates[{i}]", f"must be an entrant's name (one of {names}), "
                                                              f"got {str(name)[:60]!r}")
            if name in out:
                raise ConfigError(source, f"candidates[{i}]", f"{name!r} is listed twice")
            out.append(name)
        if len(entrants) - len(out) < seats - 1:
            raise ConfigError(source, "candidates", f"a table of {seats} seats needs {seats - 1} entrants besides "
                                                    f"its candidate, and {len(entrants) - len(out)} are not candidates")
        return {"candidates": out}

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
        """(t, members) for every table from `start`, lazily."""
        def every():
            for candidate in self.candidates:
                for rest in combinations(self.others, self.seats - 1):
                    yield (candidate, *rest)
        return islice(enumerate(every()), start, None)

    @staticmethod
    def describe(t: dict) -> str:
        c = t["candidates"]
        return (f"Format: gauntlet. {listed(c)} {'plays' if len(c) == 1 else 'each play'} against the other "
                f"{len(t['entrants']) - len(c)} entrants: every table is a candidate and {t['seats'] - 1} of them, "
                f"every such combination once.")
