"""The numba internals the code relies on, checked against the installed numba.

- `_nrt=False` in `nb.njit` (yacht_env/envs/batch.py): the batched env's entry points run without
  reference counting; a numba that drops the option refuses it, one that ignores it is slower.
- `numba.extending.intrinsic` with `numba.core.cgutils` and llvmlite's atomic load/store
  (yacht_env/envs/step_threads.py): the threads that step slices of a batch.
- `Dispatcher.compile(signature)` returning the compiled function (yacht_env/core/dispatch.py): the single
  `Yacht-v0` step calls it without numba's type dispatch.
- An attribute template (`infer_getattr`, `lower_getattr_generic`) lowering to `BaseContext.make_constant_array`
  (yacht_env/core/dice.py, `FixedDice`): the env kernels read the dice tables as constants
  (`test_compiled_code_reads_a_fixed_dice_as_its_tables` in tests/envs/test_env_six_dice.py).

When one of these fails, the message says what to do: install a numba within pyproject.toml's bounds,
or port the module named to the numba installed (and move the bounds).
"""
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
        pytest.fail(advice(f"the `_nrt` option of nb.njit used by yacht_env/envs/batch.py ({type(e).__name__}: {e})"))
    try:
        nb.njit(_nrt=False)(allocates)(3)
    except Exception:  # noqa: BLE001 - expected: without NRT an allocating function does not compile
        return
    pytest.fail(advice("a working `_nrt=False` (an allocating function compiled without NRT), which "
                       "yacht_env/envs/batch.py relies on for speed"))


def test_the_batched_env_entry_points_are_compiled_without_nrt():
    from yacht_env.envs.batch import reset_games, step_games
    for fn in (reset_games, step_games):
        if fn.targetoptions.get("_nrt") is not False:
            pytest.fail(advice(f"`_nrt` in the target options of {fn.__name__} (yacht_env/envs/batch.py)"))


def test_step_threads_intrinsics_compile_and_run():
    from yacht_env.envs.step_threads import post
    ctrl = np.array([0, 0, 7], np.int64)
    try:
        post(ctrl)
    except Exception as e:  # noqa: BLE001 - any failure here is numba's extending API
        pytest.fail(advice(f"the intrinsic / cgutils / atomic load-store pieces of yacht_env/envs/step_threads.py "
                           f"({type(e).__name__}: {str(e)[:300]})"))
    assert ctrl[0] == 7


def test_compile_returns_the_compiled_function_called_without_dispatch():
    """`yacht_env.core.dispatch.direct`: `Dispatcher.compile(signature)` returns the compiled function,
    which the single Yacht-v0 step calls directly."""
    from yacht_env.core.dispatch import direct
    fn = nb.njit(_nrt=False)(add_one)
    try:
        compiled = direct(fn, (np.int64(1),))
        assert compiled(41) == 42
    except Exception as e:  # noqa: BLE001 - any failure here is the dispatcher's compile API
        pytest.fail(advice(f"a Dispatcher.compile(signature) returning the compiled function, which "
                           f"yacht_env/core/dispatch.py uses ({type(e).__name__}: {str(e)[:300]})"))
