"""The one table core: N tables of one rule set with 1-8 seats, the stepper under every environment.

    core = TableCore(rules, num_tables, num_players=1)                      # Yacht-v0 (one seat)
    core = TableCore(rules, n, num_players=3, opponents="strong", seat=0)  # YachtVs-v0 (a learner's seat)
    core = TableCore(rules, 1, num_players=4, seat="all")                  # the PettingZoo AEC env

`Yacht-v0`, its vector env, `YachtVs-v0`, its vector env, both SB3 adapters and the PettingZoo env are
facades over a `TableCore`: it owns the tables (`yacht_env.core.engine.State`), the streams of episodes
(seeding), stepping, the legal masks (computed once per step, `mask`), the opponents inside the step and
their planned fast path (`yacht_env.core.plan_source`), rewards, the final observation of an ended game,
and the info of every env (`info`, the same keys single and batched).

`TableCore(...)` picks the stepper of its mode once (`yacht_env.envs.table_state.mode_of`); each is a
`TableCore` over the same shared state (`yacht_env.envs.table_state`) with its own step and start:
- one seat (`num_players=1`): `yacht_env.envs.solo.SoloStepper`, on its own compiled kernel
  (`yacht_env.envs.batch.step_games`: move, next roll, reward, observation, mask and, with `autoreset`,
  the next episode, in one pass per game);
- `seat` an int or "rotate" (2-8 seats): `yacht_env.envs.learner.LearnerStepper`, the learner at seat[i],
  the opponents playing the other seats inside the step (a planned opponent in compiled code);
- `seat="all"`: `yacht_env.envs.every_seat.EverySeatStepper`, every seat deciding through `step`.

Seeding, once for every env: table i plays a *stream* of episodes (`streams[i, STREAM]`); episode k of
stream s deals the dice of `Game(rules, num_players, seed=yacht_env.core.dice_source.game_seed(s, k))`.
`begin(rows, streams)` starts episode 0 of the given streams, `follow(rows)` the next episode.
"""
from .every_seat import EverySeatStepper
from .learner import LearnerStepper
from .solo import SoloStepper
from .table_state import ALL, TableCore

__all__ = ["ALL", "EverySeatStepper", "LearnerStepper", "SoloStepper", "TableCore"]
