"""`yacht match`: the SPRT's arithmetic, its options, and matches that stop at the same deal with the
same games for any worker count and across a resume."""
import json
import math

import numpy as np
import pytest
from tests.fake_agents import FACTORY

from yacht_arena.cli import main
from tournaments.match import match_config, run_match
from tournaments.sprt import NELO, SPRT, estimates, logistic_elo, logistic_score, parse_sprt
from tournaments.store import Store
from yacht_env.config import ConfigError



def test_parse_sprt():
    s = parse_sprt("elo0=0,elo1=5")
    assert (s.kind, s.lo, s.hi, s.alpha, s.beta, s.model) == ("elo", 0, 5, 0.05, 0.05, "normalized")
    assert math.isclose(s.lower, math.log(0.05 / 0.95)) and math.isclose(s.upper, math.log(0.95 / 0.05))
    p = parse_sprt("points0=-1, points1=2, alpha=0.1, beta=0.2")
    assert (p.kind, p.lo, p.hi, p.alpha, p.beta) == ("points", -1, 2, 0.1, 0.2)
    for text, message in [("elo0=0", "elo1 is missing"), ("elo0=5,elo1=0", "elo0 must be below elo1"),
                          ("elo0=0,elo1=5,alpha=0", "alpha must be a number between 0 and 0.5"),
                          ("elo0=0,elo1=5,model=bayes", "model must be one of normalized, logistic"),
                          ("elo0=0,elo1=5,gamma=1", "unknown key 'gamma'"), ("elo0", "expected KEY=VALUE"),
                          ("elo0=0,points1=1", "not both"), ("points0=0,points1=1,model=logistic", "Elo bounds only"),
                          ("elo0=x,elo1=5", "elo0 must be a number")]:
        with pytest.raises(ConfigError, match=message):
            parse_sprt(text)


def test_llr_arithmetic():
    x = np.array([0.0, 0.25, 0.5, 0.5, 0.75, 1.0, 0.75, 0.5])
    s = SPRT("points", 0.4, 0.6)
    assert s.llr(x, 2) == pytest.approx(len(x) * 0.2 * (2 * x.mean() - 1.0) / (2 * x.var()))
    centred = np.array([0.4, 0.6, 0.4, 0.6])
    assert s.llr(centred, 2) == pytest.approx(0.0)                  # halfway between the hypotheses
    assert s.llr([0.5, 0.5, 0.5], 2) == 0.0                          # no spread: no evidence either way
    logistic = SPRT("elo", 0, 10, model="logistic")
    assert logistic.bounds(0.1, 2) == (0.5, pytest.approx(logistic_score(10)))
    # normalized Elo: the pentanomial case, sigma of one game = sqrt(2) sigma of a pair's mean
    normalized = SPRT("elo", 0, 10)
    var = 0.02
    assert normalized.bounds(var, 2)[1] == pytest.approx(0.5 + 10 * math.sqrt(2) * math.sqrt(var) / NELO)
    assert logistic_elo(logistic_score(123.0)) == pytest.approx(123.0)
    assert s.decide(3.0) == "H1" and s.decide(-3.0) == "H0" and s.decide(0.0) is None


def test_estimates():
    rng = np.random.default_rng(0)
    results = rng.choice([0, 0.25, 0.5, 0.75, 1], p=[0.1, 0.2, 0.3, 0.25, 0.15], size=4000)
    e = estimates(results, results * 10, 2)
    assert e["score_ci95"][0] < e["score"] < e["score_ci95"][1]
    assert e["elo"] == pytest.approx(logistic_elo(e["score"]))
    assert e["nelo"] == pytest.approx((e["score"] - 0.5) / math.sqrt(2 * results.var(ddof=1)) * NELO)
    assert e["points"] == pytest.approx(10 * e["score"])


def play(tmp_path, name, sprt="points0=0,points1=15", workers=1, **kw):
    cfg = match_config("best", ["first"], 400, seed=3, move_timeout=None)
    return run_match(cfg, parse_sprt(sprt) if sprt else None, out=tmp_path / name, batch=3, workers=workers,
                     progress=False,
                     factory=FACTORY, analysis=False, **kw)


def test_match_stops_at_the_same_deal_for_any_worker_count_and_across_a_resume(tmp_path):
    one = play(tmp_path, "one")
    two = play(tmp_path, "two", workers=2)
    assert one["decision"] == "H1" and one["stopped"] == "decided"
    assert one["deals"] % 3 == 0 and one["games"] == 2 * one["deals"] < 400
    assert Store(tmp_path / "one").records() == Store(tmp_path / "two").records()
    assert len(Store(tmp_path / "one").records()) == one["games"]
    # cut the store after 2 deals: the rerun plays the rest and stops where the first run did
    cut = tmp_path / "cut"
    cut.mkdir()
    (cut / "tournament.json").write_bytes((tmp_path / "one" / "tournament.json").read_bytes())
    lines = (tmp_path / "two" / "games.jsonl").read_bytes().splitlines(keepends=True)
    (cut / "games.jsonl").write_bytes(b"".join(lines[:4]))
    resumed = play(tmp_path, "cut", workers=2)
    assert resumed["run"]["games_run"] == one["games"] - 4
    for doc in (one, two, resumed):
        doc.pop("run")
    assert one == two == resumed
    assert Store(cut).records() == Store(tmp_path / "one").records()


def test_match_without_a_decision_plays_every_deal(tmp_path):
    doc = play(tmp_path, "max", sprt=None)
    assert doc["stopped"] == "max games" and "decision" not in doc and doc["games"] == 400


def test_gauntlet_match_against_a_field(tmp_path):
    cfg = match_config("best", ["first", "random"], 200, seed=1, move_timeout=None)
    assert cfg.format == "gauntlet" and cfg.candidates == ["best"] and cfg.games == 50
    doc = run_match(cfg, None, out=tmp_path, batch=10, progress=False, factory=FACTORY, analysis=False)
    assert doc["opponents"] == ["first", "random"] and doc["games"] == 200 and doc["stopped"] == "max games"


def test_cli_match(tmp_path, capsys):
    out = tmp_path / "m"
    assert main(["match", "greedy", "random", "--sprt", "elo0=0,elo1=20", "--max-games", "2000", "--out", str(out),
                 "--workers", "1", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["decision"] == "H1" and doc["llr"] >= doc["upper"] and doc["rules"]["name"] == "yacht"
    assert (out / "match.json").exists() and (out / "report.md").exists()
    assert doc["luck"]["exact"] and doc["luck"]["pairs"][0]["width_ratio"] < 1
    assert main(["match", "greedy", "random", "--sprt", "elo0=5,elo1=0"]) == 2
    assert "yacht match: error: command line: --sprt: elo0 must be below elo1" in capsys.readouterr().err
    assert list(match_config("greedy", ["greedy", "random"], 100).entrants) == ["greedy", "greedy#2", "random"]
