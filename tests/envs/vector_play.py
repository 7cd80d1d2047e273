"""What the vector-env tests share: random or first legal actions, info comparison and a hang guard."""
import threading

import numpy as np
import pytest

from yacht_env.envs.batch import random_legal


def random_actions(mask, rng) -> np.ndarray:
    """One uniformly random legal action per row of an (N, A) mask."""
    out = np.zeros(len(mask), np.int64)
    random_legal(np.asarray(mask, np.int8), rng.random(len(mask)), out)
    return out


def first_legal(mask) -> np.ndarray:
    """The lowest legal action of each row of an (N, A) mask."""
    return np.array([np.flatnonzero(m)[0] for m in mask], np.int64)


def assert_same_info(a: dict, b: dict, path: str = "info") -> None:
    """Two batched infos hold the same keys, dtypes and values (nested dicts compared key by key;
    `final_obs` compared on the rows `_final_obs` marks, as its container differs between modes)."""
    assert sorted(a) == sorted(b), f"{path}: keys {sorted(a)} != {sorted(b)}"
    for key in a:
        x, y = a[key], b[key]
        if isinstance(x, dict):
            assert_same_info(x, y, f"{path}[{key!r}]")
        elif key == "final_obs":
            for i in np.flatnonzero(a["_final_obs"]):
                assert np.array_equal(x[i], y[i]), f"{path}[{key!r}][{i}]"
        else:
            assert x.dtype == y.dtype and np.array_equal(x, y), f"{path}[{key!r}]: {x!r} != {y!r}"


def within(seconds: float, fn, *args, **kwargs):
    """fn(*args, **kwargs), failing the test when it has not returned after `seconds` (a hang)."""
    box = {}

    def run():
        try:
            box["value"] = fn(*args, **kwargs)
        except BaseException as e:  # noqa: BLE001 - re-raised in the test's thread
            box["error"] = e

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(seconds)
    if worker.is_alive():
        pytest.fail(f"{getattr(fn, '__name__', fn)} did not return within {seconds} s")
    if "error" in box:
        raise box["error"]
    return box.get("value")
