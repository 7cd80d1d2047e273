"""Exact optimal solitaire play for any one-column rule set (backward induction over the turn widget)."""
from .cache import SOLVER_VERSION, cache_dir, cache_path, distributions_for, solution_for
from .solution import Solution
from ..rules import solitaire_rules
from .solve import solve
from .space import MAX_BOXES, StateSpace, Unsolvable, check_distributions, check_saved_rolls, check_solvable

__all__ = ["MAX_BOXES", "SOLVER_VERSION", "Solution", "StateSpace", "Unsolvable", "cache_dir", "cache_path",
           "check_distributions", "check_saved_rolls", "check_solvable", "distributions_for", "solitaire_rules",
           "solution_for", "solve"]
