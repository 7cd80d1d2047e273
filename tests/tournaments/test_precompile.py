"""The first run's second process: it compiles the move analysis's kernels while the games are played,
only when they are not compiled yet, and never outlives the run."""
import sys

import numba
import pytest

from yacht_env.rules import load
from agents.analysis import AnalysisError, analyze, compile_kernels
from tournaments import precompile


@pytest.fixture
def cache(tmp_path, monkeypatch):
    folder = tmp_path / "numba" / "stamp"
    monkeypatch.setattr(numba.config, "CACHE_DIR", str(folder))
    monkeypatch.setattr(precompile.os, "cpu_count", lambda: 2)
    return folder


def test_compiling_the_analysis_kernels_analyses_no_games():
    compile_kernels(load("yacht"))
    compile_kernels(load("classic", columns=2))
    with pytest.raises(AnalysisError, match="no games to analyse"):
        analyze([], load("yacht"))


def test_the_helper_runs_when_nothing_is_compiled_and_marks_its_work(cache):
    # the helper's stand-in writes the marker where the real one would: numba's folder for this source
    marker = ("import os, pathlib; folder = pathlib.Path(os.environ['NUMBA_CACHE_DIR'], 'stamp'); "
              "folder.mkdir(parents=True); (folder / 'analysis-compiled').touch()")
    with precompile.analysis_compiled_beside(command=(sys.executable, "-c", marker)) as helper:
        assert helper.process is not None
        helper.wait()
    assert helper.process.returncode == 0
    assert precompile.compiled()
    with precompile.analysis_compiled_beside(command=(sys.executable, "-c", "raise SystemExit(3)")) as again:
        assert again.process is None                # compiled: no helper


def test_no_helper_without_the_analysis_or_a_second_core(cache, monkeypatch):
    with precompile.analysis_compiled_beside(enabled=False) as helper:
        assert helper.process is None
    monkeypatch.setattr(precompile.os, "cpu_count", lambda: 1)
    with precompile.analysis_compiled_beside() as helper:
        assert helper.process is None


def test_a_helper_still_running_is_stopped_when_the_run_ends(cache, monkeypatch):
    sleeper = (sys.executable, "-c", "import time; time.sleep(600)")
    with pytest.raises(KeyboardInterrupt), precompile.analysis_compiled_beside(command=sleeper) as helper:
        raise KeyboardInterrupt
    assert helper.process.poll() is not None
    monkeypatch.setattr(precompile, "WAIT_SECONDS", 0.01)   # a helper that never finishes is not waited for
    with precompile.analysis_compiled_beside(command=sleeper) as helper:
        helper.wait()
    assert helper.process.returncode < 0                     # killed, not finished
    assert not precompile.compiled()
