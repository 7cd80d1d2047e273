"""`Frames`: a kept frame comes back only when nobody but the pool holds any of its arrays."""

import weakref

import numpy as np

from yacht_env.envs.frames import Frames


def _frames():
    return Frames(lambda: (np.zeros(4, np.float32), np.zeros((4, 3), np.int8)), keep=2)


def test_a_dropped_frame_comes_back():
    frames = _frames()
    first = frames.take()
    ids = [id(a) for a in first]
    del first
    assert [id(a) for a in frames.take()] == ids


def test_a_frame_with_any_array_or_view_held_is_not_given_again():
    frames = _frames()
    held_array = frames.take()[1]
    row = frames.take()[0][1:3]                 # a view keeps its base array
    third = frames.take()
    assert not any(np.shares_memory(held_array, a) or np.shares_memory(row, a) for a in third)
    assert not np.shares_memory(held_array, row)


def test_only_keep_frames_are_kept():
    frames = _frames()
    held = [frames.take() for _ in range(5)]      # every frame held: five new frames, the newest two kept
    assert len(frames.frames) == 2 and frames.frames[-1] is held[-1]
    kept = [id(a) for f in frames.frames for a in f]
    del held
    assert all(id(a) in kept for a in frames.take()) and len(frames.frames) == 2


def test_a_forgotten_frame_is_not_given_again():
    frames = _frames()
    first = [weakref.ref(a) for a in frames.take()]       # dropped: it would be given again
    frames.forget()
    again = frames.take()
    assert all(r() is None for r in first) and len(again) == 2 and len(frames.frames) == 1
