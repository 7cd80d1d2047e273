"""The one-seat stepper: N solitaire tables stepped by one compiled kernel (`Yacht-v0`, its vector env, SB3).

`SoloStepper` runs the one-seat case of the table core on `yacht_env.envs.batch.step_games`: move,
next roll, reward, observation, mask and, with `autoreset`, the next episode, in one pass per game
(what makes the batched `Yacht-v0` fast). The state, streams, info and autoreset are the shared
`yacht_env.envs.table_state.TableCore`'s all the same.
"""
import numpy as np

from ..core.dispatch import direct
from .batch import reset_games, step_games
from .frames import Frames
from .obs import obs_args, obs_size
from .table_state import TableCore, int64_rows


class SoloStepper(TableCore, mode="solo"):
    """One seat per table (`TableCore` for the arguments). `own_actions` is the stepper's own actions
    array: `step(core.own_actions)` on one thread calls the compiled kernel without numba's type dispatch
    and without the threads' hand-over (the single env's step).

    `step(actions, rows=None, fresh=False)` steps every table (rows must be None); fresh writes obs, mask,
    the returned arrays, the info's total and game_seed (`step_info`) and the final info's rows
    (final_obs, final_mask, final_seed, final_score: zeros but for the games that ended;
    `batch.step_games`) into new arrays, so the arrays of earlier steps stay as they were (`_fresh_step`).
    """

    REWARDS = ("points", "terminal")
    solo = True
    DROPPED = ("_kernels", "_direct", "obs0", "_mask0", "_frames")

    def __init__(self, rules, num_tables: int, num_players: int = 1, opponents=None, seat=0, reward: str = "points",
                 num_threads: int = 1, illegal_penalty: float = 1.0, autoreset: bool = False):
        super().__init__(rules, num_tables, num_players, seat, reward, num_threads, illegal_penalty)
        if opponents is not None:
            raise ValueError("a table without a learner's seat has no opponents")
        n = self.num_tables
        self.look = obs_args(rules)
        self.params = np.array([float(reward == "terminal"), self.illegal_penalty, float(autoreset), 0.0])
        self._fresh_params = self.params.copy()
        self._fresh_params[3] = 1.0   # a fresh step writes the final info (`batch.step_games`: clear_final)
        self.obs = np.zeros((n, obs_size(rules)), np.float32)
        self.final_obs = np.zeros_like(self.obs)
        self.final_mask = np.zeros_like(self.mask)              # the final info's rows (`step` with fresh)
        self.final_seed = np.zeros(n, np.uint64)
        self.final_score = np.zeros(n, np.int64)
        self.step_total, self.step_seed = np.zeros(n, np.int64), np.zeros(n, np.uint64)
        self.shown = self.state.dice
        self.own_actions = np.zeros(n, np.int64)   # the stepper's actions array: `step(core.own_actions)` is fastest
        self._frames = Frames(self._new_frame)      # the fresh step's arrays
        self._bind()

    def __setstate__(self, state):
        super().__setstate__(state)
        self._frames = Frames(self._new_frame)
        self._bind()

    # `step_games` takes the rows and the final info as plain tuples in the order of `SoloRows` and `Finals`: a fresh
    # step builds them anew every step, and a plain tuple is the cheaper to build
    def _rows(self) -> tuple:
        return self.rewards, self.terminated, self.illegal, self.obs, self.mask, self.final_total

    def _finals(self) -> tuple:
        return self.final_obs, self.final_mask, self.final_seed, self.final_score, self.step_total, self.step_seed

    def _bind(self) -> None:
        # steps in place write into these arrays (with autoreset, final_obs rows that `step_games` does not mark
        # in final_mask): no frame holding them may be taken again
        self._frames.forget()
        self._tail = (self.streams, self._rows(), self._finals())
        self._bound = True
        if self.num_tables:                                   # table 0's rows (the single env's), as views
            self.obs0, self._mask0 = self.obs[0], self.mask[0]
        # steps on `own_actions` while every table runs on the calling thread (the single env): (the compiled
        # one-seat kernel for its arguments' types, the arguments), called without the threads' hand-over;
        # made at the first such step, dropped when an array is replaced
        self._direct = None

    def _new_frame(self) -> tuple:
        """The arrays a fresh one-seat step writes, in `_fresh_step`'s order: the final info's zeroed (the step
        clears only the rows it wrote there, `batch.step_games`), the others written whole by every step."""
        n, f, a = self.num_tables, obs_size(self.rules), self.num_actions
        return (np.empty((n, f), np.float32), np.zeros((n, f), np.float32), np.empty((n, a), np.int8),
                np.zeros((n, a), np.int8), np.empty(n, np.float32), np.empty(n, np.bool_), np.empty(n, np.bool_),
                np.empty(n, np.int64), np.zeros(n, np.int64), np.empty(n, np.uint64), np.zeros(n, np.uint64))

    # ---- stepping --------------------------------------------------------------------------------
    def step(self, actions, rows=None, fresh: bool = False):
        """Play actions[i] (int64) at every table i; returns (rewards, terminated, illegal), arrays the next
        step rewrites (or, with fresh, new ones). An illegal action pays -illegal_penalty and changes nothing."""
        if rows is not None:
            raise ValueError("a one-seat step steps every table (rows must be None)")
        if fresh:
            self._fresh_step(actions)
            return self.rewards, self.terminated, self.illegal
        if not self._bound:
            self._bind()
        if actions is self.own_actions and self._direct is not None:
            self._direct[0](*self._direct[1])
            return self.rewards, self.terminated, self.illegal
        own = actions is self.own_actions
        actions = int64_rows(actions, "actions")
        args = (self.board, self.look, self.params, actions, *self._tail)
        self._run(step_games, self.num_tables, args)
        if own and self.threads.bounds(self.num_tables)[1] == self.num_tables:
            self._direct = (self._kernel(step_games, args), (0, self.num_tables, self.threads.ctrl, *args))
        return self.rewards, self.terminated, self.illegal

    def _fresh_step(self, actions) -> None:
        """One-seat `step` with fresh: every array the step writes (`step_games` with clear_final) is one
        no earlier step handed out that anybody still holds (`frames.Frames`)."""
        (self.obs, self.final_obs, self.mask, self.final_mask, self.rewards, self.terminated, self.illegal,
         self.step_total, self.final_score, self.step_seed, self.final_seed) = self._frames.take()
        self._bound = False          # _tail, obs0 and _mask0 hold the arrays before: `_bind` before using them
        if actions is not self.own_actions:         # the own array is an int64 vector already
            actions = int64_rows(actions, "actions")
        args = (self.board, self.look, self._fresh_params, actions, self.streams, self._rows(), self._finals())
        self._run(step_games, self.num_tables, args)

    def _start(self, rows, fresh: bool) -> None:
        if fresh:
            self.mask = self.mask.copy()
            self.obs = self.obs.copy()
            self._bind()
        which = np.zeros(self.num_tables, np.bool_)
        which[rows] = True
        args = (self.board, self.look, which, self.streams, self.obs, self.mask)
        fn = self._kernels.get(reset_games)
        if fn is None:                     # not a sliced kernel: compiled for these types at the first start
            fn = self._kernels[reset_games] = direct(reset_games, args)
        fn(*args)

    # ---- reading ---------------------------------------------------------------------------------
    def observations(self, rows=None, seats=None) -> np.ndarray:
        """Flat observations at tables `rows` (default: all, the kernel's `obs` array itself)."""
        return self.obs if rows is None else self.obs[rows]

    def info_keys(self) -> tuple:
        return ("action_mask", "total", "game_seed", "illegal_action")

    def info(self, illegal, rows=None) -> dict:
        """The info of tables `rows` (default: all) now (`info_keys`): action_mask (int8; every table: the
        kernel's mask, new after every step, so not copied), total (int64), game_seed (uint64),
        illegal_action (bool)."""
        st = self.state
        illegal = np.array(illegal, np.bool_)
        mask = self.mask if rows is None else self.mask[rows]
        rows = slice(None) if rows is None else np.asarray(rows, np.int64)
        return {"action_mask": mask, "total": st.totals[rows, 0].copy(), "game_seed": st.seeds[rows].copy(),
                "illegal_action": illegal}

    def step_info(self) -> dict:
        """`info` of every table right after a `step` with fresh, from the arrays that step wrote
        (new arrays, none copied)."""
        return {"action_mask": self.mask, "total": self.step_total, "game_seed": self.step_seed,
                "illegal_action": self.illegal}

    def info_of(self, i: int, illegal: bool) -> dict:
        """`info` of table i as the single `Yacht-v0` gives it: Python scalars, game_seed a numpy uint64,
        the mask an int8 array."""
        st = self.state
        mask = self._mask0 if i == 0 and self._bound else self.mask[i]
        return {"action_mask": mask.copy(), "total": st.totals.item(i, 0), "game_seed": st.seeds[i],
                "illegal_action": illegal}
