"""Luck terms of every roll (`agents.analysis.LuckTerms`) and the cross-fitted control variate of
`tournaments.stats.luck_effect`: the terms are those a roll-by-roll reference gives, the first one
splits each score exactly, and the fitted estimate is unbiased and narrower where luck explains the
scores."""
import numpy as np
import pytest

from agents.analysis import LuckTerms, analyze, solution_of
from tournaments.config import parse_config
from tournaments.run import run_tournament
from tournaments.stats import LUCK_FOLDS, luck_effect
from tournaments.store import Store
from yacht_env.core.actions import NUM_HOLDS
from yacht_env.core.dice import HOLD_KEEP, ROLL_PROB, TRANSITION


def reference(a, rules, i, s):
    """One seat's terms, roll by roll, straight from the definitions."""
    points = rules.tables.score.astype(float)
    pick = np.flatnonzero((a.rec == i) & (a.seat == s))
    open_ = np.ones(len(rules.boxes), bool)
    out = np.zeros(2 + len(rules.boxes))
    before = a.optimal
    for k, e in enumerate(pick):
        dist = ROLL_PROB if a.left[e] == rules.rolls_per_turn - 1 else TRANSITION[HOLD_KEEP[a.roll[pick[k - 1]],
                                                                                          a.played[pick[k - 1]]]]
        out[0] += a.best_value[e] - before
        best = points[open_].max(axis=0)
        out[1] += best[a.roll[e]] - dist @ best
        out[2:] += open_ * (points[:, a.roll[e]] - points @ dist)
        before = a.played_value[e]
        if a.played[e] >= NUM_HOLDS:
            open_[a.played[e] - NUM_HOLDS] = False
    return out


def test_the_terms_are_the_reference_ones_and_the_first_splits_each_score(tmp_path):
    cfg = parse_config({"entrants": ["normal", "greedy", "random"], "games": 2, "seed": 7})
    run_tournament(cfg, out=tmp_path, progress=False, workers=1, analysis=False)
    records = sorted(Store(tmp_path).records().values(), key=lambda r: r["key"])
    rules = cfg.ruleset
    a = analyze(records, rules, solution_of(rules))
    terms, starts = LuckTerms(rules).of(a, records)
    assert starts.tolist() == list(range(0, 2 * len(records) + 1, 2))
    for i, r in enumerate(records):
        for s in range(2):
            assert terms[starts[i] + s] == pytest.approx(reference(a, rules, i, s), abs=1e-9)
            loss = (a.best_value - a.played_value)[(a.rec == i) & (a.seat == s)].sum()
            assert a.optimal + terms[starts[i] + s][0] - loss == pytest.approx(r["totals"][s], abs=1e-9)


def synthetic(deals, seed, luck_weight):
    """Two-seat games (both seat orders a deal) whose scores are a's edge of 5 points plus luck terms of mean
    zero (weighted differently per seat) plus noise; the terms are shared by the deal's two games."""
    rng = np.random.default_rng(seed)
    records, losses, lucks = [], [], []
    for d in range(deals):
        x = rng.normal(size=(2, 4)) * 10            # each sheet's terms this deal
        for rot in range(2):
            sheet_of_a = rot                          # a sits at seat rot, on sheet rot
            ta = 100 + 5 + luck_weight[0] @ x[sheet_of_a] + rng.normal()
            tb = 100 + luck_weight[1] @ x[1 - sheet_of_a] + rng.normal()
            agents = ["a", "b"] if rot == 0 else ["b", "a"]
            totals = [ta, tb] if rot == 0 else [tb, ta]
            terms = [x[0], x[1]]
            records.append({"key": f"t0-d{d}-r{rot}", "table": 0, "deal": d, "rotation": rot, "agents": agents,
                            "totals": totals, "places": [1, 2] if totals[0] > totals[1] else [2, 1],
                            "faults": [None, None]})
            losses.append([0.0, 0.0])
            lucks.append(np.array(terms))
    return records, losses, lucks


def test_the_fitted_estimate_covers_the_edge_and_is_narrower_when_luck_explains_the_scores():
    weights = (np.array([1.0, 0.5, 0.0, 2.0]), np.array([0.3, 1.0, 1.0, 0.0]))
    covered, ratios = 0, []
    for seed in range(20):
        records, losses, lucks = synthetic(400, seed, weights)
        p = luck_effect(records, losses, ["a", "b"], 100.0, True, lucks.copy)["pairs"][0]
        assert p["method"] == "fitted" and p["deals"] == 400
        lo, hi = p["ci95_luck_removed"]
        covered += lo <= 5 <= hi
        ratios.append(p["width_ratio"])
    assert covered >= 16                 # 95% intervals: 19 of 20 expected; 16 or more with probability 0.999
    assert max(ratios) < 0.1             # the noise left is 1 point a game against tens of points of luck


def test_few_deals_fall_back_to_the_split():
    records, losses, lucks = synthetic(LUCK_FOLDS, 0, (np.ones(4), np.ones(4)))
    p = luck_effect(records, losses, ["a", "b"], 100.0, True, lucks.copy)["pairs"][0]
    assert p["method"] == "split" and p["luck_removed"] == p["split"]
