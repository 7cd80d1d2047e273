"""`yacht solve`: the optimal expected score of a rule set, with its spread and bonus odds."""
import argparse

from yacht_env.rules import rules_label
from yacht_env.solver import Unsolvable, cache_path, distributions_for, solution_for
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
    try:
        cached = not args.no_cache and cache_path(rules).exists()
        s = solution_for(rules, use_cache=not args.no_cache, progress=not args.no_progress)
    except Unsolvable as e:
        raise CommandError(str(e)) from None
    doc = {"rules": rules_block_from_args(args), "expected_score": s.expected_score, "std": s.std,
           "p_upper_bonus": s.p_upper_bonus, "p_yacht_50": s.p_yacht_50,
           "expected_extra_yachts": s.expected_extra_yachts, "seconds": s.seconds}
    if args.distribution:
        doc["distribution"] = _distribution(rules, args)
    if args.json:
        emit_json(doc)
        return 0
    note = " (from cache; solve time of the stored table)" if cached else ""
    team = " (team sheet: solitaire)" if rules.teams else ""
    print(f"Optimal solitaire play under {rules_label(doc['rules'])}{team}:")
    print(f"  expected score          {s.expected_score:10.4f}")
    print(f"  standard deviation      {s.std:10.4f}")
    print(f"  P(upper bonus)          {s.p_upper_bonus:10.4f}")
    print(f"  P(Yacht box = 50)       {s.p_yacht_50:10.4f}")
    print(f"  expected extra Yachts   {s.expected_extra_yachts:10.4f}")
    print(f"  solve time              {s.seconds:10.2f} s{note}")
    if args.distribution:
        d = doc["distribution"]
        pct = "  ".join(f"{q}%: {v}" for q, v in d["percentiles"].items())
        policy = "optimal play" if args.risk is None else f"the risk-seeking policy, risk {args.risk:g}"
        print(f"Final score of {policy} (its distribution):")
        print(f"  mean, SD                {d['mean']:10.4f} {d['std']:9.4f}")
        print(f"  range                   {d['min']:6d} .. {d['max']}")
        print(f"  percentiles             {pct}")
        print(f"  mass trimmed (bound)    {d['lost']:10.2e}   build time {d['seconds']:.2f} s")
    return 0


def _distribution(rules, args) -> dict:
    """The start state's final-score distribution (of optimal play; with --risk, of the risk-seeking policy): its
    summary, and with --json every probability."""
    risk = args.risk or 0.0
    dist = distributions_for(rules, use_cache=not args.no_cache, progress=not args.no_progress, risk=risk)
    lo, p = dist.pmf(0)
    out = {**summary(lo, p), "risk": risk, "lost": float(dist.lost[0]), "seconds": dist.seconds,
           "bytes": dist.nbytes}
    if args.json:
        out["lowest"] = lo
        out["pmf"] = [float(x) for x in p]
    return out
