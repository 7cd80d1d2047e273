"""`yacht match`: a candidate against one entrant or a field on duplicate deals, stopped by an SPRT."""
import os

from yacht_env.rules import parse_sets

from tournaments.executors import EXECUTORS
from tournaments.match import BATCH, match_config, run_match
from tournaments.sprt import parse_sprt
from .faults import FAULT_EXIT_HELP, add_fault_option, gate, headline
from .options import CommandError, add_common, emit_json

DEFAULT_MAX = 20_000


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
    p.add_argument("--sprt", default=None, metavar="elo0=E0,elo1=E1[,alpha=A,beta=B,model=M]",
                   help="stop when decided: Elo bounds (model: normalized (default) or logistic) or "
                        "points0=P0,points1=P1 on the mean score difference per game; alpha, beta default 0.05")
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
    config = match_config(args.candidate, args.opponents, args.max_games, seed=args.seed, rules=args.rules,
                          sets=parse_sets(args.overrides), move_timeout=args.move_timeout)
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
    if "score" in doc:
        lo, hi = doc["score_ci95"]
        out.append(f"score {doc['score']:.4f} [{lo:.4f}, {hi:.4f}]; Elo {doc['elo']:.1f} "
                   f"[{doc['elo_ci95'][0]:.1f}, {doc['elo_ci95'][1]:.1f}]"
                   + (f"; normalized Elo {doc['nelo']:.1f} [{doc['nelo_ci95'][0]:.1f}, {doc['nelo_ci95'][1]:.1f}]"
                      if "nelo" in doc else ""))
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
