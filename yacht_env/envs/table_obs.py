"""What one seat at a multi-player table observes: its own sheet plus the other sheets' progress.

Flat layout (float32 in [0, 1]): the solitaire layout of `yacht_env.envs.obs` for the seat's sheet
(the dice shown, rolls left, and the preview only while this sheet is to move; otherwise no rolls
left and no preview), then, with P = `per_other(rules)` (4, or 5 under rules with saved rolls):

    [n]             this sheet's total / obs.max_total(rules), capped at 1
    then for each other sheet k = 1 .. sheets - 1, in turn order after this one, at n + 1 + P(k - 1):
    [+0]            its total / obs.max_total(rules), capped at 1
    [+1]            the fraction of its boxes filled
    [+2]            its upper-bonus progress: the mean over its columns of upper total / threshold,
                    each capped at 1 (0 when the rules pay no upper bonus)
    [+3]            the fraction of its columns whose Yacht box is still open (0 without a Yacht box)
    [+4]            only under rules with saved rolls (`RuleSet.saved_rolls` > 0): the rolls it has saved /
                    the cap (while it is to move, those it had at its turn's start)

A seat shares its sheet with its teammates in team games; "sheets" are the teams then.
The Dict form adds `totals`, `filled` and `yacht_open` (per sheet) and `upper` (per sheet and column),
this sheet first, to `yacht_env.envs.obs`'s Dict; under rules with saved rolls also `saved` (per sheet: the
rolls it has saved, this sheet first).
Everything is read from the engine's arrays (`yacht_env.core.engine.State`): `seat_observations` for many
tables at once, `seat_obs` / `seat_dict_obs` for one `Game`.
"""

import numba as nb
import numpy as np
from gymnasium import spaces

from ..core.engine import ROLL, ROLLS_USED, SAVED, TURN, UPPER, YACHT50, sheet_to_move
from ..core.kernels import dice_roll
from .board import board_key, board_of
from .obs import ENTRIES, dict_obs, dict_space, flat_space, obs_args, obs_size, rolls_left_of, write_obs
from .render import render_sheet
from .step_threads import SliceThreads, post

ONE_THREAD = SliceThreads(1)   # the calling thread alone


PER_OTHER = 4   # entries per other sheet (one more, its saved rolls, under rules with saved rolls)


def per_other(rules=None) -> int:
    """Entries per other sheet: PER_OTHER, plus its saved rolls under rules with saved rolls (no rules: none)."""
    return PER_OTHER + (rules is not None and rules.saved_rolls > 0)


def num_extra(num_sheets: int, rules=None) -> int:
    """Entries after the solitaire layout: this sheet's total, then `per_other(rules)` per other sheet."""
    return 1 + per_other(rules) * (num_sheets - 1)


def seat_space(rules, num_sheets: int) -> spaces.Box:
    """Flat observation space of a seat at a table with `num_sheets` sheets."""
    return flat_space(rules, num_extra(num_sheets, rules))


def seat_dict_space(rules, num_sheets: int) -> spaces.Dict:
    d = dict(dict_space(rules).spaces)
    top = np.iinfo(np.int32).max
    d["totals"] = spaces.Box(0, top, (num_sheets,), np.int32)
    d["filled"] = spaces.Box(0, rules.rounds, (num_sheets,), np.int32)
    d["upper"] = spaces.Box(0, top, (num_sheets, rules.columns), np.int32)
    d["yacht_open"] = spaces.Box(0, rules.columns, (num_sheets,), np.int32)
    if rules.saved_rolls:
        d["saved"] = spaces.Box(0, rules.saved_rolls, (num_sheets,), np.int32)
    return spaces.Dict(d)


@nb.njit(cache=True, inline="always")
def write_seat_obs(B, look, i, seat, shown, out):
    """out (one row) = the flat observation (module docstring) of seat `seat` at table i of a `Board` B;
    `shown` are the dice it sees when its sheet is not the one to move (look: `obs.ObsArgs`)."""
    E, T, num_sheets = B.E, B.T, B.num_sheets
    ints, scores, cols, totals = E.ints, E.scores, E.cols, E.totals
    per = PER_OTHER + 1 if T.saved_cap > 0 else PER_OTHER
    n = out.shape[0] - (1 + per * (num_sheets - 1))
    columns = scores.shape[2]
    cells = columns * scores.shape[3]
    me = seat % num_sheets
    to_move = ints[i, ROLLS_USED] > 0 and ints[i, TURN] < B.turns and sheet_to_move(ints, i, B.num_players,
                                                                                     num_sheets) == me
    filled = 0
    for c in range(scores.shape[2]):
        for b in range(scores.shape[3]):
            if scores[i, me, c, b] >= 0:
                filled += 1
    if to_move:
        write_obs(B, look, ints[i, ROLL], rolls_left_of(T, E, i, me), filled, scores[i, me], E.preview[i],
                  cols[i, me], out)
    else:
        write_obs(B, look, dice_roll(T.dice, shown), 0, filled, scores[i, me], look.no_preview, cols[i, me], out)
    out[n] = min(totals[i, me] / look.scale, 1.0)
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
        at = n + 1 + per * (k - 1)
        out[at] = min(totals[i, other] / look.scale, 1.0)
        out[at + 1] = count / cells
        out[at + 2] = upper / columns
        out[at + 3] = yacht_open / columns
        if T.saved_cap > 0:
            out[at + 4] = cols[i, other, 0, SAVED] / T.saved_cap


@nb.njit(cache=True, nogil=True)
def write_seat_observations(lo, hi, ctrl, B, look, rows, seats, shown, out):
    """out[j] = the flat observation (`write_seat_obs`) of seat seats[j] at table rows[j] of a `Board` B,
    for j in lo..hi-1; shown[j] are the dice it sees when its sheet is not the one to move. A slice of
    `step_threads.SliceThreads` (ctrl)."""
    post(ctrl)
    for j in range(lo, hi):
        write_seat_obs(B, look, rows[j], seats[j], shown[j], out[j])


class SeatWriter:
    """`write_seat_observations` over one engine state, called without numba's type dispatch: the
    state's `Board`, its `obs.ObsArgs` and the kernel compiled for their types (`obs.ENTRIES`; rows,
    seats and shown are made C-contiguous vectors and matrices of the types it was taken for)."""

    def __init__(self, state, threads: SliceThreads | None = None):
        self.state, self.look = state, obs_args(state.rules)
        self.size = obs_size(state.rules) + num_extra(state.num_sheets, state.rules)
        self.threads = threads or ONE_THREAD
        self._bind()

    def _bind(self) -> None:
        self.board = board_of(self.state)     # the process's own dice tables: the kernel's types
        self._kernel = None                   # the compiled kernel, taken at the first call

    def __getstate__(self):
        return {k: v for k, v in self.__dict__.items() if k not in ("board", "_kernel")}

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._bind()

    def __call__(self, rows, seats, shown) -> np.ndarray:
        """(len(rows), size) flat observations of seat seats[j] at table rows[j]; shown[j]: the dice it sees
        while its sheet is not to move."""
        rows = np.ascontiguousarray(rows, np.int64)
        seats = np.ascontiguousarray(seats, np.int64)
        shown = np.ascontiguousarray(shown, np.int8)
        if rows.ndim != 1 or seats.shape != rows.shape or shown.shape != (len(rows), self.board.T.dice.n):
            raise ValueError(f"one table index, seat and {self.board.T.dice.n} dice per observation, got shapes "
                             f"{rows.shape}, {seats.shape} and {shown.shape}")
        out = np.empty((len(rows), self.size), np.float32)
        args = (self.board, self.look, rows, seats, shown, out)
        if self._kernel is None:
            self._kernel = ENTRIES(write_seat_observations, board_key(self.board), (0, 0, self.threads.ctrl, *args))
        self.threads.run(self._kernel, len(rows), args)
        return out


def seat_observations(state, rows, seats, shown) -> np.ndarray:
    """(len(rows), size) flat observations of seat seats[j] at table rows[j] of an engine state;
    shown[j]: the dice it sees while its sheet is not to move (`SeatWriter` for repeated calls)."""
    return SeatWriter(state)(rows, seats, shown)


def seat_obs(game, seat: int, dice) -> np.ndarray:
    """Flat observation of `seat` of a `Game` (layout in the module docstring); `dice` are the dice shown."""
    return seat_observations(game.state, [game.table], [seat], np.asarray(dice, np.int8)[None])[0]


def sheet_state(game, sheet: int, dice) -> tuple:
    """(dice, rolls_left, turn, scores, preview, upper, yacht50) of one sheet of a `Game`, as `obs.dict_obs`
    takes them; the dice are `dice` and there are no rolls left and no preview unless the sheet is to move."""
    st, i = game.state, game.table
    to_move = game.phase == "decide" and game.current_sheet == sheet
    preview = st.preview[i] if to_move else np.full(st.preview.shape[1:], -1, np.int32)
    rolls_left = game.rolls_left if to_move else 0
    scores = st.scores[i, sheet]
    return (np.asarray(dice, np.int8), rolls_left, int((scores >= 0).sum()), scores, preview,
            st.cols[i, sheet, :, UPPER], st.cols[i, sheet, :, YACHT50])


def _others(game, sheet: int) -> list[int]:
    return [(sheet + k) % game.num_sheets for k in range(1, game.num_sheets)]


def seat_dict_obs(game, seat: int, dice) -> dict:
    """Dict observation of `seat`: the sheet's Dict plus totals and boxes filled, this sheet first."""
    sheet = game.sheet_of(seat)
    d = dict_obs(*sheet_state(game, sheet, dice))
    order = [sheet] + _others(game, sheet)
    totals = game.sheet_totals()
    d["totals"] = np.array([totals[s] for s in order], np.int32)
    d["filled"] = np.array([(game.sheets[s].scores >= 0).sum() for s in order], np.int32)
    st, i, yacht = game.state, game.table, game.rules.tables.yacht_box
    d["upper"] = np.array([st.cols[i, s, :, UPPER] for s in order], np.int32)
    d["yacht_open"] = np.array([(st.scores[i, s, :, yacht] < 0).sum() if yacht >= 0 else 0 for s in order], np.int32)
    if game.rules.saved_rolls:
        d["saved"] = np.array([game.saved_rolls_of(s) for s in order], np.int32)
    return d


def render_table(game, dice, label) -> str:
    """Every sheet of a table as text; label(seats) names the seats writing on a sheet."""
    out = []
    for sheet in range(game.num_sheets):
        d, left, turn, scores, preview, _, _ = sheet_state(game, sheet, dice)
        seats = [s for s in range(game.num_players) if game.sheet_of(s) == sheet]
        out.append(render_sheet(game.rules, d, left, turn, scores, preview, game.sheet_totals()[sheet],
                                over=game.is_over, title=f"[{label(seats)}] ", saved=game.saved_rolls_shown(sheet)))
    return "\n".join(out)
