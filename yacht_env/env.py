"""`Yacht-v0`: one player fills a Yacht score sheet, with masked actions.

    env = gymnasium.make("Yacht-v0", rules="yacht", rolls_per_turn=2)   # any preset, any knob

Actions (one Discrete, the encoding of `yacht_env.game`): 0..30 re-roll, keeping the dice whose bits
are set (bit i = the i-th smallest die; legal while rolls remain); 31 + column * n_boxes + box scores
that box (legal when open and allowed by the joker rule). Holding all five dice is not an action:
score instead. Dice are kept sorted after every roll, so a hold pattern means the same keep whenever
the dice are the same. After a scoring move the next turn's first roll is made at once: every
observation has dice to decide on.

Mask: `env.action_masks()` (bool, what MaskablePPO calls) and `info["action_mask"]` (int8, for
`env.action_space.sample(mask)`). It is never all false: once the game is over every action is
marked legal (no action may be taken; call `reset`).

Observation: `obs_mode="flat"` (default) is a float32 Box in [0, 1] laid out as in `yacht_env.obs`;
`obs_mode="dict"` is a readable Dict with the same state unscaled.

Reward: `reward="points"` (default) pays the points each move gains (box + upper bonus + extra-Yacht
bonus), so the return is the final score; `reward="terminal"` pays the final score on the last move.

Illegal actions: `illegal_action="penalize"` (default) gives `-illegal_penalty`, leaves the state
unchanged and sets `info["illegal_action"]`; `"raise"` raises `IllegalMove` naming the legal actions.

Seeding: `reset(seed=s)` starts stream s; each later `reset()` starts its next episode. Episode k of
stream s deals the dice of `Game(rules, seed=yacht_env.dice_source.game_seed(s, k))`
(`info["game_seed"]`). Without a seed, the stream is drawn from `np_random`.
"""
import gymnasium as gym
import numpy as np

from .actions import action_name, as_action, legal_summary
from .batch import Batch
from .engine import ROLLS_USED, TURN, UPPER, YACHT50
from .game import IllegalMove
from .obs import dict_obs, dict_space, flat_space
from .rules import RuleSet, load

OBS_MODES = ("flat", "dict")
REWARDS = ("points", "terminal")
ILLEGAL = ("penalize", "raise")


def check_choice(name: str, value, choices) -> None:
    """Raise a ValueError naming the choices when value is not one of them."""
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))}, got {value!r}")


def resolve_rules(rules, overrides) -> RuleSet:
    """A RuleSet from a RuleSet, a preset name, a YAML path or a dict, with overrides."""
    return load(rules, **overrides)


class YachtEnv(gym.Env):
    """Solitaire Yacht under any rule set (see the module docstring)."""

    metadata = {"render_modes": ["ansi"], "render_fps": 4}

    def __init__(self, rules="yacht", obs_mode: str = "flat", reward: str = "points",
                 illegal_action: str = "penalize", illegal_penalty: float = 1.0, render_mode=None, **overrides):
        check_choice("obs_mode", obs_mode, OBS_MODES)
        check_choice("reward", reward, REWARDS)
        check_choice("illegal_action", illegal_action, ILLEGAL)
        check_choice("render_mode", render_mode, (None, "ansi"))
        self.rules = resolve_rules(rules, overrides)
        self.obs_mode, self.reward_mode, self.illegal_action = obs_mode, reward, illegal_action
        self.render_mode = render_mode
        self._batch = Batch(self.rules, 1, terminal_reward=reward == "terminal", penalty=illegal_penalty,
                            autoreset=False)
        self.action_space = gym.spaces.Discrete(self._batch.num_actions)
        self._n = self._batch.num_actions
        self.observation_space = flat_space(self.rules) if obs_mode == "flat" else dict_space(self.rules)
        self._action = np.zeros(1, np.int64)
        self._stream = None
        self._over = True

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        if seed is not None or self._stream is None:
            self._stream = seed if seed is not None else int(self.np_random.integers(2 ** 63))
            self._batch.reset([self._stream])
        else:
            self._batch.next_episode()
        self._over = False
        self._game_seed = self._batch.game_seed(0)
        return self._obs(), self._info(False)

    def step(self, action):
        if self._over:
            raise RuntimeError("the episode is over; call reset() before step()")
        a = as_action(action, self._n)
        b = self._batch
        if self.illegal_action == "raise" and not b.mask[0, a]:
            raise IllegalMove(f"action {a} ({action_name(self.rules, a)}) is not legal now; "
                              f"legal: {legal_summary(self.rules, b.mask[0])}")
        self._action[0] = a
        b.step(self._action)
        self._over = b.terminated.item(0)
        return self._obs(), b.rewards.item(0), self._over, False, self._info(b.illegal.item(0))

    def action_masks(self) -> np.ndarray:
        """Legal actions now, as bool (MaskablePPO's `action_masks` protocol)."""
        return self._batch.mask[0].astype(bool)

    def _obs(self):
        b = self._batch
        if self.obs_mode == "flat":
            return b.obs[0].copy()
        e = b.engine
        return dict_obs(self.rules, e.dice[0], e.ints[0, ROLLS_USED], e.ints[0, TURN], e.scores[0, 0],
                        e.preview[0], e.cols[0, 0, :, UPPER], e.cols[0, 0, :, YACHT50])

    def _info(self, illegal: bool) -> dict:
        b = self._batch
        return {"action_mask": b.mask[0].copy(), "total": b.total(0), "game_seed": self._game_seed,
                "illegal_action": illegal}

    def render(self):
        if self.render_mode != "ansi":
            return None
        b, e = self._batch, self._batch.engine
        return render_sheet(self.rules, e.dice[0], b.rolls_left(0), int(e.ints[0, TURN]), e.scores[0, 0],
                            e.preview[0], b.total(0), over=self._over)


def render_sheet(rules: RuleSet, dice, rolls_left: int, turn: int, scores, preview, total: int,
                 over: bool = False, title: str = "") -> str:
    """Text picture of the dice and one score sheet: filled boxes show points, open boxes [what they'd score]."""
    head = f"{title}turn {min(turn + 1, rules.rounds)}/{rules.rounds}  total {total}"
    lines = [head + ("  (game over)" if over else f"  rolls left {rolls_left}"),
             "dice  " + " ".join(str(int(d)) for d in dice)]
    width = max(len(n) for n in rules.boxes)
    cols = scores.shape[0]
    if cols > 1:
        lines.append(" " * width + "".join(f"{f'col {c + 1}':>8}" for c in range(cols)))
    for b, name in enumerate(rules.boxes):
        cells = []
        for c in range(cols):
            if scores[c, b] >= 0:
                cells.append(f"{int(scores[c, b]):>8}")
            elif preview[c, b] >= 0:
                cells.append(f"{f'[{int(preview[c, b])}]':>8}")
            else:
                cells.append(f"{'.':>8}")
        lines.append(f"{name:<{width}}" + "".join(cells))
    return "\n".join(lines) + "\n"
