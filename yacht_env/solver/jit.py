"""Flush the solver's numba cache when any code it compiles in changes (see `yacht_env.jit_cache`)."""
import importlib
from pathlib import Path

from numba.core.registry import CPUDispatcher

from ..jit_cache import drop_stale

HERE = Path(__file__).resolve().parent
MODULES = ("widget", "lanes", "backward", "policy", "simulate", "distribution")


def drop_stale_solver() -> bool:
    """Flush every cached solver function if the solver, the kernels, the dice or the tables changed."""
    dispatchers = [obj for name in MODULES for obj in vars(importlib.import_module(f"{__package__}.{name}")).values()
                   if isinstance(obj, CPUDispatcher) and obj.__module__.startswith(__package__)]
    sources = sorted(HERE.glob("*.py")) + [HERE.parent / f for f in ("kernels.py", "engine.py", "actions.py", "dice.py",
                                                                      "rules/tables.py")]
    return drop_stale(dispatchers, sources, tag="solver")
