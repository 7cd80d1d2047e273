"""Ratings from stored games: Elo for two-seat games, OpenSkill Plackett-Luce for any table size and teams.

Elo here is the maximum-likelihood Bradley-Terry fit of all two-seat results at once (a draw counts
half a win each way; one virtual draw per pair keeps unbeaten agents finite), on the Elo scale
(400 points = 10:1 odds) with mean 1500. Its 95% interval comes from a bootstrap over deals, so the
arrangements of one deal stay together. Elo does not apply to tables of more than two seats (a game
there is not one result between two agents); `elo_unavailable` says so in words. OpenSkill updates game
by game in game order, each sheet a team (its seats' agents), so the ratings depend only on the stored
games.
"""
from array import array

import numpy as np
from openskill.models import PlackettLuce

from .stats import ordered, score, sheets_of

BOOTSTRAP = 200


def bradley_terry_elo(wins: np.ndarray, games: np.ndarray, iters: int = 50) -> np.ndarray:
    """Elo ratings (mean 1500) maximising the Bradley-Terry likelihood, with one virtual draw per pair met.

    Newton steps on the log-strengths (the likelihood is concave; the prior keeps the optimum finite).
    """
    met = games > 0
    w = wins + 0.5 * met
    n = games + 1.0 * met
    theta = np.zeros(len(w))
    for _ in range(iters):
        p = 1 / (1 + np.exp(theta[None, :] - theta[:, None]))      # p[i, j]: i beats j
        grad = (w - n * p).sum(axis=1)
        c = n * p * (1 - p)
        hess = c - np.diag(c.sum(axis=1))
        step = np.linalg.lstsq(hess, -grad, rcond=None)[0]
        theta = theta + step
        theta -= theta.mean()
        if np.max(np.abs(step)) < 1e-10:
            break
    return 1500 + 400 / np.log(10) * theta


def elo(records, entrants, seed: int = 0) -> dict | None:
    """Elo with bootstrap 95% intervals for the agents in two-seat games (None if there are none).

    Reads the games once, in game order, into flat arrays (a deal number, a cell and a result: about 17
    bytes a game): the bootstrap over deals needs each game's result."""
    blk, left, right, won = array("q"), array("i"), array("i"), array("d")
    index: dict = {}
    deal, deals = None, -1
    for r in ordered(records):
        if len(r["agents"]) == 2:
            (a, b), (pa, pb) = r["agents"], r["places"]
            if (r["table"], r["deal"]) != deal:
                deal, deals = (r["table"], r["deal"]), deals + 1
            blk.append(deals)
            left.append(index.setdefault(a, len(index)))
            right.append(index.setdefault(b, len(index)))
            won.append(score(pa, pb))
    if not blk:
        return None
    seen = list(index)
    names = [n for n in entrants if n in index]
    at = np.array([names.index(x) for x in seen], dtype=np.int64)    # first met -> entrant order
    n = len(names)
    blocks = deals + 1
    blk, won = np.frombuffer(blk, dtype=np.int64), np.frombuffer(won, dtype=float)
    cell = at[np.frombuffer(left, dtype=np.int32)] * n + at[np.frombuffer(right, dtype=np.int32)]
    flip = (cell % n) * n + cell // n

    def matrices(weight):
        wins = np.bincount(cell, weights=weight * won, minlength=n * n) + \
            np.bincount(flip, weights=weight * (1 - won), minlength=n * n)
        games = np.bincount(cell, weights=weight, minlength=n * n) + np.bincount(flip, weights=weight, minlength=n * n)
        return wins.reshape(n, n), games.reshape(n, n)

    point = bradley_terry_elo(*matrices(np.ones(len(blk))))
    rng = np.random.default_rng(seed)
    boot = []
    for _ in range(BOOTSTRAP):
        counts = np.bincount(rng.integers(blocks, size=blocks), minlength=blocks)
        boot.append(bradley_terry_elo(*matrices(counts[blk].astype(float))))
    lo, hi = np.percentile(boot, [2.5, 97.5], axis=0)
    return {n: {"elo": float(point[i]), "ci95": [float(lo[i]), float(hi[i])]} for i, n in enumerate(names)}


def elo_unavailable(seats: int, teams: int) -> str | None:
    """Why Elo cannot rate this tournament's games, or None when it can (two seats per table)."""
    if seats == 2:
        return None
    layout = f"{teams} teams of {seats // teams}" if teams and teams < seats else f"{seats} players"
    return (f"Elo is not given: it rates games between two players, and these games have {layout} at each "
            f"table. OpenSkill Plackett-Luce rates games of any size and teams; the standings rank by score rate.")


def openskill(records, entrants) -> dict:
    """OpenSkill Plackett-Luce mu, sigma and ordinal (mu - 3 sigma) per agent."""
    model = PlackettLuce()
    ratings = {n: model.rating(name=n) for n in entrants}
    for r in ordered(records):
        sheets = sheets_of(r)
        teams = {}                      # sheet -> seats on it, in seat order
        for seat, sheet in enumerate(sheets):
            teams.setdefault(sheet, []).append(seat)
        new = model.rate([[ratings[r["agents"][s]] for s in seats] for seats in teams.values()],
                         ranks=[r["places"][seats[0]] for seats in teams.values()])
        for seats, team in zip(teams.values(), new):
            for s, rating in zip(seats, team):
                ratings[r["agents"][s]] = rating
    return {n: {"mu": float(x.mu), "sigma": float(x.sigma), "ordinal": float(x.ordinal())}
            for n, x in ratings.items()}


PL_PRIOR = (2.0, 1.0)     # Gamma(shape, rate) prior on every strength: one virtual win, keeps unbeaten agents finite
PL_ITERS = 100           # Newton steps at most
PL_TOL = 1e-7            # largest change of a log-strength at which the fit stops


def _stages(records, names):
    """The choices of every game under Plackett-Luce, as arrays: per stage the agents still in the
    running (rows of entrant indices, -1 padded), the agent chosen there, and the game's index. Places
    are taken best first; the agents sharing a place (ties, or a team's sheet) are each chosen from the
    same set (Breslow's rule); a place whose set holds one agent (a lone last place) is no choice."""
    idx = {n: i for i, n in enumerate(names)}
    sets, chosen, game = [], [], []
    for g, r in enumerate(records):
        by_place: dict[int, list[int]] = {}
        for s, name in enumerate(r["agents"]):
            by_place.setdefault(r["places"][s], []).append(idx[name])
        remaining = [i for p in sorted(by_place) for i in by_place[p]]
        for p in sorted(by_place):
            if len(remaining) > 1:
                for i in by_place[p]:
                    sets.append(remaining)
                    chosen.append(i)
                    game.append(g)
            remaining = remaining[len(by_place[p]):]
    width = max((len(s) for s in sets), default=1)
    table = np.full((len(sets), width), -1, dtype=np.int64)
    for row, s in enumerate(sets):
        table[row, :len(s)] = s
    return table, np.array(chosen, dtype=np.int64), np.array(game, dtype=np.int64)


def _fit_pl(table, chosen, n, weights=None, start=None, covariance: bool = False):
    """Strengths g = exp(theta) maximising the Plackett-Luce log-likelihood plus the Gamma prior's
    log-density, sum((a - 1) theta - b g): Newton steps on theta (the objective is concave), with
    step halving. covariance=True: (g, C), C the inverse of the negative Hessian of that objective in
    theta at the optimum (the Laplace approximation of the posterior covariance of theta)."""
    a, b = PL_PRIOR
    w = np.ones(len(chosen)) if weights is None else weights
    wins = np.bincount(chosen, weights=w, minlength=n)
    mask = table >= 0
    safe = np.where(mask, table, 0)
    rows, cols = np.nonzero(mask)
    s, i, j = np.nonzero(mask[:, :, None] & mask[:, None, :])
    flat = safe[s, i] * n + safe[s, j]

    def value(theta):
        e = np.where(mask, np.exp(theta[safe]), 0.0)
        return float((w * (theta[chosen] - np.log(e.sum(axis=1)))).sum() + ((a - 1) * theta - b * np.exp(theta)).sum())

    def derivatives(theta):
        e = np.where(mask, np.exp(theta[safe]), 0.0)
        p = e / e.sum(axis=1, keepdims=True)
        wp = w[:, None] * p
        grad = wins - np.bincount(safe[rows, cols], weights=wp[rows, cols], minlength=n) + (a - 1) - b * np.exp(theta)
        hess = np.bincount(flat, weights=w[s] * p[s, i] * p[s, j], minlength=n * n).reshape(n, n)
        hess[np.diag_indices(n)] -= np.bincount(safe[rows, cols], weights=wp[rows, cols], minlength=n) \
            + b * np.exp(theta)
        return grad, hess

    theta = np.zeros(n) if start is None else np.log(start)
    current = value(theta)
    for _ in range(PL_ITERS):
        grad, hess = derivatives(theta)
        step = np.linalg.solve(hess, -grad)
        t = 1.0
        while True:
            new = value(theta + t * step)
            if new >= current - 1e-12 or t < 1e-6:
                break
            t /= 2
        theta, current = theta + t * step, new
        if np.max(np.abs(t * step)) < PL_TOL:
            break
    if covariance:
        return np.exp(theta), np.linalg.inv(-derivatives(theta)[1])
    return np.exp(theta)


def plackett_luce(records, entrants, seed: int = 0, boot: int = 100) -> dict | None:
    """Plackett-Luce ratings fitted to every game's places at once (a maximum a posteriori fit), on the
    Elo scale (mean 1500; for two seats it is the Bradley-Terry model), with bootstrap 95% intervals over
    deals, and the win matrix it predicts (P(i placed above j) = g_i / (g_i + g_j), as Luce's choice
    axiom gives for any table size) beside the observed one. None without games."""
    records = ordered(records)
    if not records:
        return None
    names, table, chosen, row, deal_of, deals = _stage_kinds(records, entrants)
    gamma = _fit_pl(table, chosen, len(names), np.bincount(row, minlength=len(table)).astype(float))
    rng = np.random.default_rng(seed)
    samples = []
    for _ in range(boot if deals > 1 else 0):
        counts = np.bincount(rng.integers(deals, size=deals), minlength=deals).astype(float)
        weights = np.bincount(row, weights=counts[deal_of], minlength=len(table))
        samples.append(_elo_scale(_fit_pl(table, chosen, len(names), weights, gamma)))
    point = _elo_scale(gamma)
    lo, hi = (np.percentile(samples, [2.5, 97.5], axis=0) if samples else (point, point))
    out = {n: {"rating": float(point[i]), "ci95": [float(lo[i]), float(hi[i])]} for i, n in enumerate(names)}
    predicted = gamma[:, None] / (gamma[:, None] + gamma[None, :])
    return {"ratings": out, "predicted": {a: {b: float(predicted[i, j]) for j, b in enumerate(names) if j != i}
                                          for i, a in enumerate(names)}}


def _stage_kinds(records, entrants):
    """The Plackett-Luce stages of records in game order (`_stages`), counted by kind in one pass: (the
    entrants met, in `entrants` order; the kinds as a table of sets, sorted rows with -1 padding first,
    in sorted order; the agent chosen at each kind; per stage its kind and its deal number (deals numbered
    in game order over every record); the number of deals). Memory: two numbers a stage, not the games."""
    met: dict = {}                     # name -> index in the order first met
    kind_of: dict = {}                 # (set of first-met indices, chosen) -> provisional kind
    row, deal_of = array("q"), array("q")
    deal, deals = None, -1
    for r in records:
        if (r["table"], r["deal"]) != deal:
            deal, deals = (r["table"], r["deal"]), deals + 1
        by_place: dict[int, list[int]] = {}
        for s, name in enumerate(r["agents"]):
            by_place.setdefault(r["places"][s], []).append(met.setdefault(name, len(met)))
        remaining = [i for p in sorted(by_place) for i in by_place[p]]
        for p in sorted(by_place):
            if len(remaining) > 1:
                key_set = tuple(sorted(remaining))
                for i in by_place[p]:
                    row.append(kind_of.setdefault((key_set, i), len(kind_of)))
                    deal_of.append(deals)
            remaining = remaining[len(by_place[p]):]
    names = [n for n in entrants if n in met]
    at = {i: names.index(n) for n, i in met.items()}
    width = max((len(k[0]) for k in kind_of), default=1)
    keys = [(-1,) * (width - len(s)) + tuple(sorted(at[i] for i in s)) + (at[c],) for s, c in kind_of]
    order = sorted(range(len(keys)), key=keys.__getitem__)
    rank = np.empty(len(keys), dtype=np.int64)
    rank[order] = np.arange(len(keys))
    kinds = np.array([keys[k] for k in order], dtype=np.int64).reshape(len(keys), width + 1)
    row = rank[np.frombuffer(row, dtype=np.int64)] if row else np.zeros(0, np.int64)
    deal_of = np.frombuffer(deal_of, dtype=np.int64) if deal_of else np.zeros(0, np.int64)
    return names, kinds[:, :-1], kinds[:, -1], row, deal_of, deals + 1


def _elo_scale(gamma: np.ndarray) -> np.ndarray:
    theta = np.log(gamma)
    return 1500 + 400 / np.log(10) * (theta - theta.mean())


class StageCounts:
    """The Plackett-Luce choices of games counted one at a time, kept as counts of each kind of stage
    (the set still in the running and the agent chosen from it; `_stages`), so the memory follows the
    kinds met, not the games. `fit()` gives the fit `plackett_luce` makes of the same games, with the
    Laplace approximation of its covariance; the counts are whole numbers, so the fit does not depend on
    the order the games were counted in."""

    def __init__(self, names: list[str]):
        self.names = list(names)
        self.counts: dict[tuple[int, ...], int] = {}

    def add(self, record) -> None:
        """Count one game's places."""
        table, chosen, _ = _stages([record], self.names)
        for row, c in zip(table.tolist(), chosen.tolist()):
            key = (*sorted(row), c)
            self.counts[key] = self.counts.get(key, 0) + 1

    def merge(self, other: "StageCounts") -> None:
        for key, c in other.counts.items():
            self.counts[key] = self.counts.get(key, 0) + c

    def fit(self) -> tuple[np.ndarray, np.ndarray]:
        """(theta, covariance): log-strengths of the maximum a posteriori fit (prior `PL_PRIOR`; all zero
        before any game) and their approximate posterior covariance."""
        n = len(self.names)
        if not self.counts:
            a, b = PL_PRIOR
            return np.full(n, np.log((a - 1) / b)), np.eye(n) / (a - 1)
        width = max(len(k) for k in self.counts) - 1
        kinds = sorted(self.counts, key=lambda k: (len(k), k))
        table = np.full((len(kinds), width), -1, dtype=np.int64)
        for r, k in enumerate(kinds):
            table[r, width - len(k) + 1:] = k[:-1]       # -1 padding first, as a sorted row of `_stages`
        chosen = np.array([k[-1] for k in kinds], dtype=np.int64)
        weights = np.array([self.counts[k] for k in kinds], dtype=float)
        gamma, cov = _fit_pl(table, chosen, n, weights, covariance=True)
        return np.log(gamma), cov
