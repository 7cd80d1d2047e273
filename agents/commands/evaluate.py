"""`yacht evaluate AGENT`: one agent's solitaire score distribution."""
import sys

from yacht_env.cli_common import CommandError, add_common, emit_json, rules_from_args

from ..evaluation import fault_note, solitaire, summarize
from ..registry import list_specs, make_agent


def add_parser(sub):
    specs = "; ".join(p for p, _ in list_specs())
    p = sub.add_parser("evaluate", help="solitaire score distribution of one agent",
                       description=f"Play N one-player games and report the score distribution. Agent specs: {specs}.")
    p.add_argument("agent", metavar="AGENT", help="agent spec, e.g. normal or strong?strength=0.7")
    p.add_argument("--games", type=int, default=1000, help="games to play (default: 1000)")
    add_common(p)
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


def run(args) -> int:
    if args.games < 1:
        raise CommandError(f"--games must be >= 1, got {args.games}")
    rules = rules_from_args(args)
    agent = make_agent(args.agent)
    try:
        doc = summarize(args.agent, rules, solitaire(agent, rules, args.games, args.seed,
                                                     progress=not args.no_progress, desc=args.agent))
    finally:
        agent.close()
    note = fault_note(args.agent, agent)
    if note:
        print(f"yacht evaluate: warning: {note}", file=sys.stderr)
    if args.json:
        emit_json(doc)
        return 0
    lo, hi = doc["ci95"]
    q = doc["quantiles"]
    print(f"{doc['agent']} under {doc['rules']}: {doc['games']} games, seed {args.seed}")
    print(f"  mean {doc['mean']:.1f}  (95% CI {lo:.1f}..{hi:.1f})  sd {doc['std']:.1f}  median {doc['median']:.0f}")
    print("  quantiles " + "  ".join(f"{k} {v:.0f}" for k, v in q.items()))
    print(f"  upper bonus in {100 * doc['p_upper_bonus']:.1f}% of games")
    width = max(len(k) for k in doc["per_box_mean"])
    for box, mean in doc["per_box_mean"].items():
        print(f"  {box:<{width}}  {mean:6.2f}")
    return 0
