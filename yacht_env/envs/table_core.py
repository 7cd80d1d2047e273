"""The one table core: N tables of one rule set with 1-8 seats, the stepper under every environment.

    core = TableCore(rules, num_tables, num_players=1)                      # Yacht-v0 (one seat)
    core = TableCore(rules, n, num_players=3, opponents="strong", seat=0)  # YachtVs-v0 (a learner's seat)
    core = TableCore(rules, 1, num_players=4, seat="all")                  # the PettingZoo AEC env

`Yacht-v0`, its vector env, `YachtVs-v0`, its vector env, both SB3 adapters and the PettingZoo env are
facades over a `TableCore`: it owns the tables (`yacht_env.core.engine.State`), the streams of episodes
(seeding), stepping, the legal masks (computed once per step, `mask`), the opponents inside the step and
their planned fast path (`yacht_env.core.plan_source`), rewards, the final observation of an ended game,
and the info of every env (`info`, the same keys single and batched).

Who decides through `step`:
- one seat (`num_players=1`): the player. The one-seat case runs on its own compiled kernel
  (`yacht_env.envs.batch.step_games`: move, next roll, reward, observation, mask and, with `autoreset`,
  the next episode, in one pass per game, what makes the batched `Yacht-v0` fast), where the general
  seat step makes them in three compiled passes with numpy between; the state, streams, info and
  autoreset are the core's all the same.
- `seat` an int or "rotate" (2-8 seats): the learner at seat[i]; the opponents play the other seats
  inside the step. One opponent that plays from kept plans, as `strong` does, plays in compiled code:
  `step_planned` makes the learner's move, the opponents' moves, the learner's reward, mask and
  observation in one pass per table (the core keeps those observations, `obs`); only the tables that
  reach a state without a kept plan come back to Python for it.
- `seat="all"`: every seat decides through `step` (the seat to move); no opponents.

Seeding, once for every env: table i plays a *stream* of episodes (`streams[i, STREAM]`); episode k of
stream s deals the dice of `Game(rules, num_players, seed=yacht_env.core.dice_source.game_seed(s, k))`.
`begin(rows, streams)` starts episode 0 of the given streams, `follow(rows)` the next episode.
"""
import numba as nb
import numpy as np

from ..core.actions import NUM_HOLDS, num_actions
from ..core.dice_source import stream_seeds
from ..core.dispatch import direct
from ..core.engine import FIRST, ROLLS_USED, TURN, Arrays, State, play_action, roll_seeded, write_mask
from ..core.lockstep import play, seating_around, sheet_ranks
from ..core.plan_source import PlanTables, planned
from ..core.players import Forfeiting, PerGame, Uniform, batched_player, guarded
from ..rules.tables import tables_of
from ..solver.play import AHEAD, advance_table, prefetch_plan
from .batch import EPISODE, STREAM, reset_games, step_games
from .frames import Frames
from .obs import inv_box_scale, obs_size
from .step_threads import SliceThreads, post
from .table_obs import seat_obs_args, seat_observations, write_seat_obs

SOLO_REWARDS, TABLE_REWARDS = ("points", "terminal"), ("points", "win")
ALL = "all"


@nb.njit(cache=True, _nrt=False, nogil=True, inline="always")
def _opponents_then_roll(T, E, P, i, side, ypts, num_players, num_sheets, turns):
    """The opponents' moves at table i from their kept plans P (side[i, seat] = 1 at an opponent's seat:
    `advance_table`), then the learner's first roll of its turn. False: an opponent reached a state
    without a kept plan (its dice are rolled; nothing else is played)."""
    if not advance_table(T, E, P, i, 1, side, ypts, num_players, num_sheets, turns):
        return False
    ints = E.ints
    if ints[i, TURN] < turns and ints[i, ROLLS_USED] == 0:
        seat = (ints[i, FIRST] + ints[i, TURN]) % num_players
        roll_seeded(T, E, i, seat % num_sheets, num_sheets, 0)
    return True


@nb.njit(cache=True, _nrt=False, nogil=True, inline="always")
def _settle(T, E, i, j, reward, rewards, over, seats, sheets, banked, final_total, shown, mask, obs, inv_scale,
            rounds, scale, no_preview, num_players, num_sheets, turns):
    """Table i once the learner is to move again (or its game is over), as the learner sees it: over[j],
    the learner's points since it last decided (rewards[j], when `reward`; banked[i] is its total then),
    final_total[i] at a game's end, the dice shown, the mask (all 1 once over) and the observation."""
    ints, totals = E.ints, E.totals
    ended = ints[i, TURN] >= turns
    total = totals[i, sheets[i]]
    if reward:
        rewards[j] = total - banked[i]
        over[j] = ended
        if ended:
            final_total[i] = total
    banked[i] = total
    if ended:
        mask[i, :] = 1
    else:
        for k in range(5):
            shown[i, k] = E.dice[i, k]
        write_mask(i, T.rolls_per_turn, turns, ints, E.preview, mask[i])
    write_seat_obs(T, inv_scale, rounds, scale, turns, num_players, num_sheets, i, seats[i], shown[i], ints, E.scores,
                   E.preview, E.cols, totals, no_preview, obs[i])


@nb.njit(cache=True, _nrt=False, nogil=True)
def step_planned(lo, hi, ctrl, rows, actions, side, plan, ypts, num_players, num_sheets, turns, gains, stuck, rewards,
                 over, seats, sheets, banked, final_total, shown, mask, obs, inv_scale, rounds, scale, no_preview,
                 arrays, tables):
    """The learner's action at tables rows[lo:hi], then, where its turn ended, the opponents' moves and
    the learner's next first roll (`_opponents_then_roll`), then what the learner sees (`_settle`).
    gains[j]: the learner's points (-1: illegal, nothing played); stuck[j]: an opponent reached a state
    without a kept plan (nothing settled: the caller plays on and calls `settle_seats`). plan, arrays,
    tables: the plain tuples of a `PlanTables`, `State.arrays`, `State.table_fields`. Runs as one slice of
    `step_threads.SliceThreads` (ctrl); every table touches only its own rows."""
    post(ctrl)
    T, E, P = tables_of(tables), Arrays(*arrays), PlanTables(*plan)
    for j in range(lo, hi):
        for ahead in (2 * AHEAD, AHEAD):     # the next seat's plan where the learner's action ends its turn
            if j + ahead < hi and actions[j + ahead] >= NUM_HOLDS:
                i = rows[j + ahead]
                prefetch_plan(E, P, i, (E.ints[i, FIRST] + E.ints[i, TURN] + 1) % num_players, 1, side, num_sheets,
                              ahead == AHEAD)
        i = rows[j]
        a = actions[j]
        gains[j] = play_action(T, E, ypts, num_players, num_sheets, i, a)
        stuck[j] = False
        if gains[j] >= 0 and a >= NUM_HOLDS:
            stuck[j] = not _opponents_then_roll(T, E, P, i, side, ypts, num_players, num_sheets, turns)
        if not stuck[j]:
            _settle(T, E, i, j, True, rewards, over, seats, sheets, banked, final_total, shown, mask, obs, inv_scale,
                    rounds, scale, no_preview, num_players, num_sheets, turns)


@nb.njit(cache=True, _nrt=False, nogil=True)
def settle_seats(lo, hi, ctrl, rows, reward, rewards, over, seats, sheets, banked, final_total, shown, mask, obs,
                 inv_scale, rounds, scale, no_preview, num_players, num_sheets, turns, arrays, tables):
    """`_settle` at tables rows[lo:hi] (rewards[j], over[j] for rows[j] when `reward`); one slice of
    `step_threads.SliceThreads` (ctrl)."""
    post(ctrl)
    T, E = tables_of(tables), Arrays(*arrays)
    for j in range(lo, hi):
        _settle(T, E, rows[j], j, reward, rewards, over, seats, sheets, banked, final_total, shown, mask, obs,
                inv_scale, rounds, scale, no_preview, num_players, num_sheets, turns)


@nb.njit(cache=True, _nrt=False, nogil=True)
def advance_planned_seats(lo, hi, ctrl, rows, side, plan, ypts, num_players, num_sheets, turns, stuck, arrays, tables):
    """`_opponents_then_roll` at tables rows[lo:hi] (stuck[j] and the tuples as in `step_planned`); one
    slice of `step_threads.SliceThreads` (ctrl)."""
    post(ctrl)
    T, E, P = tables_of(tables), Arrays(*arrays), PlanTables(*plan)
    for j in range(lo, hi):
        stuck[j] = not _opponents_then_roll(T, E, P, rows[j], side, ypts, num_players, num_sheets, turns)


def check_seat_args(rules, num_players, seat) -> None:
    """ValueError naming the argument when num_players or seat does not fit the rules."""
    if num_players == 1 and seat != ALL:
        if rules.teams:
            raise ValueError(f"rules {rules.name!r} have teams={rules.teams}; a solitaire game has one sheet "
                             "(use YachtVs-v0 or yacht_env.integrations.pettingzoo for team games)")
        if rules.min_players > 1:
            raise ValueError(f"rules {rules.name!r} need at least {rules.min_players} players; "
                             "a solitaire game has one")
        if seat != 0:
            raise ValueError(f"a one-seat table has seat 0, got {seat!r}")
    rules.check_players(num_players)
    if seat == ALL or num_players == 1:
        return
    if not (seat == "rotate" or (isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < num_players)):
        raise ValueError(f"seat must be 0..{num_players - 1} or 'rotate', got {seat!r}")


class TableCore:
    """N tables of one rule set with `num_players` seats, stepped in compiled code (the module docstring).

    Arguments: `opponents` (2-8 seats with a learner: one opponent spec for every other seat, or a list
    of one per other seat in seat order; default uniform random), `seat` (the learner's seat: an int,
    "rotate" = seat k % num_players in episode k, or "all"), `reward` ("points" or "terminal" for one
    seat, else "points" or "win"), `illegal_penalty` (the reward of an illegal action, which changes
    nothing), `num_threads` (threads stepping slices of the tables: the same games for any count),
    `autoreset` (one seat only: an ended game starts the next episode inside the step, its last
    observation in `final_obs`).

    After every `begin`, `follow` and `step`: `mask[i]` is table i's legal actions now (int8; all 1 once
    its game is over), `shown[i]` the dice the deciding seat last saw. `step` returns (rewards,
    terminated, illegal) for the rows stepped. One seat: `own_actions` is the core's own actions array;
    `step(core.own_actions)` on one thread calls the compiled kernel without numba's type dispatch (the
    single env's step, about 1 us less).
    """

    def __init__(self, rules, num_tables: int, num_players: int = 1, opponents=None, seat=0, reward: str = "points",
                 num_threads: int = 1, illegal_penalty: float = 1.0, autoreset: bool = False):
        check_seat_args(rules, num_players, seat)
        n = int(num_tables)
        self.rules, self.num_tables, self.num_players = rules, n, num_players
        self.solo = num_players == 1 and seat != ALL
        self.all_seats = seat == ALL
        choices = SOLO_REWARDS if self.solo else TABLE_REWARDS
        if reward not in choices:
            raise ValueError(f"reward must be one of {', '.join(map(repr, choices))}, got {reward!r}")
        if (self.solo or self.all_seats) and opponents is not None:
            raise ValueError("a table without a learner's seat has no opponents")
        if autoreset and not self.solo:
            raise ValueError("autoreset inside the step is the one-seat kernel's (BatchedVectorEnv does it otherwise)")
        self.seat_rule, self.reward_mode, self.illegal_penalty = seat, reward, float(illegal_penalty)
        self.state = State(rules, n, num_players)
        self.num_sheets = self.state.num_sheets
        self.num_actions = num_actions(rules)
        self.threads = SliceThreads(num_threads)
        self.streams = np.zeros((n, 2), np.uint64)          # STREAM, EPISODE per table
        self.started = np.zeros(n, np.bool_)                 # table i has a stream (`begin` gave it one)
        self.seat = np.zeros(n, np.int64)
        self.sheet = np.zeros(n, np.int64)                   # the learner's sheet
        self.mask = np.zeros((n, self.num_actions), np.int8)
        self.shown = np.ones((n, 5), np.int8)
        self.rows = np.arange(n)
        self.rewards = np.zeros(n, np.float32)
        self.terminated = np.zeros(n, np.bool_)
        self.illegal = np.zeros(n, np.bool_)
        self.final_total = np.zeros(n, np.int64)
        self.players, self.guards, self.planned = [None], [], None
        if self.solo:
            self._init_solo(reward == "terminal", autoreset)
        else:
            self._gains = np.zeros(n, np.int64)
            self._stuck = np.zeros(n, np.bool_)
            self.seating = np.zeros((n, num_players), np.int64)
            self.side = np.zeros((n, num_players), np.int64)     # 1 at the opponents' seats
            self.banked = np.zeros(n, np.int64)
            self.seat_rewards = np.zeros((n, num_players), np.float32)
            self._obs_args = seat_obs_args(self.state)
            if not self.all_seats:
                self._init_opponents(opponents)
            if self.planned is not None:
                self._init_planned()

    def __getstate__(self):
        state = self.__dict__.copy()
        for name in ("_direct", "_fresh_call", "obs0", "_mask0", "_frames"):   # compiled code; views; a method
            state.pop(name, None)
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        if self.solo:
            self._fresh_call = None
            self._frames = Frames(self._new_frame)
            self._bind()

    # ---- construction ----------------------------------------------------------------------------
    def _init_solo(self, terminal_reward: bool, autoreset: bool) -> None:
        """The one-seat kernel's arrays (`batch.step_games`): it writes obs, mask, rewards and, with
        autoreset, final_obs and the next episode in one pass."""
        n, e = self.num_tables, self.state
        self.inv_scale = inv_box_scale(self.rules)
        self.params = np.array([float(terminal_reward), self.illegal_penalty, float(autoreset), 0.0])
        self._fresh_params = self.params.copy()
        self._fresh_params[3] = 1.0   # a fresh step writes the final info (`batch.step_games`: clear_final)
        self.obs = np.zeros((n, obs_size(self.rules)), np.float32)
        self.final_obs = np.zeros_like(self.obs)
        self.final_mask = np.zeros_like(self.mask)              # the final info's rows (`step` with fresh)
        self.final_seed = np.zeros(n, np.uint64)
        self.final_score = np.zeros(n, np.int64)
        self.step_total, self.step_seed = np.zeros(n, np.int64), np.zeros(n, np.uint64)
        self._game = (self.streams, e.arrays)
        self._head = (self.inv_scale, e.ypts, self.rules.rounds, self.params)
        self._fresh_head = (self.inv_scale, e.ypts, self.rules.rounds, self._fresh_params)
        self._fresh_call = None        # (the compiled kernel for a fresh step's types, called without dispatch)
        self.shown = e.dice
        self.own_actions = np.zeros(n, np.int64)   # the core's actions array: `step(core.own_actions)` is fastest
        self._frames = Frames(self._new_frame)      # the fresh step's arrays
        self._bind()

    def _bind(self) -> None:
        # steps in place write into these arrays (with autoreset, final_obs rows that `step_games` does not mark
        # in final_mask): no frame holding them may be taken again
        self._frames.forget()
        finals = (self.final_obs, self.final_mask, self.final_seed, self.final_score, self.step_total, self.step_seed)
        self._tail = (*self._game, self.rewards, self.terminated, self.illegal, self.obs, self.mask, self.final_total,
                      finals, self.state.table_fields)
        self._bound = True
        if self.num_tables:                                   # table 0's rows (the single env's), as views
            self.obs0, self._mask0 = self.obs[0], self.mask[0]
        # steps on `own_actions` while every table runs on the calling thread (the single env): (the compiled
        # one-seat kernel for its arguments' types, the arguments), called without numba's type dispatch
        # (`yacht_env.core.dispatch`); made at the first such step, dropped when an array is replaced
        self._direct = None

    def _new_frame(self) -> tuple:
        """The arrays a fresh one-seat step writes, in `_fresh_step`'s order: the final info's zeroed (the step
        clears only the rows it wrote there, `batch.step_games`), the others written whole by every step."""
        n, f, a = self.num_tables, obs_size(self.rules), self.num_actions
        return (np.empty((n, f), np.float32), np.zeros((n, f), np.float32), np.empty((n, a), np.int8),
                np.zeros((n, a), np.int8), np.empty(n, np.float32), np.empty(n, np.bool_), np.empty(n, np.bool_),
                np.empty(n, np.int64), np.zeros(n, np.int64), np.empty(n, np.uint64), np.zeros(n, np.uint64))

    def _fresh_step(self, actions) -> None:
        """One-seat `step` with fresh: every array the step writes (`step_games` with clear_final) is one
        no earlier step handed out that anybody still holds (`frames.Frames`)."""
        n = self.num_tables
        (self.obs, self.final_obs, self.mask, self.final_mask, self.rewards, self.terminated, self.illegal,
         self.step_total, self.final_score, self.step_seed, self.final_seed) = self._frames.take()
        finals = (self.final_obs, self.final_mask, self.final_seed, self.final_score, self.step_total, self.step_seed)
        args = (*self._fresh_head, actions, *self._game, self.rewards, self.terminated, self.illegal, self.obs,
                self.mask, self.final_total, finals, self.state.table_fields)
        self._bound = False          # _tail, obs0 and _mask0 hold the arrays before: `_bind` before using them
        if actions is not self.own_actions:
            self.threads.run(step_games, n, args)
            return
        if self._fresh_call is None:                # own arrays only: every fresh step has these types
            self._fresh_call = direct(step_games, (0, n, self.threads.ctrl, *args))
        self.threads.run(self._fresh_call, n, args)

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
        self.obs = seat_observations(self.state, self.rows, self.seat, self.shown, args=self._obs_args)  # not begun
        self._obs_out = False        # obs was handed out: copy before writing into it
        self._rewards = np.zeros(n, np.float32)
        self._over = np.zeros(n, np.bool_)

    # ---- episodes (seeding) ----------------------------------------------------------------------
    def begin(self, rows, streams, fresh: bool = False) -> None:
        """Start episode 0 of stream streams[j] at table rows[j] (streams: integers, taken mod 2**64).

        fresh: the new rows of `obs` (one seat) and `mask` go into new arrays, so the arrays an earlier
        step returned keep their rows."""
        rows = np.asarray(rows, np.int64)
        self.streams[rows, STREAM] = np.array([int(s) & 0xFFFFFFFFFFFFFFFF for s in streams], np.uint64)
        self.streams[rows, EPISODE] = 0
        self.started[rows] = True
        self._start(rows, fresh)

    def reset_table(self, i: int, seed, draw) -> None:
        """A single env's `reset(seed=...)` at table i: episode 0 of stream `seed` (an int); without a seed
        the next episode of the table's stream, or episode 0 of the stream `draw()` gives if it has none."""
        if seed is not None or not self.started[i]:
            self.begin([i], [seed if seed is not None else draw()])
        else:
            self.follow([i])

    def follow(self, rows, fresh: bool = False) -> None:
        """Start the next episode of their stream at tables `rows` (fresh as `begin`)."""
        rows = np.asarray(rows, np.int64)
        self.streams[rows, EPISODE] += np.uint64(1)
        self._start(rows, fresh)

    def _start(self, rows, fresh: bool) -> None:
        """The episode streams[rows] at tables `rows`, up to the first decision of the seat deciding."""
        if fresh:
            self.mask = self.mask.copy()
        if self.solo:
            which = np.zeros(self.num_tables, np.bool_)
            which[rows] = True
            if fresh:
                self.obs = self.obs.copy()
                self._bind()
            reset_games(self.inv_scale, self.rules.rounds, which, *self._game, self.obs, self.mask,
                        self.state.table_fields)
            return
        st, P = self.state, self.num_players
        st.reset(stream_seeds(self.streams[rows, STREAM], self.streams[rows, EPISODE].astype(np.int64)), rows=rows)
        if self.all_seats:
            st.roll(rows)
            self.shown[rows] = st.dice[rows]
        else:
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

    def _masks(self, rows) -> None:
        """mask[rows] = the legal actions of the seat deciding (all 1 where the game is over)."""
        self.mask[rows] = self.state.masks(rows)
        self.mask[rows[self.state.over(rows)]] = 1

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
        st = self.state
        todo = np.asarray(rows, np.int64)
        while len(todo):
            plan = tuple(self.planned.plan_tables(self.rules))
            stuck = self._stuck[:len(todo)]
            self.threads.run(advance_planned_seats, len(todo), (
                todo, self.side, plan, st.ypts, st.num_players, st.num_sheets, st.turns, stuck, st.arrays,
                st.table_fields))
            todo = todo[stuck]
            if len(todo):
                self.planned.plan_seats(st, todo)

    def _own_obs(self) -> None:
        """Copy `obs` before writing into it if it was handed out."""
        if self._obs_out:
            self.obs, self._obs_out = self.obs.copy(), False

    def _settle_rows(self, rows, rewards=None, over=None) -> None:
        """`settle_seats` at tables `rows` (the learner to move or its game over): the dice shown, masks,
        observations, banked totals; with `rewards` (and `over`, arrays of len(rows)) the rewards too."""
        self._own_obs()
        st, a = self.state, self._obs_args
        reward = rewards is not None
        if not reward:
            rewards, over = self._rewards[:0], self._over[:0]
        self.threads.run(settle_seats, len(rows), (
            np.ascontiguousarray(rows, np.int64), reward, rewards, over, self.seat, self.sheet, self.banked,
            self.final_total, self.shown, self.mask, self.obs, a.inv_scale, a.rounds, a.scale, a.no_preview,
            st.num_players, st.num_sheets, st.turns, st.arrays, st.table_fields))

    # ---- stepping --------------------------------------------------------------------------------
    def step(self, actions, rows=None, fresh: bool = False):
        """Play actions[j] (int64) at table rows[j] (default: every table); returns (rewards, terminated,
        illegal) for those rows, arrays the next step rewrites. An illegal action pays -illegal_penalty and
        changes nothing.

        One seat: every table is stepped (rows must be None); fresh writes obs, mask, the returned arrays,
        the info's total and game_seed (`step_info`) and the final info's rows (final_obs, final_mask,
        final_seed, final_score: zeros but for the games that ended; `batch.step_games`) into new arrays,
        so the arrays of earlier steps stay as they were (`_fresh_step`)."""
        if self.solo:
            if fresh:
                self._fresh_step(actions)
                return self.rewards, self.terminated, self.illegal
            if not self._bound:
                self._bind()
            if actions is self.own_actions and self._direct is not None:
                self._direct[0](*self._direct[1])
                return self.rewards, self.terminated, self.illegal
            args = (*self._head, actions, *self._tail)
            self.threads.run(step_games, self.num_tables, args)
            if actions is self.own_actions and self.threads.bounds(self.num_tables)[1] == self.num_tables:
                full = (0, self.num_tables, self.threads.ctrl, *args)
                self._direct = (direct(step_games, full), full)
            return self.rewards, self.terminated, self.illegal
        if fresh:
            self.mask = self.mask.copy()
        if self.planned is not None:
            return self._step_planned(actions, rows)
        rows = self.rows if rows is None else np.asarray(rows, np.int64)
        actions = np.ascontiguousarray(actions, np.int64)
        st = self.state
        if self.all_seats:
            before = st.totals[rows].copy()
            seats = st.seat_to_move(rows)
            gains = st.play(rows, actions)
            illegal = gains < 0
            turned = rows[~illegal & (actions >= NUM_HOLDS)]
            turned = turned[~st.over(turned)]
            if len(turned):
                st.roll(turned)                   # the next seat's first roll
        else:
            # `shown` changes only where the opponents moved (`_advance`): at a game's end the learner's
            # observation shows the first roll of its last turn here (the other paths: the dice it scored)
            gains = st.play(rows, actions)
            illegal = gains < 0
            ended = rows[~illegal & (actions >= NUM_HOLDS)]
            ended = ended[~st.over(ended)]
            if len(ended):
                self._advance(ended)
        if self.all_seats:
            waiting = rows[~st.over(rows)]
            self.shown[waiting] = st.dice[waiting]
        over = st.over(rows)
        if self.all_seats:
            self._seat_rewards(rows, before, over)
            rewards = self.seat_rewards[rows, seats]
        else:
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
        st, a = self.state, self._obs_args
        if rows is None:
            rows = self.rows
            self.obs, self._obs_out = np.empty_like(self.obs), False     # every row is written
        else:
            rows = np.asarray(rows, np.int64)
            self._own_obs()
        actions = np.ascontiguousarray(actions, np.int64)
        m = len(rows)
        gains, stuck, rewards, over = self._gains[:m], self._stuck[:m], self._rewards[:m], self._over[:m]
        plan = tuple(self.planned.plan_tables(self.rules))
        self.threads.run(step_planned, m, (
            rows, actions, self.side, plan, st.ypts, st.num_players, st.num_sheets, st.turns, gains, stuck, rewards,
            over, self.seat, self.sheet, self.banked, self.final_total, self.shown, self.mask, self.obs, a.inv_scale,
            a.rounds, a.scale, a.no_preview, st.arrays, st.table_fields))
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

    def _seat_rewards(self, rows, before, over) -> None:
        """seat_rewards[rows]: what the step paid every seat (all seats deciding): its sheet's points, or
        under "win" the outcome of an ended game."""
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

    # ---- reading ---------------------------------------------------------------------------------
    def observations(self, rows=None, seats=None) -> np.ndarray:
        """Flat observations of the deciding seat at tables `rows` (default: all; one seat: the kernel's
        `obs` array itself), or of seats[j] at table rows[j]."""
        if self.solo:
            return self.obs if rows is None else self.obs[rows]
        if self.planned is not None and seats is None:     # the step's own
            if rows is None:
                self._obs_out = True
                return self.obs
            return self.obs[np.asarray(rows, np.int64)]
        rows = self.rows if rows is None else np.asarray(rows, np.int64)
        seats = self.seat[rows] if seats is None else seats
        return seat_observations(self.state, rows, seats, self.shown[rows], self.threads, self._obs_args)

    def take_faults(self) -> list[dict]:
        """The opponents' faults since last taken (`yacht_env.core.players.Forfeiting`), in the order they
        happened per opponent."""
        return [f for g in self.guards for f in g.take_faults()] if self.guards else []

    def learner_totals(self, rows=None) -> np.ndarray:
        """The learner's sheet's total at tables `rows` (default: all)."""
        rows = self.rows if rows is None else rows
        return self.state.totals[rows, self.sheet[rows]]

    def seat_totals(self, rows=None) -> np.ndarray:
        """(len(rows), num_players) int64: every seat's total (teammates share their sheet's), a new array."""
        totals = self.state.totals if rows is None else self.state.totals[np.asarray(rows, np.int64)]
        if self.num_sheets == self.num_players:
            return totals.copy() if rows is None else totals
        return totals[:, np.arange(self.num_players) % self.num_sheets]

    def winners(self, rows=None) -> np.ndarray:
        """(len(rows), num_players) bool: the seats in first place at finished tables `rows`."""
        rows = self.rows if rows is None else np.asarray(rows, np.int64)
        ranks = sheet_ranks(self.state, rows)
        return ranks[:, np.arange(self.num_players) % self.num_sheets] == 1

    def outcomes(self, rows) -> np.ndarray:
        """+1 outright win, 0 shared first place, -1 loss, for the learner at finished tables."""
        ranks = sheet_ranks(self.state, rows)
        mine = ranks[np.arange(len(rows)), self.sheet[rows]]
        firsts = (ranks == 1).sum(axis=1)
        return np.where(mine != 1, -1.0, np.where(firsts == 1, 1.0, 0.0)).astype(np.float32)

    # ---- the info of every env -------------------------------------------------------------------
    def info_keys(self) -> tuple:
        """The keys of `info` (the same for the single and the batched form of an env)."""
        if self.solo:
            return ("action_mask", "total", "game_seed", "illegal_action")
        return ("action_mask", "seat", "total", "totals", "game_seed", "illegal_action")

    def info(self, illegal, rows=None) -> dict:
        """The info of tables `rows` (default: all) now, one array per key (`info_keys`): action_mask
        (int8, a copy of `mask`), the learner's seat (several seats), its sheet's total (int64), every
        seat's total (several seats: (n, num_players) int64), game_seed (uint64), illegal_action (bool)."""
        st = self.state
        illegal = np.array(illegal, np.bool_)
        if self.solo:
            # every table: the one-seat kernel's mask is new after every step, so it is not copied
            mask = self.mask if rows is None else self.mask[rows]
            rows = slice(None) if rows is None else np.asarray(rows, np.int64)
            return {"action_mask": mask, "total": st.totals[rows, 0].copy(), "game_seed": st.seeds[rows].copy(),
                    "illegal_action": illegal}
        # the learner's total is `banked`, which every step and start sets to it (the learner is to move or its
        # game is over); with every seat deciding there is no learner and sheet 0's total is given
        if rows is None:                          # every table: whole-array copies
            total = self.learner_totals() if self.all_seats else self.banked.copy()
            return {"action_mask": self.mask.copy(), "seat": self.seat.copy(), "total": total,
                    "totals": self.seat_totals(), "game_seed": st.seeds.copy(), "illegal_action": illegal}
        rows = np.asarray(rows, np.int64)
        total = self.learner_totals(rows) if self.all_seats else self.banked[rows]
        return {"action_mask": self.mask[rows], "seat": self.seat[rows], "total": total,
                "totals": self.seat_totals(rows), "game_seed": st.seeds[rows], "illegal_action": illegal}

    def step_info(self) -> dict:
        """`info` of every table right after a one-seat `step` with fresh, from the arrays that step wrote
        (new arrays, none copied)."""
        return {"action_mask": self.mask, "total": self.step_total, "game_seed": self.step_seed,
                "illegal_action": self.illegal}

    def info_of(self, i: int, illegal: bool) -> dict:
        """`info` of table i as the single env gives it: Python scalars and lists, game_seed a numpy
        uint64, the mask an int8 array; with several seats `winners` (the seats in first place) once
        the game is over."""
        st = self.state
        if self.solo:
            mask = self._mask0 if i == 0 and self._bound else self.mask[i]
            return {"action_mask": mask.copy(), "total": st.totals.item(i, 0), "game_seed": st.seeds[i],
                    "illegal_action": illegal}
        sheets = np.arange(self.num_players) % self.num_sheets
        info = {"action_mask": self.mask[i].copy(), "seat": int(self.seat[i]),
                "total": int(st.totals[i, self.sheet[i]]), "totals": st.totals[i, sheets].tolist(),
                "game_seed": st.seeds[i], "illegal_action": illegal}
        if st.ints[i, TURN] >= st.turns:
            info["winners"] = np.flatnonzero(self.winners([i])[0]).tolist()
        return info

    # ---- the one-seat kernel's per-table readings (the single Yacht-v0) ----------------------------
    def rolls_left(self, i: int) -> int:
        return int(self.rules.rolls_per_turn - self.state.ints[i, ROLLS_USED])

    def total(self, i: int) -> int:
        """Table i's learner's score so far, bonuses included."""
        return int(self.state.totals[i, self.sheet[i]])

    def game_seed(self, i: int) -> int:
        """The dice seed of table i's current episode (as `Game(seed=...)` takes it)."""
        return int(self.state.seeds[i])

    @property
    def engine(self) -> State:
        """The tables' engine state (the one-seat kernel's name for it)."""
        return self.state

    def close(self) -> None:
        """Stop the stepping threads (the core keeps working on one thread) and the opponents."""
        self.threads.close()
        for p in self.players[1:]:
            if hasattr(p, "close"):
                p.close()
