"""The optimal one-player mean for a rule set: from `yacht_env.solver` when it is there.

Without the solver, the published value for the default `yacht` rules is used
(254.5877, Verhoeff's optimal-strategy mean for the 13-box game with the upper
bonus, extra-Yacht bonus and forced joker); other rule sets have no known optimum.
"""
from functools import lru_cache

from yacht_env.rules import load

PUBLISHED = {"yacht": 254.5877}


@lru_cache(maxsize=None)
def _optimal(rules) -> tuple[float | None, str]:
    try:
        from yacht_env import solver
    except ImportError:
        solver = None
    if solver is not None and hasattr(solver, "optimal_mean"):
        try:
            return float(solver.optimal_mean(rules)), "yacht_env.solver"
        except Exception:  # noqa: BLE001 - fall back to the published value below
            pass
    for name, value in PUBLISHED.items():
        if rules == load(name):
            return value, f"published value for {name!r} (solver not available)"
    return None, "unknown (no solver for these rules)"


def optimal_mean(rules) -> tuple[float | None, str]:
    """(mean score under optimal play, where it came from); (None, reason) when unknown."""
    return _optimal(rules)
