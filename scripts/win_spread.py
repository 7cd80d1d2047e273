"""Compare variants of `strong?goal=win`'s own future (`yacht_env.solver.winning.chance_after`) on the same deals.

    python scripts/win_spread.py --seats 8 --deals 1000 --seed 123 --spreads 1 1.15 1.3 1,1.3
    python scripts/win_spread.py --seats 8 --deals 1000 --seed 123 --spreads 1 risk:0.01 risk:0.01,0.02
    python scripts/win_spread.py --seats 8 --deals 1000 --seed 123 --spreads risk:0.02 risk:0.02@0.5 risk:0.02@1

Each variant plays `WinAgent` at one seat against `strong` at every other, every deal in every seat rotation,
duplicate dice (`agents.evaluation.table_deals`): the same deals for every variant, so the difference to the
first is taken deal by deal (a paired 95% interval over deals). A variant is a spread or comma-separated set of
spreads (`WinAgent(spread=...)`, the best of which counts), or `risk:` and comma-separated risks
(`WinAgent(risks=...)`: the exponential-utility futures it also weighs; `risk:` alone: none), with `@beta` after
them the oracle weight (`WinAgent(oracle=...)`; without it 0). For tuning only:
use seeds you then never use for the recorded figures.
"""
import argparse
import sys
import time


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rules", default="yacht")
    p.add_argument("--seats", type=int, default=8)
    p.add_argument("--deals", type=int, default=500)
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("--spreads", nargs="+", default=["1", "1.15", "1.3"])
    args = p.parse_args(argv)
    from agents.evaluation import table_deals
    from agents.stats import mean_ci
    from agents.strong import StrongAgent, WinAgent
    from yacht_env.rules import load

    rules = load(args.rules)
    strong = StrongAgent()
    first = None
    for s in args.spreads:
        t = time.perf_counter()
        if s.startswith("risk:"):
            risks, _, oracle = s[5:].partition("@")
            agent = WinAgent("win", strong=strong, risks=[float(x) for x in risks.split(",") if x],
                             oracle=float(oracle) if oracle else 0.0)
        else:
            agent = WinAgent("win", strong=strong, spread=[float(x) for x in s.split(",")], risks=())
        per = table_deals(agent, strong, rules, args.deals, args.seats, args.seed, progress=False)
        rate, ci, _ = mean_ci(per)
        line = f"{s}: {100 * rate:.2f}% [{100 * ci[0]:.2f}, {100 * ci[1]:.2f}]"
        if first is None:
            first = per
        else:
            d, dci, _ = mean_ci(per - first)
            line += f"  minus {args.spreads[0]}: {100 * d:+.2f} [{100 * dci[0]:+.2f}, {100 * dci[1]:+.2f}]"
        print(f"{line}  ({args.deals} deals x {args.seats}, {time.perf_counter() - t:.0f} s)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
