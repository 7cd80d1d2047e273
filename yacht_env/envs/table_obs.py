"""What one seat at a multi-player table observes: its own sheet plus the other sheets' progress.

Flat layout (float32 in [0, 1]): the solitaire layout of `yacht_env.envs.obs` for the seat's sheet
(the dice shown, rolls left, and the preview only while this sheet is to move; otherwise no rolls
left and no preview), then

    [n]             this sheet's total / obs.max_total(rules), capped at 1
    then for each other sheet k = 1 .. sheets - 1, in turn order after this one, at n + 4k - 3:
    [+0]            its total / obs.max_total(rules), capped at 1
    [+1]            the fraction of its boxes filled
    [+2]            its upper-bonus progress: the mean over its columns of upper total / threshold,
                    each capped at 1 (0 when the rules pay no upper bonus)
    [+3]            the fraction of its columns whose Yacht box is still open (0 without a Yacht box)

A seat shares its sheet with its teammates in team games; "sheets" are the teams then.
The Dict form adds `totals`, `filled` and `yacht_open` (per sheet) and `upper` (per sheet and column),
this sheet first, to `yacht_env.envs.obs`'s Dict.
Everything is read from the engine's arrays (`yacht_env.core.engine.State`): `seat_observations` for many
tables at once, `seat_obs` / `seat_dict_obs` for one `Game`.
"""
from typing import NamedTuple

import numba as nb
import numpy as np
from gymnasium import spaces

from ..core.engine import ROLL, ROLLS_USED, TURN, UPPER, YACHT50, Arrays, sheet_to_move
from ..core.kernels import roll_of
from ..rules.tables import tables_of
from .obs import dict_obs, dict_space, flat_space, inv_box_scale, max_total, obs_size, write_obs
from .render import render_sheet
from .step_threads import SliceThreads, post

ONE_THREAD = SliceThreads(1)   # the calling thread alone


PER_OTHER = 4   # entries per other sheet


def num_extra(num_sheets: int) -> int:
    """Entries after the solitaire layout: this sheet's total, then PER_OTHER per other sheet."""
    return 1 + PER_OTHER * (num_sheets - 1)


def seat_space(rules, num_sheets: int) -> spaces.Box:
    """Flat observation space of a seat at a table with `num_sheets` sheets."""
    return flat_space(rules, num_extra(num_sheets))


def seat_dict_space(rules, num_sheets: int) -> spaces.Dict:
    d = dict(dict_space(rules).spaces)
    top = np.iinfo(np.int32).max
    d["totals"] = spaces.Box(0, top, (num_sheets,), np.int32)
    d["filled"] = spaces.Box(0, rules.rounds, (num_sheets,), np.int32)
    d["upper"] = spaces.Box(0, top, (num_sheets, rules.columns), np.int32)
    d["yacht_open"] = spaces.Box(0, rules.columns, (num_sheets,), np.int32)
    return spaces.Dict(d)


@nb.njit(cache=True, inline="always")
def write_seat_obs(T, inv_scale, rounds, scale, turns, num_players, num_sheets, i, seat, shown, ints, scores, preview,
                   cols, totals, no_preview, out):
    """out (one row) = the flat observation (module docstring) of seat `seat` at table i; `shown` are the
    dice it sees when its sheet is not the one to move."""
    n = out.shape[0] - (1 + 4 * (num_sheets - 1))
    columns = scores.shape[2]
    cells = columns * scores.shape[3]
    me = seat % num_sheets
    to_move = ints[i, ROLLS_USED] > 0 and ints[i, TURN] < turns and sheet_to_move(ints, i, num_players,
                                                                                   num_sheets) == me
    filled = 0
    for c in range(scores.shape[2]):
        for b in range(scores.shape[3]):
            if scores[i, me, c, b] >= 0:
                filled += 1
    if to_move:
        write_obs(T, inv_scale, rounds, ints[i, ROLL], ints[i, ROLLS_USED], filled, scores[i, me], preview[i],
                  cols[i, me, :, UPPER], cols[i, me, :, YACHT50], out)
    else:
        write_obs(T, inv_scale, rounds, roll_of(shown), T.rolls_per_turn, filled, scores[i, me], no_preview,
                  cols[i, me, :, UPPER], cols[i, me, :, YACHT50], out)
    out[n] = min(totals[i, me] / scale, 1.0)
    for k in range(1, num_sheets):
        other = (me + k) % num_sheets
        count = 0
        for c in range(scores.shape[2]):
            for b in range(scores.shape[3]):
                if scores[i, other, c, b] >= 0:
                    count += 1
        upper = 0.0
        yacht_open = 0
        for c in range(columns):
            if T.upper_bonus > 0:
                upper += min(cols[i, other, c, UPPER] / T.upper_threshold, 1.0)
            if T.yacht_box >= 0 and scores[i, other, c, T.yacht_box] < 0:
                yacht_open += 1
        at = n + 4 * k - 3
        out[at] = min(totals[i, other] / scale, 1.0)
        out[at + 1] = count / cells
        out[at + 2] = upper / columns
        out[at + 3] = yacht_open / columns


@nb.njit(cache=True, nogil=True)
def write_seat_observations(lo, hi, ctrl, tables, inv_scale, rounds, scale, turns, num_players, num_sheets, rows,
                            seats, shown, arrays, no_preview, out):
    """out[j] = the flat observation (`write_seat_obs`) of seat seats[j] at table rows[j], for j in lo..hi-1;
    shown[j] are the dice it sees when its sheet is not the one to move (tables, arrays: `State.table_fields`,
    `State.arrays`). A slice of `step_threads.SliceThreads` (ctrl)."""
    post(ctrl)
    T, E = tables_of(tables), Arrays(*arrays)
    for j in range(lo, hi):
        write_seat_obs(T, inv_scale, rounds, scale, turns, num_players, num_sheets, rows[j], seats[j], shown[j], E.ints,
                       E.scores, E.preview, E.cols, E.totals, no_preview, out[j])


class SeatObsArgs(NamedTuple):
    """What `write_seat_obs` takes besides the tables' arrays, computed once per engine state
    (`seat_obs_args`): the box scale, the rounds, the totals' scale and the preview of a sheet not to move."""
    inv_scale: np.ndarray
    rounds: int
    scale: float
    no_preview: np.ndarray


def seat_obs_args(state) -> SeatObsArgs:
    rules = state.rules
    return SeatObsArgs(inv_box_scale(rules), rules.rounds, float(max_total(rules)),
                       np.full(state.preview.shape[1:], -1, np.int32))


def seat_observations(state, rows, seats, shown, threads: SliceThreads | None = None,
                      args: SeatObsArgs | None = None) -> np.ndarray:
    """(len(rows), size) flat observations of seat seats[j] at table rows[j] of an engine state;
    shown[j]: the dice it sees while its sheet is not to move. `threads` split the rows between them;
    `args`: `seat_obs_args(state)`, when the caller keeps it."""
    rules = state.rules
    a = seat_obs_args(state) if args is None else args
    rows = np.ascontiguousarray(rows, np.int64)
    out = np.empty((len(rows), obs_size(rules) + num_extra(state.num_sheets)), np.float32)
    call = (state.table_fields, a.inv_scale, a.rounds, a.scale, state.turns, state.num_players, state.num_sheets,
            rows, np.ascontiguousarray(seats, np.int64), np.ascontiguousarray(shown, np.int8), state.arrays,
            a.no_preview, out)
    (threads or ONE_THREAD).run(write_seat_observations, len(rows), call)
    return out


def seat_obs(game, seat: int, dice) -> np.ndarray:
    """Flat observation of `seat` of a `Game` (layout in the module docstring); `dice` are the dice shown."""
    return seat_observations(game.state, [game.table], [seat], np.asarray(dice, np.int8)[None])[0]


def sheet_state(game, sheet: int, dice) -> tuple:
    """(dice, rolls_used, turn, scores, preview, upper, yacht50) of one sheet of a `Game`, as `obs.dict_obs`
    takes them; the dice are `dice` and there is no preview unless the sheet is to move."""
    st, i = game.state, game.table
    to_move = game.phase == "decide" and game.current_sheet == sheet
    preview = st.preview[i] if to_move else np.full(st.preview.shape[1:], -1, np.int32)
    rolls_used = game.rolls_used if to_move else game.rules.rolls_per_turn
    scores = st.scores[i, sheet]
    return (np.asarray(dice, np.int8), rolls_used, int((scores >= 0).sum()), scores, preview,
            st.cols[i, sheet, :, UPPER], st.cols[i, sheet, :, YACHT50])


def _others(game, sheet: int) -> list[int]:
    return [(sheet + k) % game.num_sheets for k in range(1, game.num_sheets)]


def seat_dict_obs(game, seat: int, dice) -> dict:
    """Dict observation of `seat`: the sheet's Dict plus totals and boxes filled, this sheet first."""
    sheet = game.sheet_of(seat)
    d = dict_obs(game.rules, *sheet_state(game, sheet, dice))
    order = [sheet] + _others(game, sheet)
    totals = game.sheet_totals()
    d["totals"] = np.array([totals[s] for s in order], np.int32)
    d["filled"] = np.array([(game.sheets[s].scores >= 0).sum() for s in order], np.int32)
    st, i, yacht = game.state, game.table, game.rules.tables.yacht_box
    d["upper"] = np.array([st.cols[i, s, :, UPPER] for s in order], np.int32)
    d["yacht_open"] = np.array([(st.scores[i, s, :, yacht] < 0).sum() if yacht >= 0 else 0 for s in order], np.int32)
    return d


def render_table(game, dice, label) -> str:
    """Every sheet of a table as text; label(seats) names the seats writing on a sheet."""
    out = []
    for sheet in range(game.num_sheets):
        d, used, turn, scores, preview, _, _ = sheet_state(game, sheet, dice)
        seats = [s for s in range(game.num_players) if game.sheet_of(s) == sheet]
        out.append(render_sheet(game.rules, d, game.rules.rolls_per_turn - used, turn, scores, preview,
                                game.sheet_totals()[sheet], over=game.is_over, title=f"[{label(seats)}] "))
    return "\n".join(out)
