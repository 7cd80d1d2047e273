"""`play_action` with seen=False (the planned players' compiled turns: re-rolls without the preview) makes the
same moves as with seen=True and leaves the same arrays after every scoring move; between, a `refresh` brings
the preview and the extra-Yacht bonus back to those of seen=True."""
import numba as nb
import numpy as np
import pytest

from yacht_env.core.engine import ROLLS_USED, Arrays, State, play_action, refresh, sheet_to_move
from yacht_env.rules import load
from yacht_env.rules.tables import tables_of

CONFIGS = [("yacht", {}, 2), ("verhoeff", {}, 1), ("kirakuken", {}, 3), ("yacht", {"joker": "free"}, 2),
           ("yacht", {"columns": 2}, 1), ("classic", {"teams": 2}, 4), ("yacht", {"rolls_per_turn": 4}, 1)]


@nb.njit(cache=True)
def _play_unseen(rows, actions, gains, ypts, num_players, num_sheets, arrays, tables):
    T, E = tables_of(tables), Arrays(*arrays)
    for j in range(rows.shape[0]):
        gains[j] = play_action(T, E, ypts, num_players, num_sheets, rows[j], actions[j], False)


@nb.njit(cache=True)
def _refresh(rows, num_players, num_sheets, arrays, tables):
    T, E = tables_of(tables), Arrays(*arrays)
    for j in range(rows.shape[0]):
        refresh(T, E, rows[j], sheet_to_move(E.ints, rows[j], num_players, num_sheets))


def arrays_but_preview(state):
    return [getattr(state, k).copy() for k in ("seeds", "ints", "dice", "faces", "scores", "cols", "totals")]


@pytest.mark.parametrize("name,overrides,players", CONFIGS, ids=[f"{c[0]}-{c[1]}-{c[2]}" for c in CONFIGS])
def test_unseen_rolls_play_the_same_games(name, overrides, players):
    rules = load(name, **overrides)
    n = 200
    seen, unseen = State(rules, n, players), State(rules, n, players)
    seeds = np.arange(1, n + 1, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    for s in (seen, unseen):
        s.reset(seeds)
    rng = np.random.default_rng(0)
    gains, lagged = np.zeros(n, np.int64), 0
    while not seen.over().all():
        rows = np.flatnonzero(~seen.over())
        fresh = rows[seen.ints[rows, ROLLS_USED] == 0]
        seen.roll(fresh)
        unseen.roll(fresh)
        mask = seen.masks(rows)
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in mask], np.int64)
        actions[rng.random(len(rows)) < 0.05] = rng.integers(0, mask.shape[1], 1)   # some illegal ones
        expected = seen.play(rows, actions)
        _play_unseen(rows, actions, gains[:len(rows)], unseen.ypts, players, unseen.num_sheets, unseen.arrays,
                     unseen.table_fields)
        assert np.array_equal(gains[:len(rows)], expected)
        for a, b in zip(arrays_but_preview(seen), arrays_but_preview(unseen)):
            assert np.array_equal(a, b)
        waiting = seen.ints[:, ROLLS_USED] == 0      # turns just scored, games over: the preview is all -1
        assert np.array_equal(seen.preview[waiting], unseen.preview[waiting])
        assert (unseen.preview[waiting] == -1).all()
        lagged += int(not np.array_equal(seen.preview, unseen.preview))
        copy = unseen.repeat(np.arange(n), 1)       # refreshed apart: the games go on with the preview lagging
        _refresh(np.flatnonzero(~waiting), players, copy.num_sheets, copy.arrays, copy.table_fields)
        assert np.array_equal(seen.preview, copy.preview) and np.array_equal(seen.extra, copy.extra)
    assert lagged        # the preview did lag behind the dice between scoring moves
