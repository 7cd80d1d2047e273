"""Batched `YachtVs-v0`: N tables, the learner in one seat of each, the opponents stepped inside the step.

    envs = gymnasium.make_vec("YachtVs-v0", num_envs=1024, vectorization_mode="vector_entry_point",
                              num_players=2, opponents=["strong"], reward="win")

The tables of one `yacht_env.envs.vs_env.SeatTables`: the same seats, opponents, observations, rewards and
illegal-action penalty as `YachtVs-v0` (flat observations; illegal actions are always penalized),
every opponent deciding for all the tables where it is to move in one call. Masks: `info["action_mask"]`
(int8, shape (N, A)) and `envs.action_masks()` (bool).

Info: the keys of `YachtVs-v0` for every table (`action_mask`, `seat`, `totals` per seat, `game_seed`,
`illegal_action`), each with its `_key` array. Autoreset (`AutoresetMode.SAME_STEP`): when table i's
game ends, the step returns its reward and terminated[i] = True; observation row i is already the
learner's first one of the next game (the opponents before it have moved), the last observation is in
`info["final_obs"][i]` (rows marked by `info["_final_obs"]`), the last info in `info["final_info"]`
(with `winners`, (N, num_players) bool: the seats in first place) and `info["final_total"]` holds the
learner's final totals on those rows. An opponent that fails is reported and forfeits its seat for the rest
of that game, as in `YachtVs-v0`: a warning, and `info["opponent_faults"]` (an object array of per-table
lists of fault dicts, rows marked by `info["_opponent_faults"]`; both keys only in steps with a fault).

Seeding: `reset(seed=s)` gives table i the stream s + i (a list of seeds gives one stream each): its
episode k plays the dice of `Game(seed=dice_source.game_seed(s + i, k))`, the games of
`gymnasium.make("YachtVs-v0", ...)` reset with seed s + i and then plain `reset()`s.
"""
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from ..core.actions import as_actions
from .env import check_choice, resolve_rules
from .table_obs import seat_space
from .vector import check_batched_args
from .vs_env import VS_REWARDS, SeatTables


class YachtVsVectorEnv(VectorEnv):
    """N multi-player tables with the learner at one seat of each, opponents stepped inside the step.

    ## Description
    `num_envs` tables of `yacht_env.envs.vs_env.YachtVsEnv`: the same seats, opponents, observations and
    rewards; every opponent decides for all the tables where it is to move in one call.

    ## Action Space
    `MultiDiscrete` of `num_envs` x `Discrete(31 + columns * n_boxes)` (`yacht_env.core.actions`).

    ## Observation Space
    `(num_envs, 13 + columns * (2 * n_boxes + 2) + 1 + 4 * (sheets - 1))` float32 in [0, 1], the flat
    observation of `YachtVs-v0` (`yacht_env.envs.table_obs`); masks in `info["action_mask"]` (int8) and
    `action_masks()` (bool).

    ## Rewards
    As `YachtVs-v0` ("points" or "win"), float32; illegal actions are always penalized.

    ## Starting State
    `reset(seed=s)`: table i plays the stream s + i (a list gives one stream each), the games of
    `YachtVs-v0` reset with seed s + i and then plain `reset()`s.

    ## Episode End
    Same-step autoreset: terminated[i] is set on the last move, observation row i is already the next
    game's, the last one is in `info["final_obs"][i]` (rows in `info["_final_obs"]`) and
    `info["final_total"]` holds the learner's final totals; the last info is `info["final_info"]` (the keys
    below plus `winners`, rows in `info["_final_info"]`). Never truncated.

    ## Information
    `reset` and every step return `YachtVs-v0`'s keys for all N tables, batched as Gymnasium's vector envs
    batch them, each with its `_key` bool array: `action_mask` (int8, (N, A)), `seat` (the learner's, int64),
    `totals` (every seat's total, int64 (N, num_players); teammates share their team's), `game_seed`
    (uint64) and `illegal_action` (bool). `final_info` adds `winners`: (N, num_players) bool, the seats
    in first place (`YachtVs-v0` gives them as a list of seats).

    ## Arguments
    `num_envs`, `num_threads` (when one opponent plays every other seat from kept plans, as `strong`
    does, its moves are played in compiled code inside the step, in slices on that many threads: the
    same games for any count; `yacht_env.envs.step_threads`), and the arguments of `YachtVs-v0` (obs_mode
    "flat" only, no render_mode).

    ## Version History
    * v0: opponents as agent specs, agents or callables, stepped by the lockstep runner.
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(self, num_envs: int = 1, rules="yacht", num_players: int = 2, opponents=None, seat=0,
                 reward: str = "points", obs_mode: str = "flat", illegal_action: str = "penalize",
                 illegal_penalty: float = 1.0, render_mode=None, max_episode_steps=None, num_threads: int = 1,
                 **overrides):
        check_batched_args(num_envs, obs_mode, illegal_action, render_mode, max_episode_steps)
        check_choice("reward", reward, VS_REWARDS)
        self.rules = resolve_rules(rules, overrides)
        self.num_envs = int(num_envs)
        self.tables = SeatTables(self.rules, self.num_envs, num_players, opponents, seat, reward, num_threads)
        self.illegal_penalty = float(illegal_penalty)
        self.single_observation_space = seat_space(self.rules, self.tables.state.num_sheets)
        self.single_action_space = spaces.Discrete(self.tables.num_actions)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.render_mode = None
        self._truncated = np.zeros(self.num_envs, np.bool_)

    def reset(self, *, seed=None, options=None):
        """Start episode 0 of every stream: seed s gives streams s, s+1, ...; a list gives one each."""
        t = self.tables
        if isinstance(seed, (list, tuple, np.ndarray)):
            if len(seed) != self.num_envs:
                raise ValueError(f"got {len(seed)} seeds for {self.num_envs} envs")
            streams = [int(s) for s in seed]
            self._np_random, self._np_random_seed = np.random.default_rng(streams[0]), streams[0]
        else:
            if seed is not None:
                self._np_random, self._np_random_seed = np.random.default_rng(seed), int(seed)
            base = int(seed) if seed is not None else int(self.np_random.integers(2 ** 63))
            streams = [base + i for i in range(self.num_envs)]
        t.streams[:] = np.array([s & 0xFFFFFFFFFFFFFFFF for s in streams], np.uint64)
        t.episodes[:] = 0
        t.start(t.rows)
        info = self._info(t.rows, np.zeros(self.num_envs, np.bool_))
        self._faults(info)
        return t.observations(), info

    def _faults(self, info: dict) -> None:
        """info["opponent_faults"][i]: the faults of the opponents at table i since the last step or reset
        (a list of `YachtVs-v0`'s fault dicts), rows marked by info["_opponent_faults"]; both keys only
        when some opponent faulted."""
        faults = self.tables.take_faults()
        if not faults:
            return
        per = np.empty(self.num_envs, object)
        for i in range(self.num_envs):
            per[i] = []
        for f in faults:
            per[f["table"]].append(f)
        info["opponent_faults"] = per
        info["_opponent_faults"] = np.array([len(x) > 0 for x in per], np.bool_)

    def step(self, actions):
        t = self.tables
        a = as_actions(actions, t.num_actions, self.num_envs)
        rewards, over, illegal = t.step(a)
        rewards[illegal] = -self.illegal_penalty
        obs = t.observations()
        info = {}
        if over.any():
            done = np.flatnonzero(over)
            final = np.zeros_like(obs)
            final[done] = obs[done]
            info["final_obs"], info["_final_obs"] = final, over.copy()
            info["final_total"] = np.where(over, t.learner_totals(), 0)
            last = self._info(t.rows, illegal)
            last["action_mask"][:] = 1                # a finished game marks every action legal
            last["winners"], last["_winners"] = t.winners(t.rows), over.copy()
            for key in [k for k in last if not k.startswith("_")]:
                last[key][~over] = 0
                last[f"_{key}"] = over.copy()
            info["final_info"], info["_final_info"] = last, over.copy()
            t.episodes[done] += 1
            t.start(done)
            obs[done] = t.observations(done)
        info.update(self._info(t.rows, illegal))
        self._faults(info)
        return obs, rewards, over.copy(), self._truncated.copy(), info

    def _info(self, rows, illegal) -> dict:
        """`YachtVs-v0`'s info keys for every table, batched as Gymnasium's vector envs batch them (each with
        its `_key` array, all True): action_mask (int8, (N, A)), seat, totals (per seat, (N, num_players)),
        game_seed (uint64) and illegal_action (bool)."""
        t = self.tables
        info = {"action_mask": t.masks(rows), "seat": t.seat[rows].copy(), "totals": t.seat_totals(rows),
                "game_seed": t.state.seeds[rows].copy(), "illegal_action": illegal.copy()}
        for key in list(info):
            info[f"_{key}"] = np.ones(len(rows), np.bool_)
        return info

    def action_masks(self) -> np.ndarray:
        """(N, A) bool mask of the learner's legal actions now."""
        return self.tables.masks().astype(bool)

    def close(self, **kwargs):
        self.tables.close()
        super().close(**kwargs)
