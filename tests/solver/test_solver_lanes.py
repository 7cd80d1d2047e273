"""The lane-wise turn widget (`solver.lanes`, several upper totals at once) is bit-identical to the one-state
widget (`solver.widget`): stage values, chosen keeps and boxes, start values and scoring odds, lane by lane."""
import numpy as np
import pytest
from tests.solver_tables import solved

from yacht_env.solver.lanes import LANES, lane_scratch, odds_lanes, reroll_lanes, score_lanes, start_lanes
from yacht_env.solver.widget import (box_table, final_roll_odds, prepare, reroll_stages, score_stage, start_value,
                                     widget_scratch)


def one_state(M, V, mask, u, flag, n_stages):
    X = widget_scratch(M, n_stages)
    box_table(M, mask, flag == 1, X.opts, X.extra)
    score_stage(M, V, mask, u, flag, X)
    S, best = X.S, X.best
    S[0] = X.S0
    reroll_stages(M, S, X.K, X.kb, best, n_stages)
    odds = np.empty(M.D.n_rolls)
    final_roll_odds(M, best, n_stages, odds, np.empty(M.D.n_keeps))
    return S, best, X.choice0, start_value(M, S[n_stages]), odds


def in_lanes(M, V, mask, us, flag, n_stages):
    X = lane_scratch(M, n_stages)
    box_table(M, mask, flag == 1, X.opts, X.extra)
    X.us[:] = 0
    X.us[:len(us)] = us
    score_lanes(M, V, mask, flag, len(us), X)
    reroll_lanes(M, X, n_stages)
    start_lanes(M, X, n_stages)
    odds = np.empty((M.D.n_rolls, LANES))
    odds_lanes(M, X.best, n_stages, odds, np.empty((M.D.n_rolls, LANES)), np.empty((M.D.n_keeps, LANES)))
    return X.S, X.best, X.choice, X.start, odds


@pytest.mark.parametrize("name,overrides", [("yacht", {}), ("yacht", {"rolls_per_turn": 2}), ("verhoeff", {})])
def test_lanes_are_bit_identical_to_the_one_state_widget(name, overrides):
    rules, solution = solved(name, **overrides)
    T, sp = rules.tables, solution.space
    M = prepare(T, sp)
    n_stages = rules.rolls_per_turn - 1
    rng = np.random.default_rng(0)
    upper_bits = sum(1 << b for b in range(T.n_boxes) if T.box_face[b])
    for _ in range(6):
        mask = int(rng.integers(0, 1 << T.n_boxes - 1))            # leave the last box open: a decision remains
        flag = int(sp.n_flag > 1 and (mask >> T.yacht_box) & 1 and rng.random() < 0.5)
        us = np.sort(rng.choice(sp.n_upper, size=min(LANES, sp.n_upper), replace=False)) if mask & upper_bits \
            else np.zeros(1, np.int64)
        S, best, choice, start, odds = in_lanes(M, solution.values, mask, us, flag, n_stages)
        for j, u in enumerate(us):
            S1, best1, choice1, start1, odds1 = one_state(M, solution.values, mask, int(u), flag, n_stages)
            assert np.array_equal(S[:, :, j], S1) and np.array_equal(best[1:, :, j], best1[1:])
            assert np.array_equal(choice[:, j], choice1)
            assert start[j] == start1 and np.array_equal(odds[:, j], odds1)
