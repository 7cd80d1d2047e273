"""Ratings from stored games: Elo for two-seat games, OpenSkill Plackett-Luce for any table size and teams.

Elo here is the maximum-likelihood Bradley-Terry fit of all two-seat results at once (a draw counts
half a win each way; one virtual draw per pair keeps unbeaten agents finite), on the Elo scale
(400 points = 10:1 odds) with mean 1500. Its 95% interval comes from a bootstrap over deals, so the
arrangements of one deal stay together. Elo does not apply to tables of more than two seats (a game
there is not one result between two agents); `elo_unavailable` says so in words. OpenSkill updates game
by game in game order, each sheet a team (its seats' agents), so the ratings depend only on the stored
games.
"""
from collections import defaultdict

import numpy as np

from .stats import ordered, sheets_of

BOOTSTRAP = 200


def _pair_results(blocks, names):
    """wins[i, j] (draws as halves) and games[i, j] from a list of (a, b, place_a, place_b)."""
    idx = {n: i for i, n in enumerate(names)}
    wins = np.zeros((len(names), len(names)))
    games = np.zeros_like(wins)
    for block in blocks:
        for a, b, pa, pb in block:
            i, j = idx[a], idx[b]
            w = 1.0 if pa < pb else 0.5 if pa == pb else 0.0
            wins[i, j] += w
            wins[j, i] += 1 - w
            games[i, j] += 1
            games[j, i] += 1
    return wins, games


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
    """Elo with bootstrap 95% intervals for the agents in two-seat games (None if there are none)."""
    blocks = defaultdict(list)
    for r in ordered(records):
        if len(r["agents"]) == 2:
            (a, b), (pa, pb) = r["agents"], r["places"]
            blocks[(r["table"], r["deal"])].append((a, b, pa, pb))
    if not blocks:
        return None
    names = [n for n in entrants if any(n in (x[0], x[1]) for blk in blocks.values() for x in blk)]
    per_block = [_pair_results([blk], names) for blk in blocks.values()]
    wins = np.array([w for w, _ in per_block])
    games = np.array([g for _, g in per_block])
    point = bradley_terry_elo(wins.sum(axis=0), games.sum(axis=0))
    rng = np.random.default_rng(seed)
    boot = []
    for _ in range(BOOTSTRAP):
        counts = np.bincount(rng.integers(len(per_block), size=len(per_block)), minlength=len(per_block))
        boot.append(bradley_terry_elo(np.tensordot(counts, wins, 1), np.tensordot(counts, games, 1)))
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
    """OpenSkill Plackett-Luce mu, sigma and ordinal (mu - 3 sigma) per agent, or {'error': why}."""
    try:
        from openskill.models import PlackettLuce
    except ImportError:
        return {"error": "OpenSkill ratings need the openskill package: pip install 'yacht-arena[ratings]'"}
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
