"""The arrays a step hands out, used again once nobody else holds them.

A batched env's step returns new arrays: nothing it returned is changed by a later step. Allocating
them afresh costs more than writing them (about 1 MB per step of 4096 games, in new pages), so
`Frames` keeps the last few frames (the tuple of arrays one step wrote) and gives one back for the
next step only when CPython's reference counts show that the frame alone holds every array of it.
A caller that keeps anything of a frame (the info dict, one array, a view of a row, a tensor made by
`torch.from_numpy`) holds a reference to its array, so it never sees the array change. A frame comes
back as the last step left it: the step writes it whole, or keeps track of what it wrote there.

    frames = Frames(lambda: (np.empty(n, np.float32), np.empty((n, f), np.float32)))
    rewards, obs = frames.take()
"""
import sys

# the references when nothing outside holds them: to an array, the frame's tuple, `sys.getrefcount`'s
# argument and the loop variable in `_free`; to a frame, the pool's list, `_free`'s argument and
# `sys.getrefcount`'s
_ALONE, _FRAME_ALONE = 3, 3


def _free(frame: tuple) -> bool:
    """True when nothing but the pool holds `frame` and its arrays."""
    if sys.getrefcount(frame) > _FRAME_ALONE:
        return False
    for a in frame:
        if sys.getrefcount(a) > _ALONE:
            return False
    return True


class Frames:
    """Frames of arrays made by `make()`; `take()` gives back a kept one nobody else holds, else a new one.

    `keep` frames are kept at most (the newest), so a caller who holds on to every step's arrays costs
    no more than new arrays every step.
    """

    def __init__(self, make, keep: int = 3):
        self.make, self.keep = make, keep
        self.frames: list[tuple] = []

    def take(self) -> tuple:
        """A frame for the next step: a kept one with no other holder (old values in it), else a new one."""
        frames = self.frames
        for k in range(len(frames)):
            if _free(frames[k]):
                frame = frames.pop(k)
                frames.append(frame)
                return frame
        frame = self.make()
        frames.append(frame)
        if len(frames) > self.keep:
            del frames[0]
        return frame

    def forget(self) -> None:
        """Keep no frame: the caller is about to write into a frame's arrays outside the step that keeps
        track of them."""
        self.frames.clear()
