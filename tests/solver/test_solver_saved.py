"""The exact solver under saved rolls (`saved_rolls`): every state's value against an expectimax written here,
the solve's layout and refusals."""
import itertools
from functools import cache

import numpy as np
import pytest

from yacht_env.rules import load
from yacht_env.solver import StateSpace, Unsolvable, check_distributions, check_solvable, solve
from yacht_env.solver.cache import load_file, save

# four boxes, five dice: sixes (upper, bonus 20 at 12), three of a kind (sum), Yacht 50, chance; extra Yacht +100
TINY = {"name": "tiny_saved", "boxes": [
    {"id": "sixes", "kind": "upper", "face": 6},
    {"id": "three_of_a_kind", "kind": "of_a_kind", "count": 3, "points": "sum"},
    {"id": "yacht", "kind": "yacht", "points": 50},
    {"id": "chance", "kind": "chance"}],
    "upper_bonus": {"threshold": 12, "points": 20}, "extra_yacht_bonus": 100, "joker": "none"}
SIXES, THREE, YACHT, CHANCE = range(4)
THRESHOLD, BONUS, EXTRA = 12, 20, 100


def tiny(saved: int, rolls: int = 3):
    return load(dict(TINY, saved_rolls=saved, rolls_per_turn=rolls))


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


@cache
def value(mask: int, upper: int, flag: int, saved: int, cap: int, rolls: int) -> float:
    """Expected points still to come at a turn's start with `saved` rolls saved (optimal play)."""
    if mask == 15:
        return 0.0

    def scored(roll, carry):
        best = -1e300
        for b in range(4):
            if mask >> b & 1:
                continue
            p = points(b, roll)
            gain = p + (EXTRA if flag and max(roll.count(f) for f in range(1, 7)) == 5 else 0)
            u2 = upper
            if b == SIXES:
                u2 = min(upper + p, THRESHOLD)
                gain += BONUS if upper < THRESHOLD <= upper + p else 0
            f2 = 1 if flag or (b == YACHT and p == 50) else 0
            best = max(best, gain + value(mask | 1 << b, u2, f2, carry, cap, rolls))
        return best

    now = [np.array([scored(r, c) for r in ROLLS]) for c in range(cap + 1)]
    S = now[0]
    for left in range(1, rolls + saved):
        E = P @ S
        E_all = now[min(left, cap)]
        S = np.array([max(E_all[i], max(E[k] for k in HOLD_KEEPS[i] if len(KEEPS[k]) < 5))
                      for i in range(len(ROLLS))])
    return float(FIRST @ S)


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
    assert one.value(0) < one.values[one.space.index(0, 0, 0, 1)]
    assert 0.0 <= one.std and 0.0 < one.p_upper_bonus < 1.0 and 0.0 < one.p_yacht_50 < 1.0


def test_one_roll_a_turn_with_saved_rolls_is_the_expectimax():
    rules = tiny(2, rolls=1)
    s = solve(rules, progress=False)
    assert s.expected_score == pytest.approx(value(0, 0, 0, 0, 2, 1), abs=1e-9)
    assert s.values[s.space.index(0, 0, 0, 2)] == pytest.approx(value(0, 0, 0, 2, 2, 1), abs=1e-9)


def test_the_moments_match_simulated_play():
    """The solve's standard deviation and bonus odds under saved rolls are those of the policy it plays."""
    from yacht_env.solver.simulate import simulate
    rules = tiny(2)
    s = solve(rules, progress=False)
    scores = simulate(rules, s, np.arange(20000, dtype=np.uint64))
    assert abs(scores.mean() - s.expected_score) < 4 * s.std / np.sqrt(len(scores))
    assert abs(scores.std() - s.std) < 0.05 * s.std


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
    with pytest.raises(Unsolvable, match="save up to 2 unused rolls.*playing to win"):
        check_distributions(tiny(2))
