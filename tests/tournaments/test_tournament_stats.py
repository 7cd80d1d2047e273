"""Statistics, ratings, placements and the store on small hand-made inputs."""
import json

import numpy as np
import pytest

from tournaments.config import parse_config
from tournaments.gamelog import placements
from yacht_env.core.actions import fallback_action
from tournaments.ratings import bradley_terry_elo, elo, openskill
from agents.stats import wilson
from tournaments.stats import describe_scores, duplicate_effect, pair_results
from tournaments.store import Store
from yacht_env.core.game import Game
from yacht_env.config import ConfigError


def rec(table, deal, rotation, agents, totals, places=None, faults=None):
    places = places or [1 + sum(o > t for o in totals) for t in totals]
    return {"key": f"t{table}-d{deal}-r{rotation}", "table": table, "deal": deal, "rotation": rotation,
            "agents": agents, "totals": totals, "places": places, "faults": faults or [None] * len(agents)}


def test_describe_scores():
    d = describe_scores([100, 200, 300, 400])
    assert d["mean"] == 250 and d["median"] == 250 and d["min"] == 100 and d["max"] == 400
    assert d["std"] == pytest.approx(129.0994, abs=1e-4)
    assert d["ci95"] == pytest.approx([250 - 1.959964 * 129.0994 / 2, 250 + 1.959964 * 129.0994 / 2], abs=1e-3)
    assert d["quantiles"]["p25"] == 175


def test_wilson_interval():
    assert wilson(0, 10)[0] == 0 and wilson(10, 10)[1] == pytest.approx(1)
    lo, hi = wilson(5, 10)
    assert lo == pytest.approx(0.2366, abs=1e-4) and hi == pytest.approx(0.7634, abs=1e-4)
    lo, hi = wilson(50, 100)
    assert lo == pytest.approx(0.4038, abs=1e-3) and hi == pytest.approx(0.5962, abs=1e-3)
    assert wilson(7.5, 10)[0] < 0.75 < wilson(7.5, 10)[1] and wilson(0, 0) == [0.0, 1.0]


def test_head_to_head_counts_places():
    recs = [rec(0, 0, 0, ["a", "b"], [200, 100]), rec(0, 0, 1, ["b", "a"], [150, 150]),
            rec(0, 1, 0, ["a", "b"], [90, 100])]
    (h,) = pair_results(recs, ["a", "b"])
    assert (h["wins"], h["draws"], h["losses"], h["games"]) == (1, 1, 1, 3) and h["score_rate"] == 0.5


def test_duplicate_effect_cancels_shared_luck():
    # a always scores 10 more than b on the same dice; the dice swing scores by hundreds
    recs = []
    for d, luck in enumerate([0, 300, 50, 200, 120, 20]):
        recs += [rec(0, d, 0, ["a", "b"], [luck + 10, luck + 60]), rec(0, d, 1, ["b", "a"], [luck, luck + 70])]
    (p,) = duplicate_effect(recs, ["a", "b"])["pairs"]
    assert p["mean_diff"] == pytest.approx(10) and p["ci95_duplicate"] == pytest.approx([10, 10])
    assert p["width_ratio"] == 0 and p["games_factor"] is None
    assert p["ci95_independent"][1] - p["ci95_independent"][0] > 100


def test_elo_orders_and_stays_finite():
    recs = [rec(0, d, r, ["a", "b"] if r == 0 else ["b", "a"], [200, 100] if r == 0 else [100, 200])
            for d in range(10) for r in (0, 1)]
    recs += [rec(1, d, 0, ["b", "c"], [200, 100]) for d in range(10)]
    e = elo(recs, ["a", "b", "c"])
    assert e["a"]["elo"] > e["b"]["elo"] > e["c"]["elo"]
    assert np.isfinite([v["elo"] for v in e.values()]).all()
    assert np.mean([v["elo"] for v in e.values()]) == pytest.approx(1500)
    assert all(v["ci95"][0] <= v["elo"] <= v["ci95"][1] for v in e.values())
    assert elo(recs, ["a", "b", "c"]) == e  # seeded bootstrap


def test_bradley_terry_even_pair_is_equal():
    w = np.array([[0, 5.0], [5.0, 0]])
    g = np.array([[0, 10.0], [10.0, 0]])
    assert bradley_terry_elo(w, g) == pytest.approx([1500, 1500])


def test_openskill_multi_seat_ranks():
    recs = [rec(0, d, 0, ["a", "b", "c"], [300, 200, 100]) for d in range(5)]
    o = openskill(recs, ["a", "b", "c"])
    assert o["a"]["mu"] > o["b"]["mu"] > o["c"]["mu"]


def test_placements_put_forfeits_last():
    g = Game("yacht", num_players=3, seed=1)
    while not g.is_over:
        if g.phase == "roll":
            g.roll()
        else:
            g.apply(fallback_action(g.legal_mask()))
    ranks = g.sheet_ranks()
    best = ranks.index(min(ranks))
    faulted = [s == best for s in range(3)]
    places = placements(g, faulted)
    assert places[best] == 3 and sorted(p for s, p in enumerate(places) if s != best)[0] == 1
    assert placements(g, [True] * 3) == [1, 1, 1]


def test_fallback_scores_the_first_legal_box():
    mask = np.zeros(44, dtype=np.int8)
    mask[:31] = 1
    mask[[35, 40]] = 1
    assert fallback_action(mask) == 35


def test_store_dedupes_and_rejects_damage(tmp_path):
    from agents.registry import make_agent
    from tournaments.play import play_job
    from tournaments.schedule import schedule
    cfg = parse_config({"entrants": ["greedy", "random"], "games": 1})
    store = Store(tmp_path)
    store.open(cfg)
    played = play_job(schedule(cfg)[0], cfg.ruleset, {n: make_agent(s) for n, s in cfg.entrants.items()}, None)
    line = json.dumps(played)
    other = json.dumps({**played, "faults": [None, {"error": "late", "move": 3}]})
    store.append([line, other])
    assert list(store.records()) == ["t0-d0-r0"] and store.records()["t0-d0-r0"]["faults"] == [None, None]
    with open(store.games_path, "a") as f:
        f.write('{"key": "torn')
    assert len(store.records()) == 1
    store.open(cfg)  # reopening cuts the torn tail so the next line starts clean
    assert store.games_path.read_text().endswith("}\n")
    with open(store.games_path, "a") as f:
        f.write("garbage\n" + line + "\n")
    with pytest.raises(ConfigError, match=r"games.jsonl: line 3: not valid JSON; the store is damaged"):
        store.records()


def test_report_of_a_folder_without_a_store(tmp_path):
    with pytest.raises(ConfigError, match="no tournament.json; not a tournament folder"):
        Store(tmp_path).config()


def test_teammates_are_not_opponents():
    r = rec(0, 0, 0, ["a", "b", "c", "d"], [200, 100, 200, 100])
    r["sheet_of"] = [0, 1, 0, 1]
    pairs = {(h["a"], h["b"]) for h in pair_results([r], ["a", "b", "c", "d"])}
    assert pairs == {("a", "b"), ("a", "d"), ("b", "c"), ("c", "d")}


def test_store_folder_errors(tmp_path):
    cfg = parse_config({"entrants": ["a", "b"], "games": 1})
    (tmp_path / "file").write_text("x")
    with pytest.raises(ConfigError, match="file: exists and is not a folder"):
        Store(tmp_path / "file").open(cfg)
    with pytest.raises(ConfigError, match="cannot create the tournament folder"):
        Store(tmp_path / "file" / "sub").open(cfg)
    (tmp_path / "stray").mkdir()
    (tmp_path / "stray" / "games.jsonl").write_text("")
    with pytest.raises(ConfigError, match="games.jsonl without tournament.json; not a tournament folder"):
        Store(tmp_path / "stray").open(cfg)
