"""Statistics over stored games: score distributions, win/draw/loss, and what duplicate dice buy.

All functions take records in any order and sort them by game, so results do not depend on which
worker finished first. A seat that forfeited counts as a loss in head-to-head results but its score
is left out of score statistics.
"""
import math
from collections import defaultdict
from itertools import combinations

import numpy as np

Z95 = 1.959963984540054
QUANTILES = (0.05, 0.25, 0.5, 0.75, 0.95)


def ordered(records) -> list[dict]:
    """Records sorted by (table, deal, rotation)."""
    return sorted(records, key=lambda r: (r["table"], r["deal"], r["rotation"]))


def describe_scores(values) -> dict:
    """n, mean ± 95% CI (normal), sd, median, quantiles, min and max of a list of scores."""
    x = np.asarray(values, dtype=float)
    n = len(x)
    if n == 0:
        return {"n": 0}
    sd = float(x.std(ddof=1)) if n > 1 else 0.0
    half = Z95 * sd / math.sqrt(n)
    mean = float(x.mean())
    return {"n": n, "mean": mean, "ci95": [mean - half, mean + half], "std": sd, "median": float(np.median(x)),
            "quantiles": {f"p{round(q * 100)}": float(np.quantile(x, q)) for q in QUANTILES},
            "min": float(x.min()), "max": float(x.max())}


def wilson(successes: float, n: int) -> list[float]:
    """95% Wilson score interval for a proportion (draws may count as half successes)."""
    if n == 0:
        return [0.0, 1.0]
    p = successes / n
    z2 = Z95 * Z95
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return [max(0.0, centre - half), min(1.0, centre + half)]


def opponents(r) -> list[tuple[int, int]]:
    """Seat pairs (i, j), i < j, that play against each other (not teammates on one sheet)."""
    sheet = r.get("sheet_of") or list(range(len(r["agents"])))
    return [(i, j) for i, j in combinations(range(len(r["agents"])), 2) if sheet[i] != sheet[j]]


def scores_by_agent(records) -> dict[str, list[int]]:
    """Each agent's totals in the games it finished without a fault, in game order."""
    out = defaultdict(list)
    for r in ordered(records):
        for seat, name in enumerate(r["agents"]):
            if r["faults"][seat] is None:
                out[name].append(r["totals"][seat])
    return out


def agent_stats(records, entrants, boxes) -> dict[str, dict]:
    """Per agent: games, forfeits, score distribution, mean place, win share, per-box means, bonus rates."""
    records = ordered(records)
    scores = scores_by_agent(records)
    out = {}
    for name in entrants:
        games = [(r, s) for r in records for s, a in enumerate(r["agents"]) if a == name]
        clean = [(r, s) for r, s in games if r["faults"][s] is None]
        d = {"games": len(games), "forfeits": len(games) - len(clean), **describe_scores(scores.get(name, []))}
        d.pop("n", None)
        if games:
            d["mean_place"] = float(np.mean([r["places"][s] for r, s in games]))
            d["first_places"] = sum(1 for r, s in games if r["places"][s] == 1)
        if clean:
            sheets = np.array([r["sheets"][s] for r, s in clean], dtype=float)  # games x columns x boxes
            d["per_box_mean"] = dict(zip(boxes, sheets.mean(axis=(0, 1)).round(4).tolist()))
            d["upper_bonus_rate"] = float(np.mean([r["upper_bonus"][s] > 0 for r, s in clean]))
            d["extra_bonus_mean"] = float(np.mean([r["extra_bonus"][s] for r, s in clean]))
        out[name] = d
    return out


def head_to_head(records, entrants) -> list[dict]:
    """For each pair of entrants that met as opponents: wins, draws and losses of `a` against `b` by place, and a's
    score rate (wins + draws / 2) / games with a 95% Wilson interval."""
    tally = defaultdict(lambda: [0, 0, 0])
    for r in records:
        for i, j in opponents(r):
            a, b = r["agents"][i], r["agents"][j]
            pa, pb = r["places"][i], r["places"][j]
            if entrants.index(a) > entrants.index(b):
                a, b, pa, pb = b, a, pb, pa
            tally[(a, b)][0 if pa < pb else 1 if pa == pb else 2] += 1
    out = []
    for (a, b), (w, d, l) in sorted(tally.items(), key=lambda kv: (entrants.index(kv[0][0]), entrants.index(kv[0][1]))):
        n = w + d + l
        out.append({"a": a, "b": b, "games": n, "wins": w, "draws": d, "losses": l,
                    "score_rate": (w + d / 2) / n, "ci95": wilson(w + d / 2, n)})
    return out


def duplicate_effect(records, entrants) -> dict:
    """How much duplicate dice narrow the 95% CI of each pair's mean score difference.

    Duplicate: the difference a - b is averaged over the rotations of each deal (every rotation saw the
    same dice), and the CI comes from the spread of those deal means. Independent dice on the same
    budget: a and b would roll independently in every game, so the difference of one game has
    variance var(a) + var(b), estimated from the same games.
    """
    blocks = defaultdict(lambda: defaultdict(list))  # (a, b) -> (table, deal) -> [diff per rotation]
    for r in ordered(records):
        for i, j in opponents(r):
            if r["faults"][i] is not None or r["faults"][j] is not None:
                continue
            a, b, sa, sb = r["agents"][i], r["agents"][j], r["totals"][i], r["totals"][j]
            if entrants.index(a) > entrants.index(b):
                a, b, sa, sb = b, a, sb, sa
            blocks[(a, b)][(r["table"], r["deal"])].append((sa, sb))
    pairs = []
    for (a, b), deals in sorted(blocks.items(), key=lambda kv: (entrants.index(kv[0][0]), entrants.index(kv[0][1]))):
        if len(deals) < 2:
            continue
        means = np.array([np.mean([x - y for x, y in g]) for g in deals.values()])
        sa = np.array([x for g in deals.values() for x, _ in g], dtype=float)
        sb = np.array([y for g in deals.values() for _, y in g], dtype=float)
        n = len(sa)
        var_dup = means.var(ddof=1) / len(means)
        var_ind = (sa.var(ddof=1) + sb.var(ddof=1)) / n
        diff = float(sa.mean() - sb.mean())
        half_dup, half_ind = Z95 * math.sqrt(var_dup), Z95 * math.sqrt(var_ind)
        pairs.append({"a": a, "b": b, "deals": len(means), "games": n, "mean_diff": diff,
                      "ci95_duplicate": [diff - half_dup, diff + half_dup],
                      "ci95_independent": [diff - half_ind, diff + half_ind],
                      "width_ratio": half_dup / half_ind if half_ind > 0 else None,
                      "games_factor": var_ind / var_dup if var_dup > 0 else None})
    ratios = [p["width_ratio"] for p in pairs if p["width_ratio"] is not None]
    factors = [p["games_factor"] for p in pairs if p["games_factor"] is not None]
    summary = {"pairs": len(pairs),
               "mean_width_ratio": float(np.mean(ratios)) if ratios else None,
               "mean_games_factor": float(np.mean(factors)) if factors else None}
    return {"summary": summary, "pairs": pairs}
