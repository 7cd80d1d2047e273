"""Run a compiled loop over N games on several threads at once, each thread taking a slice.

`SliceThreads(k)` keeps k - 1 helper threads waiting; `run(fn, n, args)` calls `fn(lo, hi, *args)`
on k contiguous slices of range(n) (the calling thread takes the first) and returns when all are
done. `fn` must be compiled with `nogil=True` and each game's work must touch only that game's rows,
so the result is the same whatever the number of threads or the split.

The split adapts: a helper starts a little after the calling thread (it has to be woken), so
slices are resized after every run toward equal finishing times.
"""
import threading
import time

import numpy as np

MIN_SLICE = 1024  # games per slice at least: waking a helper takes ~30 us, the time of ~300 game steps


class _Helper:
    """One waiting thread: run(job) hands it (fn, lo, hi, args); wait() blocks until it is done."""

    def __init__(self, name: str):
        self.go, self.done = threading.Semaphore(0), threading.Semaphore(0)
        self.job, self.error, self.seconds = None, None, 0.0
        self.thread = threading.Thread(target=self._loop, name=name, daemon=True)
        self.thread.start()

    def _loop(self) -> None:
        while True:
            self.go.acquire()
            job = self.job
            if job is None:
                return
            fn, lo, hi, args, t0 = job
            try:
                fn(lo, hi, *args)
            except BaseException as e:  # noqa: BLE001 - handed to the calling thread
                self.error = e
            self.seconds = time.perf_counter() - t0
            self.job = None
            self.done.release()

    def start(self, fn, lo: int, hi: int, args: tuple, t0: float) -> None:
        self.job = (fn, lo, hi, args, t0)
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
        self.helpers = [_Helper(f"yacht-step-{i}") for i in range(1, self.num_threads)]
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
        """fn(lo, hi, *args) over every slice of range(n); returns once all slices are done."""
        edges = self.bounds(n)
        if self.num_threads == 1 or edges[1] == n:
            fn(0, n, *args)
            return
        t0 = time.perf_counter()
        for j, h in enumerate(self.helpers, start=1):
            h.start(fn, edges[j], edges[j + 1], args, t0)
        try:
            fn(0, edges[1], *args)
        finally:
            mine = time.perf_counter() - t0
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
