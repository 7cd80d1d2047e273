"""Solved tables on disk: one ``.npz`` per rule set, keyed by its hash and `SOLVER_VERSION`.

The folder is ``$YACHT_CACHE_DIR`` when set, else ``~/.cache/yacht-arena``.
"""
import json
import os
from pathlib import Path

import numpy as np

from ..rules import rules_hash
from .solution import Solution
from .solve import solitaire, solve
from .space import StateSpace, check_solvable

SOLVER_VERSION = 1


def cache_dir() -> Path:
    return Path(os.environ.get("YACHT_CACHE_DIR") or Path.home() / ".cache" / "yacht-arena")


def cache_path(rules) -> Path:
    """Where the table of `rules` (as a one-column solitaire game) is stored."""
    return cache_dir() / f"solver-v{SOLVER_VERSION}-{rules_hash(solitaire(rules))}.npz"


def save(solution: Solution, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    meta = {"version": SOLVER_VERSION, "rules_key": solution.rules_key, "space": solution.space.__dict__,
            **solution.summary()}
    tmp = path.with_name(f"{path.stem}.{os.getpid()}.tmp.npz")
    np.savez(tmp, values=solution.values, meta=np.array(json.dumps(meta)))
    os.replace(tmp, path)  # readers never see a half-written file


def load_file(path: Path) -> Solution | None:
    """The solution stored at `path`, or None when it is missing or unreadable."""
    try:
        with np.load(path) as f:
            meta = json.loads(str(f["meta"]))
            values = f["values"]
    except (OSError, ValueError, KeyError):
        return None
    if meta.get("version") != SOLVER_VERSION:
        return None
    return Solution(rules_key=meta["rules_key"], space=StateSpace(**meta["space"]), values=values,
                    expected_score=meta["expected_score"], std=meta["std"], p_upper_bonus=meta["p_upper_bonus"],
                    p_yacht_50=meta["p_yacht_50"], expected_extra_yachts=meta["expected_extra_yachts"],
                    seconds=meta["seconds"])


def solution_for(rules, use_cache: bool = True, progress: bool = True) -> Solution:
    """The solved table of a one-column rule set: from the cache, else solved now (and stored)."""
    check_solvable(rules)
    rules = solitaire(rules)
    path = cache_path(rules)
    if use_cache:
        found = load_file(path)
        if found is not None and found.rules_key == rules_hash(rules):
            return found
    solution = solve(rules, progress=progress)
    try:
        save(solution, path)
    except OSError:
        pass  # a read-only cache folder only costs a re-solve next time
    return solution
