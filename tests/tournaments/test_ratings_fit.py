"""Ratings fitted to every game at once: Plackett-Luce over every table's places."""
import numpy as np
import pytest

from tournaments.config import parse_config
from tournaments.ratings import bradley_terry_elo, plackett_luce
from tournaments.run import run_tournament


def simulated(strengths: dict, seats: int, games: int, seed: int = 0) -> list[dict]:
    """Games whose places are drawn from a Plackett-Luce model with these Elo strengths."""
    rng = np.random.default_rng(seed)
    names = list(strengths)
    out = []
    for g in range(games):
        pick = rng.choice(len(names), seats, replace=False)
        weight = np.array([10 ** (strengths[names[i]] / 400) for i in pick])
        rest, order = list(range(seats)), []
        while rest:
            k = rng.choice(len(rest), p=weight[rest] / weight[rest].sum())
            order.append(rest.pop(k))
        places = [0] * seats
        for place, k in enumerate(order):
            places[k] = place + 1
        out.append({"agents": [names[i] for i in pick], "places": places, "table": g, "deal": 0, "rotation": 0})
    return out


def test_recovers_the_strengths_of_simulated_multi_seat_games():
    truth = {"a": 0.0, "b": 100.0, "c": 200.0, "d": 300.0, "e": 320.0}
    fit = plackett_luce(simulated(truth, 3, 4000), list(truth), boot=30)["ratings"]
    centre = np.mean(list(truth.values()))
    for name, value in truth.items():
        lo, hi = fit[name]["ci95"]
        assert abs(fit[name]["rating"] - 1500 - (value - centre)) < 15
        assert lo <= fit[name]["rating"] <= hi
    assert sorted(truth, key=lambda n: fit[n]["rating"]) == list(truth)


def test_two_seats_is_bradley_terry():
    records = simulated({"a": 0.0, "b": 80.0, "c": 150.0}, 2, 3000, seed=1)
    records[0]["places"] = [1, 1]                               # a draw counts half each way
    fit = plackett_luce(records, ["a", "b", "c"], boot=0)
    idx = {"a": 0, "b": 1, "c": 2}
    wins, games = np.zeros((3, 3)), np.zeros((3, 3))
    for r in records:
        (x, y), (px, py) = r["agents"], r["places"]
        i, j = idx[x], idx[y]
        w = 1.0 if px < py else 0.5 if px == py else 0.0
        wins[i, j] += w
        wins[j, i] += 1 - w
        games[i, j] += 1
        games[j, i] += 1
    bt = bradley_terry_elo(wins, games)
    for n, i in idx.items():
        assert fit["ratings"][n]["rating"] == pytest.approx(bt[i], abs=2.0)     # the priors differ slightly
    p = fit["predicted"]
    assert p["a"]["b"] + p["b"]["a"] == pytest.approx(1.0)


def test_a_ladder_is_ranked_in_order_and_the_fit_matches_the_win_matrix(tmp_path):
    ladder = [{"name": f"s{s}", "agent": f"strong?strength=0.{s}"} for s in (3, 6, 8)] + ["strong"]
    cfg = parse_config({"entrants": ladder, "seats": 3, "games": 150, "seed": 2})
    res = run_tournament(cfg, out=tmp_path, progress=False, workers=1, analysis=False)
    pl = res["ratings"]["plackett_luce"]
    order = sorted(pl["ratings"], key=lambda n: pl["ratings"][n]["rating"])
    assert order == ["s3", "s6", "s8", "strong"]
    for h in res["head_to_head"]:
        assert abs(h["score_rate"] - pl["predicted"][h["a"]][h["b"]]) < 0.06
    assert "PL rating" in (tmp_path / "report.md").read_text()
