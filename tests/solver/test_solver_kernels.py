"""The solver's compiled kernels take named structures and any dice count the rules name.

Every compiled function of `yacht_env.solver` takes at most `MAX_PARAMS` positional parameters (the rule set, its
dice, the state space and the solve's arrays come as named tuples: `widget.Model`, `widget.Widget`, ...), no solver
module reads the five-dice module constants of `yacht_env.core.dice` or five dice's hold count (the dice come from
the `Dice` the kernels are given), and the solver's values of small hand-made games of five and six dice equal an
independent expectimax written here over plain Python dice.
"""
import ast
from itertools import combinations_with_replacement, product
from pathlib import Path

import numpy as np
import pytest

from yacht_env.core.dice import dice_tables
from yacht_env.rules.tables import Tables
from yacht_env.solver.solve import solve_tables

SOLVER = Path(__file__).resolve().parents[2] / "yacht_env" / "solver"
MAX_PARAMS = 10
# the five-dice constants of yacht_env.core.dice: compiled code reads the `Dice` it is given instead
FIVE_DICE = {"NUM_DICE", "NUM_ROLLS", "NUM_KEEPS", "NUM_HOLD_PATTERNS", "ROLLS", "ROLL_COUNTS", "ROLL_SUMS",
             "ROLL_PROB", "KEEP_COUNTS", "KEEP_SIZES", "KEEP_ADD", "KEEP_SUB", "HOLD_KEEP", "ROLL_INDEX", "TRANSITION"}


def _compiled(tree):
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and any("jit" in ast.unparse(d) for d in node.decorator_list):
            yield node


def test_every_compiled_solver_function_takes_at_most_ten_parameters():
    wide = {}
    for path in sorted(SOLVER.glob("*.py")):
        for fn in _compiled(ast.parse(path.read_text())):
            if len(fn.args.args) > MAX_PARAMS:
                wide[f"{path.name}:{fn.name}"] = len(fn.args.args)
    assert wide == {}, f"compiled functions with more than {MAX_PARAMS} positional parameters: {wide}"


def test_no_solver_module_reads_the_five_dice_constants_or_splats_a_kernels_arguments():
    trees = {path.name: ast.parse(path.read_text()) for path in sorted(SOLVER.glob("*.py"))}
    kernels = {fn.name for tree in trees.values() for fn in _compiled(tree)}
    for name, tree in trees.items():
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").endswith("core.dice"):
                names = {a.name for a in node.names} & FIVE_DICE
                assert not names, f"{name} imports the five-dice constants {sorted(names)}"
            if isinstance(node, ast.ImportFrom) and (node.module or "").endswith("core.actions"):
                assert "NUM_HOLDS" not in {a.name for a in node.names}, \
                    f"{name} imports five dice's hold count NUM_HOLDS (the kernels read `hold_actions_of` their dice)"
            if isinstance(node, ast.Call):
                called = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
                assert called not in kernels or not any(isinstance(a, ast.Starred) for a in node.args), \
                    f"{name}:{node.lineno} passes {called} arguments from a sequence (*args): name them"


# ---- a small game of n dice, solved by the solver and by an independent expectimax ---------------------------------

def _game(n: int):
    """Three boxes over n dice: sixes (upper, bonus 35 at 18), a pair of fives or more (20 points) and chance."""
    rolls = list(combinations_with_replacement(range(1, 7), n))
    score = np.array([[6 * r.count(6) for r in rolls], [20 * (r.count(5) >= 2) for r in rolls],
                      [sum(r) for r in rolls]], dtype=np.int32)
    fields = dict(n_boxes=3, score=score, joker_score=score.copy(), roll_yacht=np.zeros(len(rolls), np.int8),
                  box_face=np.array([6, 0, 0], np.int8), face_box=np.array([-1, -1, -1, -1, -1, -1, 0], np.int32),
                  yacht_box=-1, upper_threshold=18, upper_bonus=35, extra_bonus=0, joker_trigger=0, joker_forced=0,
                  joker_needs_upper=0, rolls_per_turn=3, forced_order=0, saved_cap=0)
    if "dice" in Tables._fields:
        fields["dice"] = dice_tables(n)
    return Tables(**fields), rolls


def _expectimax(score, rolls, n, threshold, bonus, rolls_per_turn):
    """The expected final score of the game from its start, by expectimax over sorted dice tuples."""
    index = {r: i for i, r in enumerate(rolls)}
    keeps = [k for size in range(n) for k in combinations_with_replacement(range(1, 7), size)]   # fewer than n dice
    keep_at = {k: i for i, k in enumerate(keeps)}
    # P(roll | keep): every way the free dice can fall
    trans = np.zeros((len(keeps), len(rolls)))
    for i, k in enumerate(keeps):
        free = n - len(k)
        for faces in product(range(1, 7), repeat=free):
            trans[i, index[tuple(sorted(k + faces))]] += 6.0 ** -free
    first = np.zeros(len(rolls))
    for faces in product(range(1, 7), repeat=n):
        first[index[tuple(sorted(faces))]] += 6.0 ** -n
    # the keeps a roll can hold back to roll again: every subset of its dice but all of them (that scores)
    subs = [sorted({keep_at[tuple(r[i] for i in range(n) if h >> i & 1)] for h in range((1 << n) - 1)})
            for r in rolls]
    width = max(len(x) for x in subs)
    sub = np.array([x + [x[0]] * (width - len(x)) for x in subs])
    nbox = score.shape[0]
    value = {}
    for mask in range((1 << nbox) - 1, -1, -1):
        for u in range(threshold + 1):
            if mask == (1 << nbox) - 1:
                value[mask, u] = 0.0
                continue
            f0 = np.full(len(rolls), -np.inf)
            for b in range(nbox):
                if mask >> b & 1:
                    continue
                p = score[b]
                upper = b == 0
                u2 = np.minimum(u + p, threshold) if upper else np.full(len(rolls), u)
                gain = np.where(upper & (u < threshold) & (u + p >= threshold), bonus, 0)
                nxt = np.array([value[mask | 1 << b, int(x)] for x in u2])
                f0 = np.maximum(f0, p + gain + nxt)
            f = f0
            for _ in range(rolls_per_turn - 1):
                f = np.maximum(f0, (trans @ f)[sub].max(axis=1))
            value[mask, u] = float(first @ f)
    return value[0, 0]


@pytest.mark.parametrize("n", [5, 6])
def test_a_small_game_of_n_dice_is_solved_exactly(n):
    T, rolls = _game(n)
    space, V, _ = solve_tables(T, progress=False)
    assert (space.n_upper, space.n_flag) == (19, 1)
    want = _expectimax(T.score, rolls, n, T.upper_threshold, T.upper_bonus, T.rolls_per_turn)
    assert V[0] == pytest.approx(want, abs=1e-9)
