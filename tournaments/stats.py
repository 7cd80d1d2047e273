"""Statistics over stored games: standings, score distributions, win/draw/loss, what duplicate dice buy,
and under team rules the partnerships and each agent's share of its team's sheet.

All functions take records in any order and sort them by game, so results do not depend on which
worker finished first. A seat that forfeited counts as a loss in head-to-head results; the score of a
sheet a forfeiting seat wrote on (its own, or its team's) is left out of score statistics.
Where a function takes `entrants`, its output follows that order (the report passes the standings).
"""
import math
from array import array
from collections import defaultdict
from itertools import combinations

import numpy as np

from agents.stats import Z95, mean_ci, wilson

QUANTILES = (0.05, 0.25, 0.5, 0.75, 0.95)


def ordered(records):
    """Records sorted by (table, deal, rotation); records that say they are in that order already
    (`tournaments.games.Games`) as they are."""
    if getattr(records, "ordered", False):
        return records
    return sorted(records, key=lambda r: (r["table"], r["deal"], r["rotation"]))


def describe_scores(values) -> dict:
    """n, mean ± 95% CI (normal), sd, median, quantiles, min and max of a list of scores."""
    x = np.asarray(values, dtype=float)
    n = len(x)
    if n == 0:
        return {"n": 0}
    mean, ci, sd = mean_ci(x)
    return {"n": n, "mean": mean, "ci95": ci, "std": sd, "median": float(np.median(x)),
            "quantiles": {f"p{round(q * 100)}": float(np.quantile(x, q)) for q in QUANTILES},
            "min": float(x.min()), "max": float(x.max())}



def sheets_of(r) -> list[int]:
    """The sheet each seat writes on (records without `sheet_of`: one sheet per seat)."""
    return r.get("sheet_of") or list(range(len(r["agents"])))


def opponents(r) -> list[tuple[int, int]]:
    """Seat pairs (i, j), i < j, that play against each other (not teammates on one sheet)."""
    sheet = sheets_of(r)
    return [(i, j) for i, j in combinations(range(len(r["agents"])), 2) if sheet[i] != sheet[j]]


def clean_seats(r) -> list[bool]:
    """Per seat: no seat on its sheet forfeited, so the sheet's score is the agents' own play."""
    sheet = sheets_of(r)
    spoiled = {sheet[s] for s, f in enumerate(r["faults"]) if f is not None}
    return [sheet[s] not in spoiled for s in range(len(r["agents"]))]


def _order(entrants):
    index = {name: i for i, name in enumerate(entrants)}
    return lambda name: index.get(name, len(index))


def scores_by_agent(records) -> dict[str, array]:
    """Each agent's totals (its sheet's) in the games its sheet finished without a fault, in game order
    (an array of whole numbers: 4 bytes a game)."""
    out = defaultdict(lambda: array("i"))
    for r in ordered(records):
        for seat, (name, ok) in enumerate(zip(r["agents"], clean_seats(r))):
            if ok:
                out[name].append(r["totals"][seat])
    return out


def agent_stats(records, entrants, boxes) -> dict[str, dict]:
    """Per agent: games, forfeits, score distribution, mean place, first places, per-box means, bonus rates.
    Under team rules the scores and boxes are those of the team's sheet the agent wrote on.

    One pass in game order with running sums per agent (whole numbers, so the means are exact whatever
    the order); the scores are kept as an array (4 bytes a game) for the quantiles."""
    acc = {}
    for r in ordered(records):
        for s, (name, ok) in enumerate(zip(r["agents"], clean_seats(r))):
            a = acc.get(name)
            if a is None:
                a = acc[name] = _AgentSums()
            a.add(r, s, ok)
    out = {}
    for name in entrants:
        a = acc.get(name) or _AgentSums()
        d = {"games": a.games, "forfeits": a.forfeits, **describe_scores(a.scores)}
        d.pop("n", None)
        if a.games:
            d["mean_place"] = a.places / a.games
            d["first_places"] = a.firsts
        if a.clean:
            total = a.boxes
            d["per_box_mean"] = dict(zip(boxes, (total.sum(axis=0) / (a.clean * total.shape[0])).round(4).tolist()))
            d["upper_bonus_rate"] = a.upper_count / a.clean
            d["upper_bonus_mean"] = a.upper / a.clean
            d["extra_bonus_mean"] = a.extra / a.clean
        out[name] = d
    return out


class _AgentSums:
    """One agent's running sums for `agent_stats`."""

    def __init__(self):
        self.games = self.forfeits = self.places = self.firsts = 0
        self.clean = self.upper = self.upper_count = self.extra = 0
        self.scores = array("i")
        self.boxes = None               # columns x boxes, summed over the clean games

    def add(self, r, s: int, ok: bool) -> None:
        self.games += 1
        self.forfeits += r["faults"][s] is not None
        place = r["places"][s]
        self.places += place
        self.firsts += place == 1
        if ok:
            self.clean += 1
            self.scores.append(r["totals"][s])
            sheet = r["sheets"][s]
            if self.boxes is None:
                self.boxes = np.zeros(np.shape(sheet), dtype=np.int64)
            self.boxes += sheet
            bonus = r["upper_bonus"][s]
            self.upper += bonus
            self.upper_count += bonus > 0
            self.extra += r["extra_bonus"][s]


def score(pa: int, pb: int) -> float:
    """What the seat placed `pa` scores against the one placed `pb`: 1 a win, 0.5 a draw, 0 a loss."""
    return 1.0 if pa < pb else 0.5 if pa == pb else 0.0


def _result(pa: int, pb: int) -> int:
    """0 win, 1 draw, 2 loss for the seat placed `pa` against the one placed `pb`."""
    return 0 if pa < pb else 1 if pa == pb else 2


def standings(records, entrants) -> list[dict]:
    """The agents ranked by score rate against every opponent met, ties by mean score.

    Every pair of opposing seats in a game is one result for each (at a table of four without teams,
    beating all three others is three wins). score rate = (wins + draws / 2) / results. Agents with
    equal score rate and mean share a rank; an agent without results ranks last.
    """
    tally = defaultdict(lambda: [0, 0, 0])
    for r in records:
        for i, j in opponents(r):
            res = _result(r["places"][i], r["places"][j])
            tally[r["agents"][i]][res] += 1
            tally[r["agents"][j]][2 - res] += 1
    scores = scores_by_agent(records)
    rows = []
    for name in entrants:
        w, d, l = tally.get(name, (0, 0, 0))
        n = w + d + l
        mean = float(np.mean(scores[name])) if scores.get(name) else None
        rows.append({"agent": name, "results": n, "wins": w, "draws": d, "losses": l,
                     "score_rate": (w + d / 2) / n if n else None, "mean": mean})
    key = [(-1 if x["score_rate"] is None else x["score_rate"], -math.inf if x["mean"] is None else x["mean"])
           for x in rows]
    for x, k in zip(rows, key):
        x["rank"] = 1 + sum(1 for other in key if other > k)
    return sorted(rows, key=lambda x: x["rank"])   # stable: equal ranks keep entrant order


def pair_results(records, entrants) -> list[dict]:
    """For each pair of entrants that met as opponents (a before b in `entrants`): wins, draws and losses
    of a against b by place, and a's score rate (wins + draws / 2) / games with a 95% Wilson interval."""
    pos = _order(entrants)
    tally = defaultdict(lambda: [0, 0, 0])
    for r in records:
        for i, j in opponents(r):
            a, b = r["agents"][i], r["agents"][j]
            pa, pb = r["places"][i], r["places"][j]
            if pos(a) > pos(b):
                a, b, pa, pb = b, a, pb, pa
            tally[(a, b)][_result(pa, pb)] += 1
    out = []
    for (a, b), (w, d, l) in sorted(tally.items(), key=lambda kv: (pos(kv[0][0]), pos(kv[0][1]))):
        n = w + d + l
        out.append({"a": a, "b": b, "games": n, "wins": w, "draws": d, "losses": l,
                    "score_rate": (w + d / 2) / n, "ci95": wilson(w + d / 2, n)})
    return out


def duplicate_effect(records, entrants) -> dict:
    """How much duplicate dice narrow the 95% CI of each pair's mean score difference.

    Duplicate: the difference a - b is averaged over the arrangements of each deal (all saw the same
    dice), and the CI comes from the spread of those deal means. Independent dice on the same budget:
    a and b would roll independently in every game, so the difference of one game has variance
    var(a) + var(b), estimated from the same games.

    The summary pools the pairs: it averages each side's variance per game (the variance of the mean
    times the games) over the pairs, and takes the width ratio sqrt(dup / ind) and the equivalent number
    of independent games ind / dup from those two averages, so games_factor = 1 / width_ratio².
    """
    pos = _order(entrants)
    blocks: dict = {}        # (a, b) -> _PairScores
    for r in ordered(records):
        ok = clean_seats(r)
        for i, j in opponents(r):
            if not (ok[i] and ok[j]):
                continue
            a, b, sa, sb = r["agents"][i], r["agents"][j], r["totals"][i], r["totals"][j]
            if pos(a) > pos(b):
                a, b, sa, sb = b, a, sb, sa
            pair = blocks.get((a, b))
            if pair is None:
                pair = blocks[(a, b)] = _PairScores()
            pair.add((r["table"], r["deal"]), sa, sb)
    pairs = []
    per_game = []                                    # (duplicate, independent) variance per game, per pair
    for (a, b), p in sorted(blocks.items(), key=lambda kv: (pos(kv[0][0]), pos(kv[0][1]))):
        if len(p.count) < 2:
            continue
        means = np.frombuffer(p.diff, dtype=np.int64) / np.frombuffer(p.count, dtype=np.int64)
        sa = np.asarray(p.a, dtype=float)
        sb = np.asarray(p.b, dtype=float)
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
        if var_ind > 0:
            per_game.append((var_dup * n, var_ind * n))
    dup = float(np.mean([d for d, _ in per_game])) if per_game else None
    ind = float(np.mean([i for _, i in per_game])) if per_game else None
    summary = {"pairs": len(pairs), "variance_per_game_duplicate": dup, "variance_per_game_independent": ind,
               "width_ratio": math.sqrt(dup / ind) if per_game else None,
               "games_factor": ind / dup if per_game and dup > 0 else None}
    return {"summary": summary, "pairs": pairs}


class _PairScores:
    """One pair's scores for `duplicate_effect`, in game order: both sides' totals (4 bytes each a game) and
    per deal the games and the sum of the differences (whole numbers, so each deal's mean is exact)."""

    def __init__(self):
        self.a, self.b = array("i"), array("i")
        self.count, self.diff = array("q"), array("q")
        self.deal = None

    def add(self, deal, sa: int, sb: int) -> None:
        if deal != self.deal:                   # a deal's games come together in game order
            self.deal = deal
            self.count.append(0)
            self.diff.append(0)
        self.a.append(sa)
        self.b.append(sb)
        self.count[-1] += 1
        self.diff[-1] += sa - sb


def contributions(r) -> list[tuple[int, int, int]]:
    """Per seat of one game: (turns, box points, bonus points) of the boxes it scored itself, from the log's
    scoring entries (or the `contributions` a compact game kept from them). A sheet's seats add up to its
    total."""
    kept = r.get("contributions")
    if kept is not None:
        return list(kept)
    out = [[0, 0, 0] for _ in r["agents"]]
    for e in r["log"]:
        if "box" in e:
            c = out[e["seat"]]
            c[0] += 1
            c[1] += e["points"]
            c[2] += e["bonus"]
    return [tuple(c) for c in out]


def team_stats(records, entrants) -> dict | None:
    """Team results and each agent's own share, for games where seats share sheets (None if there are none).

    partnerships: per set of entrants that wrote one sheet: games, team score, wins/draws/losses against
    each opposing sheet, score rate, mean place. sheets: the same per sheet position (sheet 1 plays
    first). contributions: per agent, the boxes it scored on its team's sheet: turns, box points and
    bonus points per game, points per turn, and its share of the team total. pairs: how often each pair of
    entrants were partners and opponents (the schedule makes these equal for every pair).
    """
    records = [r for r in ordered(records) if len(set(sheets_of(r))) < len(r["agents"])]
    if not records:
        return None
    pos = _order(entrants)
    team_games = defaultdict(list)       # partnership -> [(total or None, place, results vs other sheets)]
    slot_games = defaultdict(list)       # sheet index -> [(total or None, place)]
    share = defaultdict(list)            # agent -> [(turns, box points, bonus, team total)]
    met = defaultdict(lambda: [0, 0])    # (a, b) -> [partnered, opposed] games
    for r in records:
        sheet, ok = sheets_of(r), clean_seats(r)
        seats_on = defaultdict(list)
        for s, i in enumerate(sheet):
            seats_on[i].append(s)
        place = {i: r["places"][seats[0]] for i, seats in seats_on.items()}
        total = {i: r["totals"][seats[0]] if ok[seats[0]] else None for i, seats in seats_on.items()}
        for i, seats in seats_on.items():
            team = tuple(sorted((r["agents"][s] for s in seats), key=pos))
            results = [_result(place[i], place[j]) for j in seats_on if j != i]
            team_games[team].append((total[i], place[i], results))
            slot_games[i].append((total[i], place[i]))
        for s, (turns, points, bonus) in enumerate(contributions(r)):
            if ok[s]:
                share[r["agents"][s]].append((turns, points, bonus, r["totals"][s]))
        for i, j in combinations(range(len(sheet)), 2):
            a, b = sorted((r["agents"][i], r["agents"][j]), key=pos)
            met[(a, b)][0 if sheet[i] == sheet[j] else 1] += 1

    def results_of(games) -> dict:
        totals = [t for t, _, _ in games if t is not None]
        w, d, l = (sum(res.count(k) for _, _, res in games) for k in range(3))
        n = w + d + l
        out = {"games": len(games), **describe_scores(totals), "wins": w, "draws": d, "losses": l,
               "score_rate": (w + d / 2) / n if n else None, "ci95_score_rate": wilson(w + d / 2, n),
               "mean_place": float(np.mean([p for _, p, _ in games]))}
        out.pop("n")
        return out

    partnerships = [{"team": list(team), **results_of(games)} for team, games in team_games.items()]
    partnerships.sort(key=lambda x: (-(x["score_rate"] or 0), [pos(a) for a in x["team"]]))
    sheets = []
    for i, games in sorted(slot_games.items()):
        totals = [t for t, _ in games if t is not None]
        sheets.append({"sheet": i + 1, "games": len(games), "mean": float(np.mean(totals)) if totals else None,
                       "first_places": sum(1 for _, p in games if p == 1)})
    contrib = {}
    for name in entrants:
        rows = np.array(share.get(name, []), dtype=float).reshape(-1, 4)
        if not len(rows):
            contrib[name] = {"games": 0}
            continue
        turns, points, bonus, total = rows.T
        own = points + bonus
        contrib[name] = {"games": len(rows), "turns_per_game": float(turns.mean()),
                         "box_points_per_game": float(points.mean()), "bonus_per_game": float(bonus.mean()),
                         **{k: v for k, v in describe_scores(own).items() if k in ("mean", "ci95")},
                         "points_per_turn": float(own.sum() / turns.sum()) if turns.sum() else None,
                         "share_of_team_total": float(own.sum() / total.sum()) if total.sum() else None}
    pairs = [{"a": a, "b": b, "partnered": p, "opposed": o}
             for (a, b), (p, o) in sorted(met.items(), key=lambda kv: (pos(kv[0][0]), pos(kv[0][1])))]
    return {"partnerships": partnerships, "sheets": sheets, "contributions": contrib, "pairs": pairs}


LUCK_FOLDS = 10          # folds of deals the luck coefficients are fitted across (cross-fitting)
LUCK_MIN_DEALS = 10     # deals per fitted coefficient (and the intercept) below which the split alone is used


def luck_effect(records, seat_loss, entrants, optimal: float, exact: bool, seat_luck=None) -> dict:
    """Score differences with the dice's luck removed, by the solver's values of every decision.

    Per game and seat, score = optimal expected score + luck − loss, where loss is the expected points
    the seat's decisions lost against the best moves (`seat_loss`, aligned with `records`) and luck the
    rest: the dice. This split is exact (with one column: exact values; with several, column-additive
    values, an approximation), and luck has mean zero whatever the policy, so optimal − loss is an
    unbiased estimate of a seat's expected score, and the difference loss_b − loss_a of the same
    game one of a's expected score minus b's: the plain difference with the luck taken out (a control
    variate with coefficient 1; "split" below).

    With `seat_luck` (called with no argument, it gives per game in order, per seat, the terms of
    `agents.analysis.LuckTerms`, every one a sum over the rolls of a value of the roll minus its exact
    expectation, so of mean exactly zero under any play; it is read twice) the pair's
    estimate is a regression control variate ("fitted"): the plain difference minus c · (both seats'
    luck terms), c fitted by least squares (with an intercept) to the plain differences. The fit is
    cross-fitted: the deals are dealt into `LUCK_FOLDS` folds (deal i of the pair, in game order, into
    fold i mod LUCK_FOLDS) and each fold's games are adjusted with c fitted on the other folds, so c is
    independent of the games it adjusts and the estimate stays unbiased (the exact zero means do the
    work; c only decides how much variance goes). It is used when the pair has at least
    `LUCK_MIN_DEALS` deals per coefficient, else the split. What is estimated: c, and the 95% interval
    (normal, from the spread of the deal means of the adjusted differences, as for the plain one).
    Sheets shared by teams and games with a forfeit are left out. Memory: per pair a few numbers per deal
    and the fit's sums per fold; the games are read twice, not copied.

    Per pair: the mean plain and luck-removed differences with 95% CIs, the method, the split's estimate
    and CI beside it, the width ratio and how many games the plain estimate would need for the
    luck-removed interval (games_factor = variance ratio). Per agent: mean luck per game (about 0) and
    the luck-removed score optimal − loss, with 95% CIs.
    """
    pos = _order(entrants)
    records = ordered(records)
    pairs_seen: dict = {}                          # (a, b) -> _PairLuck
    per_agent = defaultdict(lambda: array("d"))        # name -> luck, skill, luck, skill, ...

    def games(luck_of):
        """(pair, plain, split, the seats' terms or None) of every clean pair of opponents, in game order."""
        lucks = iter(luck_of()) if luck_of is not None else None
        for r, loss in zip(records, seat_loss):
            luck = next(lucks) if lucks is not None else None
            sheet = sheets_of(r)
            if len(set(sheet)) < len(sheet):
                continue
            ok = clean_seats(r)
            for i, j in opponents(r):
                if not (ok[i] and ok[j]):
                    continue
                a, b = r["agents"][i], r["agents"][j]
                if pos(a) > pos(b):
                    a, b, i, j = b, a, j, i
                pair = pairs_seen.get((a, b))
                if pair is None:
                    pair = pairs_seen[(a, b)] = _PairLuck()
                pair.at((r["table"], r["deal"]))
                terms = None if luck is None else np.concatenate([luck[i], luck[j]])
                yield pair, r["totals"][i] - r["totals"][j], loss[j] - loss[i], terms

    for r, loss in zip(records, seat_loss):
        if len(set(sheets_of(r))) == len(r["agents"]):
            for s, (name, ok) in enumerate(zip(r["agents"], clean_seats(r))):
                if ok:
                    per_agent[name].extend((r["totals"][s] - optimal + loss[s], optimal - loss[s]))
    for pair, plain, split, terms in games(seat_luck):
        pair.add(plain, split, terms)
    for pair in pairs_seen.values():
        pair.fit()
    if any(p.coefficients is not None for p in pairs_seen.values()):
        for p in pairs_seen.values():
            p.restart()
        for pair, plain, _, terms in games(seat_luck):
            pair.adjust(plain, terms)
    pairs = []
    for (a, b) in sorted(pairs_seen, key=lambda ab: (pos(ab[0]), pos(ab[1]))):
        p = pairs_seen[(a, b)]
        deals = len(p.count)
        if deals < 2:
            continue
        count = np.frombuffer(p.count, dtype=float)
        (mp, hp), (ms, hs) = (_interval(np.frombuffer(v, dtype=float) / count) for v in (p.plain, p.split))
        fitted = p.coefficients is not None
        ma, ha = _interval(np.frombuffer(p.adjusted, dtype=float) / count) if fitted else (ms, hs)
        pairs.append({"a": a, "b": b, "deals": deals, "games": int(count.sum()), "mean_diff": mp,
                      "ci95_plain": [mp - hp, mp + hp], "method": "fitted" if fitted else "split",
                      "luck_removed": ma, "ci95_luck_removed": [ma - ha, ma + ha],
                      "split": ms, "ci95_split": [ms - hs, ms + hs],
                      "width_ratio": float(ha / hp) if hp > 0 else None,
                      "games_factor": float((hp / ha) ** 2) if ha > 0 else None})
    agents = {}
    for name in entrants:
        rows_ = np.frombuffer(per_agent[name], dtype=float).reshape(-1, 2) if name in per_agent else np.zeros((0, 2))
        if len(rows_) > 1:
            luck, lci, _ = mean_ci(rows_[:, 0])
            skill, sci, _ = mean_ci(rows_[:, 1])
            agents[name] = {"games": len(rows_), "luck": luck, "ci95_luck": lci, "luck_removed_score": skill,
                            "ci95_luck_removed_score": sci}
    return {"exact": exact, "optimal_expected_score": optimal, "folds": LUCK_FOLDS, "pairs": pairs,
            "agents": agents}


class _PairLuck:
    """One pair's running sums for `luck_effect`: per deal (numbered in game order) the games and the sums
    of the plain, split and adjusted differences; per fold of deals the least-squares sums of the fit."""

    def __init__(self):
        self.count, self.plain, self.split, self.adjusted = array("d"), array("d"), array("d"), array("d")
        self.key, self.deal = None, -1
        self.xtx = self.xty = None
        self.coefficients = None

    def at(self, key) -> None:
        """The next game is of deal `key` (table, deal): a new deal when it changes."""
        if key != self.key:
            self.key, self.deal = key, self.deal + 1
            if self.deal == len(self.count):
                self.count.append(0.0)
                self.plain.append(0.0)
                self.split.append(0.0)

    def add(self, plain: float, split: float, terms) -> None:
        d = self.deal
        self.count[d] += 1
        self.plain[d] += plain
        self.split[d] += split
        if terms is not None:
            z = np.concatenate([[1.0], terms])
            if self.xtx is None:
                self.xtx = np.zeros((LUCK_FOLDS, len(z), len(z)))
                self.xty = np.zeros((LUCK_FOLDS, len(z)))
            f = d % LUCK_FOLDS
            self.xtx[f] += np.outer(z, z)
            self.xty[f] += plain * z

    def fit(self) -> None:
        """The coefficients of each fold, fitted on the others, when there are deals enough."""
        if self.xtx is not None and len(self.count) >= LUCK_MIN_DEALS * self.xtx.shape[1]:
            self.coefficients = fold_fits(self.xtx, self.xty)
            self.adjusted = array("d", bytes(8 * len(self.count)))

    def restart(self) -> None:
        self.key, self.deal = None, -1

    def adjust(self, plain: float, terms) -> None:
        if self.coefficients is not None:
            self.adjusted[self.deal] += plain - terms @ self.coefficients[self.deal % LUCK_FOLDS][1:]


def fold_fits(xtx: np.ndarray, xty: np.ndarray) -> np.ndarray:
    """Per fold f: the least-squares coefficients (intercept first) from the sums xtx = Σ z zᵀ and xty = Σ y z
    of the other folds (the minimum-norm solution when the terms are collinear)."""
    total_xx, total_xy = xtx.sum(axis=0), xty.sum(axis=0)
    return np.array([np.linalg.lstsq(total_xx - xtx[f], total_xy - xty[f], rcond=None)[0]
                     for f in range(len(xtx))])


def _interval(deal_means: np.ndarray) -> tuple[float, float]:
    """(mean, 95% half width) of deal means, normal from their spread."""
    return float(deal_means.mean()), Z95 * float(deal_means.std(ddof=1)) / math.sqrt(len(deal_means))


def deal_interval(values: np.ndarray, deal: np.ndarray) -> tuple[float, float]:
    """(mean, 95% half width) of per-game `values` as the mean of their deal means (deal numbers 0, 1, ...),
    the half width normal from the spread of the deal means."""
    return _interval(np.bincount(deal, weights=values) / np.bincount(deal))


def cross_fitted(y: np.ndarray, terms: np.ndarray, deal: np.ndarray) -> np.ndarray:
    """y minus terms · c, where for the games of each fold of deals (deal mod LUCK_FOLDS) c is the least-squares
    fit (with an intercept) of y on the terms over the other folds' games (`fold_fits`; `luck_effect` does the
    same with running sums)."""
    fold = deal % LUCK_FOLDS
    z = np.column_stack([np.ones(len(y)), terms])
    xtx = np.array([z[fold == f].T @ z[fold == f] for f in range(LUCK_FOLDS)])
    xty = np.array([z[fold == f].T @ y[fold == f] for f in range(LUCK_FOLDS)])
    c = fold_fits(xtx, xty)
    return y - np.einsum("ij,ij->i", terms, c[fold][:, 1:])


def independent_win_share(x, field) -> np.ndarray:
    """E[win share | own final score = x] when the other sheets' finals are independent draws from the
    score lists `field` (one per other sheet), ties shared: the integral over z in [0, 1] of
    prod_k (P(X_k < x) + P(X_k = x) z) (the coefficient of z^t is the chance that t others tie at x and
    none beats it, a share of 1 / (t + 1)). x: array of scores."""
    return _share(x, [ScoreCounts(scores) for scores in field])


class ScoreCounts:
    """The distribution of a list of whole-number scores as counts (memory: the range of the scores, not
    their number): `add` scores, then `below(x)` = P(X < x) and `equal(x)` = P(X = x) for arrays x."""

    def __init__(self, scores=()):
        self.lo, self.counts = 0, np.zeros(0, np.int64)
        self._cum = None
        self.add(scores)

    def add(self, scores) -> None:
        s = np.asarray(scores, dtype=np.int64).ravel()
        if not len(s):
            return
        lo = min(int(s.min()), self.lo) if len(self.counts) else int(s.min())
        hi = max(int(s.max()) + 1, self.lo + len(self.counts)) if len(self.counts) else int(s.max()) + 1
        counts = np.zeros(hi - lo, np.int64)
        counts[self.lo - lo:self.lo - lo + len(self.counts)] = self.counts
        np.add.at(counts, s - lo, 1)
        self.lo, self.counts, self._cum = lo, counts, None

    def add_one(self, x: int) -> None:
        """Count one score (in place when it is within the range seen so far)."""
        i = x - self.lo
        if 0 <= i < len(self.counts):
            self.counts[i] += 1
            self._cum = None
        else:
            self.add([x])

    def _at(self, x):
        if self._cum is None:
            self._cum = np.r_[0, np.cumsum(self.counts)]
        i = np.clip(np.asarray(x, dtype=np.int64) - self.lo, 0, len(self.counts))
        return i, self._cum, max(int(self._cum[-1]), 1)

    def below(self, x) -> np.ndarray:
        i, cum, n = self._at(x)
        return cum[i] / n

    def equal(self, x) -> np.ndarray:
        i, cum, n = self._at(x)
        return (cum[np.minimum(i + 1, len(cum) - 1)] - cum[i]) * (np.asarray(x) - self.lo < len(self.counts)) / n


def _share(x, field) -> np.ndarray:
    """`independent_win_share` against `ScoreCounts` of the other sheets."""
    x = np.asarray(x, dtype=np.int64)
    coef = np.zeros((len(field) + 1, len(x)))
    coef[0] = 1.0
    for k, dist in enumerate(field):
        below, equal = dist.below(x), dist.equal(x)
        coef[1:k + 2] = coef[1:k + 2] * below + coef[:k + 1] * equal
        coef[0] *= below
    return (coef / np.arange(1, len(field) + 2)[:, None]).sum(axis=0)


class _Running:
    """Count, sum and sum of squares of a stream of numbers: its mean and normal 95% interval (`mean_ci`)."""

    def __init__(self):
        self.n, self.sum, self.sq = 0, 0.0, 0.0

    def add(self, v: float) -> None:
        self.n += 1
        self.sum += v
        self.sq += v * v

    def mean_ci(self) -> tuple[float, list[float]]:
        m = self.sum / self.n
        sd = math.sqrt(max(self.sq - self.n * m * m, 0.0) / (self.n - 1)) if self.n > 1 else 0.0
        half = Z95 * sd / math.sqrt(self.n)
        return m, [m - half, m + half]


def win_share_explained(records, entrants) -> dict | None:
    """Per agent: its observed win share (1/k for a first place shared by k sheets, else 0), the share its
    own scores would give against the field's if nobody looked at anyone (each game's final score x
    valued by `independent_win_share` against the score lists of the entrants on the other sheets, from
    all their games), and the difference: what it gains or loses by playing the table. Each is a mean over
    deals of the deal's games, with a normal 95% interval over deals; the field's score lists are taken
    as known (their own sampling error is not in the intervals). Games with a forfeit at the table are
    left out. None under team rules (a sheet is several entrants' play).

    Two passes over the records in game order, keeping per agent the counts of its scores and running sums
    over deals: the memory does not grow with the number of games."""
    records = ordered(records)
    if any(len(set(sheets_of(r))) != len(r["agents"]) for r in records):
        return None
    dists: dict[str, ScoreCounts] = defaultdict(ScoreCounts)
    for r in records:
        for seat, (name, ok) in enumerate(zip(r["agents"], clean_seats(r))):
            if ok:
                dists[name].add_one(int(r["totals"][seat]))
    sums = defaultdict(lambda: (_Running(), _Running(), _Running(), [0]))   # agent -> observed, expected, gain, games
    cache: dict = {}
    deal, current = None, defaultdict(list)       # the deal being read: agent -> [(observed, expected)]

    def close_deal():
        for name, games in current.items():
            o = sum(g[0] for g in games) / len(games)
            e = sum(g[1] for g in games) / len(games)
            acc = sums[name]
            acc[0].add(o)
            acc[1].add(e)
            acc[2].add(o - e)
            acc[3][0] += len(games)
        current.clear()

    for r in records:
        if not all(clean_seats(r)) or r.get("places") is None:
            continue
        if (r["table"], r["deal"]) != deal:
            close_deal()
            deal = (r["table"], r["deal"])
        places = r["places"]
        top = sum(1 for p in places if p == 1)
        for seat, name in enumerate(r["agents"]):
            others = tuple(sorted(n for s, n in enumerate(r["agents"]) if s != seat))
            x = r["totals"][seat]
            key = (others, x)
            if key not in cache:
                cache[key] = float(_share([x], [dists[n] for n in others])[0])
            current[name].append((1.0 / top if places[seat] == 1 else 0.0, cache[key]))
    close_deal()
    out = {}
    for name in sorted(sums, key=_order(entrants)):
        (o, oci), (e, eci), (g, gci) = (acc.mean_ci() for acc in sums[name][:3])
        out[name] = {"games": sums[name][3][0], "deals": sums[name][0].n, "observed": o, "observed_ci95": oci,
                     "expected": e, "expected_ci95": eci, "gain": g, "gain_ci95": gci}
    return out


def swiss_standings(records, rounds: list[dict], entrants) -> dict:
    """A Swiss read as people read one: points, tiebreaks and the pairings of every round.

    rounds: the report's Swiss rounds ({"round", "tables", "byes"}). Points are the pairing's own: at each
    table an entrant gets its share of the results it won there, (wins + draws / 2) / results, 0 to 1 a
    round, and a bye gives 0.5. Tiebreaks, for a table of k seats counting each opponent 1 / (k - 1):
    Buchholz, the points of the opponents met (summed over the rounds played; a bye adds nothing), and
    Sonneborn–Berger, each opponent's points times the share won against that opponent at that table.
    Standings: points, then Buchholz, then Sonneborn–Berger, then config order. Per entrant also its games
    (results are per game, so a bye means fewer games) and byes; per round every table with its members'
    points there and W-D-L, and the byes."""
    pos = _order(entrants)
    round_of = {t: r["round"] for r in rounds for t in r["tables"]}
    tally = defaultdict(lambda: [0, 0, 0])           # (table, a, b) -> a's wins, draws, losses against b
    games = defaultdict(int)
    seats = {}
    for rec in records:
        if rec["table"] not in round_of:
            continue
        for name in rec["agents"]:
            games[name] += 1
            seats.setdefault(rec["table"], set()).add(name)
        for i, j in opponents(rec):
            res = _result(rec["places"][i], rec["places"][j])
            tally[(rec["table"], rec["agents"][i], rec["agents"][j])][res] += 1
            tally[(rec["table"], rec["agents"][j], rec["agents"][i])][2 - res] += 1

    def share(w, d, l):
        return (w + d / 2) / (w + d + l) if w + d + l else 0.0

    at_table = {}                     # (table, a) -> {"points", "wins", "draws", "losses", "against": {b: share}}
    for (t, a, b), (w, d, l) in tally.items():
        row = at_table.setdefault((t, a), {"wins": 0, "draws": 0, "losses": 0, "against": {}})
        row["wins"] += w
        row["draws"] += d
        row["losses"] += l
        row["against"][b] = share(w, d, l)
    for row in at_table.values():
        row["points"] = share(row["wins"], row["draws"], row["losses"])
    points = defaultdict(float)
    byes = defaultdict(list)
    for (_, a), row in at_table.items():
        points[a] += row["points"]
    for r in rounds:
        for name in r["byes"]:
            points[name] += 0.5
            byes[name].append(r["round"])
    buchholz, berger, played = defaultdict(float), defaultdict(float), defaultdict(int)
    for (_, a), row in at_table.items():
        k = len(row["against"])
        played[a] += 1
        for b, won in row["against"].items():
            buchholz[a] += points[b] / k
            berger[a] += won * points[b] / k

    def key(n):               # rounded, so sums in another order do not split a tie
        return round(points[n], 9), round(buchholz[n], 9), round(berger[n], 9)
    names = sorted(entrants, key=lambda n: (*(-v for v in key(n)), pos(n)))
    table, rank = [], 0
    for i, n in enumerate(names):
        if i == 0 or key(n) != key(names[i - 1]):
            rank = i + 1
        table.append({"rank": rank, "agent": n, "points": points[n], "buchholz": buchholz[n],
                      "sonneborn_berger": berger[n], "rounds_played": played[n], "byes": byes[n],
                      "games": games[n]})
    pairings = []
    for r in rounds:
        tables = []
        for t in r["tables"]:
            members = sorted(seats.get(t, ()), key=pos)
            tables.append({"table": t, "members": [
                {"agent": m, **{k: at_table[(t, m)][k] for k in ("points", "wins", "draws", "losses")}}
                for m in members if (t, m) in at_table]})
        pairings.append({"round": r["round"], "tables": tables, "byes": list(r["byes"])})
    counts = sorted({x["games"] for x in table})
    return {"standings": table, "rounds": pairings, "equal_games": len(counts) <= 1}
