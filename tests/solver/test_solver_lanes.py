"""The lane-wise turn widget (`solver.lanes`, several upper totals at once) is bit-identical to the one-state
widget (`solver.widget`): stage values, chosen keeps and boxes, start values and scoring odds, lane by lane."""
import numpy as np
import pytest
from tests.solver_tables import solved

from yacht_env.core.dice import NUM_KEEPS, NUM_ROLLS
from yacht_env.solver.lanes import LANES, odds_lanes, reroll_lanes, score_lanes, start_lanes
from yacht_env.solver.widget import box_table, final_roll_odds, prepare, reroll_stages, score_stage, start_value


def one_state(T, V, space, prep, mask, u, flag, n_stages):
    nbox, top = T.n_boxes, prep[0].shape[2]
    opts, extra = np.empty((NUM_ROLLS, nbox), np.int32), np.empty(NUM_ROLLS, np.int32)
    box_table(T, mask, flag == 1, opts, extra)
    S, best = np.empty((n_stages + 1, NUM_ROLLS)), np.empty((n_stages + 1, NUM_ROLLS), np.int32)
    choice = np.empty(NUM_ROLLS, np.int32)
    score_stage(T, V, space, prep, mask, u, flag, opts, extra, np.empty((nbox, top)), np.empty((nbox, top), np.int64),
                S[0], choice)
    reroll_stages(S, np.empty(NUM_KEEPS), np.empty(NUM_KEEPS, np.int32), best, n_stages)
    odds = np.empty(NUM_ROLLS)
    final_roll_odds(best, n_stages, odds, np.empty(NUM_KEEPS))
    return S, best, choice, start_value(S[n_stages]), odds


def in_lanes(T, V, space, prep, mask, us, flag, n_stages):
    nbox, top = T.n_boxes, prep[0].shape[2]
    opts, extra = np.empty((NUM_ROLLS, nbox), np.int32), np.empty(NUM_ROLLS, np.int32)
    box_table(T, mask, flag == 1, opts, extra)
    S = np.zeros((n_stages + 1, NUM_ROLLS, LANES))
    best = np.zeros((n_stages + 1, NUM_ROLLS, LANES), np.int32)
    choice = np.zeros((NUM_ROLLS, LANES), np.int32)
    lanes = np.zeros(LANES, np.int64)
    lanes[:len(us)] = us
    score_lanes(T, V, space, prep, mask, lanes, len(us), flag, opts, extra, np.zeros((nbox, top, LANES)),
                np.zeros((nbox, top, LANES), np.int64), S[0], choice)
    reroll_lanes(S, np.zeros((NUM_KEEPS, LANES)), np.zeros((NUM_KEEPS, LANES), np.int32), best, n_stages)
    start = np.empty(LANES)
    start_lanes(S[n_stages], start)
    odds = np.empty((NUM_ROLLS, LANES))
    odds_lanes(best, n_stages, odds, np.empty((NUM_ROLLS, LANES)), np.empty((NUM_KEEPS, LANES)))
    return S, best, choice, start, odds


@pytest.mark.parametrize("name,overrides", [("yacht", {}), ("yacht", {"rolls_per_turn": 2}), ("verhoeff", {})])
def test_lanes_are_bit_identical_to_the_one_state_widget(name, overrides):
    rules, solution = solved(name, **overrides)
    T, sp = rules.tables, solution.space
    space = (sp.n_upper, sp.n_flag, sp.threshold, sp.yacht_points)
    prep = prepare(T, sp.n_upper)
    n_stages = rules.rolls_per_turn - 1
    rng = np.random.default_rng(0)
    upper_bits = sum(1 << b for b in range(T.n_boxes) if T.box_face[b])
    for _ in range(6):
        mask = int(rng.integers(0, 1 << T.n_boxes - 1))            # leave the last box open: a decision remains
        flag = int(sp.n_flag > 1 and (mask >> T.yacht_box) & 1 and rng.random() < 0.5)
        us = np.sort(rng.choice(sp.n_upper, size=min(LANES, sp.n_upper), replace=False)) if mask & upper_bits \
            else np.zeros(1, np.int64)
        S, best, choice, start, odds = in_lanes(T, solution.values, space, prep, mask, us, flag, n_stages)
        for j, u in enumerate(us):
            S1, best1, choice1, start1, odds1 = one_state(T, solution.values, space, prep, mask, int(u), flag, n_stages)
            assert np.array_equal(S[:, :, j], S1) and np.array_equal(best[1:, :, j], best1[1:])
            assert np.array_equal(choice[:, j], choice1)
            assert start[j] == start1 and np.array_equal(odds[:, j], odds1)
