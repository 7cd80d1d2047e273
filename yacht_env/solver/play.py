"""Playing kept plans in compiled code: the moves of one player at many tables (`advance_planned`, the
lockstep runner's fast path) and at one table inside a compiled env step (`advance_table`); the plans come
from a `yacht_env.core.plan_source.PlanSource` (`PlanTables`).
"""

import numba as nb

from ..core.engine import (ALLOWED, FILLED, FIRST, ROLL, ROLLS_USED, TURN, UPPER, YACHT50, Arrays, play_on, refresh,
                           roll_seeded)
from ..core.kernels import prefetch
from ..core.plan_source import PlanTables
from ..rules.tables import tables_of

AHEAD = 4    # tables between asking for a plan's rows and playing them (`prefetch_plan`)


@nb.njit(cache=True, inline="always")
def sheet_state(E, P, i, s):
    """The solver-state index of sheet s at table i (`PlanTables`: slot[state] is its plan's row)."""
    cols = E.cols
    u = min(cols[i, s, 0, UPPER], P.threshold) if P.n_upper > 1 else 0
    f = cols[i, s, 0, YACHT50] if P.n_flag > 1 else 0
    return (cols[i, s, 0, FILLED] * P.n_upper + u) * P.n_flag + f


@nb.njit(cache=True, inline="always")
def prefetch_plan(E, P, i, seat, me, seating, num_sheets, rows):
    """Ask the CPU for what a turn of seat `seat` at table i will read, if that seat is player me's: the
    slot entry of its sheet's state, or (rows=True, that entry having been asked for a little earlier) its
    plan's rows. A hint for the caches only: nothing read or played depends on it. Callers ask for the
    tables AHEAD and 2 * AHEAD places further on in their loop (`advance_planned`), so that the memory
    reads of those (random rows of large arrays) overlap the work on the tables between."""
    if seating[i, seat] != me:
        return
    state = sheet_state(E, P, i, seat % num_sheets)
    if not rows:
        prefetch(P.slot, state)
        return
    p = P.slot[state]
    if p < 0:
        return
    plans = P.plans
    for stage in range(plans.shape[1]):
        for k in range(0, plans.shape[2], 64):
            prefetch(plans, (p, stage, k))
        prefetch(plans, (p, stage, plans.shape[2] - 1))


@nb.njit(cache=True, inline="always")
def advance_table(T, E, P, i, me, seating, ypts, num_players, num_sheets, turns):
    """Play every move of table i while the seat to move is player `me`'s (seating[i, seat] == me) and its
    plan is kept (P: the `PlanTables`, P.slot[state] >= 0; one column): first rolls and decisions, through
    the engine's transition (E: its `Arrays`), as `lockstep.play` would play them one pass at a time.
    Returns False when it stopped at a state without a kept plan. Rolls no one else sees leave the preview
    to the scoring move (`play_action` with seen=False); it is up to date whenever this returns."""
    ints = E.ints
    slot, plans = P.slot, P.plans
    while ints[i, TURN] < turns:
        seat = (ints[i, FIRST] + ints[i, TURN]) % num_players
        if seating[i, seat] != me:
            return True
        s = seat % num_sheets
        if ints[i, ROLLS_USED] == 0:
            roll_seeded(T, E, i, s, num_sheets, 0, False)
        p = slot[sheet_state(E, P, i, s)]
        if p < 0:
            refresh(T, E, i, s)
            return False
        while ints[i, ROLLS_USED] > 0:        # the turn's decisions, up to its scoring move
            play_on(T, E, ypts, s, num_sheets, i, plans[p, ints[i, ALLOWED] - ints[i, ROLLS_USED], ints[i, ROLL]],
                    False)
    return True


@nb.njit(cache=True, _nrt=False)
def advance_planned(rows, me, seating, plan, ypts, num_players, num_sheets, turns, arrays, tables):
    """`advance_table` at every table of `rows` (a state without a kept plan is left to the caller's next pass);
    plan, arrays, tables: the plain tuples of a `PlanTables`, `State.arrays`, `State.table_fields`."""
    T, E, P = tables_of(tables), Arrays(*arrays), PlanTables(*plan)
    ints, n = E.ints, rows.shape[0]
    for j in range(n):
        for ahead in (2 * AHEAD, AHEAD):
            if j + ahead < n:
                i = rows[j + ahead]
                prefetch_plan(E, P, i, (ints[i, FIRST] + ints[i, TURN]) % num_players, me, seating, num_sheets,
                              ahead == AHEAD)
        advance_table(T, E, P, rows[j], me, seating, ypts, num_players, num_sheets, turns)
