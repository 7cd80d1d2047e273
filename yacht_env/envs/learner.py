"""The learner-seat stepper: one learner per table, the opponents playing the other seats inside its step.

`LearnerStepper` (2-8 seats, `seat` an int or "rotate": the learner at seat[i]) plays the learner's
action, then the opponents' moves up to its next decision, its reward, mask and observation. One
opponent that plays from kept plans at every other seat, as `strong` does
(`yacht_env.core.plan_source`), plays in compiled code: `step_planned` makes the learner's move, the
opponents' moves, the learner's reward, mask and observation in one pass per table (the stepper keeps
those observations, `obs`); only the tables that reach a state without a kept plan come back to Python
for it. Any other opponents play through the lockstep runner (`yacht_env.core.lockstep.play`).

The compiled kernels take the tables as a `yacht_env.envs.board.Board` (B), what the learner sees as a
`Seen`, the step's rows as `StepRows` and the planned opponents as `Opponents`; each runs as one slice
of `step_threads.SliceThreads` (ctrl) and touches only its own tables' rows.
"""
from typing import NamedTuple

import numba as nb
import numpy as np

from ..core.dice_source import stream_seeds
from ..core.engine import FIRST, ROLLS_USED, TURN, play_action, roll_seeded, write_mask
from ..core.lockstep import play, seating_around
from ..core.plan_source import PlanTables, planned
from ..core.players import Forfeiting, PerGame, Uniform, batched_player, guarded, opponent_label
from ..solver.play import AHEAD, advance_table, prefetch_plan
from .batch import EPISODE, STREAM
from .obs import obs_args
from .step_threads import post
from .table_obs import SeatWriter, write_seat_obs
from .table_state import TableCore, int64_rows


class Seen(NamedTuple):
    """What the learner sees at every table i (kept by the stepper).

    seat[i]          int64    the learner's seat
    sheet[i]         int64    its sheet
    banked[i]        int64    its total when it last decided (its reward is what came since)
    final_total[i]   int64    its score of the game that last ended
    shown[i]         int8     the dice it last saw
    mask[i]          int8     its legal actions now (all 1 once the game is over)
    obs[i]           float32  its flat observation now (`yacht_env.envs.table_obs`)
    """
    seat: np.ndarray
    sheet: np.ndarray
    banked: np.ndarray
    final_total: np.ndarray
    shown: np.ndarray
    mask: np.ndarray
    obs: np.ndarray


class StepRows(NamedTuple):
    """The rows one compiled pass works on: j-th is table rows[j].

    rows[j]      int64    the table
    actions[j]   int64    the learner's action there (`step_planned`)
    gains[j]     int64    the learner's points (-1: illegal, nothing played)
    stuck[j]     bool     an opponent reached a state without a kept plan (nothing settled)
    rewards[j]   float32  the learner's reward (its points since it last decided)
    over[j]      bool     the game is over
    """
    rows: np.ndarray
    actions: np.ndarray
    gains: np.ndarray
    stuck: np.ndarray
    rewards: np.ndarray
    over: np.ndarray


class Opponents(NamedTuple):
    """The opponents compiled code plays: side[i, seat] = 1 at an opponent's seat of table i; P: their kept
    plans (`yacht_env.core.plan_source.PlanTables`)."""
    side: np.ndarray
    P: PlanTables


@nb.njit(cache=True, _nrt=False, nogil=True, inline="always")
def _opponents_then_roll(B, opp, i):
    """The opponents' moves at table i from their kept plans (`advance_table`), then the learner's first
    roll of its turn. False: an opponent reached a state without a kept plan (its dice are rolled;
    nothing else is played)."""
    T, E = B.T, B.E
    if not advance_table(T, E, opp.P, i, 1, opp.side, B.ypts, B.num_players, B.num_sheets, B.turns):
        return False
    ints = E.ints
    if ints[i, TURN] < B.turns and ints[i, ROLLS_USED] == 0:
        seat = (ints[i, FIRST] + ints[i, TURN]) % B.num_players
        roll_seeded(T, E, i, seat % B.num_sheets, B.num_sheets, 0)
    return True


@nb.njit(cache=True, _nrt=False, nogil=True, inline="always")
def _settle(B, look, seen, step, i, j, reward):
    """Table i (row j of `step`) once the learner is to move again (or its game is over), as the learner
    sees it: step.over[j], its points since it last decided (step.rewards[j], when `reward`;
    seen.banked[i] is its total then), seen.final_total[i] at a game's end, the dice shown, the mask (all
    1 once over) and the observation (look: `obs.ObsArgs`)."""
    E = B.E
    ints, totals = E.ints, E.totals
    ended = ints[i, TURN] >= B.turns
    total = totals[i, seen.sheet[i]]
    if reward:
        step.rewards[j] = total - seen.banked[i]
        step.over[j] = ended
        if ended:
            seen.final_total[i] = total
    seen.banked[i] = total
    if ended:
        seen.mask[i, :] = 1
    else:
        for k in range(B.T.dice.n):
            seen.shown[i, k] = E.dice[i, k]
        write_mask(i, B.turns, ints, E.preview, seen.mask[i])
    write_seat_obs(B, look, i, seen.seat[i], seen.shown[i], seen.obs[i])


@nb.njit(cache=True, _nrt=False, nogil=True)
def step_planned(lo, hi, ctrl, B, look, opp, seen, step):
    """The learner's action at tables step.rows[lo:hi], then, where its turn ended, the opponents' moves
    and the learner's next first roll (`_opponents_then_roll`), then what the learner sees (`_settle`).
    step.stuck[j]: nothing settled (the caller plays on and calls `settle_seats`)."""
    post(ctrl)
    E = B.E
    rows, actions, gains, stuck = step.rows, step.actions, step.gains, step.stuck
    holds = B.T.dice.n_holds - 1          # actions below: hold patterns; from it on: scoring (the turn ends)
    for j in range(lo, hi):
        for ahead in (2 * AHEAD, AHEAD):     # the next seat's plan where the learner's action ends its turn
            if j + ahead < hi and actions[j + ahead] >= holds:
                i = rows[j + ahead]
                prefetch_plan(E, opp.P, i, (E.ints[i, FIRST] + E.ints[i, TURN] + 1) % B.num_players, 1, opp.side,
                              B.num_sheets, ahead == AHEAD)
        i = rows[j]
        a = actions[j]
        gains[j] = play_action(B.T, E, B.ypts, B.num_players, B.num_sheets, i, a)
        stuck[j] = False
        if gains[j] >= 0 and a >= holds:
            stuck[j] = not _opponents_then_roll(B, opp, i)
        if not stuck[j]:
            _settle(B, look, seen, step, i, j, True)


@nb.njit(cache=True, _nrt=False, nogil=True)
def settle_seats(lo, hi, ctrl, B, look, seen, step, reward):
    """`_settle` at tables step.rows[lo:hi] (step.rewards[j], step.over[j] when `reward`)."""
    post(ctrl)
    for j in range(lo, hi):
        _settle(B, look, seen, step, step.rows[j], j, reward)


@nb.njit(cache=True, _nrt=False, nogil=True)
def advance_planned_seats(lo, hi, ctrl, B, opp, step):
    """`_opponents_then_roll` at tables step.rows[lo:hi] (step.stuck[j] as in `step_planned`)."""
    post(ctrl)
    for j in range(lo, hi):
        step.stuck[j] = not _opponents_then_roll(B, opp, step.rows[j])


def check_rules(player, opponent, rules, num_players: int) -> None:
    """The player's (made for `opponent`) own check that it can play `rules` at a table of `num_players` (an
    agent's `check_rules`: a solver-backed one refuses rules the solver cannot solve): ValueError naming the
    opponent and why."""
    check = getattr(player, "check_rules", None)
    if check is None:
        return
    try:
        check(rules, num_players)
    except ValueError as e:
        raise ValueError(f"{opponent_label(opponent)} cannot play rules {rules.name!r}: {e}") from None


class LearnerStepper(TableCore, mode="learner"):
    """A learner's seat at every table, opponents at the others (`TableCore` for the arguments; the
    module docstring). `step(actions, rows=None, fresh=False)`: the learner's actions[j] at table rows[j]
    (default: every table); returns (rewards, terminated, illegal) for those rows, arrays the next step
    rewrites; fresh puts `mask` into a new array first."""

    REWARDS = ("points", "win")

    def __init__(self, rules, num_tables: int, num_players: int = 1, opponents=None, seat=0, reward: str = "points",
                 num_threads: int = 1, illegal_penalty: float = 1.0, autoreset: bool = False):
        super().__init__(rules, num_tables, num_players, seat, reward, num_threads, illegal_penalty)
        if autoreset:
            raise ValueError("autoreset inside the step is the one-seat kernel's (BatchedVectorEnv does it otherwise)")
        n = self.num_tables
        self.look = obs_args(rules)
        self._writer = SeatWriter(self.state, self.threads)
        self._gains = np.zeros(n, np.int64)
        self._stuck = np.zeros(n, np.bool_)
        self.seating = np.zeros((n, num_players), np.int64)
        self.side = np.zeros((n, num_players), np.int64)     # 1 at the opponents' seats
        self.banked = np.zeros(n, np.int64)
        self._init_opponents(opponents)
        if self.planned is not None:
            self._init_planned()

    def _init_opponents(self, opponents) -> None:
        n, others = self.num_tables, self.num_players - 1
        if opponents is None:
            opponents = [Uniform()] * others
        elif not isinstance(opponents, (list, tuple)):
            opponents = [opponents] * others      # one opponent for every other seat
        elif len(opponents) != others:
            raise ValueError(f"opponents must be one opponent (for every other seat) or a list of {others}, one per "
                             f"other seat in seat order, got a list of {len(opponents)}")
        # players[0] stands for the learner (never asked); players[1 + k]: the k-th other seat's opponent
        built = {}     # spec -> its batched agent: one object for every seat given the same spec
        for k, o in enumerate(opponents):
            player = built.get(o) if isinstance(o, str) else None
            if player is None:
                try:
                    made = batched_player(o, n, k)
                    check_rules(made, o, self.rules, self.num_players)
                except ValueError as e:
                    raise ValueError(f"opponent {k + 1}: {e}") from None
                player = guarded(made, o, n)
                if isinstance(o, str) and not isinstance(made, PerGame):
                    built[o] = player
            self.players.append(player)
        self.guards = list({id(p): p for p in self.players[1:] if isinstance(p, Forfeiting)}.values())
        # one opponent playing from kept plans at every other seat: its moves are played in compiled code
        # inside the learner's step (`step_planned`)
        one = len({id(p) for p in self.players[1:]}) == 1
        self.planned = planned(self.players[1], self.rules) if one else None
        for g in self.guards:
            g.seating, g.index = self.seating, self.players.index(g)

    def _init_planned(self) -> None:
        """The planned opponent's path keeps the learner's observations (`obs`, written by the step's own
        kernel); `observations()` hands `obs` itself out, so a later write into it copies it first."""
        n = self.num_tables
        self.obs = self._writer(self.rows, self.seat, self.shown)      # not begun
        self._obs_out = False        # obs was handed out: copy before writing into it
        self._rewards = np.zeros(n, np.float32)
        self._over = np.zeros(n, np.bool_)

    def _seen(self) -> Seen:
        return Seen(self.seat, self.sheet, self.banked, self.final_total, self.shown, self.mask, self.obs)

    def _opponents(self) -> Opponents:
        """The planned opponent's plans as they are now (`plans` is replaced when it grows)."""
        return Opponents(self.side, self.planned.plan_tables(self.rules))

    # ---- episodes --------------------------------------------------------------------------------
    def _start(self, rows, fresh: bool) -> None:
        """The episode streams[rows] at tables `rows`: the learner's seat, the opponents' moves before its
        first decision, what it sees."""
        if fresh:
            self.mask = self.mask.copy()
        st, P = self.state, self.num_players
        st.reset(stream_seeds(self.streams[rows, STREAM], self.streams[rows, EPISODE].astype(np.int64)), rows=rows)
        episodes = self.streams[rows, EPISODE]
        seat = (episodes % np.uint64(P)).astype(np.int64) if self.seat_rule == "rotate" \
            else np.full(len(rows), self.seat_rule)
        self.seat[rows] = seat
        self.sheet[rows] = seat % self.num_sheets
        self.seating[rows] = seating_around(seat, P)     # the learner is player 0, the opponents 1..P-1
        self.side[rows] = self.seating[rows] > 0
        for p in self.players[1:]:
            if hasattr(p, "start"):
                p.start(st, rows)
        self._advance(rows)
        if self.planned is not None:
            self._settle_rows(rows)
            return
        self.banked[rows] = self.learner_totals(rows)
        self._masks(rows)

    def _advance(self, rows) -> None:
        """Play the opponents at tables `rows` up to the learner's next decision (or the end)."""
        if self.planned is not None:
            self._advance_planned(rows)
            return
        play(self.state, self.players, self.seating, rows=rows, until=self.seat)
        waiting = ~self.state.over(rows)
        self.shown[rows[waiting]] = self.state.dice[rows[waiting]]

    def _advance_planned(self, rows) -> None:
        """`_advance` for one planned opponent: its moves in compiled code; the plans it lacks are computed
        in one batch per round (each round plays every stuck table at least one decision further), the
        same moves as the lockstep runner plays."""
        todo = int64_rows(rows, "rows")
        while len(todo):
            stuck = self._stuck[:len(todo)]
            step = StepRows(todo, todo, self._gains[:0], stuck, self._rewards[:0], self._over[:0])
            self._run(advance_planned_seats, len(todo), (self.board, self._opponents(), step))
            todo = todo[stuck]
            if len(todo):
                self.planned.plan_seats(self.state, todo)

    def _own_obs(self) -> None:
        """Copy `obs` before writing into it if it was handed out."""
        if self._obs_out:
            self.obs, self._obs_out = self.obs.copy(), False

    def _settle_rows(self, rows, rewards=None, over=None) -> None:
        """`settle_seats` at tables `rows` (the learner to move or its game over): the dice shown, masks,
        observations, banked totals; with `rewards` (and `over`, arrays of len(rows)) the rewards too."""
        self._own_obs()
        reward = rewards is not None
        if not reward:
            rewards, over = self._rewards[:0], self._over[:0]
        rows = int64_rows(rows, "rows")
        step = StepRows(rows, rows, self._gains[:0], self._stuck[:0], rewards, over)
        self._run(settle_seats, len(rows), (self.board, self.look, self._seen(), step, reward))

    # ---- stepping --------------------------------------------------------------------------------
    def step(self, actions, rows=None, fresh: bool = False):
        """The learner's actions[j] (int64) at table rows[j] (default: every table), the opponents' moves up
        to its next decision; returns (rewards, terminated, illegal) for those rows. An illegal action pays
        -illegal_penalty and changes nothing. fresh: `mask` goes into a new array first."""
        if fresh:
            self.mask = self.mask.copy()
        if self.planned is not None:
            return self._step_planned(actions, rows)
        rows = self.rows if rows is None else np.asarray(rows, np.int64)
        actions = np.ascontiguousarray(actions, np.int64)
        st = self.state
        # `shown` is what the learner sees when it is not to move: the dice it scores (so a game's final
        # observation shows them, as the planned path's does), then the opponents' (`_advance`)
        scoring = actions >= self.board.T.dice.n_holds - 1
        scored_dice = st.dice[rows[scoring]]
        gains = st.play(rows, actions)
        illegal = gains < 0
        scored = scoring & ~illegal
        self.shown[rows[scored]] = scored_dice[~illegal[scoring]]
        ended = rows[scored]
        ended = ended[~st.over(ended)]
        if len(ended):
            self._advance(ended)
        over = st.over(rows)
        total = self.learner_totals(rows)
        if self.reward_mode == "points":
            rewards = (total - self.banked[rows]).astype(np.float32)
        else:
            rewards = np.zeros(len(rows), np.float32)
            if over.any():
                rewards[over] = self.outcomes(rows[over])
        self.banked[rows] = total
        rewards[illegal] = -self.illegal_penalty
        self.final_total[rows[over]] = self.learner_totals(rows[over])
        self._masks(rows)
        return rewards, over, illegal

    def _step_planned(self, actions, rows):
        """`step` with one planned opponent: the learner's move, the opponents' and what the learner sees
        next in one compiled pass (`step_planned`); the tables stuck at a state without a kept plan play on
        here (`_advance`) and are settled after. rewards and over are arrays the next step rewrites."""
        if rows is None:
            rows = self.rows
            self.obs, self._obs_out = np.empty_like(self.obs), False     # every row is written
        else:
            rows = int64_rows(rows, "rows")
            self._own_obs()
        m = len(rows)
        step = StepRows(rows, int64_rows(actions, "actions"), self._gains[:m], self._stuck[:m], self._rewards[:m],
                        self._over[:m])
        self._run(step_planned, m, (self.board, self.look, self._opponents(), self._seen(), step))
        gains, stuck, rewards, over = step.gains, step.stuck, step.rewards, step.over
        if stuck.any():
            at = np.flatnonzero(stuck)            # `_advance` reuses the stuck buffer
            late = rows[at]
            self._advance(late)
            r, o = np.zeros(len(late), np.float32), np.zeros(len(late), np.bool_)
            self._settle_rows(late, r, o)
            rewards[at], over[at] = r, o
        illegal = gains < 0
        if self.reward_mode == "win":
            rewards[:] = 0.0
            if over.any():
                rewards[over] = self.outcomes(rows[over])
        rewards[illegal] = -self.illegal_penalty
        return rewards, over, illegal

    # ---- reading ---------------------------------------------------------------------------------
    def observations(self, rows=None, seats=None) -> np.ndarray:
        """Flat observations of the learner at tables `rows` (default: all; with a planned opponent the
        step's own `obs`), or of seats[j] at table rows[j]."""
        if self.planned is not None and seats is None:     # the step's own
            if rows is None:
                self._obs_out = True
                return self.obs
            return self.obs[np.asarray(rows, np.int64)]
        rows = self.rows if rows is None else np.asarray(rows, np.int64)
        seats = self.seat[rows] if seats is None else seats
        return self._writer(rows, seats, self.shown[rows])

    def _shown_totals(self, rows=None) -> np.ndarray:
        # `banked`, which every step and start sets to the learner's total (it is to move or its game is over)
        return self.banked.copy() if rows is None else self.banked[np.asarray(rows, np.int64)]
