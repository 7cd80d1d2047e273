"""The exact solver under saved rolls (`saved_rolls`): every state's value against an expectimax written here,
the solve's layout and refusals."""
import itertools
import json
from functools import cache

import numpy as np
import pytest
from tests.solver_tables import TINY_SAVED, temp_cache, tiny_saved

from yacht_arena.cli import main

from yacht_env.rules import load
from yacht_env.solver import StateSpace, Unsolvable, check_distributions, check_solvable, solve
from yacht_env.solver.cache import load_file, save
from yacht_env.solver.policy import Policy
from yacht_env.solver.simulate import simulate

SIXES, THREE, YACHT, CHANCE = range(4)        # the boxes of `TINY_SAVED`
THRESHOLD, BONUS, EXTRA = 12, 20, 100
tiny = tiny_saved


# ---- an expectimax over sorted dice, independent of the solver's tables ----
ROLLS = sorted(set(tuple(sorted(d)) for d in itertools.product(range(1, 7), repeat=5)))
ROLL_AT = {r: i for i, r in enumerate(ROLLS)}
KEEPS = sorted(set(tuple(sorted(k)) for n in range(6) for k in itertools.product(range(1, 7), repeat=n)))
KEEP_AT = {k: i for i, k in enumerate(KEEPS)}


def _transitions():
    """P[keep, roll]: the chance that keeping `keep` and rolling the other dice gives `roll`."""
    P = np.zeros((len(KEEPS), len(ROLLS)))
    for k, keep in enumerate(KEEPS):
        n = 5 - len(keep)
        for fresh in itertools.product(range(1, 7), repeat=n):
            P[k, ROLL_AT[tuple(sorted(keep + fresh))]] += 6.0 ** -n
    return P


P = _transitions()
FIRST = P[KEEP_AT[()]]
# every keep a roll allows (sub-multisets, by hold pattern), the whole roll included
HOLD_KEEPS = [sorted({KEEP_AT[tuple(r[i] for i in range(5) if h >> i & 1)] for h in range(32)}) for r in ROLLS]


def points(box: int, roll) -> int:
    counts = [roll.count(f) for f in range(1, 7)]
    if box == SIXES:
        return 6 * counts[5]
    if box == THREE:
        return sum(roll) if max(counts) >= 3 else 0
    if box == YACHT:
        return 50 if max(counts) == 5 else 0
    return sum(roll)


def box_values(mask: int, upper: int, flag: int, carry: int, cap: int, rolls: int) -> np.ndarray:
    """(boxes, rolls): points + bonuses + the value after scoring the roll in the box carrying `carry` saved rolls
    (-inf where the box is filled)."""
    out = np.full((4, len(ROLLS)), -np.inf)
    for b in range(4):
        if mask >> b & 1:
            continue
        for i, roll in enumerate(ROLLS):
            p = points(b, roll)
            gain = p + (EXTRA if flag and len(set(roll)) == 1 else 0)
            u2 = upper
            if b == SIXES:
                u2 = min(upper + p, THRESHOLD)
                gain += BONUS if upper < THRESHOLD <= upper + p else 0
            f2 = 1 if flag or (b == YACHT and p == 50) else 0
            out[b, i] = gain + value(mask | 1 << b, u2, f2, carry, cap, rolls)
    return out


@cache
def stages(mask: int, upper: int, flag: int, cap: int, rolls: int) -> list:
    """S[L]: the best value of each roll with L re-rolls left, L = 0 .. rolls - 1 + cap."""
    now = [box_values(mask, upper, flag, c, cap, rolls).max(axis=0) for c in range(cap + 1)]
    out = [now[0]]
    for left in range(1, rolls + cap):
        E = P @ out[-1]
        out.append(np.array([max(now[min(left, cap)][i], max(E[k] for k in HOLD_KEEPS[i] if len(KEEPS[k]) < 5))
                             for i in range(len(ROLLS))]))
    return out


@cache
def value(mask: int, upper: int, flag: int, saved: int, cap: int, rolls: int) -> float:
    """Expected points still to come at a turn's start with `saved` rolls saved (optimal play)."""
    if mask == 15:
        return 0.0
    return float(FIRST @ stages(mask, upper, flag, cap, rolls)[rolls - 1 + saved])


def moves(mask: int, upper: int, flag: int, roll: int, left: int, cap: int, rolls: int = 3) -> dict:
    """{action: value} of every legal move (holds: every pattern but all five) with roll index `roll`."""
    out = {}
    if left > 0:
        E = P @ stages(mask, upper, flag, cap, rolls)[left - 1]
        out = {h: float(E[KEEP_AT[tuple(ROLLS[roll][i] for i in range(5) if h >> i & 1)]]) for h in range(31)}
    boxes = box_values(mask, upper, flag, min(left, cap), cap, rolls)[:, roll]
    out.update({31 + b: float(v) for b, v in enumerate(boxes) if v > -np.inf})
    return out


def positions(seed: int, count: int, cap: int) -> list:
    """Decisions (mask, upper, flag, roll, re-rolls left) at consistent states."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        mask = int(rng.integers(0, 15))
        upper = int(rng.choice((0, 6, 12) if mask & 1 else (0,)))
        flag = int(rng.integers(0, 2)) if mask >> YACHT & 1 else 0
        out.append((mask, upper, flag, int(rng.integers(0, len(ROLLS))), int(rng.integers(0, 3 + cap))))
    return out


@pytest.mark.parametrize("cap", [1, 2])
def test_every_state_and_saved_count_is_the_expectimax(cap):
    rules = tiny(cap)
    s = solve(rules, progress=False)
    sp = s.space
    assert (sp.n_saved, sp.n_upper, sp.n_flag, sp.size) == (cap + 1, 13, 2, 16 * 13 * 2 * (cap + 1))
    worst = 0.0
    for mask in range(16):
        for upper in ((0, 6, 12) if mask & 1 else (0,)):
            for flag in ((0, 1) if mask >> YACHT & 1 else (0,)):
                for saved in range(cap + 1):
                    want = value(mask, upper, flag, saved, cap, 3)
                    worst = max(worst, abs(s.values[sp.index(mask, upper, flag, saved)] - want))
    assert worst <= 1e-9
    assert s.expected_score == pytest.approx(value(0, 0, 0, 0, cap, 3), abs=1e-9)
    assert s.value(0) == s.expected_score


def test_saved_rolls_are_worth_points_and_more_saved_more():
    plain, one, two = (solve(tiny(k), progress=False) for k in (0, 1, 2))
    assert plain.space.n_saved == 1 and plain.space.size * 2 == one.space.size
    assert plain.expected_score < one.expected_score < two.expected_score
    # a state with saved rolls is worth more than the same state without
    assert one.value(0) < one.value(0, saved=1) == one.values[one.space.index(0, 0, 0, 1)]
    assert 0.0 <= one.std and 0.0 < one.p_upper_bonus < 1.0 and 0.0 < one.p_yacht_50 < 1.0


def test_one_roll_a_turn_with_saved_rolls_is_the_expectimax():
    rules = tiny(2, rolls=1)
    s = solve(rules, progress=False)
    assert s.expected_score == pytest.approx(value(0, 0, 0, 0, 2, 1), abs=1e-9)
    assert s.values[s.space.index(0, 0, 0, 2)] == pytest.approx(value(0, 0, 0, 2, 2, 1), abs=1e-9)


def test_the_moments_match_simulated_play():
    """The solve's standard deviation and bonus odds under saved rolls are those of the policy it plays."""
    rules = tiny(2)
    s = solve(rules, progress=False)
    scores = simulate(rules, s, np.arange(20000, dtype=np.uint64))
    assert abs(scores.mean() - s.expected_score) < 4 * s.std / np.sqrt(len(scores))
    assert abs(scores.std() - s.std) < 0.05 * s.std


@pytest.mark.parametrize("cap", [1, 2])
def test_every_move_is_valued_as_the_expectimax_and_plans_play_a_best_one(cap):
    """advise's alternatives, the dial's move values and the plans strong plays, at every re-roll count a turn
    with saved rolls can have."""
    rules = tiny(cap)
    policy = Policy(rules, solve(rules, progress=False))
    assert policy.n_stages == 2 + cap
    for mask, upper, flag, r, left in positions(cap, 16, cap):
        want = moves(mask, upper, flag, r, left, cap)
        scores = np.array([[(50 if b == YACHT and flag else 0) if mask >> b & 1 else -1 for b in range(4)]])
        if mask & 1:
            scores[0, SIXES] = upper
        got = dict(policy.alternatives(scores, [upper], r, left))
        assert set(got) <= set(want) and {a for a in want if a >= 31} <= set(got)
        assert all(got[a] == pytest.approx(want[a], abs=1e-9) for a in got)
        assert want[policy.action(scores, [upper], r, left)] == pytest.approx(max(want.values()), abs=1e-9)
        key = policy.state_keys(np.array([[mask]]), np.array([[upper]]), np.array([[flag]]))
        row = policy.move_values(key, np.array([r]), np.array([left]))[0]
        assert np.allclose([row[a] for a in sorted(want)], [want[a] for a in sorted(want)], rtol=0, atol=1e-9)
        assert all(row[a] == -np.inf for a in range(row.shape[0]) if a not in want)
        actions, losses = policy.sampled_actions(key, np.array([r]), np.array([left]), 2.0, np.array([0.7]))
        assert actions[0] in want and losses[0] == pytest.approx(max(want.values()) - want[actions[0]], abs=1e-9)


def test_advise_takes_the_re_rolls_saved_rolls_give(tmp_path, capsys):
    rules_file = tmp_path / "tiny.yaml"
    rules_file.write_text(json.dumps(dict(TINY_SAVED, saved_rolls=2)))     # JSON is YAML
    with temp_cache():
        assert main(["advise", "--rules", str(rules_file), "--json", "--dice", "2", "3", "6", "6", "6",
                     "--rolls-left", "4", "--top", "0"]) == 0
        doc = json.loads(capsys.readouterr().out)
        want = moves(0, 0, 0, ROLL_AT[(2, 3, 6, 6, 6)], 4, 2)
        assert doc["rolls_left"] == 4 and doc["best"]["expected_final_score"] == pytest.approx(max(want.values()))
        assert main(["advise", "--rules", str(rules_file), "--dice", "2", "3", "6", "6", "6", "--rolls-left", "5"]) == 2
    assert "rolls left must be 0..4 under 'tiny_saved' (3 rolls per turn plus up to 2 saved" in capsys.readouterr().err


def test_a_saved_rolls_table_round_trips_through_the_cache(tmp_path):
    rules = tiny(1)
    s = solve(rules, progress=False)
    save(s, tmp_path / "t.npz")
    back = load_file(tmp_path / "t.npz", rules)
    assert back.space == s.space and np.array_equal(back.values, s.values)


def test_without_saved_rolls_the_space_is_what_it_was():
    sp = StateSpace.of(load("yacht").tables)
    assert sp.n_saved == 1 and sp.size == (1 << 13) * 64 * 2 and "n_saved" not in sp.meta()
    assert sp.index(5, 70, True) == (5 * 64 + 63) * 2 + 1


def test_maxi_with_saved_rolls_is_refused_naming_the_cap_and_the_memory():
    check_solvable(load("maxi"))
    with pytest.raises(Unsolvable) as e:
        check_solvable(load("maxi", saved_rolls=1))
    text = str(e.value)
    assert "2 saved-roll counts (saved_rolls 1" in text and "7.1 GB" in text and "without saved rolls" in text


def test_playing_to_win_under_saved_rolls_is_refused():
    with pytest.raises(Unsolvable, match=r"carry unused rolls to later turns \(saved_rolls 2\): playing to win"):
        check_distributions(tiny(2))
