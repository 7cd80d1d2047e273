"""Adaptive scheduling (`schedule: adaptive`): rank N entrants by playing where their order is least
certain, and stop at a chosen confidence.

The run goes in rounds. Before each round the entrants are ranked by a Plackett-Luce fit to every
game of the rounds before (`tournaments.ratings.StageCounts`: the maximum a posteriori fit the report
makes, with the Laplace approximation of its covariance); round 0 ranks them in config order (the
seeding). The confidence that two neighbours in the ranking are in the right order is
P(theta_upper > theta_lower) under that normal approximation, Phi(difference / its standard error).
A window is `seats` neighbours in the ranking (N - seats + 1 windows), its confidence the least of
its neighbours' pairs.

- Round 0 plays every window (each entrant meets its neighbours in the seeding).
- Later rounds stop the run when every pair of neighbours is ordered with at least `confidence`;
  else they play every window below it, least certain first, and no other: the games go where the
  order is still uncertain, and a pair of neighbours once ordered is played again only when the
  ranking around it moves.
- `rounds` caps the run (two equally strong entrants are never ordered with confidence).

Every window played is a table of `games` deals, each in every seat arrangement with the same dice, as
in any format. Round r's tables are numbered r * W + i (W = N - seats + 1, i the table's place in the
round's list, least certain first), so a table's number fixes its dice. The choices depend only on
the games of complete rounds, counted as whole numbers, so the same seed gives the same tables and
the same stop whatever the workers, executor or batching, and a resumed run re-pairs the stored rounds
and checks the stored tables against them (as a Swiss does).
"""
import math

import numpy as np

from .formats import Adaptive
from .ratings import StageCounts


def ranking(counts: StageCounts) -> tuple[list[int], list[float], np.ndarray]:
    """(entrant indices best first, the confidence of each pair of neighbours, theta) from the fit of the
    games counted; equal strengths keep config order."""
    theta, cov = counts.fit()
    order = np.lexsort((np.arange(len(theta)), -theta)).tolist()
    sure = []
    for a, b in zip(order, order[1:]):
        var = cov[a, a] + cov[b, b] - 2 * cov[a, b]
        z = (theta[a] - theta[b]) / math.sqrt(var) if var > 0 else math.inf
        sure.append(0.5 * math.erfc(-z / math.sqrt(2)))
    return order, sure, theta


class AdaptiveReplay:
    """An adaptive run's rounds rebuilt from its stored games, as `tournaments.formats.SwissReplay` does
    for a Swiss: `add` counts a game in its round, `pairings` yields the rounds (each from the games of
    the complete rounds before it) until the ranking is confident or the rounds run out, and checks
    the stored tables against them. After `pairings` has run out, `status` says how the run ended."""

    def __init__(self, config, records=()):
        from .schedule import games_per_deal

        self.config = config
        self.fmt = Adaptive(list(config.entrants), config.seats, config.rounds, config.confidence)
        self.by_round = [StageCounts(self.fmt.entrants) for _ in range(config.rounds)]
        self.seen: dict[int, frozenset] = {}
        self.played: dict[int, int] = {}         # table -> games stored
        self.per_table = config.games * games_per_deal(config.seats, config.ruleset.teams)
        self.status: dict | None = None
        self.least: float | None = None         # before the round `pairings` last yielded: the least confidence
        for rec in records:
            self.add(rec)

    def add(self, record) -> None:
        t = record["table"]
        self.by_round[self.fmt.round_of(t)].add(record)
        self.seen.setdefault(t, frozenset(record["agents"]))
        self.played[t] = self.played.get(t, 0) + 1

    def pairings(self, rounds: int | None = None):
        """Yield (round, tables, byes = []) for the rounds the run plays (at most `rounds`, default: all);
        raises ValueError naming a stored table that sits other entrants than the round's choice. Then
        sets `status`: rounds paired, how the run ended ("confident", "rounds" when the cap is reached
        unsure, None while the last round paired is not complete and the run has not stopped), the
        target and the ranking with each neighbour pair's confidence."""
        fmt, total = self.fmt, StageCounts(self.fmt.entrants)
        limit = fmt.rounds if rounds is None else min(rounds, fmt.rounds)
        paired, last, stopped = 0, [], None
        for rnd in range(limit):
            order, sure = list(range(len(fmt.entrants))), None
            if rnd:
                order, sure, _ = ranking(total)
                self.least = min(sure, default=1.0)
                if self.least >= fmt.confidence:
                    stopped = "confident"
                    break
            last = fmt.pair(rnd, order, sure)
            for t, members in last:
                if t in self.seen and self.seen[t] != frozenset(members):
                    raise ValueError(f"table {t} (round {rnd + 1}) holds {sorted(self.seen[t])} but the adaptive "
                                     f"schedule gives {sorted(members)}")
            yield rnd, last, []
            total.merge(self.by_round[rnd])
            paired = rnd + 1
        order, sure, theta = ranking(total)
        if stopped is None and all(self.played.get(t, 0) == self.per_table for t, _ in last):
            if min(sure, default=1.0) >= fmt.confidence:
                stopped = "confident"
            elif paired == fmt.rounds:
                stopped = "rounds"
        self.status = {"rounds_played": paired, "stopped": stopped, "confidence": fmt.confidence,
                       "ranking": [{"agent": fmt.entrants[i], "theta": float(theta[i]),
                                    "confidence_above_next": sure[p] if p < len(sure) else None}
                                   for p, i in enumerate(order)]}
