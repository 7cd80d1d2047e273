"""`yacht advise`: the best hold or box for a position, and the expected final score of every alternative.

A position is the dice, the re-rolls left and the scorecard, given as arguments::

    yacht advise --dice 1 2 3 3 5 --rolls-left 2 --filled ones=3 yacht=50

or as a JSON file (`--state FILE`) with the same keys::

    {"dice": [1, 2, 3, 3, 5], "rolls_left": 2, "filled": {"ones": 3, "yacht": 50}, "upper": 3, "bonus": 0}

With several columns, boxes are named ``box@COLUMN`` (``ones@2``), and the values come from the
column-additive approximation the strong agent uses.
"""
import json
import re

import numpy as np

from yacht_env.core.actions import action_name
from yacht_env.core.engine import State
from yacht_env.core.game import DICE_WORDS
from yacht_env.envs.obs import yacht_points
from yacht_env.rules import load, solitaire_rules
from yacht_env.safe_file import FileRefused, TooLarge, read_bytes
from yacht_env.solver import Unsolvable, solution_for
from yacht_env.solver.policy import Policy

from .options import (
    CommandError,
    add_common,
    emit_json,
    rules_block_from_args,
    rules_from_args,
)

STATE_KEYS = {"dice", "rolls_left", "filled", "upper", "bonus"}
MAX_STATE_BYTES = 64 << 10
EXAMPLE_DICE = (1, 2, 3, 3, 5, 6)     # the dice of the usage examples (the first `dice` of them)


def add_parser(sub):
    p = sub.add_parser("advise", help="best hold or box for a position, with every alternative's expected score",
                       description=__doc__.split("\n\n")[0])
    add_common(p, seed=False)
    p.add_argument("--dice", nargs="+", type=int, metavar="FACE",
                   help="the dice showing (as many as the rules roll: five, or six under dice: 6)")
    p.add_argument("--rolls-left", type=int, default=None, metavar="N",
                   help="re-rolls still allowed this turn (default 0: the roll must be scored; under saved_rolls, "
                        "the saved rolls the turn may still use count)")
    p.add_argument("--filled", nargs="*", default=None, metavar="BOX=POINTS",
                   help="boxes already scored (box@COLUMN with several columns)")
    p.add_argument("--upper", nargs="+", type=int, default=None, metavar="N",
                   help="upper-section total per column, checked against the filled upper boxes (default: their sum)")
    p.add_argument("--bonus", type=int, default=None, metavar="POINTS",
                   help="extra-Yacht bonus points already earned (default 0)")
    p.add_argument("--state", metavar="FILE.json", help="read the position from a JSON file instead")
    p.add_argument("--top", type=int, default=0, metavar="N", help="print only the N best alternatives")


def _position(args) -> dict:
    pos = {"dice": args.dice, "rolls_left": args.rolls_left, "filled": None, "upper": args.upper,
           "bonus": args.bonus}
    if args.filled is not None:
        pos["filled"] = {}
        for item in args.filled:
            box, eq, pts = item.partition("=")
            if not eq:
                raise CommandError(f"--filled takes BOX=POINTS, got {item!r} (e.g. --filled ones=3 yacht=50)")
            if not re.fullmatch(r"-?[0-9]{1,9}", pts.strip()):
                raise CommandError(f"--filled {item!r}: points must be a whole number")
            if box in pos["filled"]:
                raise CommandError(f"--filled: box {box!r} is given twice")
            pos["filled"][box] = int(pts)
    if args.state:
        if any(v is not None for v in pos.values()):
            raise CommandError("give the position either with --state or with --dice/--rolls-left/--filled/--upper/"
                               "--bonus, not both")
        doc = _read_state(args.state)
        if not isinstance(doc, dict) or set(doc) - STATE_KEYS:
            bad = sorted(set(doc) - STATE_KEYS) if isinstance(doc, dict) else "top level"
            raise CommandError(f"--state {args.state}: unknown key {bad}; allowed: {', '.join(sorted(STATE_KEYS))}")
        pos = {k: doc.get(k) for k in STATE_KEYS}
        if pos["upper"] is not None and not isinstance(pos["upper"], list):
            pos["upper"] = [pos["upper"]]
    return pos


def _read_state(path: str):
    """The JSON document of a --state file: bounded in size, no key given twice."""
    try:
        raw = read_bytes(path, MAX_STATE_BYTES, "--state file")   # a regular file (never a FIFO), bounded
    except TooLarge:
        raise CommandError(f"--state {path} is larger than {MAX_STATE_BYTES} bytes; a position takes a few lines") \
            from None
    except FileRefused as e:
        raise CommandError(f"cannot read --state {path}: {e.problem}") from None

    def no_twice(pairs):
        keys = [k for k, _ in pairs]
        twice = next((k for k in keys if keys.count(k) > 1), None)
        if twice is not None:
            raise CommandError(f"--state {path}: key {twice!r} is given twice")
        return dict(pairs)

    try:
        return json.loads(raw, object_pairs_hook=no_twice)
    except json.JSONDecodeError as e:
        raise CommandError(f"--state {path} is not valid JSON ({e.msg}, line {e.lineno})") from None
    except RecursionError:
        raise CommandError(f"--state {path} is not valid JSON (nested too deeply)") from None
    except ValueError as e:   # not UTF-8, a number with thousands of digits
        raise CommandError(f"--state {path} is not valid JSON ({str(e).splitlines()[0][:120]})") from None


def _whole(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _sheet(rules, filled, upper, bonus):
    """scores (columns x boxes, -1 open), upper totals per column, points already on the sheet.

    The position must be one a game can reach: each box holds points it can hold on its column (joker
    points only where the Yacht box, and for forced or Verhoeff jokers the matching upper box, allow
    them), the upper totals are what the filled upper boxes add up to, and the extra-Yacht bonus is a
    multiple of the rules' bonus, at most one per box that can hold an extra Yacht."""
    scores = np.full((rules.columns, len(rules.boxes)), -1, dtype=np.int64)
    if not isinstance(filled, dict):
        raise CommandError("filled must map box names to points, e.g. {\"ones\": 3}")
    where = {}
    for key, pts in filled.items():
        box, _, col = str(key).partition("@")
        if box not in rules.boxes:
            raise CommandError(f"no box {box!r} in rules {rules.name!r}; boxes: {', '.join(rules.boxes)}")
        if col and not (col.isdigit() and 1 <= int(col) <= rules.columns):
            raise CommandError(f"box {key!r}: column must be 1..{rules.columns}")
        if not col and rules.columns > 1:
            raise CommandError(f"rules {rules.name!r} have {rules.columns} columns: name boxes as {box}@COLUMN")
        if not _whole(pts) or pts < 0:
            raise CommandError(f"box {key!r}: points must be a whole number >= 0, got {pts!r}")
        c, b = int(col or 1) - 1, rules.boxes.index(box)
        if scores[c, b] >= 0:
            raise CommandError(f"box {key!r} is given twice (as {where[c, b]!r} too)")
        scores[c, b], where[c, b] = pts, key
    for (c, b), key in where.items():
        possible = _box_points(rules, scores, c, b)
        if scores[c, b] not in possible:
            raise CommandError(f"box {key!r} cannot hold {scores[c, b]} points under {rules.name!r}; "
                               f"possible: {', '.join(map(str, sorted(possible)))}")
    if (scores >= 0).all():
        raise CommandError("every box is filled: the game is over, nothing to advise")
    faces = np.array([b.face for b in rules.boxes_spec])
    sums = np.where((scores >= 0) & (faces > 0), scores, 0).sum(axis=1)
    if upper is None:
        upper = sums
    elif len(upper) != rules.columns or any(not _whole(u) or u < 0 for u in upper):
        raise CommandError(f"upper: one whole number >= 0 per column ({rules.columns}), got {_short(upper)}")
    elif list(upper) != sums.tolist():
        raise CommandError(f"upper: the filled upper boxes add up to {' '.join(map(str, sums.tolist()))}, got "
                           f"{' '.join(map(str, upper))} (leave --upper out to use their sum)")
    upper = np.array(upper, dtype=np.int64)
    if bonus is None:
        bonus = 0
    if not _whole(bonus) or bonus < 0:
        raise CommandError(f"bonus must be a whole number >= 0, got {_short(bonus)}")
    if bonus:
        per, most = rules.extra_yacht_bonus, _extra_yacht_boxes(rules, scores)
        if not per:
            raise CommandError(f"bonus: rules {rules.name!r} pay no extra-Yacht bonus, got {bonus}")
        if bonus % per or bonus // per > most:
            raise CommandError(f"bonus: the extra-Yacht bonus is {per} per extra Yacht, and this sheet has room for "
                               f"at most {most} (boxes filled after a full Yacht box with points a Yacht gives "
                               f"them), got {bonus}")
    ub = rules.upper_bonus * int(((upper >= rules.upper_bonus_threshold) & (rules.upper_bonus > 0)).sum())
    return scores, upper, int(np.where(scores >= 0, scores, 0).sum()) + ub + bonus


def _short(x) -> str:
    return repr(x)[:80]


def _engine_points(rules, scores, c: int, b: int, rolls) -> set[int]:
    """The points the engine gives box b of column c for each of `rolls` (indices of the rules' rolls,
    `rules.dice_tables.rolls`) with box b open on the sheet `scores` (columns x boxes, -1 open) as it stands,
    and as it stood before the column's Yacht box was filled: the points the box could have been given.
    The scoring and the joker rule are the engine's (`State.put_rolls`: what every box would score)."""
    sheets = [np.array(scores, np.int64)]
    y = rules.tables.yacht_box
    if y >= 0 and y != b and sheets[0][c, y] >= 0:
        sheets.append(sheets[0].copy())
        sheets[1][c, y] = -1
    state = State(solitaire_rules(rules), len(sheets), 1)
    for k, sheet in enumerate(sheets):
        sheet[c, b] = -1
        state.set_scores(k, 0, sheet)
    rolls = np.asarray(rolls, np.int64)
    state = state.repeat(np.arange(len(sheets)), len(rolls))   # table k * len(rolls) + j: sheet k, roll j
    state.put_rolls(np.arange(state.num_tables), np.tile(rolls, len(sheets)), 1)
    points = state.preview[:, c, b]
    return {int(p) for p in points[points >= 0]}


def _box_points(rules, scores, c: int, b: int) -> set[int]:
    """Points box b of column c can hold on a sheet whose boxes hold `scores` (-1: open)."""
    return _engine_points(rules, scores, c, b, np.arange(rules.dice_tables.n_rolls))


def _extra_yacht_boxes(rules, scores) -> int:
    """Boxes that can hold an extra Yacht: filled, not the Yacht box, on a column whose Yacht box holds
    its full points, with points a Yacht (every die alike) gives that box there."""
    t = rules.tables
    yachts = np.flatnonzero(t.roll_yacht)
    n = 0
    for c, column in enumerate(scores):
        if t.yacht_box < 0 or column[t.yacht_box] != yacht_points(rules):
            continue
        for b in np.flatnonzero(column >= 0):
            if b != t.yacht_box:
                n += int(column[b]) in _engine_points(rules, scores, c, b, yachts)
    return n


def run(args):
    rules = rules_from_args(args)
    if args.top < 0:
        raise CommandError(f"--top must be 0 (all) or more, got {args.top}")
    pos = _position(args)
    dice = pos["dice"]
    if dice is None:
        raise CommandError(f"no dice: give --dice with {DICE_WORDS[rules.dice]} faces (e.g. --dice "
                           f"{' '.join(map(str, EXAMPLE_DICE[:rules.dice]))}) or --state FILE.json")
    if not isinstance(dice, list) or len(dice) != rules.dice or any(
            isinstance(d, bool) or not isinstance(d, int) or not 1 <= d <= 6 for d in dice):
        raise CommandError(f"dice: {DICE_WORDS[rules.dice]} faces 1..6 are needed, got {_short(dice)}")
    rolls_left = 0 if pos["rolls_left"] is None else pos["rolls_left"]
    most = rules.rolls_per_turn - 1 + rules.saved_rolls    # a turn may re-roll on the rolls its sheet saved
    if isinstance(rolls_left, bool) or not isinstance(rolls_left, int) or not 0 <= rolls_left <= most:
        saved = f" plus up to {rules.saved_rolls} saved" if rules.saved_rolls else ""
        raise CommandError(f"rolls left must be 0..{most} under {rules.name!r} "
                           f"({rules.rolls_per_turn} rolls per turn{saved}, the first already made), "
                           f"got {_short(rolls_left)}")
    scores, upper, banked = _sheet(rules, pos["filled"] or {}, pos["upper"], pos["bonus"])
    try:
        column = rules if rules.columns == 1 else _one_column(rules)
        policy = Policy(rules, solution_for(column, progress=not args.json))
    except Unsolvable as e:
        raise CommandError(str(e)) from None
    roll = rules.dice_tables.index(dice)
    alts = policy.alternatives(scores, upper, roll, rolls_left)
    rows = [{"action": a, "move": action_name(rules, a, roll), "expected_final_score": banked + v} for a, v in alts]
    if args.top > 0:
        rows = rows[:args.top]
    if args.json:
        emit_json({"rules": rules_block_from_args(args), "dice": sorted(dice), "rolls_left": rolls_left,
                   "banked": banked, "best": rows[0], "alternatives": rows})
        return 0
    print(f"Dice {' '.join(map(str, sorted(dice)))}, {rolls_left} re-roll(s) left, {banked} points on the sheet "
          f"({rules.name}{', column-additive values' if rules.columns > 1 else ''}).")
    print(f"Best: {rows[0]['move']} (expected final score {rows[0]['expected_final_score']:.2f})")
    width = max(len(r["move"]) for r in rows)
    for r in rows:
        print(f"  {r['move']:<{width}}  {r['expected_final_score']:9.2f}")
    return 0


def _one_column(rules):
    return load(rules, columns=1)
