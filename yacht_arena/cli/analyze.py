"""`yacht analyze DIR|FILE`: every decision of stored games against the exact solver, per agent.

Reads a tournament folder (games.jsonl + tournament.json), an `evaluate --out` folder (games.jsonl +
evaluate.json) or a games.jsonl file (rules from --rules/--set). Prints per agent the points lost
per game and per decision, accuracy, inaccuracies / mistakes / blunders, where the points go
(holds against box choices, by box, by turn) and the costliest moves; in games of 2+ sheets also
the chance to win each decision gave up, by the estimate strong?goal=win plays by, and the moves that
gave up the most. Thresholds and figures: docs/analysis.md.
"""
import json
import sys
from pathlib import Path

from .options import CommandError, emit_json
from yacht_env.rules import load, parse_sets, rules_label
from yacht_env.safe_file import write_atomic

from agents.analysis import BLUNDER, INACCURACY, MARKS, MISTAKE, figure, win_skipped
from tournaments.gamelog import analyze_file, read_games
from tournaments.stats import standings


def add_parser(sub):
    p = sub.add_parser("analyze", help="points lost by every move of stored games, against the exact solver",
                       description=__doc__.split("\n\n")[1].replace("\n", " "))
    add_games_source(p)
    p.add_argument("--agent", default=None, metavar="NAME", help="only this agent (an entrant name)")
    p.add_argument("--worst", type=int, default=10, metavar="N", help="list the N costliest moves (default: 10)")
    p.add_argument("--no-win", action="store_true",
                   help="leave out the chance to win each move gave up (games of 2+ sheets; a turn widget per turn)")
    p.add_argument("--json", action="store_true", help="print one JSON document on stdout")
    p.add_argument("--out", default=None, metavar="DIR",
                   help="also write analysis.json and analysis.txt (the printed tables) to DIR")


def add_games_source(p) -> None:
    """The stored games a command reads (`games_from_args`): DIR|FILE, and --rules/--set for a games.jsonl with
    no tournament.json or evaluate.json beside it."""
    p.add_argument("path", metavar="DIR|FILE", help="a tournament or `evaluate --out` folder, or a games.jsonl")
    p.add_argument("--rules", default=None, metavar="NAME|PATH",
                   help="rules of a bare games.jsonl (default: yacht); a folder's tournament.json or "
                        "evaluate.json names its own")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", dest="overrides",
                   help="override a rule key of --rules (repeatable)")


def games_from_args(args):
    """The `read_games` result for the path and --rules/--set of a command."""
    given = args.rules is not None or bool(args.overrides)
    sets = parse_sets(args.overrides)
    rules = load(args.rules or "yacht", **sets) if given else None
    return read_games(args.path, rules, rules_from="--rules", overrides=sets)


def run(args) -> int:
    if args.worst < 0:
        raise CommandError(f"--worst must be >= 0, got {args.worst}")
    games = games_from_args(args)
    result = analyze_file(games, progress=not args.json, win=not args.no_win)
    skipped = None if args.no_win else win_skipped(games.rules)
    if skipped and games.rules.columns == 1:   # said plainly: the chances to win need the score distributions
        print(f"chance to win: skipped: {skipped}", file=sys.stderr)
    result.source = {"path": str(games.path), "rules_from": games.rules_from}
    doc = {**result.summary(agent=args.agent, worst=args.worst, order=ranked(games.records)),
           "rules": games.rules_block}
    text = render(doc)
    if args.out:
        out = Path(args.out)
        try:
            write_atomic(out / "analysis.json", json.dumps(doc, indent=2) + "\n", "analysis file")
            write_atomic(out / "analysis.txt", text + "\n", "analysis file")
        except OSError as e:
            raise CommandError(f"cannot write to --out {str(out)!r}: {e.strerror}") from None
    if args.json:
        emit_json(doc)
        return 0
    print(text)
    if args.out:
        print(f"wrote {Path(args.out) / 'analysis.json'} and {Path(args.out) / 'analysis.txt'}")
    return 0


def ranked(records) -> list[str] | None:
    """The agents in standings order (as `yacht tournament` and its report rank them), when every record says
    where its seats placed and what they scored (as the store keeps them); else None (first appearance)."""
    if not all(isinstance(r.get(k), list) for r in records for k in ("places", "totals", "faults")):
        return None
    names = list(dict.fromkeys(a for r in records for a in r["agents"]))
    return [x["agent"] for x in standings(records, names)]


def render(doc: dict) -> str:
    """The terminal tables of an analysis document."""
    agents = doc["agents"]
    w = max([len(n) for n in agents] + [5])
    rules = rules_label(doc["rules"]) if isinstance(doc["rules"], dict) else doc["rules"]
    lines = [f"{doc.get('path', 'games')}: {doc['games']} games, {doc['decisions']} decisions, rules {rules} "
             f"(from {doc.get('rules_from', 'the caller')}); {doc['note']}",
             f"optimal expected score {doc['optimal_expected_score']:.2f} per sheet; accuracy = 100 x (1 - lost per "
             f"game / optimum); opt-lost = optimum - lost per game, the mean score without the luck of the dice",
             f"inaccuracy ?! >= {INACCURACY:g}, mistake ? >= {MISTAKE:g}, blunder ?? >= {BLUNDER:g} expected points "
             f"lost by one decision; optimal = share of decisions that lost nothing", ""]
    forfeits = sum(a["forfeits"] for a in agents.values())
    if forfeits:
        lines[1:1] = [f"{forfeits} forfeited games (a seat faulted; the harness played on for it) are left out of "
                      f"that seat's figures"]
    lines.append(f"{'agent':<{w}} {'games':>6} {'decisions':>9} {'accuracy':>9} {'lost/game':>9} {'lost/dec':>8} "
                 f"{'optimal':>8} {'?!/game':>8} {'?/game':>7} {'??/game':>8} {'opt-lost':>8} {'mean':>7}")
    for n, a in agents.items():
        mean = "–" if a["mean_score"] is None else f"{a['mean_score']:.1f}"
        opt = "–" if a["optimal_decisions"] is None else f"{100 * a['optimal_decisions']:.1f}%"
        accuracy = figure(a["accuracy"]) + ("%" if a["accuracy"] is not None else "")
        lines.append(f"{n:<{w}} {a['games']:>6} {a['decisions']:>9} {accuracy:>9} {a['loss_per_game']:>9.2f} "
                     f"{a['loss_per_decision']:>8.3f} {opt:>8} {a['inaccuracies_per_game']:>8.2f} "
                     f"{a['mistakes_per_game']:>7.2f} {a['blunders_per_game']:>8.2f} {a['expected_score']:>8.1f} "
                     f"{mean:>7}")
    lines += ["", "where the points go (expected points lost per game):",
              f"{'':<{w}} " + " ".join(f"{n:>10}" for n in agents)]
    lines.append(f"{'holds':<{w}} " + " ".join(f"{a['holds']['loss_per_game']:>10.2f}" for a in agents.values()))
    lines.append(f"{'boxes':<{w}} " + " ".join(f"{a['boxes']['loss_per_game']:>10.2f}" for a in agents.values()))
    boxes = list(next(iter(agents.values()))["by_box"]) if agents else []
    bw = max([len(b) for b in boxes] + [w])
    lines += ["", "box decisions by the box scored (expected points lost per game):",
              f"{'box':<{bw}} " + " ".join(f"{n:>10}" for n in agents)]
    for b in boxes:
        lines.append(f"{b:<{bw}} " + " ".join(f"{a['by_box'][b]['loss_per_game']:>10.2f}" for a in agents.values()))
    lines += ["", "by turn (expected points lost per game):", f"{'turn':<{w}} " + " ".join(f"{n:>10}" for n in agents)]
    turns = len(next(iter(agents.values()))["by_turn"]) if agents else 0
    for t in range(turns):
        lines.append(f"{t + 1:<{w}} " + " ".join(f"{a['by_turn'][t]['loss_per_game']:>10.2f}" for a in agents.values()))
    if doc["worst"]:
        lines += ["", f"costliest moves (seats from 1; `yacht show {doc.get('path', 'FILE')} GAME` replays a game):"]
        for m in doc["worst"]:
            lines.append(f"  {m['loss']:6.2f} {MARKS[m['class']]:<2} {m['game']} seat {m['seat'] + 1} ({m['agent']}) "
                         f"turn {m['turn']} roll {m['roll']}: dice {' '.join(map(str, m['dice']))}, "
                         f"{m['rolls_left']} re-roll(s) left: played {m['played']}, best {m['best']}")
    lines += win_lines(doc)
    lines += ["", f"analysed in {doc['seconds']:.2f} s"]
    return "\n".join(lines)


def win_lines(doc: dict) -> list[str]:
    """The chance to win lost per agent and the moves that gave up the most (games of 2+ sheets)."""
    agents = {n: a["win"] for n, a in doc["agents"].items() if a.get("win")}
    if not agents:
        return []
    w = max([len(n) for n in agents] + [5])
    lines = ["", f"chance to win lost, in games of 2+ sheets ({doc['win_note']}):",
             f"{'agent':<{w}} {'games':>6} {'decisions':>9} {'lost/game':>10} {'lost/dec':>9} {'>=1% moves/game':>16}"]
    for n, f in agents.items():
        per = f["decisions_losing_1pct"] / f["games"] if f["games"] else 0.0
        lines.append(f"{n:<{w}} {f['games']:>6} {f['decisions']:>9} {100 * f['lost_per_game']:>9.2f}% "
                     f"{100 * f['lost_per_decision']:>8.3f}% {per:>16.2f}")
    if doc.get("worst_win"):
        lines += ["", "moves that gave up the most chance to win (before -> after the move):"]
        for m in doc["worst_win"]:
            lines.append(f"  {100 * m['win_lost']:5.2f}% {m['game']} seat {m['seat'] + 1} ({m['agent']}) turn "
                         f"{m['turn']} roll {m['roll']}: dice {' '.join(map(str, m['dice']))}, {m['rolls_left']} "
                         f"re-roll(s) left: played {m['played']} ({100 * m['win_before']:.1f}% -> "
                         f"{100 * m['win_after']:.1f}%; {m['loss']:.2f} points lost)")
    return lines
