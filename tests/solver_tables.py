"""Solved tables shared by the solver tests: each rule set is solved once per test run, in a temp cache that
every xdist worker shares (tests/conftest.py); `solution_for`'s build lock keeps two workers from solving it twice."""
import atexit
import functools
import os
import shutil
import tempfile
from contextlib import contextmanager

from yacht_env.rules import load
from yacht_env.solver import solution_for

CACHE_DIR = os.environ.get("YACHT_TEST_SOLVER_CACHE") or tempfile.mkdtemp(prefix="yacht-solver-tests-")
if "YACHT_TEST_SOLVER_CACHE" not in os.environ:
    atexit.register(shutil.rmtree, CACHE_DIR, ignore_errors=True)


@contextmanager
def temp_cache():
    """YACHT_CACHE_DIR set to the session's temp cache for the duration."""
    old = os.environ.get("YACHT_CACHE_DIR")
    os.environ["YACHT_CACHE_DIR"] = CACHE_DIR
    try:
        yield CACHE_DIR
    finally:
        if old is None:
            del os.environ["YACHT_CACHE_DIR"]
        else:
            os.environ["YACHT_CACHE_DIR"] = old


def solve_once(rules):
    """The rules' Solution from the shared cache, solved by whichever worker asks first (`solution_for`'s
    build lock)."""
    with temp_cache():
        return solution_for(rules, progress=False)


@functools.cache
def _solved(name, items):
    rules = load(name, **dict(items))
    return rules, solve_once(rules)


def solved(name, **overrides):
    """(rules, Solution) for a preset with overrides, solved at most once per session."""
    return _solved(name, tuple(sorted(overrides.items())))
