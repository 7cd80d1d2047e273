"""Observation and action options of every env: the `action_set=`, `dice_obs=`, `table_obs=` and `rule_obs=`
keywords.

    gym.make("Yacht-v0", action_set="distinct", dice_obs="onehot")
    gym.make_vec("Yacht-v0", num_envs=1024, vectorization_mode="vector_entry_point", action_set="distinct")
    gym.make("YachtVs-v0", num_players=3, opponents="strong", dice_obs="counts")
    yacht_env.integrations.pettingzoo.env(num_players=4, action_set="distinct")
    yacht_env.integrations.sb3.YachtVecEnv(64, action_set="distinct", dice_obs="onehot")

The defaults show what the envs have always shown. `action_set`:
- `"all"` (default): every hold pattern 0..30 (0..62 with six dice) is legal while rolls remain.
- `"distinct"`: one hold pattern per keep. Dice are sorted, so with 2,2,5,5,6 holding die 0 or die 1
  keeps the same dice {2}; the mask allows only the smallest pattern giving each keep (`distinct(n)[r, h]`;
  five dice's `DISTINCT`: 20.4 keeps per roll on average against 31 patterns). The action space is unchanged
  (the mask narrows it), so every action number means what it means under `"all"`; an action the mask leaves
  out but the rules allow is played as under `"all"` (it keeps the same dice as the pattern the mask allows).

`dice_obs` (the flat observation; its layout, `yacht_env.envs.obs` and `yacht_env.envs.table_obs`, is kept
and the entries below follow it, all in [0, 1]):
- `"scaled"` (default): nothing more (the layout's dice / 6 and dice per face / n).
- `"onehot"`: 7n - 1 entries (34 for five dice, 41 for six): [0:6n] die i of the n sorted dice shows face
  f, 1 at 6 * i + (f - 1); [6n:7n-1] die i + 1 shows the same face as die i. A hold is a set of die
  positions, and "keep every six" or "keep one die of each face" is a hard function of dice / 6; of these
  entries, nearly linear.
- `"counts"`: 6(n + 1) entries (36 for five dice, 42 for six): for face f, 1 at (n + 1) * (f - 1) + k where
  k (0..n) dice show f.

`table_obs` (the table envs: `YachtVs-v0`, its vector env and PettingZoo; after the `dice_obs` entries):
- `"summary"` (default): nothing more (the seat layout's summary of every other sheet: its total capped
  at 1, boxes filled, upper progress, open Yacht boxes; `yacht_env.envs.table_obs`).
- `"full"`: this sheet's total / `total_scale(rules)`, then every other sheet in full, in turn order after
  this one (sheet s + 1, s + 2, ... modulo the sheets), each as C columns of [open (B): 1 where box b is
  open; points (B): what box b holds / the most it can hold; upper total / threshold, capped at 1 (0
  without an upper bonus); 1 once its Yacht box holds full points], then its total / `total_scale(rules)`.
  `total_scale` is a total no game can pass (every box at its best, the upper bonus and an extra-Yacht
  bonus on every turn), so totals never saturate as the summary's (capped at 1) can.

`rule_obs` (every env; the last entries, after the `dice_obs` and `table_obs` ones):
- `"none"` (default): nothing more.
- `"knobs"`: `KNOB_SIZE` (13) entries giving the rule knobs that can change while the observation and action
  sizes stay the same, so one network can play several rule sets of one box layout (`rule_features`). Each
  value is divided by the largest the rule validator (`yacht_env.rules.load`) allows, so nothing is clipped:
  [0] rolls per turn / 5; [1] 1 when an upper bonus is paid; [2] its threshold / 105 (0 without one);
  [3] its points / 1000; [4] 1 when an extra-Yacht bonus is paid; [5] its points / 1000; [6:11] the joker
  rule one-hot, in the order none, forced, free, verhoeff, kirakuken; [11] 1 with `forced_order`; [12] the
  cap on saved rolls / 40. Under `yacht` they are 0.6, 1, 0.6, 0.035, 1, 0.1, 0, 1, 0, 0, 0, 0, 0. The box
  layout (boxes, their kinds, columns) is not among them: rule sets of other layouts give other observation
  or action sizes.

A finished game's mask stays all 1 under every option. The options need `obs_mode="flat"`. The trainers
use them: `yacht train`'s `distinct_holds` and `dice_onehot` are `action_set="distinct"` and
`dice_obs="onehot"`, as are `scripts/ppo_batched.py`'s inputs.
"""
import numpy as np
from gymnasium import spaces

from functools import cache

from ..core.dice import NUM_DICE, dice_tables
from ..core.engine import UPPER, YACHT50
from ..rules.load import MAX_SAVED_ROLLS
from ..rules.ruleset import JOKERS
from .obs import box_scale, dice_layout, dice_of_obs, max_total

ACTIONS = ("all", "distinct")
DICE = ("scaled", "onehot", "counts")


def dice_sizes(n: int = NUM_DICE) -> dict:
    """Entries each `dice_obs` adds with n dice (module docstring)."""
    return {"scaled": 0, "onehot": 7 * n - 1, "counts": 6 * (n + 1)}


DICE_SIZES = dice_sizes(NUM_DICE)
TABLE = ("summary", "full")
RULE = ("none", "knobs")
KNOB_SIZE = 6 + len(JOKERS) + 2
# the largest values `yacht_env.rules.load` accepts, which scale the knob entries
MAX_ROLLS_PER_TURN, MAX_UPPER_THRESHOLD, MAX_BONUS_POINTS = 5, 105, 1000


@cache
def distinct(n: int = NUM_DICE) -> np.ndarray:
    """(rolls, 2**n - 1) bool, read-only: [r, h] when hold pattern h is the smallest giving its keep of sorted
    roll r of n dice (`yacht_env.core.dice.dice_tables`)."""
    D = dice_tables(n)
    out = np.zeros((D.n_rolls, D.n_holds - 1), bool)
    for r in range(D.n_rolls):
        seen = set()
        for h in range(D.n_holds - 1):
            if D.hold_keep[r, h] not in seen:
                seen.add(D.hold_keep[r, h])
                out[r, h] = True
    out.setflags(write=False)
    return out


DISTINCT = distinct(NUM_DICE)    # five dice's: DISTINCT[r, h], hold pattern h is the smallest giving its keep of roll r


def dice_features(dice: np.ndarray) -> np.ndarray:
    """(rows, 7n - 1) float32 `dice_obs="onehot"` entries of rows of n sorted dice (faces 1..6)."""
    dice = np.asarray(dice, np.int64)
    rows, n = dice.shape
    onehot = np.zeros((rows, 6 * n), np.float32)
    onehot[np.arange(rows)[:, None], 6 * np.arange(n) + dice - 1] = 1.0
    same = (dice[:, 1:] == dice[:, :-1]).astype(np.float32)
    return np.concatenate([onehot, same], axis=1)


def count_features(obs: np.ndarray, n: int = NUM_DICE) -> np.ndarray:
    """(rows, 6(n + 1)) float32 `dice_obs="counts"` entries of rows of flat observations of n dice."""
    counts = np.rint(np.asarray(obs)[:, dice_layout(n).face_counts] * n).astype(np.int64)
    out = np.zeros((len(counts), 6 * (n + 1)), np.float32)
    out[np.arange(len(counts))[:, None], (n + 1) * np.arange(6) + counts] = 1.0
    return out


def rolls_of_obs(obs: np.ndarray, n: int = NUM_DICE) -> np.ndarray:
    """Roll index (`yacht_env.core.dice.dice_tables(n)`) of the dice of each row of flat observations of n dice."""
    return dice_tables(n).roll_index[((dice_of_obs(obs, n) - 1) * 6 ** np.arange(n)).sum(axis=1)]


def narrow_masks(masks: np.ndarray, rolls: np.ndarray, n: int = NUM_DICE) -> np.ndarray:
    """Bool masks with every hold that repeats an earlier hold's keep switched off (rolls: roll indices of
    n dice)."""
    out = np.array(masks, dtype=bool, copy=True)
    table = distinct(n)
    out[:, :table.shape[1]] &= table[rolls]
    return out


def total_scale(rules) -> int:
    """A total no game under `rules` can pass: every box at its best, the upper bonus, and the extra-Yacht
    bonus on every turn (`table_obs="full"` divides totals by it)."""
    return max_total(rules) + int(rules.extra_yacht_bonus or 0) * rules.rounds


def sheet_size(rules) -> int:
    """Entries of one other sheet under `table_obs="full"`."""
    return rules.columns * (2 * len(rules.boxes) + 2) + 1


def full_sheets(state, rows, sheets) -> np.ndarray:
    """(len(rows), 1 + (S - 1) * sheet_size) float32 `table_obs="full"` entries (module docstring) of
    sheet sheets[j] at table rows[j] of an engine state (`yacht_env.core.engine.State`, S sheets)."""
    rules, S = state.rules, state.num_sheets
    rows, me = np.asarray(rows, np.int64), np.asarray(sheets, np.int64)
    n, t = len(rows), rules.tables
    top, inv = float(total_scale(rules)), 1.0 / box_scale(rules)
    out = np.empty((n, 1 + (S - 1) * sheet_size(rules)), np.float32)
    out[:, 0] = state.totals[rows, me] / top
    at = 1
    for k in range(1, S):
        s = (me + k) % S
        scores = state.scores[rows, s]                                   # (n, C, B), -1 where open
        cols = state.cols[rows, s]
        upper = np.minimum(cols[:, :, UPPER] / t.upper_threshold, 1.0) if t.upper_bonus > 0 \
            else np.zeros(cols.shape[:2])
        block = np.concatenate([scores < 0, np.maximum(scores, 0) * inv, upper[:, :, None],
                                (cols[:, :, YACHT50] != 0)[:, :, None]], axis=2)
        out[:, at:at + block.shape[1] * block.shape[2]] = block.reshape(n, -1)
        at += block.shape[1] * block.shape[2]
        out[:, at] = state.totals[rows, s] / top
        at += 1
    return out


def rule_features(rules) -> np.ndarray:
    """(KNOB_SIZE,) float32 `rule_obs="knobs"` entries of a rule set (module docstring), all in [0, 1]."""
    out = np.zeros(KNOB_SIZE, np.float32)
    bonus = rules.upper_bonus > 0
    out[0] = rules.rolls_per_turn / MAX_ROLLS_PER_TURN
    out[1] = bonus
    out[2] = rules.upper_bonus_threshold / MAX_UPPER_THRESHOLD if bonus else 0.0
    out[3] = rules.upper_bonus / MAX_BONUS_POINTS
    out[4] = rules.extra_yacht_bonus > 0
    out[5] = rules.extra_yacht_bonus / MAX_BONUS_POINTS
    out[6 + JOKERS.index(rules.joker)] = 1.0
    out[6 + len(JOKERS)] = rules.forced_order
    out[7 + len(JOKERS)] = rules.saved_rolls / MAX_SAVED_ROLLS
    return out


def check_options(action_set, dice_obs, obs_mode: str = "flat", table_obs: str = "summary",
                  rule_obs: str = "none") -> None:
    """ValueError naming the keyword when `action_set`, `dice_obs`, `table_obs` or `rule_obs` is not one of
    its choices, or when an option is asked of a Dict observation."""
    for name, value, choices in (("action_set", action_set, ACTIONS), ("dice_obs", dice_obs, DICE),
                                 ("table_obs", table_obs, TABLE), ("rule_obs", rule_obs, RULE)):
        if not isinstance(value, str) or value not in choices:
            shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:37] + "..."
            raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))}, got {shown}")
    if obs_mode != "flat" and (action_set, dice_obs, table_obs, rule_obs) != (ACTIONS[0], DICE[0], TABLE[0], RULE[0]):
        raise ValueError(f"action_set, dice_obs, table_obs and rule_obs need obs_mode='flat', "
                         f"got obs_mode={obs_mode!r}")


class EnvOptions:
    """The options of an env (module docstring), applied to what its core shows: `space(base)`,
    `observe(obs, state, rows, sheets)` (rows of flat observations; the state for `table_obs`) and
    `masks(masks, obs, over)`. `rules` and `num_sheets` size the `table_obs="full"` entries; `rules` gives the
    `rule_obs="knobs"` entries (an env checks its options before its rules are built, then builds them with
    its rules)."""

    def __init__(self, action_set: str = "all", dice_obs: str = "scaled", obs_mode: str = "flat",
                 table_obs: str = "summary", rules=None, num_sheets: int = 1, rule_obs: str = "none"):
        check_options(action_set, dice_obs, obs_mode, table_obs, rule_obs)
        self.action_set, self.dice_obs, self.table_obs, self.rule_obs = action_set, dice_obs, table_obs, rule_obs
        self.n = rules.dice if rules is not None else NUM_DICE     # dice per roll
        self.full = table_obs == "full"
        table = 1 + (num_sheets - 1) * sheet_size(rules) if self.full and rules is not None else 0
        self.knobs = rule_features(rules) if rule_obs == "knobs" and rules is not None else None
        self.extra = dice_sizes(self.n)[dice_obs] + table + (KNOB_SIZE if rule_obs == "knobs" else 0)
        self.plain = action_set == "all" and dice_obs == "scaled" and not self.full and rule_obs == "none"

    def space(self, base: spaces.Space) -> spaces.Space:
        """The observation space: `base` (a flat Box) with the option entries after it, every one in [0, 1]."""
        if not self.extra:
            return base
        return spaces.Box(0.0, 1.0, (base.shape[0] + self.extra,), np.float32)

    def observe(self, obs: np.ndarray, state=None, rows=None, sheets=None) -> np.ndarray:
        """Rows (n, d) of flat observations -> (n, d + extra), float32 (the rows themselves without extra
        entries); with `table_obs="full"`, row j shows sheet sheets[j] of table rows[j] of `state`; with
        `rule_obs="knobs"`, every row ends with the rules' knob entries."""
        if not self.extra:
            return obs
        parts = [obs]
        if self.dice_obs != "scaled":
            parts.append(dice_features(dice_of_obs(obs, self.n)) if self.dice_obs == "onehot"
                         else count_features(obs, self.n))
        if self.full:
            parts.append(full_sheets(state, rows, sheets))
        if self.knobs is not None:
            parts.append(np.broadcast_to(self.knobs, (len(obs), KNOB_SIZE)))
        return np.concatenate(parts, axis=1)

    def masks(self, masks: np.ndarray, obs: np.ndarray, over=None) -> np.ndarray:
        """Rows of masks (int8 or bool, (n, A)) for the dice of the rows of flat observations `obs`; the
        rows marked by `over` (finished games, all 1) are kept as they are. The rows themselves for "all"."""
        if self.action_set == "all":
            return masks
        out = masks.copy()
        keep = distinct(self.n)[rolls_of_obs(obs, self.n)]
        if over is not None:
            keep = keep | np.asarray(over, bool)[:, None]
        out[:, :keep.shape[1]] &= keep
        return out
