"""Run a compiled loop over N games on several threads at once, each thread taking a slice.

`SliceThreads(k)` keeps k - 1 helper threads waiting; `run(fn, n, args)` calls
`fn(lo, hi, ctrl, *args)` on k contiguous slices of range(n) (the calling thread takes the first)
and returns when all are done. `fn` should be compiled with `nogil=True`, call `post(ctrl)` first,
and touch only the rows of games lo..hi-1, so the result is the same whatever the number of
threads or the split.

Hand-over: semaphores carry every job and its completion. Waking a sleeping thread costs ~30 us
here, a tenth of a 4096-game step, so each side also spins briefly in compiled code (no GIL) on
the shared counters `ctrl` before it blocks: `post(ctrl)` tells spinning helpers the job is out
from inside the caller's compiled call, when the GIL is free for them to take, and a helper
marks its job done after releasing its semaphore. A spin gives up after ~0.2 ms, so idle helpers
sleep.

The split adapts: slices are resized after every run toward equal finishing times.
"""
import threading
import time

import numba as nb
import numpy as np
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

MIN_SLICE = 1024   # games per slice at least: waking a helper takes ~30 us, the time of ~300 game steps
SPIN = 200_000     # spin iterations before blocking (~0.2 ms)


def _item_pointer(context, builder, signature, args):
    aryty = signature.args[0]
    ary = context.make_array(aryty)(context, builder, args[0])
    idx = context.cast(builder, args[1], signature.args[1], types.intp)
    return cgutils.get_item_pointer(context, builder, aryty, ary, [idx])


def _is_int64_vector(arr) -> bool:
    return isinstance(arr, types.Array) and arr.dtype == types.int64 and arr.ndim == 1


@intrinsic
def _load_acquire(typingctx, arr, i):
    """arr[i] read atomically (so a spin loop re-reads memory every time)."""
    if not _is_int64_vector(arr):
        return None

    def codegen(context, builder, signature, args):
        return builder.load_atomic(_item_pointer(context, builder, signature, args), "acquire", 8)
    return types.int64(arr, i), codegen


@intrinsic
def _store_release(typingctx, arr, i, value):
    """arr[i] = value, atomically."""
    if not _is_int64_vector(arr):
        return None

    def codegen(context, builder, signature, args):
        value = context.cast(builder, args[2], signature.args[2], types.int64)
        builder.store_atomic(value, _item_pointer(context, builder, signature, args), "release", 8)
        return context.get_dummy_value()
    return types.void(arr, i, value), codegen


@nb.njit(nogil=True, cache=True)
def _spin_until(ctrl, lo, hi, target, iters):
    """Spin until ctrl[lo:hi] are all >= target (True) or `iters` rounds pass (False)."""
    for _ in range(iters):
        ready = True
        for j in range(lo, hi):
            if _load_acquire(ctrl, j) < target:
                ready = False
        if ready:
            return True
    return False


@nb.njit(nogil=True, cache=True)
def post(ctrl):
    """What a sliced kernel does first: mark the job in ctrl[-1] as posted, for helpers spinning on ctrl[0]."""
    _store_release(ctrl, 0, ctrl[ctrl.shape[0] - 1])


class _Helper:
    """One helper thread; start() hands it a job, wait() blocks until it is done (module docstring)."""

    def __init__(self, name: str, ctrl: np.ndarray, slot: int):
        self.go, self.done = threading.Semaphore(0), threading.Semaphore(0)
        self.ctrl, self.slot = ctrl, slot
        self.job, self.error, self.seconds = None, None, 0.0
        self.thread = threading.Thread(target=self._loop, name=name, daemon=True)
        self.thread.start()

    def _loop(self) -> None:
        gen = 0
        while True:
            _spin_until(self.ctrl, 0, 1, gen + 1, SPIN)   # the next job is near: skip the sleep
            self.go.acquire()
            job = self.job
            if job is None:
                return
            fn, lo, hi, args, t0, gen = job
            try:
                fn(lo, hi, self.ctrl, *args)
            except BaseException as e:  # noqa: BLE001 - handed to the calling thread
                self.error = e
            self.seconds = time.perf_counter() - t0
            self.job = None
            self.done.release()
            self.ctrl[self.slot] = gen                    # after release: a spinning caller finds it posted

    def start(self, fn, lo: int, hi: int, args: tuple, t0: float, gen: int) -> None:
        self.job = (fn, lo, hi, args, t0, gen)
        self.go.release()

    def wait(self):
        """Block until the job is done; returns the exception it raised, if any."""
        self.done.acquire()
        error, self.error = self.error, None
        return error

    def stop(self) -> None:
        self.job = None
        self.go.release()
        self.thread.join()


class SliceThreads:
    """The calling thread plus k - 1 helper threads, splitting range(n) between them (module docstring)."""

    def __init__(self, num_threads: int):
        if not isinstance(num_threads, (int, np.integer)) or num_threads < 1:
            raise ValueError(f"num_threads must be a positive integer, got {num_threads!r}")
        self.num_threads = int(num_threads)
        # [0]: the last job posted; [j]: the last job helper j finished; [-1]: the job being handed out
        self.ctrl = np.zeros(self.num_threads + 1, np.int64)
        self.gen = 0
        self.helpers = [_Helper(f"yacht-step-{j}", self.ctrl, j) for j in range(1, self.num_threads)]
        self.share = [1.0 / self.num_threads] * self.num_threads

    def bounds(self, n: int) -> list[int]:
        """Slice edges for n games: slice j is range(edges[j], edges[j + 1]).

        Every slice gets MIN_SLICE games plus its share of the rest; with fewer than
        num_threads * MIN_SLICE games the calling thread takes them all.
        """
        k = self.num_threads
        if k == 1 or n < k * MIN_SLICE:
            return [0] + [n] * k
        spare = n - k * MIN_SLICE
        sizes = [MIN_SLICE + int(f * spare) for f in self.share[1:]]
        edges = [0, n - sum(sizes)]
        for size in sizes:
            edges.append(edges[-1] + size)
        return edges

    def run(self, fn, n: int, args: tuple) -> None:
        """fn(lo, hi, ctrl, *args) over every slice of range(n); returns once all slices are done."""
        if self.num_threads == 1:
            fn(0, n, self.ctrl, *args)
            return
        edges = self.bounds(n)
        if edges[1] == n:
            fn(0, n, self.ctrl, *args)
            return
        self.gen += 1
        gen, k = self.gen, self.num_threads
        self.ctrl[k] = gen
        t0 = time.perf_counter()
        for j, h in enumerate(self.helpers, start=1):
            h.start(fn, edges[j], edges[j + 1], args, t0, gen)
        try:
            fn(0, edges[1], self.ctrl, *args)
        finally:
            mine = time.perf_counter() - t0
            _spin_until(self.ctrl, 1, k, gen, SPIN)
            errors = [e for e in (h.wait() for h in self.helpers) if e is not None]
        if errors:
            raise errors[0]
        took = [mine] + [h.seconds for h in self.helpers]
        rate = [(edges[j + 1] - edges[j]) / max(t, 1e-9) for j, t in enumerate(took)]  # games/s per slice
        total = sum(rate)
        self.share = [0.8 * f + 0.2 * r / total for f, r in zip(self.share, rate)]

    def close(self) -> None:
        """Stop the helper threads (the object runs single-threaded afterwards)."""
        for h in self.helpers:
            h.stop()
        self.helpers = []
        self.num_threads = 1
