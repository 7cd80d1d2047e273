"""Solved tables shared by the solver tests: each rule set is solved once per test run, in a temp cache that
every xdist worker shares (tests/conftest.py); `solution_for`'s build lock keeps two workers from solving it twice."""
import atexit
import functools
import json
import os
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path

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


# four boxes, five dice: sixes (upper, bonus 20 at 12), three of a kind (sum), Yacht 50, chance; extra Yacht +100
TINY_SAVED = {"name": "tiny_saved", "boxes": [
    {"id": "sixes", "kind": "upper", "face": 6},
    {"id": "three_of_a_kind", "kind": "of_a_kind", "count": 3, "points": "sum"},
    {"id": "yacht", "kind": "yacht", "points": 50},
    {"id": "chance", "kind": "chance"}],
    "upper_bonus": {"threshold": 12, "points": 20}, "extra_yacht_bonus": 100, "joker": "none"}


def tiny_saved(saved: int, rolls: int = 3, **overrides):
    """`TINY_SAVED` with up to `saved` saved rolls (a rule set the solver solves in a moment)."""
    return load(dict(TINY_SAVED, saved_rolls=saved, rolls_per_turn=rolls, **overrides))


@functools.cache
def _solved(name, items):
    rules = load(name, **dict(items))
    return rules, solve_once(rules)


def solved(name, **overrides):
    """(rules, Solution) for a preset with overrides, solved at most once per session."""
    return _solved(name, tuple(sorted(overrides.items())))


PAST_MEMORY = "more than the 6 GiB the solver allows"   # what the solver says of `past_memory`'s rules


def past_memory(name: str = "big") -> dict:
    """A legal rule set out of the exact solver's reach (rules files take at most 20 boxes, which the solver
    holds; its memory bounds it): yacht with 20 boxes (seven more chances), the upper bonus at the highest
    threshold five dice allow (105) and the Yacht-50 flag, 2^20 x 106 x 2 = 222,298,112 states, 8.9 GB to solve."""
    data = load("yacht").to_dict()
    data["name"] = name
    data["boxes"] += [{"id": f"chance{i}", "kind": "chance"} for i in range(2, 9)]
    data["upper_bonus"]["threshold"] = 105
    return data


def past_memory_file(folder, name: str = "big") -> str:
    """`past_memory`'s rules written as a rules file in `folder`; its path."""
    path = Path(folder) / f"{name}.yaml"
    path.write_text(json.dumps(past_memory(name)))
    return str(path)
