"""Solved tables shared by the solver tests: each rule set is solved once per test session, in a temp cache."""
import atexit
import functools
import os
import shutil
import tempfile
from contextlib import contextmanager

from yacht_env.rules import load
from yacht_env.solver import solution_for

CACHE_DIR = tempfile.mkdtemp(prefix="yacht-solver-tests-")
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


@functools.lru_cache(maxsize=None)
def _solved(name, items):
    rules = load(name, **dict(items))
    with temp_cache():
        return rules, solution_for(rules, progress=False)


def solved(name, **overrides):
    """(rules, Solution) for a preset with overrides, solved at most once per session."""
    return _solved(name, tuple(sorted(overrides.items())))
