"""Batched `YachtVs-v0`: N tables, the learner in one seat of each, the opponents stepped inside the step.

    envs = gymnasium.make_vec("YachtVs-v0", num_envs=1024, vectorization_mode="vector_entry_point",
                              num_players=2, opponents=["strong"], reward="win")

The tables of one `yacht_env.envs.table_core.TableCore`: the same seats, opponents, observations,
rewards and illegal-action penalty as `YachtVs-v0` (flat observations; illegal actions are always
penalized), every opponent deciding for all the tables where it is to move in one call. Masks: `info["action_mask"]`
(int8, shape (N, A)) and `envs.action_masks()` (bool).

Info: the keys of `YachtVs-v0` for every table (`action_mask`, `seat`, `total` (the learner's),
`totals` per seat, `game_seed`, `illegal_action`), each with its `_key` array. Seeding, `reset_mask` and
the three autoreset modes are those of every batched env (`yacht_env.envs.vector.BatchedVectorEnv`). An
opponent that fails is reported and forfeits its seat for the rest of that game, as in `YachtVs-v0`: a warning, and
`info["opponent_faults"]` (an object array of per-table lists of fault dicts, rows marked by
`info["_opponent_faults"]`; both keys only in a reset or step with a fault).
"""
from gymnasium.vector import AutoresetMode

from .env import check_choice, resolve_rules
from .table_obs import seat_space
from .vector import BatchedVectorEnv, check_batched_args
from .table_core import TableCore
from .vs_env import VS_REWARDS, check_vs_players


class YachtVsVectorEnv(BatchedVectorEnv):
    """N multi-player tables with the learner at one seat of each, opponents stepped inside the step.

    ## Description
    `num_envs` tables of `yacht_env.envs.vs_env.YachtVsEnv`: the same seats, opponents, observations and
    rewards; every opponent decides for all the tables where it is to move in one call.

    ## Action Space
    `MultiDiscrete` of `num_envs` x `Discrete(31 + columns * n_boxes)` (`yacht_env.core.actions`; 63 + ... with
    six dice).

    ## Observation Space
    `(num_envs, 13 + columns * (2 * n_boxes + 2) + 1 + P * (sheets - 1))` float32 in [0, 1], the flat
    observation of `YachtVs-v0` (`yacht_env.envs.table_obs`; P = 5 under rules with saved rolls, else 4); masks
    in `info["action_mask"]` (int8) and
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
    `total` (the learner's sheet's total, int64), `totals` (every seat's total, int64 (N, num_players);
    teammates share their team's), `game_seed` (uint64) and `illegal_action` (bool). A game's end adds
    `winners` ((N, num_players) bool, the seats in first place; `YachtVs-v0` gives them as a list of
    seats): in `final_info` under `SAME_STEP`, else in the step's info, rows marked by `_winners`.
    `final_total` (top level, `SAME_STEP`) repeats `final_info["total"]` for the rows whose game ended.

    ## Arguments
    `num_envs`, `num_threads` (when one opponent plays every other seat from kept plans, as `strong`
    does, its moves are played in compiled code inside the step, in slices on that many threads: the
    same games for any count; `yacht_env.envs.step_threads`), and the arguments of `YachtVs-v0` (obs_mode
    "flat" only, no render_mode; `action_set`, `dice_obs`, `table_obs` and `rule_obs` included); `autoreset_mode` as
    `BatchedVectorEnv`.

    ## Version History
    * v0: opponents as agent specs, agents or callables, stepped by the lockstep runner.
    """

    INFO_KEYS = ("action_mask", "seat", "total", "totals", "game_seed", "illegal_action")

    def __init__(self, num_envs: int = 1, rules="yacht", num_players: int = 2, opponents=None, seat=0,
                 reward: str = "points", obs_mode: str = "flat", illegal_action: str = "penalize",
                 illegal_penalty: float = 1.0, render_mode=None, max_episode_steps=None, num_threads: int = 1,
                 autoreset_mode=AutoresetMode.SAME_STEP, action_set: str = "all", dice_obs: str = "scaled",
                 table_obs: str = "summary", rule_obs: str = "none", **overrides):
        check_batched_args(num_envs, obs_mode, illegal_action, render_mode, max_episode_steps)
        check_choice("reward", reward, VS_REWARDS)
        self._init_batched(num_envs, autoreset_mode, action_set=action_set, dice_obs=dice_obs, table_obs=table_obs,
                           rule_obs=rule_obs)
        self.rules = resolve_rules(rules, overrides)
        check_vs_players(self.rules, num_players, seat)
        self.core = TableCore(self.rules, self.num_envs, num_players, opponents, seat, reward, num_threads,
                              illegal_penalty=illegal_penalty)
        self.illegal_penalty = float(illegal_penalty)
        self._spaces(seat_space(self.rules, self.core.num_sheets), self.core.num_actions)

    def close(self, **kwargs):
        if hasattr(self, "core"):       # not when its arguments were refused (`close_extras`)
            self.core.close()
        super().close(**kwargs)
