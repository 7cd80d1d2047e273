"""The schedule: tables, deals and seat arrangements, each game with its duplicate-dice seed.

Which entrants sit at which table is the format's (`tournaments.formats`: round robin, gauntlet, Swiss,
adaptive); in a round robin every combination of `seats` entrants is a table, so every pair of entrants meets at
the same number of tables. Each table plays `games` deals. A deal is played once in every arrangement of the table, and
all arrangements of a deal share one game seed (`game_seed(tournament seed, table, deal)`). Dice are drawn per
(seed, sheet, turn, roll, die), so in every arrangement each sheet gets the same dice.

How a table's entrants take its seats, deal after deal, is `tournaments.seating`'s.
"""
import re
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from yacht_env.core.dice_source import game_seed, game_seeds

from .formats import format_of
from .seating import arrangements, games_per_deal


@dataclass(frozen=True)
class Job:
    """One game to play: `agents[i]` sits at seat i."""
    table: int
    deal: int
    rotation: int       # the arrangement's index (`tournaments.seating`)
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
    fmt = format_of(config)
    return [members for _, members in fmt.tables()] if hasattr(fmt, "tables") else []


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
    for t, members in (format_of(config).tables() if tables_ is None else tables_):
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
    fmt = format_of(config) if fmt is None else fmt
    teams = config.ruleset.teams if teams is None else teams
    if not (t < fmt.table_count and d < config.games and r < games_per_deal(config.seats, teams)):
        return None
    members = fmt.members(t) if members is None else members
    agents = _seating(members, teams, r) if members is not None else ()
    return Job(t, d, r, game_seed(config.seed, t, d), agents)


@lru_cache(maxsize=4096)
def _seating(members: tuple[str, ...], teams: int, r: int) -> tuple[str, ...]:
    return arrangements(members, teams)[r]
