"""What an environment shows the agent: the flat observation, its Dict form, and their spaces.

Flat layout (float32, every entry in [0, 1]); B = boxes per column, C = columns:

    [0:5]           the five dice, sorted ascending, / 6
    [5:11]          how many dice show each face 1..6, / 5
    [11]            rolls left this turn / rolls per turn
    [12]            turns played / turns in the game
    then for each column c, at base = 13 + c * (2B + 2):
    [base:base+B]       1 where the box is open
    [base+B:base+2B]    what the box would score now (joker included) / the most it can ever score;
                        0 where the box is filled or the rules forbid it now
    [base+2B]           upper-section total / upper-bonus threshold, capped at 1 (0 without a bonus)
    [base+2B+1]         1 once the Yacht box holds its full points (extra-Yacht bonus live)

The Dict form holds the same state unscaled: dice (sorted), rolls_left, turn, scores (-1 = open),
preview (-1 = not allowed now), upper, yacht50.
"""
from typing import NamedTuple

import numba as nb
import numpy as np
from gymnasium import spaces

from ..core.dice import NUM_DICE, ROLL_COUNTS, ROLLS
from ..core.engine import ROLL, ROLLS_USED, TURN, UPPER, YACHT50, Arrays, sheet_to_move
from ..rules.tables import tables_of

# offsets of the flat observation (module docstring)
DICE = slice(0, 5)          # the sorted dice / 6
FACE_COUNTS = slice(5, 11)  # dice per face / 5
ROLLS_LEFT = 11
TURNS_PLAYED = 12
HEAD = 13                   # where the first column starts
# the first 11 entries of the flat observation for each of the 252 sorted rolls
DICE_FEATURES = np.concatenate([ROLLS / 6.0, ROLL_COUNTS / 5.0], axis=1).astype(np.float32)


class ColumnLayout(NamedTuple):
    """Where one column's entries are in the flat observation (module docstring)."""
    open: slice       # 1 where the box is open
    preview: slice    # what the box would score now / its most
    upper: int        # upper total / threshold, capped at 1
    yacht50: int      # 1 once the Yacht box holds its full points


def column_layout(rules, column: int) -> ColumnLayout:
    """The offsets of column `column` in the flat observation."""
    b = len(rules.boxes)
    base = HEAD + column * (2 * b + 2)
    return ColumnLayout(slice(base, base + b), slice(base + b, base + 2 * b), base + 2 * b, base + 2 * b + 1)


def dice_of_obs(obs: np.ndarray) -> np.ndarray:
    """The sorted dice (faces 1..6, int64) of each row of flat observations."""
    return np.clip(np.rint(np.asarray(obs)[:, DICE] * 6).astype(np.int64), 1, 6)


def obs_size(rules) -> int:
    """Length of the flat observation of one sheet under these rules."""
    return HEAD + rules.columns * (2 * len(rules.boxes) + 2)


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


@nb.njit(cache=True, inline="always")
def write_obs(T, inv_scale, rounds, roll, rolls_used, turn, scores, preview, upper, yacht50, out):
    """Fill `out` with the flat observation of one sheet (layout in the module docstring).

    roll: index of the sorted dice (`yacht_env.core.dice`); inv_scale: `inv_box_scale(rules)`.
    """
    for k in range(NUM_DICE + 6):
        out[k] = DICE_FEATURES[roll, k]
    out[11] = (T.rolls_per_turn - rolls_used) / T.rolls_per_turn
    out[12] = turn / rounds
    nbox = T.n_boxes
    for c in range(scores.shape[0]):
        base = HEAD + c * (2 * nbox + 2)
        for b in range(nbox):
            out[base + b] = scores[c, b] < 0
            out[base + nbox + b] = max(preview[c, b], 0) * inv_scale[b]
        if T.upper_bonus > 0:
            out[base + 2 * nbox] = min(upper[c] / T.upper_threshold, 1.0)
        else:
            out[base + 2 * nbox] = 0.0
        out[base + 2 * nbox + 1] = 1.0 if yacht50[c] else 0.0


@nb.njit(cache=True)
def write_observations(tables, inv_scale, rounds, num_players, num_sheets, rows, arrays, out):
    """out[j] = the flat observation of the sheet to move at table rows[j] of an engine state, as that
    seat sees it while it decides (tables, arrays: `State.table_fields`, `State.arrays`)."""
    T, E = tables_of(tables), Arrays(*arrays)
    ints, scores, preview, cols = E.ints, E.scores, E.preview, E.cols
    for j in range(rows.shape[0]):
        i = rows[j]
        s = sheet_to_move(ints, i, num_players, num_sheets)
        write_obs(T, inv_scale, rounds, ints[i, ROLL], ints[i, ROLLS_USED], ints[i, TURN] // num_sheets,
                  scores[i, s], preview[i], cols[i, s, :, UPPER], cols[i, s, :, YACHT50], out[j])


def observe(state, rows) -> np.ndarray:
    """(len(rows), obs_size) float32 flat observations of the seats to move at tables `rows` of a
    `yacht_env.core.engine.State` (the observation `Yacht-v0` shows, for any table)."""
    rows = np.ascontiguousarray(rows, np.int64)
    rules = state.rules
    out = np.empty((len(rows), obs_size(rules)), np.float32)
    write_observations(state.table_fields, inv_box_scale(rules), rules.rounds, state.num_players, state.num_sheets,
                       rows, state.arrays, out)
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
        "dice": spaces.Box(1, 6, (NUM_DICE,), np.int8),
        "rolls_left": spaces.Discrete(rules.rolls_per_turn + 1),
        "turn": spaces.Discrete(rules.rounds + 1),
        "scores": spaces.Box(-1, top, (c, b), np.int32),
        "preview": spaces.Box(-1, top, (c, b), np.int32),
        "upper": spaces.Box(0, 6 * 5 * 6, (c,), np.int32),
        "yacht50": spaces.MultiBinary(c),
    })


def dict_obs(rules, dice, rolls_used, turn, scores, preview, upper, yacht50) -> dict:
    """The Dict observation of one sheet from its arrays."""
    return {
        "dice": np.asarray(dice, dtype=np.int8).copy(),
        "rolls_left": int(rules.rolls_per_turn - rolls_used),
        "turn": int(turn),
        "scores": np.asarray(scores, dtype=np.int32).copy(),
        "preview": np.asarray(preview, dtype=np.int32).copy(),
        "upper": np.asarray(upper, dtype=np.int32).copy(),
        "yacht50": np.asarray(yacht50, dtype=np.int8).copy(),
    }
