"""`solve(rules)`: run the backward induction for one sheet column of a rule set."""
import time

import numba as nb
import numpy as np
from tqdm import tqdm

from ..rules import rules_hash
from .backward import solve_layer
from .saved import solve_layer_saved
from .widget import prepare
from .solution import Solution
from .space import StateSpace, check_solvable, masks_by_layer, reachable_upper

CHUNK = 8  # masks handed to a thread at a time (dynamic scheduling)


def solve_tables(T, progress: bool = True, name: str = "") -> tuple[StateSpace, np.ndarray, np.ndarray]:
    """(space, V, moments) of one sheet column's rule tables `T` (any dice count: `T.dice`): V the
    value of every state, moments[s] = (E[S^2], upper bonuses, Yacht = 50 boxes, extra Yachts to come); a tqdm bar
    named `name` counts the layers (filled boxes). Rules with saved rolls take `saved.solve_layer_saved`, one state
    at a time (the lane form, `lanes`, is for rules without them)."""
    space = StateSpace.of(T)
    reach = reachable_upper(T, space)
    V = np.zeros(space.size)
    moments = np.zeros((space.size, 4))
    M = prepare(T, space)
    bar = tqdm(range(T.n_boxes - 1, -1, -1), desc=f"solve {name}", unit="layer", disable=not progress, leave=False)
    layers = masks_by_layer(T.n_boxes, spread=True)
    for layer in bar:
        with nb.parallel_chunksize(CHUNK):
            if space.n_saved > 1:
                solve_layer_saved(M.T, M.D, M.space, M.L, layers[layer], reach, T.rolls_per_turn, V, moments, True)
            else:
                solve_layer(M.T, M.D, M.space, M.L, layers[layer], reach, T.rolls_per_turn - 1, V, moments, True)
    return space, V, moments


def solve(rules, progress: bool = True) -> Solution:
    """Solve a one-column rule set exactly; a tqdm bar counts the layers (filled boxes)."""
    check_solvable(rules)
    t0 = time.perf_counter()
    space, V, moments = solve_tables(rules.tables, progress, rules.name)
    seconds = time.perf_counter() - t0
    V.setflags(write=False)   # read-only as a table read from the cache: one compiled version of each kernel reads both
    e = float(V[0])
    e2, pub, py, ex = (float(m) for m in moments[0])
    return Solution(rules_key=rules_hash(rules), space=space, values=V, expected_score=e,
                    std=float(np.sqrt(max(e2 - e * e, 0.0))), p_upper_bonus=pub, p_yacht_50=py,
                    expected_extra_yachts=ex, seconds=seconds)
