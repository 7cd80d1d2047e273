"""Play many tables at once: each pass, every live table makes one move, and every player decides for
all the tables where it is to move in one call.

    play(state, players, seating)       # state: a reset `yacht_env.core.engine.State`

`players` are batched players (anything with `act_batch(BatchView) -> actions`); `seating[i, s]` is
the index in `players` of the one at seat s of table i. A pass makes the first roll of the turn where
one is due, then asks each player for the decisions of its tables and plays them (`State.play`).
Tables are independent: within a table the moves come in exactly its turn order, so a player that
looks at the other sheets sees them as they stand at that moment, and a table's game is the same
whatever else is in the batch. `until` stops tables at a seat's decision instead (an environment's
learner); `record` keeps every table's move log in the form of `Game.log`. A player with an
`advance(state, rows, seating, index)` method may play its own moves ahead in compiled code (the
strong agent's kept plans): the same moves through the same transition, only without a pass each.
"""
import numpy as np

from .actions import box_of_action, num_holds
from .dice_source import SeededDice
from .engine import ROLLS_USED, State
from .game import ranks, tiebreak_rolls
from .plan_source import PlanSource
from ..gc_pause import gc_paused
from .view import BatchView


class PlayerError(Exception):
    """A player raised or answered with something other than legal actions; nothing was played."""

    def __init__(self, player: int, rows: np.ndarray, message: str, action: int | None = None):
        super().__init__(message)
        self.player, self.rows, self.action = player, rows, action


class Record:
    """Every table's move log while it is played (see `logs`)."""

    def __init__(self, num_tables: int):
        self.events = []          # in time order: (rows, seats, kind, a, b, c, d)
        self.num_tables = num_tables

    def rolled(self, state: State, rows, seats, holds) -> None:
        self.events.append((rows, seats, "roll", holds, state.dice[rows].copy(), None, None))

    def scored(self, rows, seats, columns, boxes, points, gains) -> None:
        self.events.append((rows, seats, "score", columns, boxes, points, gains))

    def logs(self, rules) -> list[list[dict]]:
        """logs[i]: table i's moves as `Game.log` has them ({"seat", "hold", "dice"} per roll,
        {"seat", "box", "column", "points", "bonus"} per scoring)."""
        with gc_paused():
            return self._logs(rules.boxes)

    def _logs(self, names) -> list[list[dict]]:
        out = [[] for _ in range(self.num_tables)]
        for rows, seats, kind, a, b, c, d in self.events:
            if kind == "roll":
                for i, seat, hold, dice in zip(rows.tolist(), seats.tolist(), a.tolist(), b.tolist()):
                    out[i].append({"seat": seat, "hold": hold, "dice": dice})
            else:
                for i, seat, col, box, pts, gain in zip(rows.tolist(), seats.tolist(), a.tolist(), b.tolist(),
                                                         c.tolist(), d.tolist()):
                    out[i].append({"seat": seat, "box": names[box], "column": col, "points": pts,
                                   "bonus": gain - pts})
        return out


def decide(state: State, players, seating, rows) -> np.ndarray:
    """The actions of the seats to move at tables `rows`, each player asked once for all its tables.
    Raises PlayerError when a player fails or answers with an illegal action."""
    seats = state.seat_to_move(rows)
    who = seating[rows, seats]
    actions = np.empty(len(rows), np.int64)
    for p in (who[:1] if (who == who[0]).all() else np.unique(who)):
        at = np.flatnonzero(who == p)
        view = BatchView(state, rows[at])
        try:
            got = players[p].act_batch(view)
        except Exception as e:  # the caller decides what a failing player costs
            raise PlayerError(int(p), rows[at], f"{type(e).__name__}: {e}") from e
        got = np.asarray(got)
        if got.shape != (len(at),) or not np.issubdtype(got.dtype, np.integer) or got.dtype == np.bool_:
            raise PlayerError(int(p), rows[at], f"act_batch must return {len(at)} integer actions, "
                                                f"got {got.dtype} of shape {got.shape}")
        mask = view.mask
        ok = (got >= 0) & (got < mask.shape[1])
        ok[ok] = mask[np.flatnonzero(ok), got[ok]] == 1
        if not ok.all():
            j = int(np.flatnonzero(~ok)[0])
            raise PlayerError(int(p), rows[at[~ok]], f"illegal action {int(got[j])} at table {int(rows[at[j]])}",
                              int(got[j]))
        actions[at] = got
    return actions


def play(state: State, players, seating=None, rows=None, until=None, record: Record | None = None) -> np.ndarray:
    """Play tables `rows` (default: all) of a reset state until each is over, or, with `until`, until
    seat until[i] of table i has dice to decide on. Returns the tables that stopped at `until`.

    seating: (tables, seats) player indices (default: players[0] at every seat).
    """
    if seating is None:
        seating = np.zeros((state.num_tables, state.num_players), np.int64)
    live = np.arange(state.num_tables) if rows is None else np.asarray(rows, np.int64)
    stopped = []
    fast = [(p, player) for p, player in enumerate(players) if isinstance(player, PlanSource)] if record is None else []
    while True:
        live = live[~state.over(live)]
        if fast and len(live):
            for p, player in fast:
                player.advance(state, live, seating, p)
            live = live[~state.over(live)]
        if not len(live):
            break
        fresh = live[state.ints[live, ROLLS_USED] == 0]
        if len(fresh):
            state.roll(fresh)
            if record is not None:
                record.rolled(state, fresh, state.seat_to_move(fresh), np.zeros(len(fresh), np.int64))
        if until is not None:
            waiting = state.seat_to_move(live) == until[live]
            if waiting.any():
                stopped.append(live[waiting])
                live = live[~waiting]
                if not len(live):
                    break
        actions = decide(state, players, seating, live)
        if record is None:
            state.play(live, actions)
            continue
        seats = state.seat_to_move(live)
        holds = num_holds(state.rules)
        hold = actions < holds
        c, b = box_of_action(len(state.rules.boxes), actions[~hold], holds)
        points = state.preview[live[~hold], c, b].astype(np.int64)
        gains = state.play(live, actions)
        if hold.any():
            record.rolled(state, live[hold], seats[hold], actions[hold])
        if (~hold).any():
            record.scored(live[~hold], seats[~hold], c, b, points, gains[~hold])
    return np.concatenate(stopped) if stopped else np.zeros(0, np.int64)


def sheet_ranks(state: State, rows=None) -> np.ndarray:
    """(tables, sheets) place of every sheet of finished tables (1 = best; equal totals share a place,
    the top tie broken by the rules' tiebreak, as `Game.sheet_ranks`)."""
    rows = np.arange(state.num_tables) if rows is None else np.asarray(rows, np.int64)
    totals = state.totals[rows]
    out = 1 + (totals[:, None, :] > totals[:, :, None]).sum(axis=2)
    if state.rules.tiebreak == "sudden_death" and state.num_sheets > 1:
        top = totals.max(axis=1, keepdims=True)
        for j in np.flatnonzero((totals == top).sum(axis=1) > 1):
            t = totals[j].tolist()
            out[j] = ranks(t, tiebreak_rolls(state.rules, t, SeededDice(int(state.seeds[rows[j]]))))
    return out


def win_shares(state: State, rows, sheets) -> np.ndarray:
    """For finished tables rows[j]: 1/k where sheet sheets[j] is one of the k sheets in first place
    (`sheet_ranks`), else 0."""
    rows = np.asarray(rows, np.int64)
    ranks = sheet_ranks(state, rows)
    firsts = (ranks == 1).sum(axis=1)
    return np.where(ranks[np.arange(len(rows)), sheets] == 1, 1.0 / firsts, 0.0)


def seating_around(seats, num_players: int) -> np.ndarray:
    """(n, num_players) seating with player 0 at seat seats[j] and players 1..num_players-1 at the other
    seats in seat order (a learner and its opponents)."""
    seats = np.asarray(seats, np.int64)[:, None]
    order = np.arange(num_players)[None, :]
    return np.where(order == seats, 0, order + (order < seats))
