"""The every-seat stepper: every seat decides through the step (the PettingZoo AEC env); no opponents.

`EverySeatStepper` plays the action of the seat to move at each table, makes the next seat's first roll
where a turn ended, and pays every seat its reward (`seat_rewards`: its sheet's points, or under "win"
the outcome once the game is over).
"""
import numpy as np

from ..core.dice_source import stream_seeds
from ..core.lockstep import sheet_ranks
from .batch import EPISODE, STREAM
from .table_obs import SeatWriter
from .table_state import ALL, TableCore


class EverySeatStepper(TableCore, mode="every_seat"):
    """Every seat of every table decides (`TableCore` for the arguments, seat="all"). `step(actions,
    rows=None, fresh=False)`: the seat to move plays actions[j] at table rows[j] (default: every table);
    returns (rewards of the seats that moved, terminated, illegal) for those rows; `seat_rewards[i, seat]`
    is what the step paid every seat of table i."""

    REWARDS = ("points", "win")

    def __init__(self, rules, num_tables: int, num_players: int = 1, opponents=None, seat=ALL,
                 reward: str = "points", num_threads: int = 1, illegal_penalty: float = 1.0, autoreset: bool = False):
        super().__init__(rules, num_tables, num_players, seat, reward, num_threads, illegal_penalty)
        if opponents is not None:
            raise ValueError("a table without a learner's seat has no opponents")
        if autoreset:
            raise ValueError("autoreset inside the step is the one-seat kernel's (BatchedVectorEnv does it otherwise)")
        self.seat_rewards = np.zeros((self.num_tables, num_players), np.float32)
        self._writer = SeatWriter(self.state, self.threads)

    def _start(self, rows, fresh: bool) -> None:
        """The episode streams[rows] at tables `rows`, up to the first seat's first roll."""
        if fresh:
            self.mask = self.mask.copy()
        st = self.state
        st.reset(stream_seeds(self.streams[rows, STREAM], self.streams[rows, EPISODE].astype(np.int64)), rows=rows)
        st.roll(rows)
        self.shown[rows] = st.dice[rows]
        self._masks(rows)

    def step(self, actions, rows=None, fresh: bool = False):
        """Play actions[j] (int64) by the seat to move at table rows[j]; an illegal action pays
        -illegal_penalty and changes nothing. fresh: `mask` goes into a new array first."""
        if fresh:
            self.mask = self.mask.copy()
        rows = self.rows if rows is None else np.asarray(rows, np.int64)
        actions = np.ascontiguousarray(actions, np.int64)
        st = self.state
        before = st.totals[rows].copy()
        seats = st.seat_to_move(rows)
        gains = st.play(rows, actions)
        illegal = gains < 0
        turned = rows[~illegal & (actions >= self.board.T.dice.n_holds - 1)]
        turned = turned[~st.over(turned)]
        if len(turned):
            st.roll(turned)                   # the next seat's first roll
        waiting = rows[~st.over(rows)]
        self.shown[waiting] = st.dice[waiting]
        over = st.over(rows)
        self._seat_rewards(rows, before, over)
        rewards = self.seat_rewards[rows, seats]
        rewards[illegal] = -self.illegal_penalty
        self.final_total[rows[over]] = self.learner_totals(rows[over])
        self._masks(rows)
        return rewards, over, illegal

    def _seat_rewards(self, rows, before, over) -> None:
        """seat_rewards[rows]: what the step paid every seat: its sheet's points, or under "win" the outcome
        of an ended game."""
        sheets = np.arange(self.num_players) % self.num_sheets
        if self.reward_mode == "points":
            self.seat_rewards[rows] = (self.state.totals[rows] - before)[:, sheets]
        else:
            self.seat_rewards[rows] = 0.0
        if self.reward_mode != "win":
            return
        for j in np.flatnonzero(over):
            ranks = sheet_ranks(self.state, rows[j:j + 1])[0]
            first = (ranks == 1).sum() == 1
            self.seat_rewards[rows[j]] = np.where(ranks[sheets] != 1, -1.0, 1.0 if first else 0.0)

    def observations(self, rows=None, seats=None) -> np.ndarray:
        """Flat observations of seats[j] (default: seat 0) at table rows[j] (default: every table)."""
        rows = self.rows if rows is None else np.asarray(rows, np.int64)
        seats = self.seat[rows] if seats is None else seats
        return self._writer(rows, seats, self.shown[rows])

    def _shown_totals(self, rows=None) -> np.ndarray:
        # no learner: sheet 0's total
        return self.learner_totals(rows if rows is None else np.asarray(rows, np.int64))
