"""What one seat of a multi-player `Game` observes: its own sheet plus the other sheets' progress.

Flat layout (float32 in [0, 1]): the solitaire layout of `yacht_env.obs` for the seat's sheet
(dice on the table, rolls left, and the preview only while this sheet is to move), then

    [n]             this sheet's total / obs.max_total(rules), capped at 1
    then for each other sheet, in turn order after this one:
    [+0]            its total / obs.max_total(rules), capped at 1
    [+1]            the fraction of its boxes filled

A seat shares its sheet with its teammates in team games; "sheets" are the teams then.
The Dict form adds `totals` and `filled` (per sheet, this sheet first) to `yacht_env.obs`'s Dict.
"""
import numpy as np
from gymnasium import spaces

from .dice import roll_index
from .game import Game
from .kernels import box_options
from .obs import dict_obs, dict_space, flat_space, inv_box_scale, max_total, obs_size, write_obs, yacht_points


def num_extra(num_sheets: int) -> int:
    return 1 + 2 * (num_sheets - 1)


def seat_space(rules, num_sheets: int) -> spaces.Box:
    """Flat observation space of a seat at a table with `num_sheets` sheets."""
    return flat_space(rules, num_extra(num_sheets))


def seat_dict_space(rules, num_sheets: int) -> spaces.Dict:
    d = dict(dict_space(rules).spaces)
    top = np.iinfo(np.int32).max
    d["totals"] = spaces.Box(0, top, (num_sheets,), np.int32)
    d["filled"] = spaces.Box(0, rules.rounds, (num_sheets,), np.int32)
    return spaces.Dict(d)


def sheet_state(game: Game, sheet: int, dice) -> tuple:
    """(dice, rolls_used, turn, scores, preview, upper, yacht50) of one sheet, as obs.write_obs takes them."""
    s = game.sheets[sheet]
    rules, t = game.rules, game.tables
    preview = np.full(s.scores.shape, -1, np.int32)
    to_move = game.phase == "decide" and game.current_sheet == sheet
    y, ypts = t.yacht_box, yacht_points(rules)
    yacht50 = np.array([y >= 0 and s.scores[c, y] == ypts for c in range(rules.columns)], np.int8)
    if to_move:
        r = roll_index(game.dice)
        for c in range(rules.columns):
            box_options(t, s.filled_mask(c), bool(yacht50[c]), r, preview[c])
    rolls_used = game.rolls_used if to_move else rules.rolls_per_turn
    turn = int((s.scores >= 0).sum())
    return (np.asarray(dice, np.int8), rolls_used, turn, s.scores.astype(np.int32), preview,
            s.upper.astype(np.int64), yacht50)


def _others(game: Game, sheet: int) -> list[int]:
    return [(sheet + k) % game.num_sheets for k in range(1, game.num_sheets)]


def seat_obs(game: Game, seat: int, dice) -> np.ndarray:
    """Flat observation of `seat` (layout in the module docstring); `dice` are the dice shown."""
    rules = game.rules
    sheet = game.sheet_of(seat)
    out = np.zeros(obs_size(rules) + num_extra(game.num_sheets), np.float32)
    d, used, turn, scores, preview, upper, y50 = sheet_state(game, sheet, dice)
    write_obs(rules.tables, inv_box_scale(rules), rules.rounds, roll_index(d), used, turn, scores, preview, upper, y50, out)
    totals = game.sheet_totals()
    scale = max_total(rules)
    n = obs_size(rules)
    out[n] = min(totals[sheet] / scale, 1.0)
    for k, other in enumerate(_others(game, sheet)):
        out[n + 1 + 2 * k] = min(totals[other] / scale, 1.0)
        out[n + 2 + 2 * k] = (game.sheets[other].scores >= 0).sum() / game.sheets[other].scores.size
    return out


def seat_dict_obs(game: Game, seat: int, dice) -> dict:
    """Dict observation of `seat`: the sheet's Dict plus totals and boxes filled, this sheet first."""
    sheet = game.sheet_of(seat)
    d = dict_obs(game.rules, *sheet_state(game, sheet, dice))
    order = [sheet] + _others(game, sheet)
    totals = game.sheet_totals()
    d["totals"] = np.array([totals[s] for s in order], np.int32)
    d["filled"] = np.array([(game.sheets[s].scores >= 0).sum() for s in order], np.int32)
    return d


def render_table(game: Game, dice, label) -> str:
    """Every sheet of a table as text; label(seats) names the seats writing on a sheet."""
    from .env import render_sheet
    out = []
    for sheet in range(game.num_sheets):
        d, used, turn, scores, preview, _, _ = sheet_state(game, sheet, dice)
        seats = [s for s in range(game.num_players) if game.sheet_of(s) == sheet]
        out.append(render_sheet(game.rules, d, game.rules.rolls_per_turn - used, turn, scores, preview,
                                game.sheet_totals()[sheet], over=game.is_over, title=f"[{label(seats)}] "))
    return "\n".join(out)
