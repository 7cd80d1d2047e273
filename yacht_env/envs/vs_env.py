"""`YachtVs-v0`: the learner takes one seat of a 2-8 player game; opponents play the others inside the step.

    env = gymnasium.make("YachtVs-v0", num_players=3, opponents=["strong", "normal"], reward="win")
    envs = gymnasium.make_vec("YachtVs-v0", num_envs=1024, vectorization_mode="vector_entry_point",
                              num_players=2, opponents=["strong"])          # `yacht_env.envs.vs_vector`

`YachtVsEnv` is a facade over one table of the table core (`yacht_env.envs.table_core.TableCore`, which
steps the learner's moves and the opponents'), `yacht_env.envs.vs_vector.YachtVsVectorEnv` over N.
"""
import gymnasium as gym
import numpy as np

from ..core.actions import action_name, as_action, legal_summary
from .env import ILLEGAL, OBS_MODES, check_choice, check_render_mode, reset_first_table, resolve_rules
from ..core.game import Game, IllegalMove
from .options import EnvOptions
from .render import RENDER_MODES, last_move, renderer
from .table_core import TableCore
from .table_obs import render_table, seat_dict_obs, seat_dict_space, seat_space

VS_REWARDS = ("points", "win")


def check_vs_players(rules, num_players, seat) -> None:
    """ValueError naming the range when `num_players` is not 2 or more seats the rules allow, or `seat` is
    not a learner's seat (the table core's other checks follow)."""
    if not isinstance(num_players, int) or isinstance(num_players, bool) or num_players < 2:
        raise ValueError(f"YachtVs-v0 needs {max(2, rules.min_players)} to {rules.max_players} players under "
                         f"rules {rules.name!r}, got {num_players!r}")
    if isinstance(seat, str) and seat != "rotate":
        raise ValueError(f"seat must be 0..{num_players - 1} or 'rotate', got {seat!r}")


class YachtVsEnv(gym.Env):
    """A seat at a multi-player Yacht table, opponents inside the step.

    ## Description
    A table of `num_players` seats under any rule set; the learner plays one seat, the opponents the
    others, in the table's exact turn order (in team games, teammates are opponents' players too and the
    learner's sheet is its team's: seat i plays for team i % teams).

    Opponents (`opponents`): one for every other seat, or a list of one per other seat in seat order;
    each an agent spec (`"strong"`, `"normal"`, `"learned:PATH"`, `"external:CMD"`: made by the factory
    registered as the `yacht_arena.agents` entry point), an agent object, or a callable
    `policy(game) -> action` (`yacht_env.core.players`). The default plays uniformly random legal actions.
    An opponent that fails (raises, answers with an illegal action, or, as an external bot, times out,
    crashes or replies with garbage) never stops the episode: a warning (`yacht_env.core.players.OpponentFault`)
    and an entry in `info["opponent_faults"]` report it, and its seat forfeits the rest of that game,
    playing the fallback (score the first legal box, as a tournament's forfeit does; an external bot's
    faulty decision itself is its own fallback, the best-paying box). The game is scored as played: the
    fallback's points count and places come from the totals. Built-in agents are not watched this way.

    ## Action Space
    `Discrete(31 + columns * n_boxes)`, the encoding of `yacht_env.core.actions`: 0..30 re-roll holding the
    dice whose bits are set (legal while rolls remain), 31 + column * n_boxes + box scores that box; with six
    dice (`maxi`) 63 hold actions 0..62 come first.

    ## Observation Space
    `obs_mode="flat"`: `Box(0, 1, (13 + columns * (2 * n_boxes + 2) + 1 + P * (sheets - 1),), float32)`,
    the learner's sheet in the layout of `yacht_env.envs.obs`, then its total and every other sheet's total,
    boxes filled, upper-bonus progress and open Yacht boxes, and under rules with saved rolls its saved rolls
    (P = 5 entries per other sheet then, else 4: `yacht_env.envs.table_obs`); `obs_mode="dict"`:
    the same state unscaled. Once the game is over the dice shown are the last the learner decided on,
    with no rolls left.

    ## Rewards
    `reward="points"`: the points the learner's sheet gained since its last step (its own moves and its
    teammates'), so the return is its final total; `reward="win"`: at the end +1 for an outright win,
    0 for a first place shared with others (ties under `tiebreak: share`) and -1 for a loss
    (`tiebreak: sudden_death` breaks ties with dice rolls first). An illegal action gives
    `-illegal_penalty` and changes nothing, or raises `IllegalMove` with `illegal_action="raise"`.

    ## Starting State
    Episode k after `reset(seed=s)` plays the dice of `Game(seed=dice_source.game_seed(s, k))`; the
    opponents seated before the learner have moved and the learner's first roll is made.

    ## Episode End
    Termination: when every sheet is full; truncation: never. `info["winners"]` names the winning
    seats; the mask is all true once the game is over (never all false).

    ## Information
    `action_mask`, `seat` (the learner's), `total` (the learner's sheet's), `totals` (every seat's),
    `game_seed`, `illegal_action` (the keys of the batched form, `YachtVsVectorEnv`); once
    the game is over, `winners`; and, only when an opponent faulted since the last step or reset,
    `opponent_faults`: a list of {"table", "seat", "opponent", "kind", "cause", "game_seed"} (kind: error,
    illegal, or an external bot's timeout, crash or garbage).

    ## Arguments
    `rules` (a preset, a rules file or a RuleSet) and any rules knob as a keyword; `num_players`
    (2-8); `opponents`; `seat` (an int, or "rotate": seat k % num_players in episode k); `reward`
    ("points" or "win"); `obs_mode`; `illegal_action` ("penalize" or "raise"); `illegal_penalty`;
    `action_set` and `dice_obs` (as `Yacht-v0`), `table_obs` ("summary" or "full": every other sheet in full
    and unsaturated totals) and `rule_obs` ("none" or "knobs": the rule knobs as entries), all in
    `yacht_env.envs.options` (the entries follow the seat layout);
    `render_mode`: "ansi" (every sheet as text), "rgb_array" (the table as an (H, W, 3) uint8 picture: the
    dice, held marks, whose turn, the learner's last move, every sheet; `yacht_env.envs.render`, pygame) or
    "human" (that picture in a pygame window at every reset and step).

    ## Version History
    * v0: opponents as agent specs, agents or callables, played through the engine's lockstep
      runner; a batched form for `gymnasium.make_vec`.
    """

    metadata = {"render_modes": list(RENDER_MODES), "render_fps": 4}

    def __init__(self, rules="yacht", num_players: int = 2, opponents=None, seat=0, reward: str = "points",
                 obs_mode: str = "flat", illegal_action: str = "penalize", illegal_penalty: float = 1.0,
                 render_mode=None, action_set: str = "all", dice_obs: str = "scaled", table_obs: str = "summary",
                 rule_obs: str = "none", **overrides):
        check_choice("obs_mode", obs_mode, OBS_MODES)
        EnvOptions(action_set, dice_obs, obs_mode, table_obs, rule_obs=rule_obs)   # checked before anything is built
        check_choice("reward", reward, VS_REWARDS)
        check_choice("illegal_action", illegal_action, ILLEGAL)
        check_render_mode(render_mode, self.metadata["render_modes"])
        self.rules = resolve_rules(rules, overrides)
        check_vs_players(self.rules, num_players, seat)
        self.core = TableCore(self.rules, 1, num_players, opponents, seat, reward, illegal_penalty=illegal_penalty)
        self.num_players, self.num_sheets = num_players, self.core.num_sheets
        self.options = EnvOptions(action_set, dice_obs, obs_mode, table_obs, self.rules, self.num_sheets, rule_obs)
        self.obs_mode, self.illegal_action = obs_mode, illegal_action
        self.illegal_penalty, self.render_mode = float(illegal_penalty), render_mode
        self.action_space = gym.spaces.Discrete(self.core.num_actions)
        self.observation_space = (self.options.space(seat_space(self.rules, self.num_sheets)) if obs_mode == "flat"
                                  else seat_dict_space(self.rules, self.num_sheets))
        self.game: Game | None = None
        self._one = np.zeros(1, np.int64)
        self._renderer = renderer(render_mode, self.rules, self.num_sheets, self.metadata["render_fps"], "YachtVs-v0")
        self._move = None

    @property
    def seat(self) -> int:
        return int(self.core.seat[0])

    def reset(self, *, seed=None, options=None):
        reset_first_table(self, seed, options, "YachtVs-v0")
        self.game = Game.of_table(self.core.state, 0)
        self._move = None
        if self.render_mode == "human":
            self.render()
        return self._obs(), self._info(False)

    def step(self, action):
        if self.game is None or self.game.is_over:
            raise RuntimeError("the episode is over; call reset() before step()")
        a = as_action(action, self.action_space.n)
        mask = self.core.mask[0]                  # the legal actions the last info showed (one per step)
        if not mask[a]:
            if self.illegal_action == "raise":
                raise IllegalMove(f"action {a} ({action_name(self.rules, a)}) is not legal now; "
                                  f"legal: {legal_summary(self.rules, mask)}")
            return self._obs(), -self.illegal_penalty, False, False, self._info(True)
        self._one[0] = a
        before = self.core.shown[0].copy() if self._renderer is not None else None
        rewards, over, _ = self.core.step(self._one)
        if before is not None:                    # the last move, for the picture only
            self._move = last_move(self.rules, "you", before, a)
        if self.render_mode == "human":
            self.render()
        return self._obs(), float(rewards[0]), bool(over[0]), False, self._info(False)

    def action_masks(self) -> np.ndarray:
        """Legal actions now, as bool; all true once the game is over (never all false)."""
        return self._mask(self.core.mask[0]).astype(bool)

    def _mask(self, mask: np.ndarray) -> np.ndarray:
        """A mask row of the core as the `action_set` option shows it."""
        if self.options.plain:
            return mask
        over = self.game is not None and self.game.is_over
        return self.options.masks(mask[None], self.core.observations()[:1], [over])[0]

    def _obs(self):
        if self.obs_mode == "flat":
            return self.options.observe(self.core.observations()[:1], self.core.state, [0], self.core.sheet[:1])[0]
        return seat_dict_obs(self.game, self.seat, self.core.shown[0])

    def _info(self, illegal: bool) -> dict:
        """The core's info of the table now (`TableCore.info_of`), with the opponents' faults since the
        last step or reset when there are any."""
        info = self.core.info_of(0, illegal)
        if not self.options.plain:
            info["action_mask"] = self._mask(info["action_mask"])
        faults = self.core.take_faults()
        if faults:
            info["opponent_faults"] = faults
        return info

    def render(self):
        if self.render_mode is None:
            return None
        if self.game is None:
            raise RuntimeError("no episode has started; call reset() before render()")

        def label(seats):
            return "you" if self.seat in seats else "seat " + ",".join(map(str, seats))
        if self._renderer is not None:
            labels = [label([s for s in range(self.num_players) if self.game.sheet_of(s) == sheet])
                      for sheet in range(self.num_sheets)]
            return self._renderer.render(self.game, self.core.shown[0], labels, self._move)
        return render_table(self.game, self.core.shown[0], label)

    def close(self):
        self.core.close()
        if self._renderer is not None:
            self._renderer.close()
