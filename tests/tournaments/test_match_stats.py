"""Match statistics as chess testers read them: W-D-L, the pentanomial counts of duplicate deal pairs, their
generalisation to tables of 3-8 seats, and the GSPRT on them, each against a hand-computed case."""
import math

import numpy as np
import pytest
from tests.fake_agents import FACTORY

from tournaments.match import MatchTally, look, match_config, run_match
from tournaments.sprt import NELO, SPRT, closest_with_mean, closest_with_t, logistic_score, parse_sprt
from yacht_arena.cli.match import result_lines
from yacht_env.config import ConfigError


def game(deal: int, rotation: int, outcome: str) -> dict:
    """A two-seat game of `best` (the candidate) against `first`: outcome "W", "D" or "L" for the candidate."""
    seat = rotation                        # the candidate sits at seat `rotation`
    place = {"W": (1, 2), "D": (1, 1), "L": (2, 1)}[outcome]
    total = {"W": (200, 150), "D": (180, 180), "L": (120, 190)}[outcome]
    places, totals, agents = [0, 0], [0, 0], ["", ""]
    agents[seat], agents[1 - seat] = "best", "first"
    places[seat], places[1 - seat] = place
    totals[seat], totals[1 - seat] = total
    return {"agents": agents, "places": places, "totals": totals, "deal": deal, "rotation": rotation, "table": 0,
            "faults": [None, None]}


# the deals' two games, the candidate's points per pair and the pentanomial cell it falls in
DEALS = [("WW", 2), ("WL", 1), ("DD", 1), ("DL", 0.5), ("LL", 0), ("WD", 1.5), ("LW", 1), ("WW", 2)]


def tally_of(deals) -> MatchTally:
    tally = MatchTally(match_config("best", ["first"], 2 * len(deals), move_timeout=None))
    for d, (pair, _) in enumerate(deals):
        for rotation, outcome in enumerate(pair):
            tally.add(game(d, rotation, outcome))
    return tally


def test_pentanomial_counts_against_a_hand_computed_case():
    tally = tally_of(DEALS)
    assert tally.complete() == len(DEALS) and tally.grid(len(DEALS)) == 4
    doc = look(tally, None, len(DEALS), 2)
    # pairs of 0, 1/2, 1, 3/2, 2 points: LL; DL; WL, DD, LW; WD; WW, WW
    assert doc["deal_points"] == [1, 1, 3, 1, 2]
    assert doc["pentanomial"] == {"counts": [1, 1, 3, 1, 2], "one_point_draws": 1, "one_point_win_loss": 2}
    # W-D-L over the 16 games: W in WW x2 (4), WL, WD, LW (3) = 7; D in DD (2), DL, WD = 4; L: 16 - 11 = 5
    assert doc["wdl"] == {"wins": 7, "draws": 4, "losses": 5}
    assert doc["score"] == pytest.approx(sum(p for _, p in DEALS) / (2 * len(DEALS)))
    places = {k: v.tolist() for k, v in tally.places.items()}
    assert places == {"best": [7 + 4, 5], "first": [5 + 4, 7]}        # a draw: both first
    lines = result_lines({**doc, "seats": 2})
    assert lines[0] == "W-D-L 7-4-5 (16 results against an opponent)"
    assert lines[1] == ("pentanomial (pairs of 0, 1/2, 1, 3/2, 2 points): 1, 1, 3, 1, 2; the 1-point pairs: "
                        "1 two draws, 2 a win and a loss")


def test_the_gsprt_of_two_outcomes_is_walds_binomial_test():
    """With deals of only two values (0 and 1) the closest distribution of mean s is (1 - s, s), so the
    logistic GSPRT is the classic W log(s1/s0) + L log((1 - s1)/(1 - s0)); for normalized Elo, mean mu with
    (mu - 1/2) / sqrt(mu (1 - mu)) = t gives mu = 1/2 + t / (2 sqrt(1 + t^2))."""
    wins, losses = 60, 40
    s0, s1 = logistic_score(0), logistic_score(40)
    expected = wins * math.log(s1 / s0) + losses * math.log((1 - s1) / (1 - s0))
    assert SPRT("elo", 0, 40, model="logistic").gsprt_llr([losses, wins], 1) == pytest.approx(expected, rel=1e-9)
    m = 2
    mu = [0.5 + t / (2 * math.sqrt(1 + t * t)) for t in (e * math.sqrt(m) / NELO for e in (-10, 30))]
    expected = wins * math.log(mu[1] / mu[0]) + losses * math.log((1 - mu[1]) / (1 - mu[0]))
    assert SPRT("elo", -10, 30).gsprt_llr([losses, wins], m) == pytest.approx(expected, rel=1e-7)


def test_the_pentanomial_gsprt_by_hand():
    """A pentanomial sample whose mean is exactly 1/2: under H0 (Elo 0, mean 1/2) the closest distribution is
    the sample itself, and under H1 p_i = p̂_i / (1 + θ (a_i - s1)) with Σ p̂_i (a_i - s1) / (1 + θ (a_i - s1)) = 0;
    for p̂ = (1, 2, 4, 2, 1) / 10 and s1 = 0.6 that equation is solved here by hand-checked bisection."""
    counts = np.array([10, 20, 40, 20, 10])
    a = np.linspace(0, 1, 5)
    freq = counts / counts.sum()
    s1 = 0.6
    assert logistic_score(0) == 0.5
    # θ by a bisection written out here, on the equation above
    lo, hi = -1 / (1 - s1), 1 / s1
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if np.sum(freq * (a - s1) / (1 + mid * (a - s1))) > 0 else (lo, mid)
    p1 = freq / (1 + lo * (a - s1))
    assert p1.sum() == pytest.approx(1) and p1 @ a == pytest.approx(s1)
    elo1 = -400 * math.log10(1 / s1 - 1)
    expected = counts.sum() * np.sum(freq * np.log(p1 / freq))
    assert SPRT("elo", 0, elo1, model="logistic").gsprt_llr(counts, 2) == pytest.approx(expected, rel=1e-9)
    # by hand: θ = -1.26641, so 1 + θ φ = (1.75985, 1.44324, 1.12664, 0.81004, 0.49344), p1 = (0.05682, 0.13858,
    # 0.35504, 0.24690, 0.20266) (mean 0.6000), and LLR = -100 Σ p̂_i log(1 + θ φ_i) = -100 (0.056522 + 0.073376
    # + 0.047697 - 0.042134 - 0.070635) = -6.4826 (the normal approximation: 100 · 0.1 · (1 - 1.1) / 0.15 = -6.67)
    assert lo == pytest.approx(-1.26641, abs=1e-5)
    assert np.allclose(p1, [0.05682, 0.13858, 0.35504, 0.24690, 0.20266], atol=1e-5)
    assert expected == pytest.approx(-6.4826, abs=1e-3)
    # normalized: the H0 distribution is the sample (t = 0 at mean 1/2), H1's has the asked t
    p = closest_with_t(a, freq, 0.3)
    mu = p @ a
    assert p.sum() == pytest.approx(1) and (mu - 0.5) / math.sqrt(p @ (a - mu) ** 2) == pytest.approx(0.3, abs=1e-6)
    assert np.allclose(closest_with_t(a, freq, 0.0), freq, atol=1e-8)
    assert np.allclose(closest_with_mean(a, freq, 0.5), freq)


def test_the_gsprt_agrees_with_the_normal_approximation_on_a_large_sample():
    rng = np.random.default_rng(0)
    x = rng.choice(np.linspace(0, 1, 5), p=[0.1, 0.2, 0.3, 0.25, 0.15], size=4000)
    for model in ("normalized", "logistic"):
        g, n = SPRT("elo", 0, 10, model=model), SPRT("elo", 0, 10, model=model, test="normal")
        assert g.llr(x, 2, 4) == pytest.approx(n.llr(x, 2), rel=0.05)


def test_empty_cells_count_as_a_thousandth():
    """As fastchess: a sample of one value still tests (the other cells count 1e-3 each), and its evidence is
    bounded by that: all wins lean to H1, all losses to H0, all draws to H0 at elo0 = 0; fewer than 2 deals
    say nothing."""
    for model in ("normalized", "logistic"):
        s = SPRT("elo", 0, 10, model=model)
        assert s.gsprt_llr([0, 0, 0, 0, 30], 2) > 0 > s.gsprt_llr([30, 0, 0, 0, 0], 2)
        assert s.gsprt_llr([0, 0, 7, 0, 0], 2) < 0
        assert s.gsprt_llr([0, 0, 0, 0, 1], 2) == 0.0
    logistic = SPRT("elo", 0, 10, model="logistic")
    freq = np.array([1e-3, 1e-3, 1e-3, 1e-3, 30]) / (30 + 4e-3)
    a = np.linspace(0, 1, 5)
    p0, p1 = closest_with_mean(a, freq, 0.5), closest_with_mean(a, freq, logistic_score(10))
    assert logistic.gsprt_llr([0, 0, 0, 0, 30], 2) == pytest.approx((30 + 4e-3) * np.sum(freq * np.log(p1 / p0)))
    with pytest.raises(ValueError, match="grid"):
        logistic.llr([0.5, 1.0], 2)


def test_parse_the_test_option():
    assert parse_sprt("elo0=0,elo1=5").test == "gsprt" and parse_sprt("elo0=0,elo1=5,test=normal").test == "normal"
    assert parse_sprt("points0=0,points1=5").test == "normal"
    for text, message in [("elo0=0,elo1=5,test=exact", "test must be one of gsprt, normal"),
                          ("points0=0,points1=1,test=gsprt", "test applies to Elo bounds only")]:
        with pytest.raises(ConfigError, match=message):
            parse_sprt(text)


def test_a_match_at_three_seats_counts_deal_points_and_places(tmp_path):
    cfg = match_config("best", ["first", "first"], 90, seed=2, move_timeout=None, seats=3)
    assert cfg.seats == 3 and list(cfg.entrants) == ["best", "first", "first#2"] and cfg.games == 30
    doc = run_match(cfg, parse_sprt("elo0=0,elo1=30"), out=tmp_path, batch=5, progress=False, factory=FACTORY,
                    analysis=False)
    deals = doc["deals"]
    assert len(doc["deal_points"]) == 2 * 3 * 2 + 1 and sum(doc["deal_points"]) == deals     # 0 .. 6 points
    w, d, l = doc["wdl"].values()
    assert w + d + l == 2 * doc["games"]                      # two opponents met in every game
    assert sum(k / 2 * c for k, c in enumerate(doc["deal_points"])) == w + d / 2
    assert all(sum(p) == doc["games"] for p in doc["places"].values()) and "pentanomial" not in doc
    lines = result_lines(doc)
    assert lines[1].startswith("deals by the candidate's points in them (of 6): ")
    assert lines[2].startswith("  best: 1st ")


def test_a_gauntlet_counts_every_table_of_a_deal():
    tally = MatchTally(match_config("best", ["first", "random"], 40, move_timeout=None))
    assert tally.per_deal == 4
    for rotation, (opponent, outcome) in enumerate([("first", "W"), ("first", "W"), ("random", "D"),
                                                    ("random", "L")]):
        g = game(0, rotation % 2, outcome)
        g["agents"] = [opponent if a == "first" else a for a in g["agents"]]
        g["table"] = rotation // 2
        tally.add(g)
    doc = look(tally, None, 1, 4)
    assert doc["deal_points"] == [0, 0, 0, 0, 0, 1, 0, 0, 0] and "pentanomial" not in doc      # 2 1/2 of 4
