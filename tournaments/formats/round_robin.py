"""Round robin (`format: round_robin`, the default): every combination of `seats` entrants is a table, in
`itertools.combinations` order, so every pair of entrants meets at the same number of tables."""
from itertools import combinations, islice
from math import comb

from .base import Format, unrank


class RoundRobin(Format):
    """Every combination of `seats` entrants, once. `members(t)` computes table t's entrants from its number
    alone (combinations are ranked, not listed) and `tables()` yields them one by one, so start-up time and
    memory do not depend on the number of combinations."""

    format = "round_robin"
    called = "a round robin"
    hash_keys = ()              # round robins keep the config hash they had before formats

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

    @staticmethod
    def describe(t: dict) -> str:
        return (f"Format: round robin, every combination of {t['seats']} of the {len(t['entrants'])} entrants at one "
                f"table.")
