"""The layering of the design card (every import downward, no import circle, imports inside functions only
to keep an extra lazy), and a core install without torch."""
import ast
import os
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


PACKAGES = ("yacht_env", "agents", "tournaments", "yacht_arena")   # lowest first: each imports only those before it
# Imports a function may hold back, to keep an optional extra lazy: the extras' modules, and matplotlib (a core
# dependency that only drawing needs; importing it costs about half a second).
LAZY = {"torch", "stable_baselines3", "sb3_contrib", "tensorboard", "pettingzoo", "ray", "pygame", "moviepy",
        "starlette", "uvicorn", "websockets", "matplotlib"}


@dataclass(frozen=True)
class Import:
    """One imported module of one import statement: `target` is a module of the tree (the deepest one the
    statement names: `from a.b import c` imports a.b.c when that is a module, else a.b) or, for anything
    outside it, the top-level name."""
    path: Path
    module: str
    target: str
    line: int
    in_function: bool


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def tree() -> dict[str, Path]:
    """Every module of the four packages, by name."""
    return {_module_name(p): p for package in PACKAGES for p in sorted((ROOT / package).rglob("*.py"))}


def _resolve(name: str) -> str:
    modules, probe = tree(), name
    while probe and probe not in modules:
        probe = probe.rpartition(".")[0]
    return probe or name.split(".")[0]


def _targets(node, module: str, is_package: bool) -> list[str]:
    if isinstance(node, ast.Import):
        return [_resolve(a.name) for a in node.names]
    if node.level:
        package = (module if is_package else module.rpartition(".")[0]).split(".")
        base = ".".join(package[:len(package) - node.level + 1] + ([node.module] if node.module else []))
    else:
        base = node.module
    return [_resolve(f"{base}.{a.name}") for a in node.names]


@cache
def imports() -> tuple[Import, ...]:
    """Every import of the tree, at any depth (inside functions and classes too)."""
    found = []
    for module, path in tree().items():
        todo = [(ast.parse(path.read_text()), False)]
        while todo:
            node, in_function = todo.pop()
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                found.extend(Import(path, module, t, node.lineno, in_function)
                             for t in _targets(node, module, path.name == "__init__.py"))
            inside = in_function or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            todo.extend((child, inside) for child in ast.iter_child_nodes(node))
    return tuple(found)


def _package(module: str) -> str:
    return module.split(".")[0]


def test_every_import_reads_downward():
    """yacht_env -> agents -> tournaments -> yacht_arena: a module imports only from its own package or those
    below it, also inside functions."""
    upward = [f"{i.path.relative_to(ROOT)}:{i.line} imports {i.target}" for i in imports()
              if _package(i.target) in PACKAGES
              and PACKAGES.index(_package(i.target)) > PACKAGES.index(_package(i.module))]
    assert not upward, "imports reading upward:\n" + "\n".join(upward)


def test_the_layering_test_sees_every_kind_of_import():
    """Relative imports at every level, imports of submodules and imports inside functions are all found."""
    found = {(i.module, i.target, i.in_function) for i in imports()}
    assert ("tournaments.report", "tournaments.seating", False) in found          # from .seating import ...
    assert ("yacht_env.envs.env", "yacht_env.core.game", False) in found          # from ..core.game import ...
    assert ("yacht_arena.cli.serve", "yacht_arena.web.app", True) in found        # inside run()
    assert len(tree()) > 100


def import_circle() -> list[str] | None:
    """A circle of module imports (counting those inside functions), as the modules around it, or None."""
    edges: dict[str, set[str]] = {m: set() for m in tree()}
    for i in imports():
        if i.target in edges and i.target != i.module:
            edges[i.module].add(i.target)
    state: dict[str, int] = {}           # 1: on the current path, 2: done
    path: list[str] = []

    def visit(m: str) -> list[str] | None:
        state[m] = 1
        path.append(m)
        for t in sorted(edges[m]):
            if state.get(t) == 1:
                return path[path.index(t):] + [t]
            if t not in state and (circle := visit(t)):
                return circle
        state[m] = 2
        path.pop()
        return None

    for m in sorted(edges):
        if m not in state and (circle := visit(m)):
            return circle
    return None


def test_no_import_circle():
    circle = import_circle()
    assert circle is None, "import circle: " + " -> ".join(circle)


@cache
def _reaches_lazy(module: str) -> bool:
    """Whether importing a module of the tree imports one of LAZY (through its module-level imports)."""
    seen, todo = set(), [module]
    while todo:
        m = todo.pop()
        if m in seen:
            continue
        seen.add(m)
        for i in imports():
            if i.module == m and not i.in_function:
                if i.target in tree():
                    todo.append(i.target)
                elif i.target in LAZY:
                    return True
    return False


def _commented(lines: list[str], at: int) -> bool:
    """Whether the import on line `at` (from 0) has a comment on its line, or above it or the imports right
    above it (one comment for a block of imports)."""
    if "#" in lines[at]:
        return True
    at -= 1
    while at >= 0 and lines[at].lstrip().startswith(("import ", "from ")):
        if "#" in lines[at]:
            return True
        at -= 1
    return at >= 0 and lines[at].lstrip().startswith("#")


def test_imports_inside_functions_only_keep_an_extra_lazy():
    """An import inside a function is one of an optional extra (or a module of the tree that imports one), or,
    in a command's module, what only that command needs (`yacht --help` imports every command's module); each
    says why in a comment (on its line, or above it or the imports right above it)."""
    from yacht_arena.cli import COMMANDS

    commands = set(COMMANDS.values())
    wrong = []
    for i in imports():
        if not i.in_function:
            continue
        lazy = i.target in LAZY or (i.target in tree() and _reaches_lazy(i.target)) or i.module in commands
        said = _commented(i.path.read_text().splitlines(), i.line - 1)
        if not (lazy and said):
            wrong.append(f"{i.path.relative_to(ROOT)}:{i.line} imports {i.target}"
                         + ("" if lazy else " inside a function (import it at the top)")
                         + ("" if said or not lazy else " without a comment saying what it keeps lazy"))
    assert not wrong, "\n".join(dict.fromkeys(wrong))


def _sources() -> dict[str, Path]:
    """Every module of the four packages and every script, by name."""
    return {**tree(), **{_module_name(p): p for p in sorted((ROOT / "scripts").rglob("*.py"))}}


def _public_classes(body, prefix: str = ""):
    """(qualified name, name) of every public class defined in `body`, in classes too (not in functions)."""
    for node in body:
        if isinstance(node, ast.ClassDef):
            if not node.name.startswith("_"):
                yield prefix + node.name, node.name
            yield from _public_classes(node.body, f"{prefix}{node.name}.")
        elif isinstance(node, (ast.If, ast.Try, ast.With)):
            yield from _public_classes(ast.iter_child_nodes(node), prefix)


def test_no_two_public_classes_share_a_name():
    """A class name means one thing in the whole tree, scripts included (`Game` is yacht_env's, `Table` the
    web's), nested classes too."""
    where: dict[str, list[str]] = {}
    for module, path in _sources().items():
        for qualified, name in _public_classes(ast.parse(path.read_text()).body):
            where.setdefault(name, []).append(f"{module}.{qualified}")
    assert not {name: ms for name, ms in where.items() if len(ms) > 1}


def _dotted_name(node) -> bool:
    """True for a plain name or a dotted one (`old`, `module.old`)."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name)


def test_no_second_name_for_a_class_function_or_constant():
    """No module-level `new = old`: a class, function or constant has one name (no alias kept for an old one).
    The documented short modules (`yacht_env.pettingzoo`, `yacht_env.sb3`) replace themselves in
    `sys.modules` and are checked by `test_the_documented_short_names_are_the_integrations_modules`."""
    aliases = [f"{path.relative_to(ROOT)}:{node.lineno}: {ast.unparse(node)}"
               for path in _sources().values() for node in ast.parse(path.read_text()).body
               if isinstance(node, (ast.Assign, ast.AnnAssign)) and _dotted_name(node.value)
               and "sys.modules" not in ast.unparse(node)]
    assert not aliases, "second names:\n" + "\n".join(aliases)


def test_core_dependencies_leave_out_torch():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    core = " ".join(project["dependencies"]).lower()
    assert "torch" not in core and "stable-baselines3" not in core
    assert any(d.startswith("torch") for d in project["optional-dependencies"]["rl"])


def test_importing_yacht_env_loads_no_torch():
    code = "import sys, yacht_env; assert 'torch' not in sys.modules and 'stable_baselines3' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_command_line_loads_no_torch():
    code = ("import sys; from yacht_arena.cli import build_parser; build_parser(); "
            "assert 'torch' not in sys.modules, 'building the yacht CLI imported torch'")
    subprocess.run([sys.executable, "-c", code], check=True)


def without(tmp_path, package: str) -> dict:
    """The environment of a child Python in which importing `package` fails as a package that is not installed
    does (a fake one in tmp_path, first on its PYTHONPATH)."""
    (tmp_path / package).mkdir()
    (tmp_path / package / "__init__.py").write_text(f"raise ModuleNotFoundError(\"No module named '{package}'\", "
                                                    f"name='{package}')\n")
    return {**os.environ, "PYTHONPATH": str(tmp_path)}


def test_command_with_missing_extra_explains_itself(tmp_path):
    # a fake 'torch' that fails to import stands in for a core install without the [rl] extra
    env = without(tmp_path, "torch")
    code = ("import sys; from yacht_arena.cli import main; from yacht_arena import cli; "
            "cli.COMMANDS['needs_torch'] = 'torch'; sys.exit(main(['needs_torch', 'x']))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert out.returncode == 2
    assert "needs 'torch', which is not installed; pip install 'yacht-arena[rl]'" in out.stderr


def test_missing_extra_at_run_time_explains_itself(tmp_path):
    env = without(tmp_path, "torch")
    code = "import sys; from yacht_arena.cli import main; sys.exit(main(['train', 'configs/train/smoke.yaml']))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=env)
    assert out.returncode == 2, out.stderr
    assert "needs 'torch', which is not installed; pip install 'yacht-arena[rl]'" in out.stderr
    assert "Traceback" not in out.stderr


def test_serve_without_the_web_extra_names_it_in_one_line(tmp_path):
    env = without(tmp_path, "uvicorn")
    code = "import sys; from yacht_arena.cli import main; sys.exit(main(['serve']))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=env)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert out.stderr.strip().splitlines() == ["yacht serve: error: this command needs 'uvicorn', which is not "
                                               "installed; pip install 'yacht-arena[web]'"]


def test_stable_baselines3_is_imported_only_for_training():
    """Only the training code and the SB3 VecEnv adapter import SB3; playing a learned model needs neither it nor
    torch (`agents.model_file` reads the file)."""
    allowed = {ROOT / "yacht_env" / "integrations" / "sb3.py"}
    for package in ("yacht_env", "agents", "tournaments", "yacht_arena"):
        for path in (ROOT / package).rglob("*.py"):
            if "training" in path.relative_to(ROOT).parts or path in allowed:
                continue
            names = set()
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.Import):
                    names |= {a.name.split(".")[0] for a in node.names}
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names.add(node.module.split(".")[0])
            assert not names & {"stable_baselines3", "sb3_contrib"}, path


def test_a_learned_model_plays_without_torch():
    code = ("import sys; from agents.learned import LearnedAgent; from agents.evaluation import solitaire; "
            "from yacht_env.rules import load; "
            "r = solitaire(LearnedAgent('models/ppo-yacht.pt'), load('yacht'), 4, progress=False); "
            "assert 'torch' not in sys.modules and 'stable_baselines3' not in sys.modules, 'imported torch'; "
            "assert r['totals'].min() > 0")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


# yacht_env's layers, lowest first: a module may import only from its own layer or the ones below.
# The dice combinatorics sit below the rules, which compile their tables from them.
LAYERS = [("yacht_env.errors", "yacht_env.config", "yacht_env.safe_file", "yacht_env.jit_cache", "yacht_env.gc_pause"),
          ("yacht_env.core.dice",), ("yacht_env.rules",), ("yacht_env.core",), ("yacht_env.solver",),
          ("yacht_env.envs",), ("yacht_env.integrations",), ("yacht_env",)]


def layer_of(module: str) -> int:
    for i, prefixes in enumerate(LAYERS):
        if any(module == p or module.startswith(p + ".") for p in prefixes):
            return i
    raise AssertionError(f"{module} is in no layer")


def test_yacht_env_layers_import_downward_only():
    for i in imports():
        if _package(i.module) == "yacht_env" and _package(i.target) == "yacht_env":
            assert layer_of(i.target) <= layer_of(i.module), f"{i.module} imports {i.target}, a layer above it"


def test_the_documented_short_names_are_the_integrations_modules():
    import yacht_env.integrations.pettingzoo
    import yacht_env.integrations.sb3
    from yacht_env.pettingzoo import env
    from yacht_env.sb3 import YachtVecEnv

    assert env is yacht_env.integrations.pettingzoo.env
    assert YachtVecEnv is yacht_env.integrations.sb3.YachtVecEnv
