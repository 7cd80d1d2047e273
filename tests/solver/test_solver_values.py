"""The exact solver: published optima, every preset and knob, collapsed dimensions, cache, refusals."""
import json
import math

import numpy as np
import pytest
from tests.solver_tables import PAST_MEMORY, past_memory, solved, temp_cache

from yacht_arena.cli import main
from yacht_env.rules import load, presets
from yacht_env.solver import (StateSpace, Unsolvable, cache_path, check_distributions, check_solvable,
                               solution_for, solve)
from yacht_env.solver.cache import load_file, save, shipped_path

PUBLISHED = [  # Verhoeff 1999, Glenn 2006, and the reference C solver
    ("yacht", {}, 254.5877),
    ("yacht", {"extra_yacht_bonus": False}, 245.8708),
    ("verhoeff", {}, 254.5896),
    ("classic", {}, 166.9551),
]


@pytest.mark.parametrize("name,overrides,value", PUBLISHED)
def test_published_optimum(name, overrides, value):
    _, s = solved(name, **overrides)
    assert round(s.expected_score, 4) == value


def test_the_shipped_yacht_table_is_read_when_the_cache_has_none(tmp_path, monkeypatch):
    """The package ships the main job's table (scripts/ship_data.py); a version or rules change makes it
    stale, and then it is solved again (this test says so)."""
    monkeypatch.setenv("YACHT_CACHE_DIR", str(tmp_path))
    rules = load("yacht")
    shipped = load_file(shipped_path(rules), rules)
    assert shipped is not None, "stale shipped table: python scripts/ship_data.py"
    assert solution_for(rules, progress=False) is shipped and round(shipped.expected_score, 4) == 254.5877
    assert list(tmp_path.iterdir()) == []          # nothing solved, nothing written


@pytest.mark.slow
def test_the_shipped_yacht_table_is_what_the_solver_finds():
    rules = load("yacht")
    fresh, shipped = solve(rules, progress=False), load_file(shipped_path(rules), rules)
    assert fresh.space == shipped.space and np.allclose(fresh.values, shipped.values, rtol=0, atol=1e-9)
    assert fresh.expected_score == pytest.approx(shipped.expected_score, abs=1e-9)


def test_yacht_statistics():
    _, s = solved("yacht")
    assert round(s.std, 2) == 59.61  # Glenn 2006: 254.59 +- 59.61
    assert 0.68 < s.p_upper_bonus < 0.69 and 0.33 < s.p_yacht_50 < 0.34 and 0.09 < s.expected_extra_yachts < 0.1


@pytest.mark.parametrize("name", presets())
def test_every_preset_solves_or_is_refused_with_its_reason(name):
    """Every preset solves to a sane summary; `maxi` (six dice, 20 boxes, 89 million states: 552 s, far too long
    for the suite) is taken by the solver, and its score distributions are refused with one message naming why."""
    if name == "maxi":
        rules = load(name)
        check_solvable(rules)
        assert StateSpace.of(rules.tables).size == 2 ** 20 * 85
        with pytest.raises(Unsolvable, match=r"distributions of rules 'maxi' are out of reach: 89,128,960 solver "
                                             r"states .* at most 4,194,304 states\); the expected-score values"):
            check_distributions(rules)
        return
    rules, s = solved(name)
    assert 100 < s.expected_score < 300 and s.std > 0
    assert 0 <= s.p_yacht_50 <= 1 and 0 <= s.p_upper_bonus <= 1
    if not rules.upper_bonus:
        assert s.p_upper_bonus == 0
    if not rules.extra_yacht_bonus:
        assert s.expected_extra_yachts == 0


def test_knobs_move_the_optimum_the_right_way():
    base = solved("classic")[1].expected_score
    two, four = solved("classic", rolls_per_turn=2)[1], solved("classic", rolls_per_turn=4)[1]
    assert two.expected_score < base < four.expected_score
    assert solved("classic", rolls_per_turn=1)[1].expected_score < solved("classic", rolls_per_turn=2)[1].expected_score
    assert solved("classic", joker="free")[1].expected_score > base  # the joker only adds options
    assert solved("extended")[1].space.n_boxes == 15


def test_unneeded_dimensions_collapse():
    assert (StateSpace.of(load("classic").tables).n_upper, StateSpace.of(load("classic").tables).n_flag) == (1, 1)
    yacht = StateSpace.of(load("yacht").tables)
    assert (yacht.n_upper, yacht.n_flag, yacht.yacht_points) == (64, 2, 50)
    assert StateSpace.of(load("yacht", extra_yacht_bonus=False).tables).n_flag == 1
    assert StateSpace.of(load("kirakuken", extra_yacht_bonus=0).tables).n_flag == 2  # its joker waits for 50


def test_teams_solve_as_solitaire():
    team = load("classic", teams=2)
    check_solvable(team)
    with temp_cache():
        assert cache_path(team) == cache_path(load("classic"))
        assert solution_for(team, progress=False).expected_score == solved("classic")[1].expected_score


def test_several_columns_are_refused_with_the_reason(capsys):
    with pytest.raises(Unsolvable, match="3 columns: the exact state space .* is too large to solve"):
        check_solvable(load("yacht", columns=3))
    assert main(["solve", "--set", "columns=2", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "yacht solve: error: rules 'yacht' have 2 columns" in err and "per-column solitaire values" in err


def test_rules_past_the_solvers_memory_are_refused():
    with pytest.raises(Unsolvable, match="rules 'big' have 222,298,112 solver states .*" + PAST_MEMORY):
        check_solvable(load(past_memory()))


@pytest.mark.parametrize("argv, message", [
    (["--rules", "maxi", "--set", "columns=2"], "rules 'maxi' have 2 columns: the exact state space (every box of "
                                                 "every column, about 1.1e+12 fill patterns times upper totals) is too "
                                                 "large to solve: the exact solver solves one column;"),
    (["--rules", "WIDE"], "boxes: a list of 1 to 20 boxes is required"),
])
def test_six_dice_rules_out_of_reach_exit_2_naming_what_is_allowed(tmp_path, capsys, argv, message):
    wide = tmp_path / "wide6.yaml"
    wide.write_text("extends: maxi\nname: wide6\nboxes:\n" + "".join(
        f"  - {{id: u{f}, kind: upper, face: {f}}}\n" for f in range(1, 7)) + "".join(
        f"  - {{id: c{i}, kind: chance}}\n" for i in range(15)))
    argv = [str(wide) if a == "WIDE" else a for a in argv]
    assert main(["solve", *argv, "--no-progress"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0], err


@pytest.mark.parametrize("dice, states, gb", [(5, "222,298,112", 8.9), (6, "266,338,304", 10.7)])
def test_a_state_space_past_the_solvers_memory_is_refused_naming_it(dice, states, gb):
    """20 boxes fit with Maxi Yatzy's 85 upper totals; the highest threshold and an extra-Yacht bonus (the Yacht
    flag) multiply the states past the memory a solve may hold (`MAX_SOLVE_BYTES`), five dice or six."""
    data = load("maxi").to_dict()
    data["upper_bonus"]["threshold"] = 21 * dice
    data["extra_yacht_bonus"] = 100
    if dice == 5:
        data["dice"] = 5
        data["boxes"] = [b for b in data["boxes"] if b["id"] not in ("three_pairs", "castle", "tower",
                                                                     "full_straight")]
        data["boxes"] += [{"id": f"chance{i}", "kind": "chance"} for i in range(4)]
    rules = load(data)
    assert len(rules.boxes) == 20 and rules.dice == dice
    with pytest.raises(Unsolvable, match=rf"{states} solver states \(2\^20 fill patterns x {21 * dice + 1} upper "
                                         rf"totals x 2 Yacht flags\): solving them takes {gb} GB, more than the 6 GiB"):
        check_solvable(rules)


def test_cache_round_trip(tmp_path):
    rules, s = solved("classic")
    path = tmp_path / "t.npz"
    save(s, path)
    back = load_file(path)
    assert np.array_equal(back.values, s.values) and back.summary() == s.summary() and back.space == s.space
    path.write_bytes(b"not a table")
    assert load_file(path) is None
    with temp_cache():
        assert cache_path(rules).exists()
        again = solution_for(rules, progress=False)
    assert again.seconds == s.seconds and np.array_equal(again.values, s.values)  # read, not re-solved


def test_solve_cli_json_and_text(capsys):
    with temp_cache():
        solved("classic")
        assert main(["solve", "--rules", "classic", "--json"]) == 0
        doc = json.loads(capsys.readouterr().out)
        assert list(doc) == ["rules", "expected_score", "std", "p_upper_bonus", "p_yacht_50",
                             "expected_extra_yachts", "table"]
        assert doc["rules"]["name"] == "classic" and round(doc["expected_score"], 4) == 166.9551
        assert main(["solve", "--rules", "classic"]) == 0
    out = capsys.readouterr().out
    assert "expected score            166.9551" in out and "read from the cache" in out and math.isfinite(doc["std"])


def test_solve_cli_bad_rules(capsys):
    assert main(["solve", "--rules", "nope"]) == 2
    assert "no such rule set" in capsys.readouterr().err


def test_fresh_solve_shows_a_progress_bar(capsys):
    with temp_cache():
        assert main(["solve", "--rules", "classic", "--no-cache"]) == 0
    captured = capsys.readouterr()
    assert "solve classic:" in captured.err and "/12 [" in captured.err  # one step per layer (12 boxes)
    assert "from cache" not in captured.out
