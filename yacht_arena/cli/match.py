"""`yacht match`: a candidate against one entrant or a field on duplicate deals, stopped by an SPRT."""
import os

from yacht_env.rules import parse_sets

from tournaments.executors import EXECUTORS
from tournaments.match import BATCH, match_config, run_match
from tournaments.sprt import parse_sprt
from .faults import FAULT_EXIT_HELP, add_fault_option, gate, headline
from .options import CommandError, add_common, emit_json

DEFAULT_MAX = 20_000


# Each command module builds its own parser (`yacht COMMAND` imports only that module); the
# add_parser functions share their shape, not their options.
def add_parser(sub):
    p = sub.add_parser("match", help="a candidate against one agent or a field, paired deals, SPRT (resumable)",
                       description="Play CANDIDATE against OPPONENT (or every opponent named: a gauntlet) on "
                                   "duplicate deals, each in both seat orders, until the SPRT decides or "
                                   "--max-games is reached. Prints LLR with its bounds, Elo and the mean score "
                                   "difference with intervals (plain and with the dice's luck removed); writes "
                                   "the tournament report and match.json to the folder. Rerun to resume. "
                                   f"Exit status: {FAULT_EXIT_HELP}.")
    p.add_argument("candidate", metavar="CANDIDATE", help="agent spec of the candidate")
    p.add_argument("opponents", nargs="+", metavar="OPPONENT", help="agent spec(s) it plays against")
    p.add_argument("--sprt", default=None, metavar="elo0=E0,elo1=E1[,alpha=A,beta=B,model=M,test=T]",
                   help="stop when decided: Elo bounds (model: normalized (default) or logistic; test: gsprt "
                        "(default), the generalised SPRT on the deals' points, pentanomial at two seats, or normal) "
                        "or points0=P0,points1=P1 on the mean score difference per game; alpha, beta default 0.05")
    p.add_argument("--seats", type=int, default=2, metavar="N",
                   help="seats per table, 2 to 8 (default 2); give N - 1 opponents (a spec may repeat) for one "
                        "table, more for a gauntlet; every deal is played in every seat rotation")
    p.add_argument("--max-games", type=int, default=DEFAULT_MAX, metavar="N",
                   help=f"at most this many games (default {DEFAULT_MAX:,})")
    p.add_argument("--batch", type=int, default=BATCH, metavar="DEALS",
                   help=f"deals played between two looks of the test (default {BATCH})")
    p.add_argument("--workers", type=int, default=os.cpu_count() or 1, metavar="W")
    p.add_argument("--executor", choices=EXECUTORS, default="local")
    p.add_argument("--move-timeout", type=float, default=30.0, metavar="S")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--no-analysis", action="store_true",
                   help="no move analysis (and so no luck-removed estimates) in the report")
    add_fault_option(p)
    add_common(p, out="match folder (default: runs/match-<config hash>); rerun to resume")


def run(args):
    if args.max_games < 2 or args.max_games > 1_000_000:
        raise CommandError(f"--max-games must be from 2 to 1,000,000, got {args.max_games}")
    if args.batch < 1:
        raise CommandError(f"--batch must be at least 1, got {args.batch}")
    sprt = parse_sprt(args.sprt) if args.sprt is not None else None
    if not 2 <= args.seats <= 8:
        raise CommandError(f"--seats must be from 2 to 8, got {args.seats}")
    if len(args.opponents) < args.seats - 1:
        raise CommandError(f"--seats {args.seats} needs at least {args.seats - 1} opponents (name one spec again "
                           f"for copies of it), got {len(args.opponents)}")
    config = match_config(args.candidate, args.opponents, args.max_games, seed=args.seed, rules=args.rules,
                          sets=parse_sets(args.overrides), move_timeout=args.move_timeout, seats=args.seats)
    doc = run_match(config, sprt, out=args.out, batch=args.batch, workers=args.workers, executor=args.executor,
                    progress=not (args.quiet or args.json), analysis=not args.no_analysis)
    doc["fault_gate"] = gate(doc["forfeits"], args.max_fault_rate)
    if args.json:
        emit_json(doc)
        return doc["fault_gate"]["exit"]
    print(summary(doc))
    return doc["fault_gate"]["exit"]


def summary(doc) -> str:
    """The match in a few lines."""
    who = f"{doc['candidate']} against {', '.join(doc['opponents'])}"
    out = [line for line in [headline(doc["fault_gate"])] if line] if "fault_gate" in doc else []
    out += [f"{who}: {doc['games']} games ({doc['deals']} deals), stopped: {doc['stopped']}"]
    if doc.get("sprt"):
        verdict = {"H1": "H1 accepted", "H0": "H0 accepted", None: "undecided"}[doc.get("decision")]
        out.append(f"SPRT {doc['sprt']['text']}: LLR {doc['llr']:.2f} -> {verdict}")
    if "wdl" in doc:
        out += result_lines(doc)
    if "score" in doc:
        lo, hi = doc["score_ci95"]
        out.append(f"score {doc['score']:.4f} [{lo:.4f}, {hi:.4f}]; Elo {doc['elo']:.1f} "
                   f"[{doc['elo_ci95'][0]:.1f}, {doc['elo_ci95'][1]:.1f}]"
                   + (f"; normalized Elo {doc['nelo']:.1f} [{doc['nelo_ci95'][0]:.1f}, {doc['nelo_ci95'][1]:.1f}]"
                      if "nelo" in doc else "") + " (95%, from the spread of the deals' points)")
        out.append(f"mean score difference {doc['points']:.2f} [{doc['points_ci95'][0]:.2f}, "
                   f"{doc['points_ci95'][1]:.2f}] points per game")
    for p in (doc.get("luck") or {}).get("pairs", []):
        if doc["candidate"] not in (p["a"], p["b"]):
            continue
        sign = 1 if p["a"] == doc["candidate"] else -1
        lo, hi = sorted(sign * x for x in p["ci95_luck_removed"])
        factor = f", {p['games_factor']:.0f}x fewer games than the plain estimate" if p["games_factor"] else ""
        out.append(f"against {p['b'] if sign == 1 else p['a']}, luck removed: {sign * p['luck_removed']:.2f} "
                   f"[{lo:.2f}, {hi:.2f}] (interval {p['width_ratio']:.3f} as wide{factor})")
    out.append(f"report: {doc['run']['folder']}/report.md")
    return "\n".join(out)


def result_lines(doc) -> list[str]:
    """W-D-L of the candidate against each opponent met, the deals' points (the pentanomial at two seats),
    and at three or more seats every entrant's places."""
    r = doc["wdl"]
    n = r["wins"] + r["draws"] + r["losses"]
    out = [f"W-D-L {r['wins']}-{r['draws']}-{r['losses']} ({n} results against an opponent"
           + (", one per opponent at the table in each game" if doc.get("seats", 2) > 2 else "") + ")"]
    counts = doc["deal_points"]
    if "pentanomial" in doc:
        pen = doc["pentanomial"]
        out.append(f"pentanomial (pairs of 0, 1/2, 1, 3/2, 2 points): {', '.join(map(str, counts))}; the 1-point "
                   f"pairs: {pen['one_point_draws']} two draws, {pen['one_point_win_loss']} a win and a loss")
    else:
        seen = ", ".join(f"{_half(k)}: {c}" for k, c in enumerate(counts) if c)
        out.append(f"deals by the candidate's points in them (of {_half(len(counts) - 1)}): {seen}")
    if doc.get("places") and doc.get("seats", 2) > 2:
        for name, places in doc["places"].items():
            games = sum(places)
            out.append(f"  {name}: " + ", ".join(f"{_ordinal(i + 1)} {c}" for i, c in enumerate(places))
                       + f" of {games} games (a tie shares the better place)")
    return out


def _half(k: int) -> str:
    """k half points as text: 0 -> "0", 1 -> "1/2", 3 -> "1 1/2"."""
    whole, half = divmod(k, 2)
    if not half:
        return str(whole)
    return f"{whole} 1/2" if whole else "1/2"


def _ordinal(n: int) -> str:
    return f"{n}{'st' if n == 1 else 'nd' if n == 2 else 'rd' if n == 3 else 'th'}"
