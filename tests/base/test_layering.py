"""The layering of the design card, and a core install without torch."""
import ast
import os
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def imported_packages(package: str) -> set[str]:
    found = set()
    for path in (ROOT / package).rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                found |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found.add(node.module.split(".")[0])
    return found


def test_yacht_env_imports_neither_agents_nor_tournaments():
    assert not imported_packages("yacht_env") & {"agents", "tournaments"}


def test_agents_import_only_yacht_env():
    assert "tournaments" not in imported_packages("agents")


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
    for path in (ROOT / "yacht_env").rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        package = module if parts[-1] == "__init__" else module.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.ImportFrom):
                continue
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            targets = [target] if node.module else [f"{target}.{a.name}" for a in node.names]
            for t in targets:
                if t.startswith("yacht_env"):
                    assert layer_of(t) <= layer_of(module), f"{module} imports {t}, a layer above it"


def test_the_documented_short_names_are_the_integrations_modules():
    import yacht_env.integrations.pettingzoo
    import yacht_env.integrations.sb3
    from yacht_env.pettingzoo import env
    from yacht_env.sb3 import YachtVecEnv

    assert env is yacht_env.integrations.pettingzoo.env
    assert YachtVecEnv is yacht_env.integrations.sb3.YachtVecEnv
