"""The optimal one-player mean for a rule set, to measure a policy's gap against.

Order: the solver's cached solution (`yacht_env.solver`, written by `yacht solve`); for the
default `yacht` rules without a cache, the published optimum 254.5877 (Verhoeff's
optimal-strategy mean for these rules), so training never waits on a solve; otherwise the
solver is run now (once per process). Rules the solver cannot handle (several columns) have
no known optimum.
"""
from functools import cache

from yacht_env.rules import load, rules_hash
from yacht_env.solver import Unsolvable, cache_path, check_solvable, solitaire_rules, solution_for
from yacht_env.solver.cache import load_file

PUBLISHED = {"yacht": 254.5877}


@cache
def _optimal(rules) -> tuple[float | None, str]:
    try:
        check_solvable(rules)
    except Unsolvable as e:
        return None, f"unknown ({e})"
    cached = load_file(cache_path(rules))
    if cached is not None and cached.rules_key == rules_hash(solitaire_rules(rules)):
        return cached.expected_score, "yacht_env.solver"
    for name, value in PUBLISHED.items():
        if solitaire_rules(rules) == solitaire_rules(load(name)):
            return value, f"published optimum for {name!r}; `yacht solve` caches the solver's value"
    return solution_for(rules).expected_score, "yacht_env.solver"


def optimal_mean(rules) -> tuple[float | None, str]:
    """(mean score under optimal solitaire play, where the figure came from); (None, reason) when unknown."""
    return _optimal(rules)
