"""The environments' compiled functions take named structures, not long positional argument lists.

Walks the source of every module whose compiled functions the environments run (`yacht_env/envs/`,
`yacht_env/core/lockstep.py`, `yacht_env/core/players.py`, and `scripts/bench/planned_kernel.py`, which
copies the planned step's kernels) and checks that no function compiled by numba (`nb.njit`, `njit`,
`nb.jit`, ... as a decorator) takes more than MAX_POSITIONAL positional parameters: the tables, the
engine's arrays and each stepper's arrays travel as one named tuple each (`yacht_env.envs.board.Board`,
`yacht_env.envs.learner.Seen`, ...).
"""
import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MAX_POSITIONAL = 10
FILES = sorted((ROOT / "yacht_env" / "envs").glob("*.py")) + [
    ROOT / "yacht_env" / "core" / "lockstep.py",
    ROOT / "yacht_env" / "core" / "players.py",
    ROOT / "scripts" / "bench" / "planned_kernel.py",
]
COMPILERS = {"njit", "jit", "generated_jit", "vectorize", "guvectorize", "cfunc"}


def _is_compiled(fn: ast.FunctionDef) -> bool:
    for d in fn.decorator_list:
        target = d.func if isinstance(d, ast.Call) else d
        name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", None)
        if name in COMPILERS:
            return True
    return False


def compiled_functions(path: Path) -> list[tuple[str, int]]:
    """(name, positional parameter count) of every numba-compiled function defined in the file."""
    tree = ast.parse(path.read_text(), str(path))
    return [(f.name, len(f.args.posonlyargs) + len(f.args.args) + (1 if f.args.vararg else 0))
            for f in ast.walk(tree) if isinstance(f, ast.FunctionDef) and _is_compiled(f)]


def test_the_walk_finds_the_compiled_kernels():
    found = {name for path in FILES for name, _ in compiled_functions(path)}
    assert {"step_games", "step_planned", "settle_seats", "write_seat_obs", "write_obs"} <= found


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(ROOT)) for p in FILES])
def test_no_compiled_function_takes_more_than_ten_positional_parameters(path):
    long = [(name, n) for name, n in compiled_functions(path) if n > MAX_POSITIONAL]
    assert not long, f"{path.relative_to(ROOT)}: compiled functions with more than {MAX_POSITIONAL} positional " \
                     f"parameters (pass a named structure): {long}"
