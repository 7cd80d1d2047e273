"""Playing kept plans in compiled code: the moves of one player at many tables (`advance_planned`, the
lockstep runner's fast path) and at one table inside a compiled env step (`advance_table`); the plans come
from a `yacht_env.core.plan_source.PlanSource` (`PlanTables`).
"""

import numba as nb

from ..core.engine import FILLED, FIRST, ROLL, ROLLS_USED, TURN, UPPER, YACHT50, Arrays, play_action, roll_seeded
from ..core.plan_source import PlanTables
from ..rules.tables import Tables


@nb.njit(cache=True, inline="always")
def advance_table(T, E, P, i, me, seating, ypts, num_players, num_sheets, turns):
    """Play every move of table i while the seat to move is player `me`'s (seating[i, seat] == me) and its
    plan is kept (P: the `PlanTables`, P.slot[state] >= 0; one column): first rolls and decisions, through
    the engine's transition (E: its `Arrays`), as `lockstep.play` would play them one pass at a time.
    Returns False when it stopped at a state without a kept plan."""
    ints, cols = E.ints, E.cols
    n_upper, n_flag, threshold, slot, plans = P.n_upper, P.n_flag, P.threshold, P.slot, P.plans
    while ints[i, TURN] < turns:
        seat = (ints[i, FIRST] + ints[i, TURN]) % num_players
        if seating[i, seat] != me:
            return True
        s = seat % num_sheets
        if ints[i, ROLLS_USED] == 0:
            roll_seeded(T, E, i, s, num_sheets, 0)
        u = min(cols[i, s, 0, UPPER], threshold) if n_upper > 1 else 0
        f = cols[i, s, 0, YACHT50] if n_flag > 1 else 0
        p = slot[(cols[i, s, 0, FILLED] * n_upper + u) * n_flag + f]
        if p < 0:
            return False
        a = plans[p, T.rolls_per_turn - ints[i, ROLLS_USED], ints[i, ROLL]]
        play_action(T, E, ypts, num_players, num_sheets, i, a)
    return True


@nb.njit(cache=True, _nrt=False)
def advance_planned(rows, me, seating, plan, ypts, num_players, num_sheets, turns, arrays, tables):
    """`advance_table` at every table of `rows` (a state without a kept plan is left to the caller's next pass);
    plan, arrays, tables: the plain tuples of a `PlanTables`, `State.arrays`, `State.table_fields`."""
    T, E, P = Tables(*tables), Arrays(*arrays), PlanTables(*plan)
    for j in range(rows.shape[0]):
        advance_table(T, E, P, rows[j], me, seating, ypts, num_players, num_sheets, turns)
