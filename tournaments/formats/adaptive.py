"""Adaptive schedule (`schedule: adaptive` over `format: round_robin`): rank N entrants by playing where their
order is least certain, and stop at a chosen confidence.

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

from yacht_env.config import number

from ..document import Cell, Grid
from ..ratings import StageCounts
from .base import RoundReplay, RoundTables, check_rounds
from .round_robin import RoundRobin

CONFIDENCE = (0.5, 0.9999)    # the target confidence: above the first, at most the second
DEFAULT_CONFIDENCE = 0.95


class Adaptive(RoundTables):
    """The tables of an adaptive schedule: N - seats + 1 windows of `seats` neighbours in a ranking, a round
    at a time (the module docstring tells the rules)."""

    format, schedule = RoundRobin.format, "adaptive"
    called = "an adaptive schedule"
    scope = "ranks a round robin's field"
    keys = {"rounds": "has rounds", "confidence": "stops at a confidence"}
    hash_keys = ("schedule", "rounds", "confidence")
    record_omits = ()
    until = "the ranking is confident"

    def __init__(self, entrants: list[str], seats: int, rounds: int, confidence: float):
        super().__init__(entrants, seats)
        self.rounds, self.confidence = rounds, confidence
        self.per_round = len(self.entrants) - seats + 1

    @classmethod
    def check(cls, source, data: dict, entrants: dict, seats: int) -> dict:
        """`confidence` (default 0.95, above 0.5, at most 0.9999: `CONFIDENCE`) and `rounds`, the most it plays."""
        value = data.get("confidence")
        lo, hi = CONFIDENCE
        confidence = DEFAULT_CONFIDENCE if value is None else number(source, "confidence", value, lo, hi, above=True)
        return {"confidence": confidence,
                "rounds": check_rounds(source, data, "an adaptive schedule needs the most rounds it may play")}

    @classmethod
    def replay(cls, config) -> "AdaptiveReplay":
        return AdaptiveReplay(config)

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

    @staticmethod
    def describe(t: dict) -> str:
        return (f"Format: round robin with an adaptive schedule: at most {t['rounds']} rounds; a round plays tables "
                f"of {t['seats']} neighbours in the ranking fitted to the games before it (Plackett–Luce), every "
                f"such table whose order is below the target confidence {t['confidence']:g}; round "
                f"1 plays every {t['seats']} neighbours in config order. It stops when every pair of neighbours is "
                f"ordered at the target confidence.")

    @staticmethod
    def report_blocks(res: dict) -> list:
        """How the schedule stands: why it stopped, its rounds, and the ranking with each neighbour pair's
        confidence."""
        a = res.get("adaptive")
        if not a:
            return []
        why = {"confident": f"every pair of neighbours is ordered at confidence ≥ {a['confidence']:g}",
               "rounds": f"its {a['rounds_played']} rounds are played; not every pair reached {a['confidence']:g}",
               None: "still running: rerun the same command to go on"}[a["stopped"]]
        rounds = a.get("rounds") or []
        return [f"Adaptive schedule: {a['rounds_played']} rounds, {sum(len(r['tables']) for r in rounds)} tables; "
                f"stopped: {why}. The ranking fitted to every game, with the confidence that each entrant is "
                f"above the next (normal approximation of the fit's posterior):",
                Grid(["rank", "agent", "log-strength", "confidence above next"],
                      [[Cell(str(i + 1), i + 1), x["agent"], Cell(f"{x['theta']:.3f}", x["theta"]),
                        Cell("–" if x["confidence_above_next"] is None else f"{x['confidence_above_next']:.4f}",
                             x["confidence_above_next"])] for i, x in enumerate(a["ranking"])], "rlrr")]


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


class AdaptiveReplay(RoundReplay):
    """An adaptive run's rounds rebuilt from its stored games, as `SwissReplay` does for a Swiss: `add`
    counts a game in its round, `pairings` yields the rounds (each from the games of the complete rounds
    before it) until the ranking is confident or the rounds run out, and checks the stored tables against
    them. After `pairings` has run out, `status` says how the run ended."""

    pairing = "the adaptive schedule"

    def __init__(self, config, records=()):
        super().__init__(config, Adaptive.of(config))
        self.by_round = [StageCounts(self.fmt.entrants) for _ in range(config.rounds)]
        self.played: dict[int, int] = {}         # table -> games stored
        self.status: dict | None = None
        self.least: float | None = None         # before the round `pairings` last yielded: the least confidence
        for rec in records:
            self.add(rec)

    def add(self, record) -> None:
        t = self.seen_at(record)
        self.by_round[self.fmt.round_of(t)].add(record)
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
            self.check(rnd, last)
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

    def progress(self, rnd: int) -> str:
        """The round (of at most `rounds`) and the least confidence of a neighbour pair before it against the
        target (none before round 2)."""
        return self._line(rnd, self.least)

    def finished(self) -> str | None:
        """Once the run has paired its rounds: the round it reached, how it stopped and the confidence."""
        if self.status is None:
            return None
        sure = [x["confidence_above_next"] for x in self.status["ranking"][:-1]]
        return self._line(self.status["rounds_played"] - 1, min(sure, default=1.0), self.status["stopped"])

    def _line(self, rnd: int, least: float | None, stopped: str | None = None) -> str:
        sure = "–" if least is None else f"{least:.3f}"
        where = f"round {rnd + 1} of at most {self.fmt.rounds}" + (f", stopped ({stopped})" if stopped else "")
        return f"{where}, least confidence {sure} (target {self.fmt.confidence:g})"

    def results(self, rounds: list[dict], records, entrants) -> dict:
        return {"adaptive": {**self.status, "rounds": rounds}}

    def complete(self, played: int, planned: int) -> bool:
        return self.status is not None and self.status["stopped"] is not None
