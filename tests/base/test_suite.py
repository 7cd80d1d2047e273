"""The suite's own rules: every test checks something (an assert, pytest.raises / warns / fail, a helper that
asserts, or a library's checker such as Gymnasium's check_env), and every folder of tests is a package (so a
test module's name is its dotted path and the shared helpers import as `tests.<helper>`)."""
import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
# checkers of other libraries that raise when what they check is wrong
LIBRARY_CHECKS = {"check_env", "api_test", "seed_test", "render_test"}


def checks(node: ast.AST, helpers: set[str]) -> bool:
    """Whether the code under `node` asserts, expects an exception or a warning, fails the test, runs a
    subprocess with check=True, or calls a helper in `helpers` or a library checker."""
    for n in ast.walk(node):
        if isinstance(n, ast.Assert):
            return True
        if isinstance(n, ast.Attribute) and n.attr in ("raises", "warns", "fail"):
            return True
        if isinstance(n, ast.Call):
            f = n.func
            name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
            if name in helpers or name in LIBRARY_CHECKS:
                return True
            if any(k.arg == "check" and isinstance(k.value, ast.Constant) and k.value.value is True
                   for k in n.keywords):
                return True
    return False


def test_every_test_checks_something():
    trees = {p: ast.parse(p.read_text()) for p in TESTS.rglob("*.py")}
    functions = [n for t in trees.values() for n in ast.walk(t) if isinstance(n, ast.FunctionDef)]
    helpers: set[str] = set()
    while True:             # helpers that check, and helpers that call those, to a fixed point
        more = {f.name for f in functions if not f.name.startswith("test_") and checks(f, helpers)}
        if more <= helpers:
            break
        helpers |= more
    unchecked = [f"{p.relative_to(TESTS)}::{n.name}" for p, t in trees.items() if p.name.startswith("test_")
                 for n in ast.walk(t) if isinstance(n, ast.FunctionDef) and n.name.startswith("test_")
                 and not checks(n, helpers)]
    assert not unchecked, f"tests that check nothing: {unchecked}"


def test_every_folder_of_tests_is_a_package():
    folders = {p.parent for p in TESTS.rglob("test_*.py")} | {TESTS}
    assert len(folders) > 5
    assert not [str(f) for f in folders if not (f / "__init__.py").is_file()]
