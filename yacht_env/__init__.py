"""Yacht: rules engine, game model and Gymnasium environments."""
import os

# numba's parallel loops (the solver, the strong agent's plans) run on OpenMP, whose idle workers spin
# after each loop by default and take the cores from the environments' step threads; unless the user
# says otherwise, idle workers sleep. Read when OpenMP starts, so set before any parallel loop runs.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from .jit_cache import use_project_cache

use_project_cache()  # before any compiled function is defined (see yacht_env.jit_cache)

from .core.game import Game, IllegalMove  # noqa: E402 - after numba's cache folder is set
from .envs.registration import register_envs  # noqa: E402
from .rules import RuleError, RuleSet, load  # noqa: E402

register_envs()

__all__ = ["Game", "IllegalMove", "RuleError", "RuleSet", "load"]
