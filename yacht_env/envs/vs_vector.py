"""Batched `YachtVs-v0`: N tables, the learner in one seat of each, the opponents stepped inside the step.

    envs = gymnasium.make_vec("YachtVs-v0", num_envs=1024, vectorization_mode="vector_entry_point",
                              num_players=2, opponents=["strong"], reward="win")

The tables of one `yacht_env.envs.vs_env.SeatTables`: the same seats, opponents, observations, rewards and
illegal-action penalty as `YachtVs-v0` (flat observations; illegal actions are always penalized),
every opponent deciding for all the tables where it is to move in one call. Masks: `info["action_mask"]`
(int8, shape (N, A)) and `envs.action_masks()` (bool).

Info: the keys of `YachtVs-v0` for every table (`action_mask`, `seat`, `totals` per seat, `game_seed`,
`illegal_action`), each with its `_key` array. Seeding, `reset_mask` and the three autoreset modes are
those of every batched env (`yacht_env.envs.vector.BatchedVectorEnv`). An opponent that fails is reported
and forfeits its seat for the rest of that game, as in `YachtVs-v0`: a warning, and
`info["opponent_faults"]` (an object array of per-table lists of fault dicts, rows marked by
`info["_opponent_faults"]`; both keys only in a reset or step with a fault).
"""
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from .env import check_choice, resolve_rules
from .table_obs import seat_space
from .vector import BatchedVectorEnv, check_batched_args
from .vs_env import VS_REWARDS, SeatTables


class YachtVsVectorEnv(BatchedVectorEnv):
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
    As every batched env (`BatchedVectorEnv`: seeding, `reset_mask`): table i seeded s plays the games of
    `YachtVs-v0` reset with seed s + i and then plain `reset()`s.

    ## Episode End
    As every batched env (`BatchedVectorEnv`: the three autoreset modes, `SAME_STEP` by default); under
    `SAME_STEP` the observation of a table whose game ended is the learner's first of the next game (the
    opponents before it have moved). Never truncated.

    ## Information
    `reset` and every step return `YachtVs-v0`'s keys for all N tables, batched as Gymnasium's vector envs
    batch them, each with its `_key` bool array: `action_mask` (int8, (N, A)), `seat` (the learner's, int64),
    `totals` (every seat's total, int64 (N, num_players); teammates share their team's), `game_seed`
    (uint64) and `illegal_action` (bool). `final_info` adds `winners`: (N, num_players) bool, the seats
    in first place (`YachtVs-v0` gives them as a list of seats); `final_total` holds the learner's final
    totals on the rows whose game ended.

    ## Arguments
    `num_envs`, `num_threads` (when one opponent plays every other seat from kept plans, as `strong`
    does, its moves are played in compiled code inside the step, in slices on that many threads: the
    same games for any count; `yacht_env.envs.step_threads`), and the arguments of `YachtVs-v0` (obs_mode
    "flat" only, no render_mode); `autoreset_mode` as `BatchedVectorEnv`.

    ## Version History
    * v0: opponents as agent specs, agents or callables, stepped by the lockstep runner.
    """

    INFO_KEYS = ("action_mask", "seat", "totals", "game_seed", "illegal_action")

    def __init__(self, num_envs: int = 1, rules="yacht", num_players: int = 2, opponents=None, seat=0,
                 reward: str = "points", obs_mode: str = "flat", illegal_action: str = "penalize",
                 illegal_penalty: float = 1.0, render_mode=None, max_episode_steps=None, num_threads: int = 1,
                 autoreset_mode=AutoresetMode.SAME_STEP, **overrides):
        check_batched_args(num_envs, obs_mode, illegal_action, render_mode, max_episode_steps)
        check_choice("reward", reward, VS_REWARDS)
        self._init_batched(num_envs, autoreset_mode)
        self.rules = resolve_rules(rules, overrides)
        self.tables = SeatTables(self.rules, self.num_envs, num_players, opponents, seat, reward, num_threads)
        self.illegal_penalty = float(illegal_penalty)
        self.single_observation_space = seat_space(self.rules, self.tables.state.num_sheets)
        self.single_action_space = spaces.Discrete(self.tables.num_actions)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._masks = np.zeros((self.num_envs, self.tables.num_actions), np.int8)   # no decision before a reset

    # the hooks of BatchedVectorEnv over the seat tables
    def _begin(self, which, streams) -> None:
        t = self.tables
        rows = np.flatnonzero(which)
        t.streams[rows] = np.array([int(streams[i]) & 0xFFFFFFFFFFFFFFFF for i in rows], np.uint64)
        t.episodes[rows] = 0
        t.start(rows)

    def reset(self, *, seed=None, options=None):
        obs, info = super().reset(seed=seed, options=options)
        self._faults(info)
        return obs, info

    def step(self, actions):
        out = super().step(actions)
        self._faults(out[4])
        return out

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

    def _follow(self, which, fresh: bool) -> None:
        t = self.tables
        rows = np.flatnonzero(which)
        t.episodes[rows] += 1
        t.start(rows)

    def _game_seeds(self) -> np.ndarray:
        return self.tables.state.seeds

    def _play(self, actions, live):
        t = self.tables
        if live is None:
            rewards, over, illegal = t.step(actions)
        else:                                     # NEXT_STEP: the tables whose game ended play nothing
            rows = np.flatnonzero(live)
            rewards, over, illegal = (np.zeros(self.num_envs, np.float32), np.zeros(self.num_envs, np.bool_),
                                      np.zeros(self.num_envs, np.bool_))
            rewards[rows], over[rows], illegal[rows] = t.step(actions[rows], rows)
        rewards[illegal] = -self.illegal_penalty
        return rewards, over.copy(), illegal

    def _observations(self) -> np.ndarray:
        return self.tables.observations()

    def _autoreset(self, over, illegal, seeds_before) -> dict:
        t = self.tables
        done = np.flatnonzero(over)
        final = np.zeros((self.num_envs, self.single_observation_space.shape[0]), np.float32)
        final[done] = t.observations(done)
        out = {"final_obs": final, "_final_obs": over.copy(), "final_total": np.where(over, t.learner_totals(), 0)}
        last = self._marked(self._info(illegal), np.ones(self.num_envs, np.bool_))
        last["action_mask"][:] = 1                # a finished game marks every action legal
        last["winners"], last["_winners"] = t.winners(t.rows), over.copy()
        for key in [k for k in last if not k.startswith("_")]:
            last[key][~over] = 0
            last[f"_{key}"] = over.copy()
        out["final_info"], out["_final_info"] = last, over.copy()
        self._follow(over, fresh=False)
        return out

    @staticmethod
    def final_totals(info) -> np.ndarray:
        """The learner's final totals on the rows of a SAME_STEP step's info whose game ended."""
        return info["final_total"]

    def _info(self, illegal) -> dict:
        """`YachtVs-v0`'s info keys for every table, unmarked: action_mask (int8, (N, A)), seat, totals (per
        seat, (N, num_players)), game_seed (uint64) and illegal_action (bool)."""
        t = self.tables
        self._masks = t.masks(t.rows)             # the masks of every step, computed once (`action_masks`)
        return {"action_mask": self._masks.copy(), "seat": t.seat.copy(), "totals": t.seat_totals(t.rows),
                "game_seed": t.state.seeds.copy(), "illegal_action": illegal.copy()}

    def action_masks(self) -> np.ndarray:
        """(N, A) bool mask of the learner's legal actions now (those the last info showed)."""
        return self._masks.astype(bool)

    def close(self, **kwargs):
        self.tables.close()
        super().close(**kwargs)
