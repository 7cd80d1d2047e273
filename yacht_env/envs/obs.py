"""What an environment shows the agent: the flat observation, its Dict form, and their spaces.

Flat layout (float32, every entry in [0, 1]); n = dice per roll (5 or 6, the rules' `dice`), B = boxes per
column, C = columns:

    [0:n]           the n dice, sorted ascending, / 6
    [n:n+6]         how many dice show each face 1..6, / n
    [n+6]           rolls left this turn / (rolls per turn + the rules' saved-rolls cap): the turn's own
                    rolls plus the rolls its sheet saved, minus those made (`RuleSet.saved_rolls`; without a
                    cap, rolls left / rolls per turn)
    [n+7]           turns played / turns in the game
    then for each column c, at base = n + 8 + c * (2B + 2):
    [base:base+B]       1 where the box is open
    [base+B:base+2B]    what the box would score now (joker included) / the most it can ever score;
                        0 where the box is filled or the rules forbid it now
    [base+2B]           upper-section total / upper-bonus threshold, capped at 1 (0 without a bonus)
    [base+2B+1]         1 once the Yacht box holds its full points (extra-Yacht bonus live)

Five dice: [0:5] dice, [5:11] face counts, [11] rolls left, [12] turns played, columns from 13 (the module's
constants `DICE`, `FACE_COUNTS`, `ROLLS_LEFT`, `TURNS_PLAYED`, `HEAD`); six dice: [0:6], [6:12], [12], [13],
columns from 14 (`dice_layout(6)`).

The Dict form holds the same state unscaled: dice (n, sorted), rolls_left (0 .. rolls per turn + the
saved-rolls cap), turn, scores (-1 = open), preview (-1 = not allowed now), upper, yacht50.

Saved rolls need no entry of their own in a sheet's observation: scoring leaves the sheet min(cap, rolls
left), so rolls left is all a turn's future depends on. At tables each other sheet's saved rolls are shown
(`yacht_env.envs.table_obs`).
"""
from typing import NamedTuple

import numba as nb
import numpy as np
from gymnasium import spaces
from numba import typeof
from numba.extending import intrinsic

from ..core.dice import NUM_DICE, FixedDiceType, dice_tables
from ..core.engine import ALLOWED, ROLL, ROLLS_USED, SAVED, TURN, UPPER, YACHT50, sheet_to_move
from ..core.dispatch import Entries
from .board import board_key, board_of, by_identity



class DiceLayout(NamedTuple):
    """Where the entries before the columns are in the flat observation of n dice (module docstring)."""
    dice: slice          # the sorted dice / 6
    face_counts: slice   # dice per face / n
    rolls_left: int      # rolls left / (rolls per turn + saved-rolls cap)
    turns_played: int    # turns played / turns in the game
    head: int            # where the first column starts


def dice_layout(n: int = NUM_DICE) -> DiceLayout:
    """The `DiceLayout` of n dice."""
    return DiceLayout(slice(0, n), slice(n, n + 6), n + 6, n + 7, n + 8)


# offsets of the five-dice flat observation (module docstring)
DICE, FACE_COUNTS, ROLLS_LEFT, TURNS_PLAYED, HEAD = dice_layout(NUM_DICE)
ENTRIES = Entries()         # the observation writers compiled for a Board's types (`board.board_key`)
_OBS_ARGS: dict = {}        # rule set -> its `obs_args`


class ObsArgs(NamedTuple):
    """What the observation writers take besides the tables (`obs_args(rules)`, computed once per rule set).

    inv_scale    per box, 1 / the most it can score (`inv_box_scale`)
    rounds       turns of one sheet in a game
    scale        the totals' scale (`max_total`)
    no_preview   the preview of a sheet not to move: (columns, boxes) int32, all -1

    The observation's first n + 6 entries of each roll (`dice_features`) are a constant of the kernel
    (`dice_entries`).
    """
    inv_scale: np.ndarray
    rounds: int
    scale: float
    no_preview: np.ndarray


def dice_features(D) -> np.ndarray:
    """(n_rolls, n + 6) float32: for each roll of a `yacht_env.core.dice.Dice`, its sorted dice / 6 and how
    many dice show each face / n (the observation's first entries)."""
    return np.concatenate([D.rolls / 6.0, D.roll_counts / D.n], axis=1).astype(np.float32)


@intrinsic
def dice_entries(typingctx, D):
    """Compiled: `dice_features` of the dice of a `yacht_env.core.dice.FixedDice` (`Board.T.dice`), a read-only
    array frozen into the kernel."""
    if not isinstance(D, FixedDiceType):
        return None
    table = dice_features(dice_tables(D.n))
    table.setflags(write=False)
    typ = typeof(table)

    def codegen(context, builder, signature, args):
        return context.make_constant_array(builder, typ, table)
    return typ(D), codegen


class ColumnLayout(NamedTuple):
    """Where one column's entries are in the flat observation (module docstring)."""
    open: slice       # 1 where the box is open
    preview: slice    # what the box would score now / its most
    upper: int        # upper total / threshold, capped at 1
    yacht50: int      # 1 once the Yacht box holds its full points


def column_layout(rules, column: int) -> ColumnLayout:
    """The offsets of column `column` in the flat observation."""
    b = len(rules.boxes)
    base = dice_layout(rules.dice).head + column * (2 * b + 2)
    return ColumnLayout(slice(base, base + b), slice(base + b, base + 2 * b), base + 2 * b, base + 2 * b + 1)


def dice_of_obs(obs: np.ndarray, n: int = NUM_DICE) -> np.ndarray:
    """The n sorted dice (faces 1..6, int64) of each row of flat observations of n dice."""
    return np.clip(np.rint(np.asarray(obs)[:, :n] * 6).astype(np.int64), 1, 6)


def obs_size(rules) -> int:
    """Length of the flat observation of one sheet under these rules."""
    return dice_layout(rules.dice).head + rules.columns * (2 * len(rules.boxes) + 2)


def box_scale(rules) -> np.ndarray:
    """Per box, the most it can score (plain or joker), as float32 (at least 1)."""
    t = rules.tables
    return np.maximum(np.maximum(t.score.max(axis=1), t.joker_score.max(axis=1)), 1).astype(np.float32)


def inv_box_scale(rules) -> np.ndarray:
    """1 / box_scale(rules): what write_obs multiplies the points by."""
    return (1.0 / box_scale(rules)).astype(np.float32)


def yacht_points(rules) -> int:
    """Points the Yacht box holds when a Yacht is scored in it (-1 without a Yacht box)."""
    y = rules.tables.yacht_box
    return int(rules.boxes_spec[y].points) if y >= 0 else -1


def max_total(rules) -> int:
    """A scale for totals: every box at its best plus the upper bonus, per column."""
    return int(box_scale(rules).sum() + rules.upper_bonus) * rules.columns


def obs_args(rules) -> ObsArgs:
    """The `ObsArgs` of a rule set (kept per rule set object; its arrays are only read)."""
    return by_identity(_OBS_ARGS, rules, _make_obs_args)


def _make_obs_args(rules) -> ObsArgs:
    """`inv_box_scale` and `max_total` from one `box_scale`, the rounds, the preview of no sheet to move."""
    scale = box_scale(rules)
    return ObsArgs((1.0 / scale).astype(np.float32), rules.rounds,
                   float(int(scale.sum() + rules.upper_bonus) * rules.columns),
                   np.full((rules.columns, len(rules.boxes)), -1, np.int32))


@nb.njit(cache=True, inline="always")
def rolls_left_of(T, E, i, s):
    """The rolls sheet s, to move at table i, may still make this turn: with dice in hand ALLOWED - ROLLS_USED,
    before its first roll the whole turn's (rolls per turn plus its saved rolls); `State.rolls_left` compiled."""
    used = E.ints[i, ROLLS_USED]
    return E.ints[i, ALLOWED] - used if used > 0 else T.rolls_per_turn + E.cols[i, s, 0, SAVED]


@nb.njit(cache=True, inline="always")
def write_obs(B, look, roll, rolls_left, turn, scores, preview, cols, out):
    """Fill `out` with the flat observation of one sheet (layout in the module docstring) of a `Board` B.

    roll: index of the sorted dice (`yacht_env.core.dice.Dice`); rolls_left: the rolls the turn may still make
    (`rolls_left_of`; 0 for a sheet not to move); scores, preview: the sheet's (columns, boxes); cols: its
    (columns, k) column counters (`yacht_env.core.engine`); look: `ObsArgs`.
    """
    T = B.T
    n = T.dice.n                  # a constant of the kernel (`board.fixed_tables`)
    entries = dice_entries(T.dice)
    for k in range(n + 6):
        out[k] = entries[roll, k]
    out[n + 6] = rolls_left / (T.rolls_per_turn + T.saved_cap)
    out[n + 7] = turn / look.rounds
    nbox = T.n_boxes
    inv_scale = look.inv_scale
    for c in range(scores.shape[0]):
        base = n + 8 + c * (2 * nbox + 2)
        for b in range(nbox):
            out[base + b] = scores[c, b] < 0
            out[base + nbox + b] = max(preview[c, b], 0) * inv_scale[b]
        if T.upper_bonus > 0:
            out[base + 2 * nbox] = min(cols[c, UPPER] / T.upper_threshold, 1.0)
        else:
            out[base + 2 * nbox] = 0.0
        out[base + 2 * nbox + 1] = 1.0 if cols[c, YACHT50] else 0.0


@nb.njit(cache=True)
def write_observations(B, look, rows, out):
    """out[j] = the flat observation of the sheet to move at table rows[j] of a `Board` B, as that seat
    sees it while it decides (look: `ObsArgs`)."""
    E = B.E
    ints, scores, preview, cols = E.ints, E.scores, E.preview, E.cols
    for j in range(rows.shape[0]):
        i = rows[j]
        s = sheet_to_move(ints, i, B.num_players, B.num_sheets)
        write_obs(B, look, ints[i, ROLL], rolls_left_of(B.T, E, i, s), ints[i, TURN] // B.num_sheets, scores[i, s],
                  preview[i], cols[i, s], out[j])


def observe(state, rows) -> np.ndarray:
    """(len(rows), obs_size) float32 flat observations of the seats to move at tables `rows` of a
    `yacht_env.core.engine.State` (the observation `Yacht-v0` shows, for any table)."""
    rows = np.ascontiguousarray(rows, np.int64)
    if rows.ndim != 1:
        raise ValueError(f"rows must be a vector of table indices, got an array of shape {rows.shape}")
    rules = state.rules
    out = np.empty((len(rows), obs_size(rules)), np.float32)
    args = (board_of(state), obs_args(rules), rows, out)
    ENTRIES(write_observations, board_key(args[0]), args)(*args)
    return out


def observe_game(game) -> np.ndarray:
    """The flat observation of the seat to move of a `Game` (its table's row of `observe`)."""
    return observe(game.state, [game.table])[0]


def flat_space(rules, extra: int = 0) -> spaces.Box:
    """The flat observation space (plus `extra` trailing entries, also in [0, 1])."""
    return spaces.Box(0.0, 1.0, (obs_size(rules) + extra,), np.float32)


def dict_space(rules) -> spaces.Dict:
    """The Dict observation space (unscaled; see the module docstring)."""
    c, b = rules.columns, len(rules.boxes)
    top = int(box_scale(rules).max())
    return spaces.Dict({
        "dice": spaces.Box(1, 6, (rules.dice,), np.int8),
        "rolls_left": spaces.Discrete(rules.most_rolls + 1),
        "turn": spaces.Discrete(rules.rounds + 1),
        "scores": spaces.Box(-1, top, (c, b), np.int32),
        "preview": spaces.Box(-1, top, (c, b), np.int32),
        "upper": spaces.Box(0, 6 * 5 * 6, (c,), np.int32),
        "yacht50": spaces.MultiBinary(c),
    })


def dict_obs(dice, rolls_left, turn, scores, preview, upper, yacht50) -> dict:
    """The Dict observation of one sheet from its arrays (rolls_left: the rolls its turn may still make, 0 for
    a sheet not to move)."""
    return {
        "dice": np.asarray(dice, dtype=np.int8).copy(),
        "rolls_left": int(rolls_left),
        "turn": int(turn),
        "scores": np.asarray(scores, dtype=np.int32).copy(),
        "preview": np.asarray(preview, dtype=np.int32).copy(),
        "upper": np.asarray(upper, dtype=np.int32).copy(),
        "yacht50": np.asarray(yacht50, dtype=np.int8).copy(),
    }
