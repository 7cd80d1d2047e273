"""`yacht levels`: the difficulty ladder random < easy < normal < strong, measured on identical dice."""
import json
import sys
from itertools import combinations
from pathlib import Path

from agents.evaluation import fault_note, head_to_head, mean_ci, solitaire
from agents.registry import AgentSpecError, make_agent

from .options import CommandError, add_common, emit_json, rules_from_args


LADDER = ("random", "easy", "normal", "strong")


def add_parser(sub):
    p = sub.add_parser("levels", help="score distributions and head-to-head win rates of the agent ladder",
                       description="Evaluate random, easy, normal, strong (and any --agent) with identical dice: "
                                   "solitaire score distributions and 2-player win rates for every pair "
                                   "(ties count half). An unavailable ladder agent is skipped with a warning.")
    p.add_argument("--games", type=int, default=1000,
                   help="solitaire games per agent, and games per pair (seats swapped on each deal; default: 1000)")
    p.add_argument("--agent", nargs="+", action="extend", default=[], metavar="SPEC",
                   help="more agents to put on the ladder (after the built-in levels)")
    p.add_argument("--only", nargs="+", default=None, metavar="SPEC",
                   help="evaluate exactly these agents instead of the built-in ladder")
    add_common(p, out=True)
    p.add_argument("--no-progress", action="store_true", help="no progress bars")


def _build(specs, required):
    agents = {}
    for spec in specs:
        if spec in agents:
            raise CommandError(f"agent {spec!r} is listed twice")
        try:
            agents[spec] = make_agent(spec)
        except (AgentSpecError, ImportError) as e:
            if spec in required:
                raise
            print(f"yacht levels: warning: skipping {spec!r}: {e}", file=sys.stderr)
    return agents


def run(args) -> int:
    if args.games < 2 or args.games % 2:
        raise CommandError(f"--games must be an even number >= 2, got {args.games}")
    rules = rules_from_args(args)
    if rules.max_players < 2:
        raise CommandError(f"rules {rules.name!r} allow at most {rules.max_players} player; head-to-head needs 2")
    specs = list(args.only) if args.only else [*LADDER, *args.agent]
    agents = _build(specs, required=set(args.only or ()) | set(args.agent))
    if len(agents) < 2:
        raise CommandError("need at least two agents to compare")
    try:
        runs = {n: solitaire(a, rules, args.games, args.seed, progress=not args.no_progress, desc=n)
                for n, a in agents.items()}
        pairs = []
        for lower, upper in combinations(agents, 2):          # a = the later (higher) level
            h = head_to_head(agents[upper], agents[lower], rules, args.games // 2, args.seed,
                             progress=not args.no_progress, desc=f"{upper} v {lower}")
            pairs.append({"a": upper, "b": lower, **h})
    finally:
        for a in agents.values():
            a.close()
    for n, a in agents.items():
        note = fault_note(n, a)
        if note:
            print(f"yacht levels: warning: {note}", file=sys.stderr)
    doc = {"agents": {}, "head_to_head": pairs}
    for n, r in runs.items():
        mean, ci, sd = mean_ci(r["totals"])
        doc["agents"][n] = {"mean": mean, "ci95": ci, "std": sd}
    if args.out:
        _write_files(Path(args.out), rules, runs, doc, args)
    if args.json:
        emit_json(doc)
        return 0
    _print(doc, runs, rules, args)
    return 0


def _print(doc, runs, rules, args):
    import numpy as np
    print(f"ladder under {rules.name}: {args.games} solitaire games per agent, {args.games} games per pair, "
          f"seed {args.seed}; identical dice for all")
    w = max(len(n) for n in doc["agents"])
    print(f"  {'agent':<{w}}   mean   95% CI         sd   p5  p50  p95")
    for n, s in doc["agents"].items():
        p5, p50, p95 = np.quantile(runs[n]["totals"], [0.05, 0.5, 0.95])
        print(f"  {n:<{w}}  {s['mean']:6.1f}  {s['ci95'][0]:6.1f}..{s['ci95'][1]:<6.1f} {s['std']:5.1f}"
              f"  {p5:4.0f} {p50:4.0f} {p95:4.0f}")
    print("  head-to-head (ties count half):")
    for h in doc["head_to_head"]:
        lo, hi = h["ci95"]
        print(f"    {h['a']} beats {h['b']} in {100 * h['win_rate_a']:.1f}% of {h['games']} games "
              f"(95% CI {100 * lo:.1f}..{100 * hi:.1f})")
    if args.out:
        print(f"  wrote {Path(args.out) / 'levels.json'} and {Path(args.out) / 'levels_hist.png'}")


def _write_files(out: Path, rules, runs, doc, args):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise CommandError(f"cannot create --out folder {str(out)!r}: {e.strerror}") from None
    hi = max(int(r["totals"].max()) for r in runs.values())
    bins = np.arange(0, hi + 10, 10)
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for n, r in runs.items():
        ax.hist(r["totals"], bins=bins, histtype="step", linewidth=1.5,
                label=f"{n} (mean {r['totals'].mean():.1f})")
    ax.set_xlabel("final score")
    ax.set_ylabel("games")
    ax.set_title(f"Solitaire scores under {rules.name!r}, {args.games} games each, identical dice")
    ax.legend()
    fig.tight_layout()
    fig.savefig(out / "levels_hist.png", dpi=100)
    plt.close(fig)
    (out / "levels.json").write_text(json.dumps({"rules": rules.name, "games": args.games, "seed": args.seed,
                                                 **doc}, indent=2) + "\n")
