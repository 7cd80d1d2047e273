"""What the vector-env tests share: random, first or last legal actions, info comparison, a batched table env
played against its single envs step by step, and a hang guard."""
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


def last_legal(mask) -> np.ndarray:
    """The highest legal action of each row of an (N, A) mask."""
    return np.array([np.flatnonzero(m)[-1] for m in mask], np.int64)


def assert_row_info(info: dict, i: int, single: dict) -> None:
    """Row i of a batched info holds the single env's info, key for key (winners: as a list of seats)."""
    assert set(single) - {"winners"} <= set(info)
    for key, value in single.items():
        if key != "winners":
            assert np.array_equal(info[key][i], value) and info[f"_{key}"][i], key


def plays_the_single_envs_games(vec, singles, seed: int, steps: int, choose, check=None) -> int:
    """Assert that every table i of the batched table env `vec` plays the game of the single env singles[i]:
    `vec` is reset with `seed`, singles[i] with seed + i, and both stepped `steps` times with the actions
    `choose(step, mask)` picks from the batched mask. Each step compares, table by table, the reward and the
    end, the observation and the info (each single's info in row i of the batched one, `assert_row_info`:
    the mask among them); at each game's end, the final total, the final info (winners as a list of seats)
    and the final observation, before the single env is reset. check(step, i, env, info,
    ended): a test's own checks of table i after the comparison (info: the single env's, of its new game when
    ended, its game having ended at this step). Returns how many games ended."""
    obs, info = vec.reset(seed=seed)
    outs = [e.reset(seed=seed + i) for i, e in enumerate(singles)]
    assert np.array_equal(obs, np.stack([o for o, _ in outs]))
    ended = 0
    for step in range(steps):
        actions = choose(step, info["action_mask"])
        obs, rewards, term, _, info = vec.step(actions)
        for i, e in enumerate(singles):
            o, r, t, _, inf = e.step(int(actions[i]))
            assert r == pytest.approx(float(rewards[i])) and t == term[i], (step, i)
            if t:
                ended += 1
                assert info["final_total"][i] == inf["totals"][e.seat], (step, i)
                assert np.array_equal(info["final_obs"][i], o), (step, i)
                last = info["final_info"]
                assert info["_final_info"][i] and all(last[f"_{k}"][i] for k in inf)
                assert last["winners"].tolist()[i] == [s in inf["winners"] for s in range(e.num_players)]
                assert_row_info(last, i, inf)
                o, inf = e.reset()
            assert np.array_equal(obs[i], o), (step, i)
            assert_row_info(info, i, inf)
            if check is not None:
                check(step, i, e, inf, t)
    return ended


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


def assert_same_steps(native: list, single: list) -> None:
    """Two recorded runs of `test_env_gymnasium_modes.play` (or its like) step for step: observations, then
    rewards, terminated and truncated where a step has them, then the infos."""
    for t, (a, b) in enumerate(zip(native, single)):
        assert np.array_equal(a[0], b[0]), t
        if len(a) == 5:
            for x, y in zip(a[1:4], b[1:4]):
                assert np.array_equal(x, y), t
        assert_same_info(a[-1], b[-1], f"step {t}")
