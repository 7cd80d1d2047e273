"""The planned-player fast path, typed once: a player that plays from kept turn plans (`strong`).

A `PlanSource` is a batched player whose moves compiled code can play without asking it: it keeps, for
every sheet state it has planned, the action for each roll and re-rolls left. Two users, one protocol:

* the lockstep runner (`yacht_env.core.lockstep.play`) calls `advance(state, rows, seating, me)`, which
  plays ahead every move of player `me` at tables `rows` that has a kept plan;
* the table core (`yacht_env.envs.table_core.TableCore`) plays the opponents' moves inside the learner's
  compiled step from `plan_tables(rules)` (where the plans are) and asks `plan_seats(state, rows)` for
  the plans it lacks.

Any other player goes through `act_batch`; the moves are the same either way.
"""
from typing import NamedTuple, Protocol, runtime_checkable

import numpy as np


class PlanTables(NamedTuple):
    """Where the kept plans are, as compiled code reads them (`yacht_env.solver.play.advance_table`):
    plans[slot[state], rolls left, roll] is the action, slot[state] < 0 where no plan is kept yet; the
    state index is (filled * n_upper + min(upper, threshold)) * n_flag + yacht50. `plans` may be replaced
    when it grows: ask again after plans are computed."""
    slot: np.ndarray
    plans: np.ndarray
    n_upper: int
    n_flag: int
    threshold: int


@runtime_checkable
class PlanSource(Protocol):
    def plan_tables(self, rules) -> PlanTables | None:
        """The kept plans of `rules`, or None when compiled code cannot read them (several columns)."""

    def plan_seats(self, state, rows) -> None:
        """Compute and keep the plans of the seats to move at tables `rows` of an engine state."""

    def advance(self, state, rows, seating, me: int) -> None:
        """Play ahead, in compiled code, every move of player `me` at tables `rows` that has a kept plan."""


def planned(player, rules) -> PlanSource | None:
    """`player` when it is a `PlanSource` whose plans of `rules` compiled code can read, else None."""
    if isinstance(player, PlanSource) and player.plan_tables(rules) is not None:
        return player
    return None
