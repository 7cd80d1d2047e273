"""`yacht show DIR GAME`: replay one stored game turn by turn, with the solver's verdict on every move.

Each turn shows the dice of every roll, the dice held, the box scored, the seat's sheet as it
stands after the turn, and beside each move the expected points it lost against the best move
(with ?! / ? / ?? for an inaccuracy, a mistake, a blunder) and the best move when it differs; in a
game of 2+ sheets also the chance to win before and after the move (the estimate strong?goal=win plays
by) and what it gave up.
GAME is the record's key (t0-d3-r1) or its line number in games.jsonl.
"""
from collections import Counter

import numpy as np

from yacht_env.core.actions import held_positions
from yacht_env.core.dice_source import ScriptedDice
from yacht_env.core.game import Game

from agents.analysis import BLUNDER, INACCURACY, MARKS, MISTAKE, analyze
from agents.human import scorecard

from .analyze import add_games_source, games_from_args
from .options import CommandError, emit_json


def add_parser(sub):
    p = sub.add_parser("show", help="replay a stored game turn by turn with the analysis of every move",
                       description=__doc__.split("\n\n")[1].replace("\n", " "))
    add_games_source(p)
    p.add_argument("game", metavar="GAME", help="the game's key (e.g. t0-d3-r1) or its line number")
    p.add_argument("--seat", type=int, default=None, metavar="S", help="only the turns of seat S (1 = first seat)")
    p.add_argument("--no-win", action="store_true", help="leave out the chance to win before and after each move")
    p.add_argument("--json", action="store_true", help="print one JSON document on stdout")


def find_game(games, wanted: str) -> int:
    """Index of the record whose key is `wanted`, or whose line number it is."""
    keys = [str(r.get("key")) for r in games.records]
    if wanted in keys:
        return keys.index(wanted)
    if wanted.isdigit() and int(wanted) in games.lines:
        return games.lines.index(int(wanted))
    named = [k for k, r in zip(keys, games.records) if r.get("key") is not None]
    sample = ", ".join(named[:4]) + (f", ..., {named[-1]}" if len(named) > 4 else "")
    lines = f"line numbers {games.lines[0]}..{games.lines[-1]}" if games.lines else "no lines"
    raise CommandError(f"no game {wanted!r} in {games.path} ({len(games.records)} games); give a key"
                       + (f" ({sample})" if named else " (these records have none)") + f" or one of the {lines}")


def run(args) -> int:
    games = games_from_args(args)
    if not games.records:
        raise CommandError(f"{games.path}: no games in this log")
    i = find_game(games, args.game)
    record = games.records[i]
    seats = len(record["agents"])
    if args.seat is not None and not 1 <= args.seat <= seats:
        raise CommandError(f"--seat must be 1..{seats} for game {args.game!r}, got {args.seat}")
    a = analyze([record], games.rules, progress=not args.json, win=not args.no_win)
    a.lines = [games.lines[i]]
    decisions = [d for d in a.game(0) if args.seat is None or d["seat"] == args.seat - 1]
    if args.json:
        emit_json({"game": a.key(0), "line": games.lines[i], "rules": games.rules_block, "values": a.values,
                   "note": a.note, "optimal_expected_score": a.optimal, "agents": record["agents"],
                   "totals": record.get("totals"), "decisions": decisions})
        return 0
    print("\n".join(replay(a, record, args.seat)))
    return 0


def replay(a, record: dict, seat: int | None = None) -> list[str]:
    """The lines of `yacht show` for a one-record analysis `a` (seat: 1-based, None for all)."""
    rules = a.rules
    names = {s: f"seat {s + 1} {n}" for s, n in enumerate(record["agents"])}
    by_move = {d["move"]: d for d in a.game(0)}
    fault_at = {s: f.get("move", 0) for s, f in enumerate(record.get("faults") or ()) if f is not None}
    game = Game(rules, num_players=len(record["agents"]), dice=ScriptedDice(_faces(record["log"])),
                first_seat=record["log"][0]["seat"] if record["log"] else 0)
    out = [f"game {a.key(0)} (line {a.lines[0]}), rules {rules.name}: " +
           ", ".join(f"{names[s]} {t}" for s, t in enumerate(record.get("totals") or [])),
           f"{a.note}; loss = expected points lost against the best move; ?! >= {INACCURACY:g}, ? >= {MISTAKE:g}, "
           f"?? >= {BLUNDER:g}"]
    if a.win_lost is not None and not np.isnan(a.win_lost).all():
        out.append("win = chance to finish first before -> after the move, by strong?goal=win's estimate (later "
                   "turns played for points; docs/winning.md)")
    width = max(len(rules.boxes[b]) for b in range(len(rules.boxes))) + 12
    log = record["log"]
    rolls = 0
    for j, e in enumerate(log):
        s = e["seat"]
        shown = seat is None or s == seat - 1
        if "dice" in e:
            if rolls == 0 and shown:
                total = game.sheet_totals()[game.current_sheet]
                out += ["", f"turn {game.round + 1}, {names[s]} (sheet total {total})"]
            game.roll(e["hold"])
            rolls += 1
            if not shown:
                continue
            d = by_move.get(j + 1)
            move = d["played"] + (f" {log[j + 1]['points']}" if "box" in log[j + 1] else "")
            verdict = "(fallback move after a fault)" if j + 1 >= fault_at.get(s, len(log)) else _verdict(d)
            out.append(f"  roll {rolls}  {' '.join(map(str, e['dice']))}  {move:<{width}} {verdict}".rstrip())
        else:
            sheet = game.current_sheet
            game.score(e["box"], e["column"])
            rolls = 0
            if shown:
                out += _card(game, sheet)
    out += ["", scorecard(game, {s: f"seat {s + 1} ({n})" for s, n in enumerate(record["agents"])})]
    for s in range(len(record["agents"])):
        if seat is not None and s != seat - 1:
            continue
        mine = [d for d in by_move.values() if d["seat"] == s and d["move"] < fault_at.get(s, len(log))]
        lost = sum(d["loss"] for d in mine)
        counts = Counter(d["class"] for d in mine)
        forfeit = f"; forfeited at log[{fault_at[s]}]: {record['faults'][s].get('error')}" if s in fault_at else ""
        accuracy = f"{100 * (1 - lost / a.optimal):.2f}%" if a.optimal > 0 else "–"
        won = sum(d["win_lost"] for d in mine if "win_lost" in d)
        chance = f", gave up {100 * won:.1f}% chance to win" if any("win_lost" in d for d in mine) else ""
        out.append(f"{names[s]}: {len(mine)} decisions, lost {lost:.2f} expected points (accuracy "
                   f"{accuracy}), {counts['inaccuracy']} ?!, {counts['mistake']} ?, "
                   f"{counts['blunder']} ??{chance}{forfeit}")
    return out


def _verdict(d: dict) -> str:
    text = "best" if d["loss"] == 0 else f"-{d['loss']:.2f} {MARKS[d['class']]:<2} best: {d['best']}"
    if "win_lost" in d:
        text = f"{text:<28} win {100 * d['win_before']:5.1f}% -> {100 * d['win_after']:5.1f}%"
        if d["win_lost"] >= 0.0005:
            text += f" (-{100 * d['win_lost']:.1f})"
    return text


def _card(game, sheet: int) -> list[str]:
    """A sheet in two lines: the filled upper boxes and the upper total (when there is one), then the
    filled lower boxes and the total."""
    rules, sh = game.rules, game.sheets[sheet]
    faces = [b.face for b in rules.boxes_spec]
    upper, lower = [], []
    for c in range(rules.columns):
        for b, box in enumerate(rules.boxes):
            if sh.scores[c, b] >= 0:
                cell = f"{box}{'' if rules.columns == 1 else f'@{c + 1}'} {int(sh.scores[c, b])}"
                (upper if faces[b] else lower).append(cell)
    if rules.upper_bonus:
        upper.append("upper " + " ".join(f"{int(u)}/{rules.upper_bonus_threshold}" for u in sh.upper))
    rows = [" · ".join(part) for part in (upper, lower + [f"total {sh.total}"]) if part]
    return ["  sheet  " + rows[0]] + ["         " + row for row in rows[1:]]


def _faces(log) -> list[int]:
    """The faces each roll drew, in order: the dice after the roll less the dice held."""
    faces, dice = [], []
    for e in log:
        if "dice" in e:
            held = Counter(dice[k] for k in held_positions(e["hold"])) if dice else Counter()
            faces += list((Counter(e["dice"]) - held).elements())
            dice = e["dice"]
    return faces
