"""numba's on-disk cache follows the whole project's source (yacht_env.jit_cache)."""
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from yacht_env import jit_cache

ROOT = Path(__file__).resolve().parents[2]

# stream_seed (batch.py) inlines seed_step (kernels.py): numba alone would keep loading the old code
# after kernels.py changes, since batch.py's own time stamp does not move.
RUN = """
import sys
import numba
import yacht_env
from yacht_env.envs.batch import stream_seed
print(int(stream_seed(3, 4)), numba.config.CACHE_DIR,
      sum(stream_seed.stats.cache_hits.values()), sum(stream_seed.stats.cache_misses.values()))
"""


def test_source_stamp_follows_the_compiled_source(tmp_path):
    for package in ("yacht_env", "agents", "tournaments"):
        (tmp_path / package / "sub").mkdir(parents=True)
        (tmp_path / package / "sub" / "a.py").write_text("x = 1\n")
    (tmp_path / "agents" / "kernel.py").write_text("import numba\n")
    stamps = {jit_cache.source_stamp(tmp_path)}
    for path, text in [("tournaments/cli.py", "y = 1\n"), ("agents/sub/a.py", "x = 2\n")]:
        (tmp_path / path).write_text(text)                           # no compiled code: the same stamp
        assert jit_cache.source_stamp(tmp_path) in stamps
    for path, text in [("agents/kernel.py", "import numba as nb\n"), ("yacht_env/sub/a.py", "x = 2\n"),
                       ("yacht_env/b.py", "")]:
        (tmp_path / path).write_text(text)
        stamp = jit_cache.source_stamp(tmp_path)
        assert stamp not in stamps
        stamps.add(stamp)


def test_the_cache_folder_is_named_after_the_stamp(tmp_path, monkeypatch):
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("YACHT_CACHE_DIR", str(tmp_path / "tables"))       # the solved tables' folder only
    assert jit_cache.numba_cache_dir("abc") == tmp_path / ".cache" / "yacht-arena" / "numba" / "abc"
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "mine"))
    assert jit_cache.numba_cache_dir("abc") == tmp_path / "mine" / "abc"


@pytest.mark.slow
def test_an_edited_kernel_runs_its_new_code(tmp_path):
    tree = tmp_path / "tree"
    for package in (jit_cache.ENGINE, jit_cache.AGENTS):
        shutil.copytree(ROOT / package, tree / package, ignore=shutil.ignore_patterns("__pycache__"))
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "NUMBA_CACHE_DIR": str(tmp_path / "cache"),
           "PYTHONPATH": str(tree)}

    def run():
        out = subprocess.run([sys.executable, "-c", RUN], cwd=tmp_path, env=env, capture_output=True, text=True,
                             timeout=600)
        assert out.returncode == 0, out.stderr[-2000:]
        value, folder, hits, misses = out.stdout.split()
        assert Path(folder).parent == tmp_path / "cache"
        return int(value), Path(folder).name, int(hits), int(misses)

    value, stamp, hits, misses = run()
    assert (hits, misses) == (0, 1)                                  # compiled and stored
    assert run() == (value, stamp, 1, 0)                             # loaded from the cache

    kernels = tree / "yacht_env" / "core" / "kernels.py"
    source = kernels.read_text()
    old = "return splitmix64(np.uint64(h) ^ splitmix64(np.uint64(part)))"
    assert source.count(old) == 1
    kernels.write_text(source.replace(old, "return np.uint64(h) + np.uint64(part)"))
    new_value, new_stamp, hits, misses = run()
    assert new_stamp != stamp and (hits, misses) == (0, 1)
    start = 0x59A17E
    assert new_value == start + 3 + 4 and new_value != value          # the edited seed_step ran
