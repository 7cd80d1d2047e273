"""A person's play placed on the strength dial (agents.placement): the curve, its inverse, its files."""
import json
import os
from pathlib import Path

import numpy as np
import pytest

import agents.placement as placement
from agents.analysis import analyze_game
from agents.dial import DialAgent
from agents.evaluation import solitaire
from agents.strong import StrongAgent
from yacht_env.rules import load

RULES = load("yacht")
SEED = 77_001          # dice the curve was not built on


@pytest.fixture(scope="module")
def curve():
    return placement.curve_for(RULES)


@pytest.fixture(scope="module")
def shared():
    return StrongAgent()


def games_at(strength, shared, n):
    """(loss, decisions) of each of n solitaire games of the dial at `strength`, as the analysis board counts them."""
    logs = solitaire(DialAgent(strength, shared), RULES, n, SEED, progress=False, logs=True)["logs"]
    out = []
    for log in logs:
        seat = analyze_game({"agents": ["p"], "log": log}, RULES)["seats"][0]
        out.append((seat["loss"], seat["decisions"]))
    return out


def test_the_yacht_curve_ships_and_is_current(curve):
    """A change to the dial, the solver or the curve's protocol makes the shipped file stale: rerun
    `python scripts/ship_data.py` (it rebuilds the curve in a few seconds)."""
    shipped = placement.read_curve(RULES, placement.shipped_curve_path(RULES))
    assert shipped is not None, "stale or missing shipped level curve: python scripts/ship_data.py"
    assert shipped.strengths == placement.GRID and shipped.mean[-1] == 0.0 and shipped.mean[0] > 5
    assert list(shipped.mean) == sorted(shipped.mean, reverse=True)


@pytest.mark.slow
def test_the_shipped_curve_is_what_a_build_gives(shared):
    built = placement.build_curve(RULES, strong=shared)
    shipped = placement.read_curve(RULES, placement.shipped_curve_path(RULES))
    assert np.allclose(built.mean, shipped.mean, rtol=1e-12, atol=0)
    assert np.allclose(built.sd, shipped.sd, rtol=1e-12, atol=0)


def test_one_game_of_the_dial_at_0_7_is_placed_near_0_7(curve, shared):
    for loss, decisions in games_at(0.7, shared, 3):
        p = placement.place(curve, loss / decisions, decisions)
        assert p["low"] <= 0.7 <= p["high"] and abs(p["strength"] - 0.7) < 0.12, p
        assert p["high"] - p["low"] < 0.35


def test_twenty_games_narrow_the_interval(curve, shared):
    played = games_at(0.7, shared, 20)
    loss, decisions = sum(x for x, _ in played), sum(n for _, n in played)
    p = placement.place(curve, loss / decisions, decisions)
    assert p["low"] <= 0.7 <= p["high"] and p["high"] - p["low"] < 0.1, p


def test_strong_is_placed_at_one(curve, shared):
    (loss, decisions), = games_at(1.0, shared, 1)
    assert loss == 0.0
    p = placement.place(curve, 0.0, decisions)
    assert p["strength"] == 1.0 and p["high"] == 1.0 and 0.85 < p["low"] < 1.0


def test_the_inverse_is_monotone_and_bounded(curve):
    got = [placement.place(curve, m, 37)["strength"] for m in np.linspace(0, 12, 60)]
    assert got == sorted(got, reverse=True) and got[0] == 1.0 and got[-1] == 0.0
    for m in (-1.0, 0.0, 3.0, 100.0):
        p = placement.place(curve, m, 1)
        assert 0.0 <= p["low"] <= p["strength"] <= p["high"] <= 1.0
    assert placement.place(curve, 2.0, 0)["strength"] == placement.place(curve, 2.0, 1)["strength"]


def test_placement_names_the_levels():
    p = placement.placement(RULES, 37 * 1.47, 37)
    assert list(p["levels"]) == ["easy", "normal", "strong"] and p["levels"]["strong"] == 1.0
    assert p["decisions"] == 37 and abs(p["loss_per_decision"] - 1.47) < 1e-12


@pytest.mark.parametrize("text", ["", "not json", "[]", '{"rules_hash": "x"}', "{" * 5000])
def test_a_damaged_or_foreign_kept_curve_is_not_read(tmp_path, text):
    path = tmp_path / "curve.json"
    path.write_text(text)
    assert placement.read_curve(RULES, path) is None


def test_a_tampered_curve_is_not_read(tmp_path):
    doc = json.loads(Path(str(placement.shipped_curve_path(RULES))).read_text())
    path = tmp_path / "curve.json"
    for key, bad in (("mean", [float("nan")] * 21), ("mean", list(range(21))), ("sd", [-1] * 21),
                     ("strengths", [0.5] * 21), ("games", 1)):
        path.write_text(json.dumps({**doc, key: bad}))
        assert placement.read_curve(RULES, path) is None, key
    path.write_text(json.dumps(doc))
    assert placement.read_curve(RULES, path) is not None


def test_a_kept_curve_that_is_a_folder_or_a_fifo_falls_back_to_the_shipped_one(tmp_path, monkeypatch):
    monkeypatch.setenv("YACHT_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(placement, "_CURVES", {})
    os.mkfifo(placement.curve_path(RULES))
    assert placement.curve_for(RULES).mean == placement.read_curve(RULES, placement.shipped_curve_path(RULES)).mean


def test_every_shipped_curve_is_read_without_a_build(tmp_path, monkeypatch):
    """The presets of SHIPPED_CURVES (yacht, yatzy) place a person at once on a fresh machine: their curve is
    read from the package, never built (a build needs the rules' solve and minutes of play)."""
    monkeypatch.setenv("YACHT_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(placement, "_CURVES", {})
    monkeypatch.setattr(placement, "build_curve", lambda rules: pytest.fail(f"built the {rules.name} curve"))
    for name in placement.SHIPPED_CURVES:
        rules = load(name)
        curve = placement.curve_for(rules)
        assert curve is not None and curve.strengths[0] == 0.0 and curve.strengths[-1] == 1.0, name
        assert np.all(np.diff(curve.mean) <= 0), name        # more strength, fewer points lost a decision
