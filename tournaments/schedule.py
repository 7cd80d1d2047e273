"""The round-robin schedule: tables, deals and seat rotations, each game with its duplicate-dice seed.

Every combination of `seats` entrants is a table. Each table plays `games` deals; a deal is played
once per seat rotation, and all rotations of a deal share one game seed
(`game_seed(tournament seed, table, deal)`). Dice are drawn per (seed, sheet, turn, roll, die), so in
every rotation each sheet gets the same dice and each entrant meets every sheet's dice once.
Under team rules (seat i plays for team i % teams) a rotation keeps each table's partnerships.
"""
from dataclasses import dataclass
from itertools import combinations

from yacht_env.dice_source import game_seed

from .config import TournamentConfig


@dataclass(frozen=True)
class Job:
    """One game to play: `agents[i]` sits at seat i."""
    table: int
    deal: int
    rotation: int
    seed: int
    agents: tuple[str, ...]

    @property
    def key(self) -> str:
        return game_key(self.table, self.deal, self.rotation)


def game_key(table: int, deal: int, rotation: int) -> str:
    """The store's unique key of a game."""
    return f"t{table}-d{deal}-r{rotation}"


def tables(config: TournamentConfig) -> list[tuple[str, ...]]:
    """Every combination of `seats` entrants, in entrant order; the index is the table id."""
    return list(combinations(list(config.entrants), config.seats))


def schedule(config: TournamentConfig) -> list[Job]:
    """All games of the tournament, table by table, deal by deal, rotation by rotation."""
    jobs = []
    for t, members in enumerate(tables(config)):
        k = len(members)
        for d in range(config.games):
            seed = game_seed(config.seed, t, d)
            for r in range(k):
                jobs.append(Job(t, d, r, seed, tuple(members[(i + r) % k] for i in range(k))))
    return jobs
