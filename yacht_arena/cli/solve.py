"""`yacht solve`: the optimal expected score of a rule set, with its spread and bonus odds, and where its table
came from (the cache, the package, or solved now), timed for the work this run did: reading or solving."""
import argparse
import time

from yacht_env.rules import rules_label
from yacht_env.solver import Unsolvable, check_distributions
from yacht_env.solver.cache import SOURCES, cache_path, distributions_with_source, shipped_path, solution_with_source
from yacht_env.solver.distribution import summary
from yacht_env.solver.risk import MAX_RISK, MIN_RISK, check_risk

from .options import CommandError, add_common, emit_json, rules_block_from_args, rules_from_args


def add_parser(sub):
    p = sub.add_parser("solve", help="exact optimal solitaire play: expected score, SD, bonus odds",
                       description="Solve a one-column rule set exactly (backward induction). Tables are cached "
                       "in $YACHT_CACHE_DIR or ~/.cache/yacht-arena. A team's sheet is a solitaire game, so team "
                       "rules solve too; several columns are refused (too many states).")
    add_common(p, seed=False)
    p.add_argument("--no-cache", action="store_true", help="solve afresh (the result still refreshes the cache)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--distribution", action="store_true",
                   help="also the distribution of the final score of optimal play (mean, SD, percentiles; with "
                   "--json every probability); built once from the values and cached beside them")
    p.add_argument("--risk", type=risk_arg, default=None, metavar="R",
                   help=f"with --distribution: that of the risk-seeking policy instead, the one that maximises "
                   f"E[exp(R x final score)], R from {MIN_RISK:g} to {MAX_RISK:g}; built once and cached beside the "
                   "values (the table strong?goal=win reads for that risk)")


def risk_arg(text: str) -> float:
    """A `--risk` value: a number from MIN_RISK to MAX_RISK (`yacht_env.solver.risk.check_risk`)."""
    try:
        return check_risk(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def run(args):
    if args.risk is not None and not args.distribution:
        raise CommandError("--risk picks the policy whose distribution --distribution shows; give both")
    rules = rules_from_args(args)
    skipped = None
    if args.distribution:
        try:
            check_distributions(rules)
        except Unsolvable as e:
            skipped = str(e)
    start = time.perf_counter()
    try:
        s, source = solution_with_source(rules, use_cache=not args.no_cache, progress=not args.no_progress)
    except Unsolvable as e:
        raise CommandError(str(e)) from None
    seconds = time.perf_counter() - start
    doc = {"rules": rules_block_from_args(args), "expected_score": s.expected_score, "std": s.std,
           "p_upper_bonus": s.p_upper_bonus, "p_yacht_50": s.p_yacht_50,
           "expected_extra_yachts": s.expected_extra_yachts,
           "table": {"source": source, "path": str(shipped_path(rules) if source == "shipped" else cache_path(rules)),
                     "seconds": seconds, "solve_seconds": s.seconds}}
    if args.distribution:
        doc["distribution"] = {"skipped": skipped} if skipped else _distribution(rules, args)
    if args.json:
        emit_json(doc)
        return 0
    team = " (team sheet: solitaire)" if rules.teams else ""
    print(f"Optimal solitaire play under {rules_label(doc['rules'])}{team}:")
    print(f"  expected score          {s.expected_score:10.4f}")
    print(f"  standard deviation      {s.std:10.4f}")
    print(f"  P(upper bonus)          {s.p_upper_bonus:10.4f}")
    print(f"  P(Yacht box = 50)       {s.p_yacht_50:10.4f}")
    print(f"  expected extra Yachts   {s.expected_extra_yachts:10.4f}")
    print(f"  table                   {_table_line(doc['table'])}")
    if skipped:
        print(f"Final score distribution: skipped: {skipped}")
    elif args.distribution:
        d = doc["distribution"]
        pct = "  ".join(f"{q}%: {v}" for q, v in d["percentiles"].items())
        policy = "optimal play" if args.risk is None else f"the risk-seeking policy, risk {args.risk:g}"
        print(f"Final score of {policy} (its distribution):")
        print(f"  mean, SD                {d['mean']:10.4f} {d['std']:9.4f}")
        print(f"  range                   {d['min']:6d} .. {d['max']}")
        print(f"  percentiles             {pct}")
        print(f"  mass trimmed (bound)    {d['lost']:10.2e}")
        work = "built now in" if d["source"] == "built" else "read from the cache in"
        print(f"  distributions           {work} {d['seconds']:.2f} s" + (
            f" (built in {d['build_seconds']:.2f} s)" if d["source"] == "cache" else ""))
    return 0


def _distribution(rules, args) -> dict:
    """The start state's final-score distribution (of optimal play; with --risk, of the risk-seeking policy): its
    summary, and with --json every probability."""
    risk = args.risk or 0.0
    start = time.perf_counter()
    dist, source = distributions_with_source(rules, use_cache=not args.no_cache, progress=not args.no_progress,
                                             risk=risk)
    lo, p = dist.pmf(0)
    out = {**summary(lo, p), "risk": risk, "lost": float(dist.lost[0]), "source": source,
           "seconds": time.perf_counter() - start, "build_seconds": dist.seconds, "bytes": dist.nbytes}
    if args.json:
        out["lowest"] = lo
        out["pmf"] = [float(x) for x in p]
    return out


def _table_line(table: dict) -> str:
    """Where the table came from and what this run spent on it (the solve's own time when it was read)."""
    if table["source"] == "solved":
        return f"solved now in {table['seconds']:.2f} s, stored in {table['path']}"
    return (f"{SOURCES[table['source']]} ({table['path']}), read in {table['seconds']:.2f} s "
            f"(solved in {table['solve_seconds']:.2f} s when it was made)")
