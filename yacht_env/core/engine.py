"""The one game transition: N tables of one rule set held in arrays, changed by compiled kernels.

Every way of playing goes through this module: a `Game` is a friendly view of one table, the
batched environments step many, the solver's `simulate` and the tournament runner play many in
lockstep. Writing a box score, paying a bonus and setting the Yacht-50 flag happen in `score_box`
only; rolling happens in `roll_dice` only.

A table has `num_players` seats writing on `num_sheets` sheets (seat i writes on sheet i % sheets:
its own, or its team's). Turns go round the seats from the table's first seat; a turn is one seat
filling one box of its sheet. Arrays (N tables, S sheets, C columns, B boxes):

    seeds[i]             uint64  the dice seed of the table's game (`dice_source.SeededDice`)
    ints[i, k]           int64   TURN (turns played, all sheets together), ROLLS_USED this turn,
                                 ROLL (index of the sorted dice in hand), FIRST (the first seat),
                                 ALLOWED (rolls this turn may use: rolls_per_turn + the sheet's SAVED;
                                 set by every roll)
    dice[i]              int8    the rules' n dice (5 or 6), sorted (stale while no dice are in hand)
    faces[i]             int8    the faces of the last roll's fresh dice, in the order drawn
    preview[i, c, b]     int32   points of the dice in hand in box b of column c of the sheet to move;
                                 -1 where the box is filled or the joker rule forbids it (all -1 while
                                 no dice are in hand; inside a compiled turn played from kept plans it
                                 may lag behind the dice until that turn scores or stops: `play_action`)
    extra[i, c]          int64   the extra-Yacht bonus that scoring the dice in hand in column c pays
    scores[i, s, c, b]   int32   box scores, -1 = open
    cols[i, s, c, k]     int64   FILLED (bit b = box b filled), UPPER (upper-section total), YACHT50
                                 (the Yacht box holds its full points), UPPER_BONUS, EXTRA_BONUS
                                 (points), EXTRA_YACHTS (how many), SAVED (column 0 only: the rolls the
                                 sheet has saved for later turns, `RuleSet.saved_rolls`; always 0 without)
    totals[i, s]         int64   every box plus every bonus

Phases are read off the arrays: a table is over when TURN = rounds x sheets; otherwise the seat to
move must roll when ROLLS_USED = 0 and decides when ROLLS_USED > 0; it may re-roll while
ROLLS_USED < ALLOWED. Scoring leaves the sheet min(saved_rolls, ALLOWED - ROLLS_USED) saved rolls.

In compiled code the nine arrays travel together as one `Arrays` (named tuple, `E`), the rule set's
arrays as one `Tables` (`T`). Entry points called from Python take both as plain tuples (`State.arrays`,
`State.table_fields`, `Tables.fields()`: the rules' `Dice` a plain tuple inside) and name them inside
(`E = Arrays(*arrays)`, `T = tables_of(tables)`): numba types a plain tuple at each call in its compiled
dispatcher, but a named tuple in Python, about 2 us for nine arrays.

Dice: `draw_faces` takes the k-th fresh die of (sheet, turn of that sheet, roll) from the table's
seed, so the same seed gives every sheet the same dice whatever is held; a `Game` with another dice
source passes the faces in. The roll's number in that key is `roll_key(rolls used before it)`.
"""
from typing import NamedTuple

import numba as nb
import numpy as np

from .actions import box_of_action, hold_actions_of, num_actions, score_action_of
from .dice_source import SeededDice
from .kernels import box_options, dice_roll, die_value, upper_bonus_gain
from ..rules import solitaire_rules
from ..rules.tables import tables_of

# ints[i] columns
TURN, ROLLS_USED, ROLL, FIRST, ALLOWED = 0, 1, 2, 3, 4
N_INTS = 5
# cols[i, s, c] columns
FILLED, UPPER, YACHT50, UPPER_BONUS, EXTRA_BONUS, EXTRA_YACHTS, SAVED = 0, 1, 2, 3, 4, 5, 6
N_COLS = 7
ROLL_OFF = 7    # the `roll` number of roll-off dice in the dice key (`roll_key` skips it for a turn's own rolls)


class Arrays(NamedTuple):
    """The arrays of N tables (the module docstring), as compiled code passes them around."""
    seeds: np.ndarray
    ints: np.ndarray
    dice: np.ndarray
    faces: np.ndarray
    scores: np.ndarray
    cols: np.ndarray
    totals: np.ndarray
    preview: np.ndarray
    extra: np.ndarray


@nb.njit(cache=True, inline="always")
def sheet_to_move(ints, i, num_players, num_sheets):
    """The sheet the seat to move writes on."""
    return ((ints[i, FIRST] + ints[i, TURN]) % num_players) % num_sheets


@nb.njit(cache=True, inline="always")
def roll_key(used):
    """The roll number in the dice key of a turn's roll made after `used` rolls: `used` itself, past `ROLL_OFF`
    one more (a turn with saved rolls may roll more than seven times; roll-off dice keep their own number)."""
    return used if used < ROLL_OFF else used + 1


@nb.njit(cache=True, inline="always")
def draw_faces(D, seed, sheet, turn, roll, hold, out):
    """Fill out[0:k] with the k fresh dice of a roll that keeps `hold` of the n dice of `D` (the rules' `Dice`;
    counter-based, from the seed)."""
    k = 0
    for d in range(D.n):
        if not (hold >> d) & 1:
            out[k] = die_value(seed, sheet, turn, roll, k)
            k += 1


@nb.njit(cache=True, inline="always")
def place_dice(D, dice, hold, faces):
    """Put faces[0], faces[1], ... on the dice not held (bit d of `hold` keeps sorted die d), sort
    the dice, and return their roll index among the rolls of `D` (the rules' `Dice`)."""
    k = 0
    for d in range(D.n):
        if not (hold >> d) & 1:
            dice[d] = faces[k]
            k += 1
    if D.n != 5:
        for d in range(1, D.n):         # insertion sort
            x = dice[d]
            j = d
            while j > 0 and dice[j - 1] > x:
                dice[j] = dice[j - 1]
                j -= 1
            dice[j] = x
        return dice_roll(D, dice)
    d0, d1, d2, d3, d4 = dice[0], dice[1], dice[2], dice[3], dice[4]
    # a sorting network: nine compare-exchanges, no data-dependent branches
    d0, d1 = min(d0, d1), max(d0, d1)
    d3, d4 = min(d3, d4), max(d3, d4)
    d2, d4 = min(d2, d4), max(d2, d4)
    d2, d3 = min(d2, d3), max(d2, d3)
    d0, d3 = min(d0, d3), max(d0, d3)
    d0, d2 = min(d0, d2), max(d0, d2)
    d1, d4 = min(d1, d4), max(d1, d4)
    d1, d3 = min(d1, d3), max(d1, d3)
    d1, d2 = min(d1, d2), max(d1, d2)
    dice[0], dice[1], dice[2], dice[3], dice[4] = d0, d1, d2, d3, d4
    return dice_roll(D, dice)


@nb.njit(cache=True, inline="always")
def refresh(T, E, i, s):
    """preview[i] and extra[i] = what every box of sheet s would score with the dice in hand."""
    r = E.ints[i, ROLL]
    for c in range(E.preview.shape[1]):
        E.extra[i, c] = box_options(T, E.cols[i, s, c, FILLED], E.cols[i, s, c, YACHT50] != 0, r, E.preview[i, c])


@nb.njit(cache=True, inline="always")
def roll_dice(T, E, i, s, hold, seen=True):
    """Roll table i's dice not held, with the fresh faces in faces[i]; refresh what every box would
    score on sheet s (`refresh`). The only function that changes the dice.

    seen=False leaves preview[i] and extra[i] as they were: a roll that only compiled code playing from
    kept plans looks at (`play_action` with seen=False), whose scoring move refreshes them first."""
    r = place_dice(T.dice, E.dice[i], hold, E.faces[i])
    E.ints[i, ROLL] = r
    E.ints[i, ROLLS_USED] += 1
    E.ints[i, ALLOWED] = T.rolls_per_turn + E.cols[i, s, 0, SAVED]
    if seen:
        refresh(T, E, i, s)
    return r


@nb.njit(cache=True, inline="always")
def roll_seeded(T, E, i, s, num_sheets, hold, seen=True):
    """`roll_dice` with the table's seeded dice."""
    draw_faces(T.dice, E.seeds[i], s, E.ints[i, TURN] // num_sheets, roll_key(E.ints[i, ROLLS_USED]), hold,
               E.faces[i])
    return roll_dice(T, E, i, s, hold, seen)


@nb.njit(cache=True, inline="always")
def score_box(T, E, ypts, i, s, c, b):
    """Score the dice in hand in box b of column c of sheet s (the caller checked preview[i, c, b] >= 0);
    end the turn. Returns the points gained, bonuses included. The only function that writes a box."""
    ints, cols, scores, totals, preview, extra = E.ints, E.cols, E.scores, E.totals, E.preview, E.extra
    pts = preview[i, c, b]
    bonus = upper_bonus_gain(T, cols[i, s, c, UPPER], pts, b)
    e = extra[i, c]
    scores[i, s, c, b] = pts
    cols[i, s, c, FILLED] |= 1 << b
    if T.box_face[b] > 0:
        cols[i, s, c, UPPER] += pts
    if b == T.yacht_box and pts == ypts:
        cols[i, s, c, YACHT50] = 1
    cols[i, s, c, UPPER_BONUS] += bonus
    cols[i, s, c, EXTRA_BONUS] += e
    if e > 0:
        cols[i, s, c, EXTRA_YACHTS] += 1
    gain = pts + bonus + e
    totals[i, s] += gain
    if T.saved_cap > 0:
        cols[i, s, 0, SAVED] = min(T.saved_cap, ints[i, ALLOWED] - ints[i, ROLLS_USED])
    ints[i, TURN] += 1
    ints[i, ROLLS_USED] = 0
    for cc in range(preview.shape[1]):
        preview[i, cc] = -1
    return gain


@nb.njit(cache=True, inline="always")
def play_action(T, E, ypts, num_players, num_sheets, i, a, seen=True):
    """Play action a at table i (a decision of the seat to move). Returns the points gained, or -1 when
    the action is not legal now (nothing changes).

    seen=False: a re-roll leaves the preview alone (`roll_dice`) and a scoring action refreshes it first,
    so every move, and the state after every scoring action, is the same as with seen=True; between, the
    preview may be that of earlier dice (`refresh` it before anything else reads it)."""
    return play_on(T, E, ypts, sheet_to_move(E.ints, i, num_players, num_sheets), num_sheets, i, a, seen)


@nb.njit(cache=True, inline="always")
def play_on(T, E, ypts, s, num_sheets, i, a, seen=True):
    """`play_action` for a caller that knows s, the sheet of the seat to move."""
    ints, preview = E.ints, E.preview
    if ints[i, ROLLS_USED] == 0 or ints[i, TURN] == T.n_boxes * E.cols.shape[2] * num_sheets:
        return -1
    holds = hold_actions_of(T.dice)
    if a < holds:
        if a < 0 or ints[i, ROLLS_USED] >= ints[i, ALLOWED]:
            return -1
        roll_seeded(T, E, i, s, num_sheets, a, seen)
        return 0
    if not seen:
        refresh(T, E, i, s)
    c, b = box_of_action(T.n_boxes, a, holds)
    if c >= preview.shape[1] or preview[i, c, b] < 0:
        return -1
    return score_box(T, E, ypts, i, s, c, b)


@nb.njit(cache=True, inline="always")
def write_mask(i, turns, ints, preview, out):
    """out (one row) = the legal-action mask of table i (all zero where no decision is due); the hold actions
    are what out has room for before the boxes (`yacht_env.core.actions`)."""
    nc, nb_ = preview.shape[1], preview.shape[2]
    holds = out.shape[0] - nc * nb_
    deciding = ints[i, ROLLS_USED] > 0 and ints[i, TURN] < turns
    hold = 1 if deciding and ints[i, ROLLS_USED] < ints[i, ALLOWED] else 0
    for h in range(holds):
        out[h] = hold
    for c in range(nc):
        for b in range(nb_):
            out[score_action_of(nb_, c, b, holds)] = 1 if deciding and preview[i, c, b] >= 0 else 0


@nb.njit(cache=True)
def write_masks(rows, turns, ints, preview, out):
    """out[j] = the legal-action mask of table rows[j] (`write_mask`)."""
    for j in range(rows.shape[0]):
        write_mask(rows[j], turns, ints, preview, out[j])


# ---- entry points (called from Python) -------------------------------------------------------------
# `arrays` and `tables` are plain tuples (`State.arrays`, `State.table_fields`: the module docstring), and
# the functions allocate nothing, so numba's reference counting is off (`_nrt=False`).

@nb.njit(cache=True, _nrt=False)
def roll_one(i, hold, seeded, num_players, num_sheets, arrays, tables):
    """Roll at table i for the seat to move: seeded dice, or (seeded = False) the faces already in faces[i]."""
    T, E = tables_of(tables), Arrays(*arrays)
    s = sheet_to_move(E.ints, i, num_players, num_sheets)
    if seeded:
        return roll_seeded(T, E, i, s, num_sheets, hold)
    return roll_dice(T, E, i, s, hold)


@nb.njit(cache=True, _nrt=False)
def score_one(i, c, b, ypts, num_players, num_sheets, arrays, tables):
    """Score box b of column c at table i for the seat to move; -1 (and no change) when not allowed."""
    T, E = tables_of(tables), Arrays(*arrays)
    if E.ints[i, ROLLS_USED] == 0 or c >= E.preview.shape[1] or E.preview[i, c, b] < 0:
        return -1
    s = sheet_to_move(E.ints, i, num_players, num_sheets)
    return score_box(T, E, ypts, i, s, c, b)


@nb.njit(cache=True, _nrt=False)
def refresh_one(i, num_players, num_sheets, arrays, tables):
    """Recompute what every box would score for the dice in hand (after a sheet was set by hand)."""
    T, E = tables_of(tables), Arrays(*arrays)
    if E.ints[i, ROLLS_USED] == 0:
        return
    refresh(T, E, i, sheet_to_move(E.ints, i, num_players, num_sheets))


@nb.njit(cache=True, _nrt=False)
def roll_many(rows, num_sheets, num_players, arrays, tables):
    """The first roll of the turn at every table in `rows` (seeded dice)."""
    T, E = tables_of(tables), Arrays(*arrays)
    for j in range(rows.shape[0]):
        i = rows[j]
        roll_seeded(T, E, i, sheet_to_move(E.ints, i, num_players, num_sheets), num_sheets, 0)


@nb.njit(cache=True, _nrt=False)
def play_many(rows, actions, gains, ypts, num_players, num_sheets, arrays, tables):
    """Play actions[j] at table rows[j] for every j; gains[j] = points gained, or -1 where not legal."""
    T, E = tables_of(tables), Arrays(*arrays)
    for j in range(rows.shape[0]):
        gains[j] = play_action(T, E, ypts, num_players, num_sheets, rows[j], actions[j])


@nb.njit(cache=True, _nrt=False)
def put_many(rows, rolls, rolls_used, sorted_rolls, num_players, num_sheets, arrays, tables):
    """Put roll rolls[j] (an index of `sorted_rolls`, the rules' `Dice.rolls`) in hand at table rows[j] as
    the rolls_used[j]-th roll of the turn: the roll's faces are rolled as fresh dice (`roll_dice`)."""
    T, E = tables_of(tables), Arrays(*arrays)
    for j in range(rows.shape[0]):
        i = rows[j]
        s = sheet_to_move(E.ints, i, num_players, num_sheets)
        for k in range(T.dice.n):
            E.faces[i, k] = sorted_rolls[rolls[j], k]
        E.ints[i, ROLLS_USED] = rolls_used[j] - 1
        roll_dice(T, E, i, s, 0)



def roll_off(rules, num_players: int, dice_source) -> tuple[int, list[list[int]]]:
    """Who plays first: seat 0, or under `first_player: roll_off` (seed 003) every seat rolls one die,
    the highest starts and tied seats roll again (at most 100 rounds; then the lowest tied seat).

    Returns (first seat, the dice of each round: one face per seat still in, in seat order). Round k of
    seat s is the dice source's `draw(s, k, ROLL_OFF, 1)`, apart from every die of the game itself."""
    if rules.first_player != "roll_off" or num_players == 1:
        return 0, []
    tied, rounds = list(range(num_players)), []
    while len(tied) > 1 and len(rounds) < 100:
        faces = [int(dice_source.draw(s, len(rounds), ROLL_OFF, 1)[0]) for s in tied]
        rounds.append(faces)
        tied = [s for s, f in zip(tied, faces) if f == max(faces)]
    return tied[0], rounds


@nb.njit(cache=True, _nrt=False)
def reset_rows(rows, seeds, firsts, arrays):
    """A new game at tables rows[j] (`State.reset`): dice seed seeds[j], first seat firsts[j], empty sheets,
    no dice rolled yet."""
    E = Arrays(*arrays)
    for j in range(rows.shape[0]):
        i = rows[j]
        E.seeds[i] = seeds[j]
        E.ints[i, :] = 0
        E.ints[i, FIRST] = firsts[j]
        E.preview[i] = -1
        E.extra[i] = 0
        E.scores[i] = -1
        E.cols[i] = 0
        E.totals[i] = 0


def first_seats(rules, num_players: int, seeds) -> np.ndarray:
    """The first seat of the game of each seed (`roll_off` with seeded dice), for batches of tables."""
    if rules.first_player != "roll_off" or num_players == 1:
        return np.zeros(len(seeds), np.int64)
    return np.array([roll_off(rules, num_players, SeededDice(int(s)))[0] for s in seeds], np.int64)


class State:
    """N tables of one rule set with `num_players` seats each, as arrays (see the module docstring).

    `reset(seeds)` starts a game at every table (no dice rolled yet); `roll(rows)` makes
    the first roll of the turn at those tables; `play(rows, actions)` plays one decision at each.
    """

    def __init__(self, rules, num_tables: int, num_players: int = 1):
        self.num_sheets = rules.check_players(num_players)
        n, s, c, b = int(num_tables), self.num_sheets, rules.columns, len(rules.boxes)
        self.rules, self.tables = rules, rules.tables
        self.num_tables, self.num_players = n, num_players
        self.turns = rules.rounds * s          # turns in a game, all sheets together
        self.num_actions = num_actions(rules)
        y = self.tables.yacht_box
        self.ypts = int(rules.boxes_spec[y].points) if y >= 0 else -1
        self.seeds = np.zeros(n, np.uint64)
        self.ints = np.zeros((n, N_INTS), np.int64)
        nd = rules.dice
        self.dice = np.ones((n, nd), np.int8)
        self.faces = np.zeros((n, nd), np.int8)
        self.preview = np.full((n, c, b), -1, np.int32)
        self.extra = np.zeros((n, c), np.int64)
        self.scores = np.full((n, s, c, b), -1, np.int32)
        self.cols = np.zeros((n, s, c, N_COLS), np.int64)
        self.totals = np.zeros((n, s), np.int64)
        # what compiled entry points take (the module docstring); the arrays are only ever changed in place
        self.arrays = tuple(Arrays(self.seeds, self.ints, self.dice, self.faces, self.scores, self.cols, self.totals,
                                   self.preview, self.extra))
        self.table_fields = self.tables.fields()

    def __getstate__(self) -> dict:
        # the rules' own tables, not pickled copies (`RuleSet.__getstate__`: compiled code types the copies apart)
        return {k: v for k, v in self.__dict__.items() if k not in ("tables", "table_fields")}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self.tables = self.rules.tables
        self.table_fields = self.tables.fields()

    def reset(self, seeds, first=None, rows=None) -> None:
        """A new game at every table (or at tables `rows`): seeds[i] its dice seed; `first` (one, or one per
        table reset) its first seat, by default the one the rules give (`first_seats`)."""
        rows = slice(None) if rows is None else np.asarray(rows, np.int64)
        seeds = np.atleast_1d(seeds)
        if seeds.dtype != np.uint64:
            seeds = np.asarray([int(x) & 0xFFFFFFFFFFFFFFFF for x in seeds], np.uint64)
        if seeds.shape != self.seeds[rows].shape:
            raise ValueError(f"expected {self.seeds[rows].shape[0]} seeds, got {seeds.shape[0]}")
        first_seats_ = first_seats(self.rules, self.num_players, seeds) if first is None else first
        rows = np.arange(self.num_tables) if isinstance(rows, slice) else rows
        firsts = np.broadcast_to(np.asarray(first_seats_, np.int64), rows.shape).copy()
        reset_rows(rows, seeds, firsts, self.arrays)

    # ---- reading ------------------------------------------------------------------------------
    def seat_to_move(self, rows=slice(None)) -> np.ndarray:
        return (self.ints[rows, FIRST] + self.ints[rows, TURN]) % self.num_players

    def sheet_to_move(self, rows=slice(None)) -> np.ndarray:
        return self.seat_to_move(rows) % self.num_sheets

    def over(self, rows=slice(None)) -> np.ndarray:
        return self.ints[rows, TURN] >= self.turns

    def saved(self, rows=slice(None)) -> np.ndarray:
        """The rolls the sheet to move has saved for its turns (`RuleSet.saved_rolls`; 0 without)."""
        rows = np.arange(self.num_tables)[rows] if isinstance(rows, slice) else np.asarray(rows, np.int64)
        return self.cols[rows, self.sheet_to_move(rows), 0, SAVED]

    def rolls_left(self, rows=slice(None)) -> np.ndarray:
        """The rolls the seat to move may still make this turn: with dice in hand, ALLOWED - ROLLS_USED; before
        its first roll, the whole turn's (rolls per turn plus the sheet's saved rolls)."""
        rows = np.arange(self.num_tables)[rows] if isinstance(rows, slice) else np.asarray(rows, np.int64)
        used = self.ints[rows, ROLLS_USED]
        return np.where(used > 0, self.ints[rows, ALLOWED] - used, self.rules.rolls_per_turn + self.saved(rows))

    def deciding(self, rows=slice(None)) -> np.ndarray:
        """True where the seat to move has dice in hand and must decide."""
        return (self.ints[rows, ROLLS_USED] > 0) & ~self.over(rows)

    def masks(self, rows) -> np.ndarray:
        """int8 legal-action masks of the tables `rows` (all zero where no decision is due)."""
        if isinstance(rows, slice):
            rows = np.arange(self.num_tables)[rows]
        rows = np.asarray(rows, np.int64)
        out = np.empty((len(rows), self.num_actions), np.int8)
        write_masks(rows, self.turns, self.ints, self.preview, out)
        return out

    # ---- playing ------------------------------------------------------------------------------
    def roll(self, rows) -> None:
        """The first roll of the turn at every table in `rows` (seeded dice)."""
        rows = np.ascontiguousarray(rows, np.int64)
        roll_many(rows, self.num_sheets, self.num_players, self.arrays, self.table_fields)

    def play(self, rows, actions) -> np.ndarray:
        """Play actions[j] at table rows[j]; returns the points each gained (-1 where it was not legal)."""
        rows = np.ascontiguousarray(rows, np.int64)
        gains = np.empty(len(rows), np.int64)
        play_many(rows, np.ascontiguousarray(actions, np.int64), gains, self.ypts, self.num_players,
                  self.num_sheets, self.arrays, self.table_fields)
        return gains

    def put_rolls(self, rows, rolls, rolls_used) -> None:
        """Put sorted roll rolls[j] (an index of the rules' rolls, `rules.dice_tables.rolls`) in hand at table
        rows[j] as roll number rolls_used[j] (1 .. the rolls its turn may make: rolls per turn plus the sheet's
        saved rolls) of the seat to move's turn (positions for look-ahead, analysis and tests); what every box
        would score follows."""
        rows = np.ascontiguousarray(rows, np.int64)
        # copies: a broadcast view is read-only, and compiled code would take it for another type
        rolls = np.array(np.broadcast_to(rolls, rows.shape), np.int64)
        used = np.array(np.broadcast_to(rolls_used, rows.shape), np.int64)
        d = self.tables.dice
        most = self.rules.rolls_per_turn + self.saved(rows)
        if ((rolls < 0) | (rolls >= d.n_rolls)).any() or ((used < 1) | (used > most)).any():
            raise ValueError(f"rolls must be 0..{d.n_rolls - 1} and roll numbers 1..{int(most.max())}")
        put_many(rows, rolls, used, d.rolls, self.num_players, self.num_sheets, self.arrays, self.table_fields)

    def solo(self, rows) -> "State":
        """A one-player State whose table j is the sheet to move at table rows[j] as it stands: its boxes,
        bonuses and total, its turns played, the dice in hand (positions for look-ahead), under the
        rules as one player alone plays them (`solitaire_rules`: the same sheet without teams)."""
        rows = np.asarray(rows, np.int64)
        out = State(solitaire_rules(self.rules), len(rows), 1)
        sheet = self.sheet_to_move(rows)
        out.seeds[:] = self.seeds[rows]
        out.ints[:, TURN] = self.ints[rows, TURN] // self.num_sheets
        out.ints[:, ROLLS_USED] = self.ints[rows, ROLLS_USED]
        out.ints[:, ALLOWED] = self.ints[rows, ALLOWED]
        out.ints[:, ROLL] = self.ints[rows, ROLL]
        for name in ("dice", "faces", "preview", "extra"):
            getattr(out, name)[:] = getattr(self, name)[rows]
        out.scores[:, 0] = self.scores[rows, sheet]
        out.cols[:, 0] = self.cols[rows, sheet]
        out.totals[:, 0] = self.totals[rows, sheet]
        return out

    def repeat(self, rows, times: int) -> "State":
        """A State of the same table size with `times` copies of each table rows[j], in order (table
        j * times + k is copy k of rows[j])."""
        rows = np.repeat(np.asarray(rows, np.int64), int(times))
        out = State(self.rules, len(rows), self.num_players)
        for name in ("seeds", "ints", "dice", "faces", "preview", "extra", "scores", "cols", "totals"):
            getattr(out, name)[:] = getattr(self, name)[rows]
        return out

    def set_scores(self, i: int, sheet: int, scores, upper_bonus=None, extra_bonus=None, saved: int = 0) -> None:
        """Write a whole sheet of table i by hand (positions for tests, advice and replays): box scores
        (columns x boxes, -1 open); the upper totals, the Yacht-50 flags and the filled masks follow
        from them; bonuses default to the upper bonus the upper totals earn and no extra-Yacht bonus;
        `saved` the rolls the sheet has saved (0 .. the rules' saved_rolls)."""
        if not 0 <= saved <= self.rules.saved_rolls:
            raise ValueError(f"saved rolls must be 0..{self.rules.saved_rolls} under rules {self.rules.name!r}, "
                             f"got {saved}")
        t = self.tables
        sc = np.asarray(scores, np.int64).reshape(self.scores.shape[2:])
        self.scores[i, sheet] = sc
        col = self.cols[i, sheet]
        col[:, FILLED] = ((sc >= 0) * (1 << np.arange(sc.shape[1]))).sum(axis=1)
        col[:, UPPER] = np.where((sc >= 0) & (t.box_face > 0), sc, 0).sum(axis=1)
        col[:, YACHT50] = (sc[:, t.yacht_box] == self.ypts) if t.yacht_box >= 0 else 0
        if upper_bonus is None:
            upper_bonus = np.where(col[:, UPPER] >= t.upper_threshold, t.upper_bonus, 0) if t.upper_bonus else 0
        col[:, UPPER_BONUS] = upper_bonus
        col[:, EXTRA_BONUS] = 0 if extra_bonus is None else extra_bonus
        col[:, EXTRA_YACHTS] = col[:, EXTRA_BONUS] // t.extra_bonus if t.extra_bonus else 0
        col[0, SAVED] = saved
        self.totals[i, sheet] = np.where(sc >= 0, sc, 0).sum() + col[:, UPPER_BONUS].sum() + col[:, EXTRA_BONUS].sum()
        refresh_one(i, self.num_players, self.num_sheets, self.arrays, self.table_fields)
