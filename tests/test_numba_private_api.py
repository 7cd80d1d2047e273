"""The numba internals the code relies on, checked against the installed numba.

- `_nrt=False` in `nb.njit` (yacht_env/batch.py): the batched env's entry points run without
  reference counting; a numba that drops the option refuses it, one that ignores it is slower.
- `Dispatcher._cache.cache_path` and `._cache.flush()` (yacht_env/jit_cache.py, used for the env
  and the solver): without them stale machine code is loaded after a kernel changes.
- `numba.extending.intrinsic` with `numba.core.cgutils` and llvmlite's atomic load/store
  (yacht_env/step_threads.py): the threads that step slices of a batch.

When one of these fails, the message says what to do: install a numba within pyproject.toml's bounds,
or port the module named to the numba installed (and move the bounds).
"""
import subprocess
import sys
import textwrap
from importlib.metadata import requires

import numba as nb
import numpy as np
import pytest


def advice(what: str) -> str:
    wanted = [r for r in requires("yacht-arena") if r.replace(" ", "").startswith(("numba", "llvmlite"))]
    return (f"numba {nb.__version__} lacks {what}; this project supports {', '.join(wanted)}: reinstall with "
            f"`pip install -c constraints.txt -e .`, or port the module named to this numba and move the bounds "
            f"in pyproject.toml")


def add_one(x):
    return x + 1


def allocates(n):
    return np.zeros(n)


def test_njit_accepts_nrt_false_and_honours_it():
    try:
        fn = nb.njit(_nrt=False)(add_one)
        assert fn(1) == 2
    except Exception as e:  # noqa: BLE001 - any failure here is the missing option
        pytest.fail(advice(f"the `_nrt` option of nb.njit used by yacht_env/batch.py ({type(e).__name__}: {e})"))
    try:
        nb.njit(_nrt=False)(allocates)(3)
    except Exception:  # noqa: BLE001 - expected: without NRT an allocating function does not compile
        return
    pytest.fail(advice("a working `_nrt=False` (an allocating function compiled without NRT), which "
                       "yacht_env/batch.py relies on for speed"))


def test_the_batched_env_entry_points_are_compiled_without_nrt():
    from yacht_env.batch import reset_games, step_games
    for fn in (reset_games, step_games):
        if fn.targetoptions.get("_nrt") is not False:
            pytest.fail(advice(f"`_nrt` in the target options of {fn.__name__} (yacht_env/batch.py)"))


def test_the_cached_dispatchers_have_a_cache_path_and_flush():
    from numba.core.registry import CPUDispatcher

    import yacht_env.batch
    import yacht_env.solver.jit as solver_jit
    mods = [yacht_env.batch] + [__import__(f"yacht_env.solver.{m}", fromlist=["x"]) for m in solver_jit.MODULES]
    dispatchers = [obj for mod in mods for obj in vars(mod).values()
                   if isinstance(obj, CPUDispatcher) and obj.__module__ == mod.__name__]
    assert len(dispatchers) > 10
    for d in dispatchers:
        cache = getattr(d, "_cache", None)
        path = getattr(cache, "cache_path", None)
        if not (isinstance(path, str) and path and callable(getattr(cache, "flush", None))):
            pytest.fail(advice(f"Dispatcher._cache.cache_path / .flush() on {d.__module__}.{d.__name__}, used "
                               f"by yacht_env/jit_cache.py to drop stale compiled code"))


KERNEL = """
import numba as nb

@nb.njit(cache=True)
def triple(x):
    return 3 * x
"""

STEP = """
import sys
sys.path.insert(0, sys.argv[1])
import kernel
assert kernel.triple(2) == 6
hits = sum(kernel.triple.stats.cache_hits.values())
if sys.argv[2] == "flush":
    kernel.triple._cache.flush()
print(hits)
"""


@pytest.mark.slow
def test_flush_makes_the_next_process_compile_again(tmp_path):
    """What jit_cache.drop_stale needs from `_cache.flush()`: the next process does not load the old code."""
    (tmp_path / "kernel.py").write_text(textwrap.dedent(KERNEL))

    def hits(action: str) -> int:
        out = subprocess.run([sys.executable, "-c", STEP, str(tmp_path), action], capture_output=True, text=True)
        if out.returncode:
            pytest.fail(advice(f"Dispatcher._cache.flush() or .stats.cache_hits ({out.stderr.strip()[-300:]})"))
        return int(out.stdout)

    assert hits("keep") == 0           # compiled and stored
    assert hits("flush") == 1          # loaded from the cache, then flushed
    if hits("keep") != 0:
        pytest.fail(advice("a `_cache.flush()` that empties the cache (the next process still loaded old code)"))


def test_step_threads_intrinsics_compile_and_run():
    from yacht_env.step_threads import post
    ctrl = np.array([0, 0, 7], np.int64)
    try:
        post(ctrl)
    except Exception as e:  # noqa: BLE001 - any failure here is numba's extending API
        pytest.fail(advice(f"the intrinsic / cgutils / atomic load-store pieces of yacht_env/step_threads.py "
                           f"({type(e).__name__}: {str(e)[:300]})"))
    assert ctrl[0] == 7
