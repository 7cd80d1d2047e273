"""Scandinavian Yatzy solved exactly: yatzy-solver's optimum of every variant, every reachable turn-start
state against yatzy-solver's own table, and strong and the levels playing it in a tournament. The table
comparisons need the peer (`pip install yatzy-solver`, the [bench] extra) and skip without it."""
import numpy as np
import pytest
from tests.solver_tables import solved, temp_cache

from tournaments.config import parse_config
from tournaments.run import run_tournament
from yacht_env.solver.space import reachable_upper

FH5 = {"boxes.full_house.five_alike": True}
TP4 = {"boxes.two_pairs.four_alike": True}
FORCED = {"forced_order": True}
# (yatzy-solver's variant, our overrides of `yatzy`, yatzy-solver's optimum as issue 38 quotes it)
VARIANTS = [
    ("yatzy-scandinavian", {}, 248.4399894),
    ("yatzy-scandinavian+fh5", FH5, 248.4680909),
    ("yatzy-scandinavian+tp4", TP4, 248.6440589),
    ("yatzy-scandinavian+fh5+tp4", {**FH5, **TP4}, 248.6748827),
]
FORCED_VARIANTS = [("yatzy-scandinavian+forced", FORCED), ("yatzy-scandinavian+fh5+tp4+forced", {**FH5, **TP4,
                                                                                                 **FORCED})]


def slow_after_first(cases):
    """The first case as it is, the others marked slow (each is a solve of its own)."""
    return [c if i == 0 else pytest.param(*c, marks=pytest.mark.slow) for i, c in enumerate(cases)]


@pytest.mark.parametrize("variant,overrides,value", slow_after_first(VARIANTS), ids=[v[0] for v in VARIANTS])
def test_the_optimum_of_every_variant(variant, overrides, value):
    _, s = solved("yatzy", **overrides)
    assert s.expected_score == pytest.approx(value, abs=1e-6)


def turn_starts(rules, solution):
    """(filled masks, capped upper totals, our values) of every reachable turn-start state; with forced order
    only the masks filled top to bottom."""
    masks, upper = np.nonzero(reachable_upper(rules.tables, solution.space))
    if rules.forced_order:
        keep = (masks & (masks + 1)) == 0
        masks, upper = masks[keep], upper[keep]
    space = solution.space
    return masks, upper, solution.values[(masks * space.n_upper + upper) * space.n_flag]


@pytest.mark.slow
@pytest.mark.parametrize("variant,overrides", [v[:2] for v in VARIANTS] + FORCED_VARIANTS,
                         ids=[v[0] for v in VARIANTS + FORCED_VARIANTS])
def test_every_turn_start_state_equals_yatzy_solvers_table(variant, overrides):
    ys = pytest.importorskip("yatzy_solver")
    peer = ys.Solver.build(ys.Variant(variant))
    rules, s = solved("yatzy", **overrides)
    assert list(ys.Variant(variant).categories) == list(rules.boxes)    # the same boxes, bit for bit
    masks, upper, ours = turn_starts(rules, s)
    theirs = peer.state_values(masks.astype(np.uint32), upper.astype(np.uint16), np.zeros(len(masks), np.bool_))
    assert len(masks) > 15 and np.abs(ours - theirs).max() <= 1e-6


def test_strong_and_the_levels_play_a_yatzy_tournament(tmp_path, monkeypatch):
    """The levels read their shipped calibrations (agents/calibrations/), strong the solved table."""
    solved("yatzy")
    with temp_cache() as cache:
        monkeypatch.setenv("YACHT_CACHE_DIR", cache)
        cfg = parse_config({"name": "t", "rules": "yatzy", "entrants": ["easy", "normal", "strong", "greedy"],
                            "games": 2, "seed": 1})
        res = run_tournament(cfg, out=tmp_path, progress=False)
    agents = res["analysis"]["agents"]
    assert {x["agent"] for x in res["standings"]} == set(agents) == {"easy", "normal", "strong", "greedy"}
    assert agents["strong"]["loss_per_game"] == 0 < agents["easy"]["loss_per_game"]
