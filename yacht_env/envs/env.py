"""`Yacht-v0`: one player fills a Yacht score sheet under any rule set, with masked actions.

    env = gymnasium.make("Yacht-v0", rules="yacht", rolls_per_turn=2)   # any preset, any knob

The environment is `YachtEnv` (its docstring has the Gymnasium sections: spaces, rewards, episode
end, info, arguments); `yacht_env.envs.vector.YachtVectorEnv` is its batched form, what
`gymnasium.make_vec("Yacht-v0", vectorization_mode="vector_entry_point")` builds.
"""
import gymnasium as gym
import numpy as np

from ..core.actions import action_name, as_action, legal_summary
from ..core.engine import TURN, UPPER, YACHT50
from ..core.game import Game, IllegalMove
from .obs import dict_obs, dict_space, flat_space
from .options import EnvOptions
from .render import RENDER_MODES, last_move, render_sheet, renderer
from ..rules import RuleSet, load
from .table_core import TableCore

OBS_MODES = ("flat", "dict")
REWARDS = ("points", "terminal")
ILLEGAL = ("penalize", "raise")
SEED_LIMIT = 2 ** 64   # game seeds and streams are 64-bit: seeds are 0 .. SEED_LIMIT - 1


def check_choice(name: str, value, choices) -> None:
    """Raise a ValueError naming the choices when value is not one of them."""
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))}, got {value!r}")


class RenderModeError(ValueError, TypeError):
    """An unsupported render_mode. It is also a TypeError because Stable-Baselines3's `make_vec_env`
    asks every env for render_mode="rgb_array" and makes it without one when that raises TypeError."""


def check_render_mode(render_mode, modes) -> None:
    """Raise RenderModeError naming the modes when render_mode is neither None nor one of them."""
    if render_mode is not None and render_mode not in modes:
        raise RenderModeError(f"render_mode must be one of {', '.join(map(repr, (None, *modes)))}, "
                              f"got {render_mode!r}")


def check_seed(seed) -> int:
    """`seed` as an int 0 .. 2**64 - 1 (a stream of episodes); ValueError naming the range otherwise."""
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < SEED_LIMIT:
        shown = repr(seed) if len(repr(seed)) <= 40 else repr(seed)[:37] + "..."
        raise ValueError(f"a seed must be an integer 0 .. 2**64 - 1, got {shown}")
    return int(seed)


def check_no_options(options, env_id: str) -> None:
    """Refuse reset options other than None or {} with a ValueError naming them."""
    if options is None or (isinstance(options, dict) and not options):
        return
    shown = sorted(map(str, options)) if isinstance(options, dict) else repr(options)[:40]
    raise ValueError(f"{env_id} reset takes no options, got {shown}")


def reset_first_table(env: gym.Env, seed, options, env_id: str) -> None:
    """How `reset` of Yacht-v0 and YachtVs-v0 begins: the seed and options checked, `np_random` seeded
    (`gym.Env.reset`), and table 0 of the env's core reset from the seed or, without one, from `np_random`."""
    if seed is not None:
        seed = check_seed(seed)
    check_no_options(options, env_id)
    gym.Env.reset(env, seed=seed)
    env.core.reset_table(0, seed, lambda: int(env.np_random.integers(2 ** 63)))


def resolve_rules(rules, overrides) -> RuleSet:
    """A RuleSet from a RuleSet, a preset name, a YAML path or a dict, with overrides."""
    return load(rules, **overrides)


class YachtEnv(gym.Env):
    """Solitaire Yacht: one player fills one score sheet, under any rule set, with masked actions.

    ## Description
    Yacht is the dice game Yahtzee comes from. A turn starts with a roll of five dice (six under rules with
    `dice: 6`, such as the `maxi` preset: every "five" and "31" below is then "six" and "63"); the player may
    re-roll any of them while rolls remain (`rolls_per_turn` rolls in all, 3 under every preset), then
    must score the dice in one open box of the sheet. The game ends when every box is filled, and
    the score is the boxes plus the bonuses the rules pay (upper-section bonus, extra-Yacht bonus).
    The rules are data: any preset (`yacht_env.rules.presets()`), a YAML rule file, a dict or a
    `RuleSet`, with any knob changed by keyword. The dice are kept sorted after every roll and the
    first roll of every turn is made for the player, so every observation has dice to decide on.

    ## Action Space
    `Discrete(31 + columns * n_boxes)` (44 under the `yacht` preset), the encoding of
    `yacht_env.core.actions`:

    | Action                          | Meaning                                        | Legal when                  |
    |---------------------------------|------------------------------------------------|-----------------------------|
    | 0 .. 30                         | re-roll, keeping the dice whose bits are set   | rolls remain this turn      |
    |                                 | (bit i = the i-th smallest die; 0 rolls all)   |                             |
    | 31 + column * n_boxes + box     | score the dice in `box` of `column`            | the box is open and the     |
    |                                 |                                                | joker rule allows it        |

    Holding all five dice (pattern 31) is not an action: score instead. The legal actions are in
    `info["action_mask"]` (int8, for `env.action_space.sample(mask)`) and `action_masks()` (bool,
    MaskablePPO's protocol; on an env from `gymnasium.make` call `env.unwrapped.action_masks()`).
    The mask is never all zero: once the game is over every action is marked legal (none may be
    taken; call `reset`). An action that is not an integer 0 .. n-1 (a float such as 31.9, a string,
    a bool, a number out of range) raises ValueError whatever `illegal_action` says.

    ## Observation Space
    `obs_mode="flat"` (default): `Box(0, 1, (13 + columns * (2 * n_boxes + 2),), float32)`, 41 entries
    under `yacht`, laid out as in `yacht_env.envs.obs` (with six dice every index from the dice on is one
    more: 14 + columns * (2 * n_boxes + 2) entries, 56 under `maxi`):

    | Index                  | Observation                                                           |
    |------------------------|-----------------------------------------------------------------------|
    | 0 - 4                  | the five dice, sorted, / 6                                            |
    | 5 - 10                 | how many dice show each face 1 .. 6, / 5                              |
    | 11                     | rolls left this turn / (rolls per turn + the saved-rolls cap, 0 when  |
    |                        | the rules save none): saved rolls count among the rolls left          |
    | 12                     | turns played / turns in the game                                      |
    | base + b               | 1 where box b of column c is open                                     |
    | base + n_boxes + b     | what box b would score now / the most it can score (0 when filled or  |
    |                        | not allowed now)                                                      |
    | base + 2 * n_boxes     | column c's upper-section total / the bonus threshold, capped at 1 (0  |
    |                        | when the rules pay no upper bonus)                                    |
    | base + 2 * n_boxes + 1 | 1 once column c's Yacht box holds its full points (extra-Yacht bonus) |

    with base = 13 + c * (2 * n_boxes + 2) for column c. `yacht_env.envs.obs` exports these offsets: `DICE`,
    `FACE_COUNTS`, `ROLLS_LEFT`, `TURNS_PLAYED` and `column_layout(rules, c)` (`open`, `preview`,
    `upper`, `yacht50`).

    `obs_mode="dict"`: the same state unscaled, a `Dict` of `dice` (int8, sorted), `rolls_left` (0 ..
    rolls per turn + the saved-rolls cap),
    `turn`, `scores` (int32, columns x boxes, -1 = open), `preview` (int32, -1 = not allowed now),
    `upper` (int32 per column) and `yacht50` (`MultiBinary` per column).

    ## Rewards
    `reward="points"` (default): each move pays the points it gains, the box plus any upper bonus or
    extra-Yacht bonus it earns; re-rolls pay 0, so the return is the final score. `reward="terminal"`:
    0 until the last move, which pays the final score. An illegal action pays `-illegal_penalty`
    (with `illegal_action="penalize"`). Rewards are Python floats.

    ## Starting State
    An empty sheet at turn 0 with the first roll of the game made (`rolls_per_turn - 1` re-rolls left).
    The dice come from the seed: after `reset(seed=s)` episode k of stream s deals the dice of
    `Game(rules, seed=yacht_env.core.dice_source.game_seed(s, k))`; each `reset()` without a seed starts the
    stream's next episode; the first reset without a seed draws the stream from `np_random`. A fresh
    die depends only on the game seed, the turn, the roll and its place among the dice re-rolled, so
    two policies that hold the same dice see the same rolls.

    ## Episode End
    Termination: the move that fills the last box (`columns * n_boxes` turns). The last observation
    shows the full sheet with no rolls left. An episode takes between `turns` and
    `turns * rolls_per_turn` legal steps. Truncation: never (no time limit is registered;
    `gymnasium.make(..., max_episode_steps=n)` adds one). `step` after the end, or before the first
    `reset`, raises RuntimeError.

    ## Information
    `reset` and every `step` return the same keys:

    - `"action_mask"`: int8 array, the legal actions now (all 1 once the game is over)
    - `"total"`: int, the score so far, bonuses included
    - `"game_seed"`: `numpy.uint64`, the dice seed of this episode (`Game(rules, seed=int(info["game_seed"]))`
      replays it). It is a numpy uint64, not an int, because game seeds use all 64 bits and Gymnasium's
      vector envs batch a Python int into an int64 array.
    - `"illegal_action"`: bool, the action was illegal and penalized

    ## Arguments
    ```python
    import gymnasium as gym
    import yacht_env
    gym.make("Yacht-v0", rules="yacht", obs_mode="flat", reward="points", illegal_action="penalize",
             illegal_penalty=1.0, render_mode=None, action_set="all", dice_obs="scaled", rule_obs="none", **knobs)
    ```
    - `rules`: a preset name (`cheerio`, `classic`, `extended`, `kirakuken`, `knizia`, `verhoeff`,
      `yacht`), a YAML rule file, a dict or a `RuleSet`. Team rules and rules for two or more players
      are refused (use `YachtVs-v0` or `yacht_env.integrations.pettingzoo`).
    - `**knobs`: rule overrides, as `--set` on the command line (`rolls_per_turn=2`, `columns=2`,
      `joker="free"`, `extra_yacht_bonus=False`, ...); an unknown knob raises `RuleError` naming the
      allowed ones.
    - `obs_mode`: `"flat"` or `"dict"` (above).
    - `reward`: `"points"` or `"terminal"` (above).
    - `illegal_action`: `"penalize"` (the state is unchanged, the reward is `-illegal_penalty` and
      `info["illegal_action"]` is True) or `"raise"` (`IllegalMove` naming the legal actions).
    - `illegal_penalty`: the penalty, 1.0 by default.
    - `action_set`: `"all"` (every hold pattern, default) or `"distinct"` (the mask allows one hold pattern
      per keep of the sorted dice); `dice_obs`: `"scaled"` (the layout above, default), `"onehot"` (34
      entries after it: the sorted dice one-hot and which dice repeat) or `"counts"` (36: dice per face
      one-hot); `rule_obs`: `"none"` (default) or `"knobs"` (12 entries last: rolls per turn, upper bonus,
      extra-Yacht bonus, joker rule, forced order, scaled to [0, 1], so one network can play several rule sets
      of one box layout). Flat observations only; layouts in `yacht_env.envs.options`.
    - `render_mode`: None, `"ansi"` (`render()` returns the dice and the sheet as text), `"rgb_array"`
      (`render()` returns the picture as an (H, W, 3) uint8 array: the dice with the ones the last re-roll
      kept marked held, the turn, the rolls left, the last move and the sheet; `yacht_env.envs.render`) or
      `"human"` (the picture in a pygame window, drawn at every `reset` and `step`, at most
      `metadata["render_fps"]` a second). The picture modes need pygame (`pip install
      'yacht-arena[render]'`); Gymnasium's `RecordVideo` records `"rgb_array"` games (with moviepy).
      Another mode raises `RenderModeError`, a ValueError that is also a TypeError.

    `reset(seed=s)` takes an integer 0 .. 2**64 - 1; `reset(options=...)` takes none (None or `{}`;
    anything else raises ValueError). The env pickles with its game in progress (`pickle`,
    `copy.deepcopy`); `vectorization_mode="async"` pickles only the function that makes it, which
    works under every start method (`context="spawn"` included).

    ## Vectorized
    `gymnasium.make_vec("Yacht-v0", num_envs=N, vectorization_mode=...)`: `"vector_entry_point"` builds
    `yacht_env.envs.vector.YachtVectorEnv` (one compiled loop for all N games); `"sync"` and `"async"` wrap
    N of these envs. Every mode plays the same games for the same seed; what each does at the end of
    an episode is in the README ("Environments for training") and `YachtVectorEnv`.

    ## Version History
    * v0: Initial version.
    """

    metadata = {"render_modes": list(RENDER_MODES), "render_fps": 4}

    def __init__(self, rules="yacht", obs_mode: str = "flat", reward: str = "points",
                 illegal_action: str = "penalize", illegal_penalty: float = 1.0, render_mode=None,
                 action_set: str = "all", dice_obs: str = "scaled", rule_obs: str = "none", **overrides):
        check_choice("obs_mode", obs_mode, OBS_MODES)
        EnvOptions(action_set, dice_obs, obs_mode, rule_obs=rule_obs)   # checked before anything is built
        check_choice("reward", reward, REWARDS)
        check_choice("illegal_action", illegal_action, ILLEGAL)
        check_render_mode(render_mode, self.metadata["render_modes"])
        self.rules = resolve_rules(rules, overrides)
        self.options = EnvOptions(action_set, dice_obs, obs_mode, rules=self.rules, rule_obs=rule_obs)
        self.obs_mode, self.reward_mode, self.illegal_action = obs_mode, reward, illegal_action
        self.render_mode = render_mode
        self.core = TableCore(self.rules, 1, 1, reward=reward, illegal_penalty=illegal_penalty)
        self.action_space = gym.spaces.Discrete(self.core.num_actions)
        self._n = self.core.num_actions
        self.observation_space = self.options.space(flat_space(self.rules)) if obs_mode == "flat" \
            else dict_space(self.rules)
        self._over = True
        self._renderer = renderer(render_mode, self.rules, 1, self.metadata["render_fps"], "Yacht-v0")
        self._move = None

    def reset(self, *, seed=None, options=None):
        reset_first_table(self, seed, options, "Yacht-v0")
        self._over = False
        self._move = None
        if self.render_mode == "human":
            self.render()
        return self._obs(), self._info(False)

    def step(self, action):
        if self._over:
            if not self.core.started[0]:
                raise RuntimeError("no episode has started; call reset() before step()")
            raise RuntimeError("the episode is over; call reset() before step()")
        a = as_action(action, self._n)
        b = self.core
        if self.illegal_action == "raise" and not b.mask[0, a]:
            raise IllegalMove(f"action {a} ({action_name(self.rules, a)}) is not legal now; "
                              f"legal: {legal_summary(self.rules, b.mask[0])}")
        b.own_actions[0] = a
        before = b.state.dice[0].copy() if self._renderer is not None else None
        b.step(b.own_actions)
        self._over = b.terminated.item(0)
        illegal = b.illegal.item(0)
        if before is not None and not illegal:      # the last move, for the picture only
            self._move = last_move(self.rules, "you", before, a)
        if self.render_mode == "human":
            self.render()
        return self._obs(), b.rewards.item(0), self._over, False, self._info(illegal)

    def action_masks(self) -> np.ndarray:
        """Legal actions now, as bool (MaskablePPO's `action_masks` protocol).

        `gymnasium.make` returns this env inside wrappers that do not forward attributes: reach it
        with `env.unwrapped.action_masks()` (or `env.get_wrapper_attr("action_masks")()`).
        """
        return self._mask(self.core.mask[0]).astype(bool)

    def _mask(self, mask: np.ndarray) -> np.ndarray:
        """A mask row of the core as the `action_set` option shows it."""
        if self.options.plain:
            return mask
        return self.options.masks(mask[None], self.core.obs0[None], [self._over])[0]

    def _obs(self):
        b = self.core
        if self.obs_mode == "flat":
            return b.obs0.copy() if not self.options.extra else self.options.observe(b.obs0[None])[0]
        e = b.state
        return dict_obs(e.dice[0], self.core.rolls_left(0), e.ints[0, TURN], e.scores[0, 0],
                        e.preview[0], e.cols[0, 0, :, UPPER], e.cols[0, 0, :, YACHT50])

    def _info(self, illegal: bool) -> dict:
        info = self.core.info_of(0, illegal)
        if not self.options.plain:
            info["action_mask"] = self._mask(info["action_mask"])
        return info

    def render(self):
        if self.render_mode is None:
            return None
        if not self.core.started[0]:
            raise RuntimeError("no episode has started; call reset() before render()")
        b, e = self.core, self.core.state
        if self._renderer is not None:
            return self._renderer.render(Game.of_table(e, 0), e.dice[0], ["you"], self._move)
        return render_sheet(self.rules, e.dice[0], b.rolls_left(0), int(e.ints[0, TURN]), e.scores[0, 0],
                            e.preview[0], b.total(0), over=self._over, saved=Game.of_table(e, 0).saved_rolls_shown(0))

    def close(self):
        if self._renderer is not None:
            self._renderer.close()

