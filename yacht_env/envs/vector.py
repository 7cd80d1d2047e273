"""Batched `Yacht-v0`: N solitaire games in arrays, stepped by one compiled loop (no Python per game).

    envs = gymnasium.make_vec("Yacht-v0", num_envs=1024, vectorization_mode="vector_entry_point",
                              rules="yacht")

The environment is `YachtVectorEnv` (its docstring has the Gymnasium sections, autoreset included).
"""
import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from ..core.actions import as_actions
from ..core.view import read_only
from .env import REWARDS, SEED_LIMIT, check_choice, check_seed, resolve_rules
from .frames import Frames
from .obs import flat_space
from .options import EnvOptions
from .table_core import TableCore

INFO_KEYS = ("action_mask", "total", "game_seed", "illegal_action")


def as_autoreset_mode(value) -> AutoresetMode:
    """An `AutoresetMode` from the enum or its value ("SameStep", "NextStep", "Disabled")."""
    if isinstance(value, AutoresetMode):
        return value
    try:
        return AutoresetMode(value)
    except ValueError:
        choices = ", ".join(f"AutoresetMode.{m.name} ({m.value!r})" for m in AutoresetMode)
        raise ValueError(f"autoreset_mode must be one of {choices}, got {value!r}") from None


def reset_mask_of(options, num_envs: int) -> np.ndarray | None:
    """The `reset_mask` option (bool array of shape (num_envs,), at least one True) or None; a
    ValueError for any other option, a TypeError for a mask that is not a bool array."""
    if options is None or (isinstance(options, dict) and not options):
        return None
    if not isinstance(options, dict) or set(options) != {"reset_mask"}:
        shown = sorted(map(str, options)) if isinstance(options, dict) else repr(options)[:40]
        raise ValueError(f"the batched Yacht-v0 reset takes only options={{'reset_mask': ...}}, got {shown}")
    mask = options["reset_mask"]
    if not isinstance(mask, np.ndarray) or mask.dtype != np.bool_:
        raise TypeError(f"options['reset_mask'] must be a numpy bool array, got {type(mask).__name__}"
                        + (f" of {mask.dtype}" if isinstance(mask, np.ndarray) else ""))
    if mask.shape != (num_envs,):
        raise ValueError(f"options['reset_mask'] must have shape ({num_envs},), got {mask.shape}")
    if not mask.any():
        raise ValueError("options['reset_mask'] must mark at least one env")
    return mask


def check_batched_args(num_envs, obs_mode, illegal_action, render_mode, max_episode_steps) -> None:
    """The arguments every batched env fixes: a positive num_envs, flat observations, penalized illegal
    actions, no rendering, no time limit (ValueError naming the one that is off)."""
    if isinstance(num_envs, (bool, np.bool_)) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
        raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
    if obs_mode != "flat":
        raise ValueError(f"the batched env supports obs_mode='flat' only, got {obs_mode!r}")
    if illegal_action != "penalize":
        raise ValueError(f"the batched env penalizes illegal actions (illegal_action='penalize'), "
                         f"got {illegal_action!r}")
    if render_mode is not None:
        raise ValueError(f"the batched env does not render, got render_mode={render_mode!r}")
    if max_episode_steps is not None:
        raise ValueError("Yacht games end by themselves; max_episode_steps is not supported")


class BatchedVectorEnv(VectorEnv):
    """The seeding and autoreset of every batched env, written once (`YachtVectorEnv`, `YachtVsVectorEnv`).

    ## Starting State (seeding)
    `reset(seed=s)` starts episode 0 of stream s + i in env i (a list of N seeds gives one stream each;
    a None entry continues that env's stream); `reset()` without a seed starts the next episode of
    every stream, as `"sync"` and `"async"` do; the first reset without a seed draws s from
    `np_random`. Seeds are integers 0 .. 2**64 - 1 (s + N - 1 included). Episode k of stream s deals
    the dice of `Game(rules, seed=yacht_env.core.dice_source.game_seed(s, k))`, so env i plays the
    games of the single env reset with seed s + i and then plain `reset()`s, whatever N, the mode or
    the number of threads. `reset(options={"reset_mask": m})` (a bool array of shape (N,)) restarts
    only the envs marked, and its info marks them in the `_key` arrays.

    ## Episode End (autoreset)
    An episode terminates when the game is over; it never truncates (`max_episode_steps` is refused).
    What happens next is `autoreset_mode` (Gymnasium's `AutoresetMode`, or its value):

    - `SAME_STEP` (default): the terminal step returns the last move's reward and `terminated[i] = True`,
      but row i of the observation is already the first one of the env's next episode. The last
      observation is `info["final_obs"][i]`, the last step's info is in `info["final_info"]` (rows marked
      by `info["_final_obs"]` and `info["_final_info"]`; `final_obs` is one float32 array with zero rows
      for the envs that did not end); `final_totals(info)` gives the learner's final totals. `final_obs`
      and the arrays of `final_info` are read-only (the env writes its arrays again once nobody holds
      them, clearing only the rows it wrote: `yacht_env.envs.frames`).
    - `NEXT_STEP` (Gymnasium's default for `"sync"`/`"async"`): the terminal step returns the last
      observation and info; the next step ignores env i's action, starts its next episode and returns
      its first observation with reward 0 and `terminated[i] = False`.
    - `DISABLED`: a finished env stays over until `reset(options={"reset_mask": m})` restarts it;
      stepping it raises RuntimeError naming the envs.

    ## Information
    `reset` and every step return the single env's info keys for all N envs, batched as Gymnasium's
    vector envs batch them (each with its `_key` bool array).

    A subclass builds its `yacht_env.envs.table_core.TableCore` (`self.core`) and the spaces, and calls
    `_init_batched`; stepping, seeding, autoreset, the info and the opponents' faults are written here
    once over the core, for every seat count.
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}
    INFO_KEYS: tuple = ()
    core: TableCore

    def _init_batched(self, num_envs, autoreset_mode, **options) -> None:
        """The autoreset mode, the options (`yacht_env.envs.options`: checked here, sized in `_spaces`) and
        the bookkeeping of every batched env (before its core is built)."""
        self._option_args = options
        self.options = EnvOptions(**options)
        self.autoreset_mode = as_autoreset_mode(autoreset_mode)
        self.metadata = {**type(self).metadata, "autoreset_mode": self.autoreset_mode}
        self.num_envs = int(num_envs)
        self.render_mode = None
        self._actions = np.zeros(self.num_envs, np.int64)
        self._ended = np.zeros(self.num_envs, np.bool_)        # NEXT_STEP / DISABLED: env i ended, not restarted
        self._final_frames = Frames(self._final_frame)          # several seats: the final info's arrays

    def reset(self, *, seed=None, options=None):
        """Start episodes (see the class docstring, Starting State): returns (obs, info)."""
        which = reset_mask_of(options, self.num_envs)
        which = np.ones(self.num_envs, np.bool_) if which is None else which.copy()
        seeds = self._seeds_of(seed)
        seeded = np.array([s is not None for s in seeds]) & which
        fresh = which & ~seeded & ~self.core.started
        if fresh.any():
            base = int(self.np_random.integers(2 ** 63))
            seeds = [base + i if fresh[i] else s for i, s in enumerate(seeds)]
            seeded |= fresh
        # the new episodes go into new arrays, so those a step returned keep their rows
        if seeded.any():
            self._begin(seeded, [0 if s is None else s for s in seeds])
        following = which & ~seeded
        if following.any():
            self._follow(following, fresh=not seeded.any())
        self._ended &= ~which
        info = self._marked(self.core.info(np.zeros(self.num_envs, np.bool_)), which)
        self._faults(info)
        return self._shown(self.core.observations(), info)

    def _seeds_of(self, seed) -> list:
        """One seed (int or None) per env from reset's `seed`; seeds np_random from the first int."""
        if seed is None:
            return [None] * self.num_envs
        if isinstance(seed, (list, tuple, np.ndarray)):
            if len(seed) != self.num_envs:
                raise ValueError(f"got {len(seed)} seeds for {self.num_envs} envs")
            seeds = [None if s is None else check_seed(s) for s in seed]
            first = next((s for s in seeds if s is not None), None)
        else:
            first = check_seed(seed)
            if first + self.num_envs > SEED_LIMIT:
                raise ValueError(f"seed {first} gives streams up to {first + self.num_envs - 1}; "
                                 f"a seed must be an integer 0 .. 2**64 - {self.num_envs} for {self.num_envs} envs")
            seeds = [first + i for i in range(self.num_envs)]
        if first is not None:
            self._np_random, self._np_random_seed = seeding.np_random(first)
        return seeds

    def step(self, actions):
        """Play one action per env (see the class docstring for autoreset): (obs, rewards, terminated,
        truncated, info)."""
        a = as_actions(actions, self.single_action_space.n, self.num_envs, out=self._actions)
        mode = self.autoreset_mode
        if mode == AutoresetMode.DISABLED and self._ended.any():
            over = np.flatnonzero(self._ended).tolist()
            raise RuntimeError(f"games {over[:10]}{' ...' if len(over) > 10 else ''} are over (autoreset_mode="
                               f"DISABLED); restart them with reset(options={{'reset_mask': mask}}) before step()")
        restart = self._ended.copy() if mode == AutoresetMode.NEXT_STEP and self._ended.any() else None
        rewards, terminated, illegal = self._play(a, None if restart is None else ~restart)
        if restart is not None:                   # their actions met a finished game: nothing was played
            self._follow(restart, fresh=False)
            rewards[restart] = 0.0
            illegal[restart] = False
        if mode != AutoresetMode.SAME_STEP:
            self._ended = terminated.copy()
        final = {}
        if terminated.any():
            final = self._autoreset(terminated, illegal) if mode == AutoresetMode.SAME_STEP \
                else self._winners(terminated)
        # one seat: the step wrote the info's rows into new arrays (unless NEXT_STEP restarted games after it)
        info = self.core.step_info() if self.core.solo and restart is None else self.core.info(illegal)
        info = self._marked(info, None)
        info.update(final)
        self._faults(info)
        obs, info = self._shown(self.core.observations(), info)
        return obs, rewards, terminated, np.zeros(self.num_envs, np.bool_), info

    def _spaces(self, base: spaces.Box, num_actions: int) -> None:
        """The single and batched spaces: `base`, the core's flat observation, as the options show it."""
        self._core_obs_size = base.shape[0]
        self.options = EnvOptions(**self._option_args, rules=self.rules, num_sheets=self.core.num_sheets)
        self.single_observation_space = self.options.space(base)
        self.single_action_space = spaces.Discrete(num_actions)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)

    def _shown(self, obs: np.ndarray, info: dict) -> tuple:
        """The core's observations and info as the options show them: the option entries after every
        observation (`final_obs` included), the `action_set` masks (finished games' rows stay all 1)."""
        o = self.options
        if o.plain:
            return obs, info
        info["action_mask"] = o.masks(info["action_mask"], obs, self._ended)
        if "final_obs" in info and self.core.solo:     # several seats: made with the options (`_autoreset`)
            info["final_obs"] = read_only(o.observe(info["final_obs"]))
        return o.observe(obs, self.core.state, self.core.rows, self.core.sheet), info

    def _marked(self, info: dict, rows) -> dict:
        """info plus Gymnasium's `_key` arrays (one per key of INFO_KEYS), True on `rows` (None: every env)."""
        marks = np.empty((len(self.INFO_KEYS), self.num_envs), np.bool_)
        marks[:] = True if rows is None else rows
        for key, m in zip(self.INFO_KEYS, marks):
            info[f"_{key}"] = m
        return info

    # ---- over the table core -----------------------------------------------------------------------
    def _begin(self, which, streams) -> None:
        """Episode 0 of stream streams[i] where which[i] (the new rows in new arrays)."""
        rows = np.flatnonzero(which)
        self.core.begin(rows, [streams[i] for i in rows], fresh=True)

    def _follow(self, which, fresh: bool) -> None:
        """The next episode of its stream where which[i]."""
        self.core.follow(np.flatnonzero(which), fresh=fresh)

    def _play(self, actions, live):
        """One step (only where live[i] when live is given): (rewards, terminated, illegal), new arrays."""
        c = self.core
        if c.solo:                                # every game is stepped (a finished one does nothing)
            if actions is not self._actions:
                np.copyto(self._actions, actions)
            return c.step(self._actions, fresh=True)
        if live is None:
            rewards, terminated, illegal = c.step(actions)
            return rewards.copy(), terminated.copy(), illegal.copy()
        rows = np.flatnonzero(live)               # NEXT_STEP: the tables whose game ended play nothing
        rewards, terminated, illegal = (np.zeros(self.num_envs, np.float32), np.zeros(self.num_envs, np.bool_),
                                        np.zeros(self.num_envs, np.bool_))
        rewards[rows], terminated[rows], illegal[rows] = c.step(actions[rows], rows)
        return rewards, terminated, illegal

    def _autoreset(self, done, illegal) -> dict:
        """The `final_*` entries of a SAME_STEP step; afterwards the ended envs have started their next
        episode (the one-seat kernel started it inside the step, and wrote the final info's rows)."""
        c, n = self.core, self.num_envs
        if c.solo:
            # read-only: the core writes these arrays again once nobody holds them, clearing only the rows it wrote
            last = {"action_mask": read_only(c.final_mask), "total": read_only(c.final_score),
                    "game_seed": read_only(c.final_seed), "illegal_action": np.zeros(n, np.bool_)}
            marks = np.empty((len(self.INFO_KEYS) + 2, n), np.bool_)            # the `_key` arrays, one allocation
            marks[:] = done
            for key, m in zip(self.INFO_KEYS, marks):
                last[f"_{key}"] = m
            return {"final_obs": read_only(c.final_obs), "_final_obs": marks[-2], "final_info": last,
                    "_final_info": marks[-1]}
        # every final entry is zero but on the ended rows: arrays an earlier step wrote (`_final_frame`) with
        # the rows it wrote zeroed, handed out read-only
        rows = np.flatnonzero(done)
        *arrays, written = self._final_frames.take()
        for a in arrays:
            a[written[1:1 + written[0]]] = 0
        written[0], written[1:1 + len(rows)] = len(rows), rows
        final, final_total, winners, *values = arrays
        final[rows] = self.options.observe(c.observations(rows), c.state, rows, c.sheet[rows])   # before the next game
        final_total[rows] = c.final_total[rows]
        winners[rows] = c.winners(rows)
        last = {}
        for value, (key, now) in zip(values, c.info(illegal[rows], rows).items()):
            value[rows] = 1 if key == "action_mask" else now    # a finished game marks every action legal
            last[key] = read_only(value)
        last["winners"] = read_only(winners)
        for key in list(last):
            last[f"_{key}"] = done.copy()
        self._follow(done, fresh=False)
        return {"final_obs": read_only(final), "_final_obs": done.copy(), "final_total": read_only(final_total),
                "final_info": last, "_final_info": done.copy()}

    def _final_frame(self) -> tuple:
        """Zeroed arrays of a SAME_STEP step's final entries (several seats): final_obs, final_total, winners,
        the info's keys in the order `TableCore.info` gives them, and the rows written (`[count, *rows]`)."""
        c, n = self.core, self.num_envs
        none = np.zeros(0, np.int64)               # the info of no table: each key's dtype and row shape
        values = [np.zeros((n, *v.shape[1:]), v.dtype) for v in c.info(none.astype(np.bool_), none).values()]
        return (np.zeros((n, self.single_observation_space.shape[0]), np.float32), np.zeros(n, np.int64),
                np.zeros((n, c.num_players), np.bool_), *values, np.zeros(n + 1, np.int64))

    def _winners(self, done) -> dict:
        """`winners` ((N, num_players) bool, the seats in first place) where done[i], for several seats."""
        if self.core.solo:
            return {}
        rows = np.flatnonzero(done)               # the ranks of the ended games only
        winners = np.zeros((self.num_envs, self.core.num_players), np.bool_)
        winners[rows] = self.core.winners(rows)
        return {"winners": winners, "_winners": done.copy()}

    def _faults(self, info: dict) -> None:
        """info["opponent_faults"][i]: the faults of the opponents at table i since the last step or reset
        (a list of `YachtVs-v0`'s fault dicts), rows marked by info["_opponent_faults"]; both keys only
        when some opponent faulted."""
        faults = self.core.take_faults()
        if not faults:
            return
        per = np.empty(self.num_envs, object)
        for i in range(self.num_envs):
            per[i] = []
        for f in faults:
            per[f["table"]].append(f)
        info["opponent_faults"] = per
        info["_opponent_faults"] = np.array([len(x) > 0 for x in per], np.bool_)

    @staticmethod
    def final_totals(info) -> np.ndarray:
        """The learner's final totals on the rows of a SAME_STEP step's info whose game ended."""
        return info["final_info"]["total"]

    def action_masks(self) -> np.ndarray:
        """(N, A) bool mask of the learner's legal actions now (those the last info showed)."""
        return self.options.masks(self.core.mask, self.core.observations(), self._ended).astype(bool)

    def close_extras(self, **kwargs) -> None:
        # an env whose arguments were refused has no core; Gymnasium 1.2 closes it when it is collected
        if hasattr(self, "core"):
            self.core.close()

    def __getstate__(self):
        if self.core.threads.num_threads > 1:
            raise TypeError(f"a {type(self).__name__} stepping on {self.core.threads.num_threads} threads cannot be "
                            "pickled; make it with num_threads=1 to pickle it")
        return self.__dict__


class YachtVectorEnv(BatchedVectorEnv):
    """N games of `Yacht-v0` in arrays, stepped by one compiled loop: `make_vec`'s native mode.

    ## Description
    The solitaire Yacht of `yacht_env.envs.env.YachtEnv` (same rules, dice, actions, observations, rewards
    and illegal-action penalty), N games at once: one step is one compiled call for all N games, with
    no Python per game. Sub-env i seeded s plays exactly the games of `gymnasium.make("Yacht-v0")`
    after `reset(seed=s + i)`, so results do not depend on the number of envs, the mode or the
    number of threads. `num_threads=2` steps two slices of the games at once on two threads (the
    compiled step releases the GIL); the default is 1, so env processes side by side do not
    oversubscribe the cores.

    ## Action Space
    `MultiDiscrete([31 + columns * n_boxes] * N)` (63 + ... with six dice): one action of `YachtEnv` per game,
    as an integer array of shape (N,). A float, bool or string array, another shape or an action outside 0 .. n-1
    raises ValueError. Masks: `info["action_mask"]` (int8, shape (N, A)) and `action_masks()` (bool).

    ## Observation Space
    `Box(0, 1, (N, 13 + columns * (2 * n_boxes + 2)), float32)`: row i is `YachtEnv`'s flat
    observation of game i (layout in `yacht_env.envs.obs`; only `obs_mode="flat"`). Every step returns
    new arrays: nothing a step returned is overwritten by a later step.

    ## Rewards
    float32, shape (N,): as `YachtEnv` (`reward="points"`: the points of each move, so the return is the
    final score; `reward="terminal"`: the final score on the last move). An illegal action is always
    penalized (`-illegal_penalty`, nothing changes, `info["illegal_action"][i]` is True), never raised.

    ## Starting State
    As every batched env (`BatchedVectorEnv`: seeding, `reset_mask`): game i seeded s plays the games of
    `gymnasium.make("Yacht-v0")` after `reset(seed=s + i)`.

    ## Episode End
    As every batched env (`BatchedVectorEnv`: the three autoreset modes, `SAME_STEP` by default).

    ## Information
    `reset` and every step return, for all N games, the keys of `YachtEnv` batched as Gymnasium's
    vector envs batch them: `action_mask` (int8, (N, A)), `total` (int64), `game_seed` (uint64) and
    `illegal_action` (bool), each with its `_key` bool array; plus, under `SAME_STEP`, `final_obs` and
    `final_info` (the same four keys for the games that ended) when a game ended: the keys the `"sync"`
    mode gives.

    ## Arguments
    ```python
    import gymnasium as gym
    import yacht_env
    gym.make_vec("Yacht-v0", num_envs=N, vectorization_mode="vector_entry_point", rules="yacht",
                 reward="points", illegal_penalty=1.0, num_threads=1,
                 autoreset_mode=gym.vector.AutoresetMode.SAME_STEP, action_set="all", dice_obs="scaled",
                 rule_obs="none", **knobs)
    ```
    `rules`, `**knobs`, `reward`, `illegal_penalty`, `action_set`, `dice_obs` and `rule_obs` are those of `YachtEnv`;
    `obs_mode` must be `"flat"`, `illegal_action` `"penalize"` and `render_mode` None (the batched env does
    not render).
    `num_threads`: threads that step the games (the same games for any count). `autoreset_mode`: an
    `AutoresetMode` or its value (`"SameStep"`, `"NextStep"`, `"Disabled"`); `make_vec` refuses
    `vector_kwargs` in this mode, so pass it as a keyword. An env with `num_threads=1` pickles.

    ## Version History
    * v0: Initial version.
    """

    INFO_KEYS = INFO_KEYS

    def __init__(self, num_envs: int = 1, rules="yacht", obs_mode: str = "flat", reward: str = "points",
                 illegal_action: str = "penalize", illegal_penalty: float = 1.0, render_mode=None,
                 max_episode_steps=None, num_threads: int = 1, autoreset_mode=AutoresetMode.SAME_STEP,
                 action_set: str = "all", dice_obs: str = "scaled", rule_obs: str = "none", **overrides):
        check_batched_args(num_envs, obs_mode, illegal_action, render_mode, max_episode_steps)
        check_choice("reward", reward, REWARDS)
        self._init_batched(num_envs, autoreset_mode, action_set=action_set, dice_obs=dice_obs, rule_obs=rule_obs)
        self.rules = resolve_rules(rules, overrides)
        self.core = TableCore(self.rules, self.num_envs, 1, reward=reward, illegal_penalty=illegal_penalty,
                              num_threads=num_threads, autoreset=self.autoreset_mode == AutoresetMode.SAME_STEP)
        self._actions = self.core.own_actions     # the core's own: its fresh step skips numba's type dispatch
        self._spaces(flat_space(self.rules), self.core.num_actions)
