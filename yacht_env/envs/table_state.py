"""The tables every stepper of the table core shares: state, streams, masks, rewards, info and reading.

`TableCore` is the shared state of N tables of one rule set (`yacht_env.envs.table_core` for what
the core is and who uses it). `TableCore(rules, ...)` builds the stepper of its mode, a subclass
registered under that mode (`mode_of`): `yacht_env.envs.solo.SoloStepper` (one seat),
`yacht_env.envs.learner.LearnerStepper` (a learner's seat with opponents) and
`yacht_env.envs.every_seat.EverySeatStepper` (every seat decides). The state here is what all three
keep and read the same way; how a step or an episode's start changes it is each stepper's own.

State (N tables): `state` (`yacht_env.core.engine.State`) and its `board` (`yacht_env.envs.board.Board`),
`streams[i]` (STREAM, EPISODE: seeding), `started[i]`, the learner's `seat[i]` and `sheet[i]`, `mask[i]`
(the legal actions of the seat deciding, int8, all 1 once the game is over), `shown[i]` (the dice that
seat last saw), `final_total[i]` (the learner's score of the game that last ended), the step's `rewards`,
`terminated` and `illegal`, and the threads (`threads`) stepping slices of the tables.
"""
import numpy as np

from ..core.actions import num_actions
from ..core.dispatch import direct
from ..core.engine import TURN, State
from ..core.lockstep import sheet_ranks
from .batch import EPISODE, STREAM
from .board import board_of
from .step_threads import SliceThreads

ALL = "all"


def mode_of(num_players: int, seat) -> str:
    """The stepper's mode: "solo" (one seat), "every_seat" (seat="all") or "learner"."""
    if seat == ALL:
        return "every_seat"
    return "solo" if num_players == 1 else "learner"


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


def int64_rows(values, name: str) -> np.ndarray:
    """values as a C-contiguous int64 vector (what the compiled kernels take); ValueError naming `name`
    for anything with another number of dimensions."""
    a = np.ascontiguousarray(values, np.int64)
    if a.ndim != 1:
        raise ValueError(f"{name} must be one integer per table stepped, got an array of shape {a.shape}")
    return a


class TableCore:
    """N tables of one rule set with `num_players` seats, stepped in compiled code (`yacht_env.envs.table_core`).

    Arguments: `opponents` (2-8 seats with a learner: one opponent spec for every other seat, or a list
    of one per other seat in seat order; default uniform random), `seat` (the learner's seat: an int,
    "rotate" = seat k % num_players in episode k, or "all"), `reward` ("points" or "terminal" for one
    seat, else "points" or "win"), `illegal_penalty` (the reward of an illegal action, which changes
    nothing), `num_threads` (threads stepping slices of the tables: the same games for any count),
    `autoreset` (one seat only: an ended game starts the next episode inside the step, its last
    observation in `final_obs`).

    After every `begin`, `follow` and `step`: `mask[i]` is table i's legal actions now (int8; all 1 once
    its game is over), `shown[i]` the dice the deciding seat last saw. `step(actions, rows=None,
    fresh=False)` returns (rewards, terminated, illegal) for the rows stepped.
    """

    REWARDS: tuple = ()       # the stepper's reward modes
    solo = False              # one seat (the facades' one-seat paths: `step_info`, the final info's rows)
    _modes: dict = {}         # mode -> its stepper class (`__init_subclass__`)

    def __init_subclass__(cls, mode: str | None = None, **kwargs):
        super().__init_subclass__(**kwargs)
        if mode is not None:
            TableCore._modes[mode] = cls

    def __new__(cls, *args, **kwargs):
        """`TableCore(rules, num_tables, num_players=1, opponents=None, seat=0, ...)`: the stepper of the mode
        num_players and seat name (`mode_of`); a stepper class builds itself."""
        if cls is TableCore:
            names = ("rules", "num_tables", "num_players", "opponents", "seat")
            given = {**dict(zip(names, args)), **kwargs}
            cls = TableCore._modes[mode_of(given.get("num_players", 1), given.get("seat", 0))]
        return super().__new__(cls)

    def __init__(self, rules, num_tables: int, num_players: int = 1, seat=0, reward: str = "points",
                 num_threads: int = 1, illegal_penalty: float = 1.0):
        """The state every stepper shares (module docstring); the stepper adds its own after."""
        check_seat_args(rules, num_players, seat)
        if reward not in self.REWARDS:
            raise ValueError(f"reward must be one of {', '.join(map(repr, self.REWARDS))}, got {reward!r}")
        n = int(num_tables)
        self.rules, self.num_tables, self.num_players = rules, n, num_players
        self.seat_rule, self.reward_mode, self.illegal_penalty = seat, reward, float(illegal_penalty)
        self.state = State(rules, n, num_players)
        self.board = board_of(self.state)
        self.num_sheets = self.state.num_sheets
        self.num_actions = num_actions(rules)
        self.threads = SliceThreads(num_threads)
        self.streams = np.zeros((n, 2), np.uint64)          # STREAM, EPISODE per table
        self.started = np.zeros(n, np.bool_)                 # table i has a stream (`begin` gave it one)
        self.seat = np.zeros(n, np.int64)
        self.sheet = np.zeros(n, np.int64)                   # the learner's sheet
        self.mask = np.zeros((n, self.num_actions), np.int8)
        self.shown = np.ones((n, self.board.T.dice.n), np.int8)
        self.rows = np.arange(n)
        self.rewards = np.zeros(n, np.float32)
        self.terminated = np.zeros(n, np.bool_)
        self.illegal = np.zeros(n, np.bool_)
        self.final_total = np.zeros(n, np.int64)
        self.players, self.guards, self.planned = [None], [], None
        self._kernels = {}

    DROPPED: tuple = ("_kernels",)     # attributes not pickled: compiled code, views, bound methods

    def __getstate__(self):
        state = self.__dict__.copy()
        for name in self.DROPPED:
            state.pop(name, None)
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self.board = board_of(self.state)     # the process's own dice tables: the kernels' types
        self._kernels = {}

    def _kernel(self, kernel, args: tuple):
        """`kernel` compiled for the types of (lo, hi, ctrl, *args), taken at its first call
        (`yacht_env.core.dispatch.direct`): the stepper passes its own arrays and structures, and rows
        and actions as C-contiguous int64 vectors (`int64_rows`), the same types every call."""
        fn = self._kernels.get(kernel)
        if fn is None:
            fn = self._kernels[kernel] = direct(kernel, (0, 0, self.threads.ctrl, *args))
        return fn

    def _run(self, kernel, n: int, args: tuple) -> None:
        """`kernel` over n rows on the stepping threads, called without type dispatch (`_kernel`)."""
        self.threads.run(self._kernel(kernel, args), n, args)

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
        raise NotImplementedError

    def _masks(self, rows) -> None:
        """mask[rows] = the legal actions of the seat deciding (all 1 where the game is over)."""
        self.mask[rows] = self.state.masks(rows)
        self.mask[rows[self.state.over(rows)]] = 1

    # ---- reading ---------------------------------------------------------------------------------
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

    # ---- the info of every env (several seats; the one-seat stepper has its own) -----------------
    def _shown_totals(self, rows=None) -> np.ndarray:
        """The `total` of the info at tables `rows` (default: all), a new array."""
        raise NotImplementedError

    def info_keys(self) -> tuple:
        """The keys of `info` (the same for the single and the batched form of an env)."""
        return ("action_mask", "seat", "total", "totals", "game_seed", "illegal_action")

    def info(self, illegal, rows=None) -> dict:
        """The info of tables `rows` (default: all) now, one array per key (`info_keys`): action_mask
        (int8, a copy of `mask`), the learner's seat (several seats), its sheet's total (int64), every
        seat's total (several seats: (n, num_players) int64), game_seed (uint64), illegal_action (bool)."""
        st = self.state
        illegal = np.array(illegal, np.bool_)
        if rows is None:                          # every table: whole-array copies
            return {"action_mask": self.mask.copy(), "seat": self.seat.copy(), "total": self._shown_totals(),
                    "totals": self.seat_totals(), "game_seed": st.seeds.copy(), "illegal_action": illegal}
        rows = np.asarray(rows, np.int64)
        return {"action_mask": self.mask[rows], "seat": self.seat[rows], "total": self._shown_totals(rows),
                "totals": self.seat_totals(rows), "game_seed": st.seeds[rows], "illegal_action": illegal}

    def info_of(self, i: int, illegal: bool) -> dict:
        """`info` of table i as the single env gives it: Python scalars and lists, game_seed a numpy
        uint64, the mask an int8 array; with several seats `winners` (the seats in first place) once
        the game is over."""
        st = self.state
        sheets = np.arange(self.num_players) % self.num_sheets
        info = {"action_mask": self.mask[i].copy(), "seat": int(self.seat[i]),
                "total": int(st.totals[i, self.sheet[i]]), "totals": st.totals[i, sheets].tolist(),
                "game_seed": st.seeds[i], "illegal_action": illegal}
        if st.ints[i, TURN] >= st.turns:
            info["winners"] = np.flatnonzero(self.winners([i])[0]).tolist()
        return info

    # ---- per-table readings (the single envs) ------------------------------------------------------
    def rolls_left(self, i: int) -> int:
        """The rolls table i's seat to move may still make this turn (`State.rolls_left`)."""
        return int(self.state.rolls_left([i])[0])

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
