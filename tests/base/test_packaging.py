"""The presets are package data: a wheel built from the tree ships them and works without the tree."""
import shutil
import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import pytest

from tests.five_dice import five_dice_presets

ROOT = Path(__file__).resolve().parents[2]
LEFT_OUT = shutil.ignore_patterns(".git", ".venv", "venv", "build", "*.egg-info", "runs", "out", ".yacht_cache",
                                  "__pycache__", ".hypothesis", ".pytest_cache", "models", "tests")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """A wheel built from a copy of the tree (so no stale build/ folder of the work tree leaks in)."""
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"
    shutil.copytree(ROOT, src, ignore=LEFT_OUT, symlinks=True)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w",
                    str(tmp / "dist"), str(src)], check=True, capture_output=True)
    (path,) = (tmp / "dist").glob("yacht_arena-*.whl")
    return path


def test_no_symlinks_in_the_packages():
    for package in ("yacht_env", "agents", "tournaments", "yacht_arena"):
        assert not [p for p in (ROOT / package).rglob("*") if p.is_symlink()]


def test_wheel_holds_every_preset(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    rules = {p.name for p in (ROOT / "yacht_env/rules/presets").glob("*.yaml")}
    tournaments = {p.name for p in (ROOT / "tournaments/presets").glob("*.yaml")}
    assert {"yacht.yaml", "classic.yaml"} <= rules and {"default.yaml", "four_seats.yaml"} <= tournaments
    assert {f"yacht_env/rules/presets/{n}" for n in rules} <= names
    assert {f"tournaments/presets/{n}" for n in tournaments} <= names
    assert not [n for n in names if n.startswith(("yacht_env/configs", "configs/"))]
    levels = {p.name for p in (ROOT / "agents/calibrations").glob("levels-*.json")}
    shipped = {p.name for p in (ROOT / "agents/calibrations").glob("*.json")}
    assert len(levels) == len(five_dice_presets()) and {f"agents/calibrations/{n}" for n in shipped} <= names
    assert any(n.startswith("level-curve-") for n in shipped)     # the yacht preset's level curve (agents.placement)
    assert [n for n in names if n.startswith("yacht_env/solver/tables/")] == [
        f"yacht_env/solver/tables/{p.name}" for p in (ROOT / "yacht_env/solver/tables").glob("*.npz")]
    static = {p.name for p in (ROOT / "yacht_arena/web/static").iterdir()}
    assert {"index.html", "app.js", "style.css"} <= static
    assert {f"yacht_arena/web/static/{n}" for n in static} <= names      # yacht serve's front end


@pytest.mark.slow
def test_installed_wheel_runs_without_the_tree(wheel, tmp_path):
    """Install the wheel alone into a fresh venv (its dependencies come from this one's site-packages, added
    after it on sys.path) and run `yacht` from a folder that has a stray `yacht` folder in it."""
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=False)
    python = env_dir / "bin" / "python"
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "-q", str(wheel)],
                   check=True, capture_output=True)
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                          check=True, capture_output=True, text=True).stdout.strip()
    Path(site, "deps.pth").write_text(sysconfig.get_path("purelib") + "\n")
    work = tmp_path / "work"
    (work / "yacht").mkdir(parents=True)

    def yacht(*argv):
        return subprocess.run([str(env_dir / "bin" / "yacht"), *argv], cwd=work, capture_output=True, text=True,
                              env={"PATH": "/usr/bin:/bin", "YACHT_CACHE_DIR": str(tmp_path / "cache")})

    listed = yacht("rules", "--list")
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.split() == sorted(p.stem for p in (ROOT / "yacht_env/rules/presets").glob("*.yaml"))
    shown = yacht("rules", "--rules", "verhoeff")
    assert shown.returncode == 0 and shown.stdout.startswith("verhoeff: ")
    script = ("import importlib, tournaments.config as c; "
              "print(importlib.import_module('yacht_env.rules.load').PRESETS); print(c.load_config().name)")
    where = subprocess.run([str(python), "-c", script], cwd=work, capture_output=True, text=True)
    assert where.returncode == 0, where.stderr
    assert where.stdout.split() == [str(Path(site) / "yacht_env" / "rules" / "presets"), "default"]


def test_readme_layout_names_folders_that_exist():
    import re
    text = (ROOT / "README.md").read_text()
    layout = text.split("## Layout", 1)[1].split("\n\n", 2)[1]
    folders = re.findall(r"^\| `([\w/.-]+)/` \|", layout, flags=re.M)
    assert {"yacht_env", "yacht_env/rules/presets", "tournaments/presets", "configs/train"} <= set(folders)
    assert [f for f in folders if not (ROOT / f).is_dir()] == []
