"""One compile of each numba function at a time across the pytest-xdist workers of a run.

The workers share numba's on-disk cache (`yacht_env.jit_cache`: one folder per source), but numba looks a
function up there only when it starts compiling it: two workers that need the same kernel at about the same
time both compile it, and with the cache empty (a fresh checkout) that doubles much of the suite's compile
time. `compile_one_at_a_time(folder)` wraps `Dispatcher.compile` so that a function with an on-disk cache is
compiled while holding a lock file of its own in `folder` (one per cache index): the worker that comes second
waits, then finds the machine code the first one stored and loads it. Locks are taken only by functions numba
can cache and only for signatures not compiled yet in this process; a function already locked by this
process (a nested compile of itself) is not locked again; any other failure to lock compiles without the
lock, and so does a wait longer than `PATIENCE`. Results are the same either way: the lock only decides
which process compiles.
"""
import fcntl
import hashlib
import os
import threading
import time

from numba.core import sigutils
from numba.core.caching import FunctionCache
from numba.core.compiler_lock import global_compiler_lock
from numba.core.dispatcher import Dispatcher

_held = threading.local()
PATIENCE = 1800.0     # seconds to wait for another worker's compile before compiling anyway


def _lock_path(folder: str, dispatcher) -> str | None:
    """The lock file of `dispatcher`'s on-disk cache index (None: it has no on-disk cache)."""
    cache = getattr(dispatcher, "_cache", None)
    index = getattr(getattr(cache, "_cache_file", None), "_index_path", None)
    if not isinstance(cache, FunctionCache) or not isinstance(index, str):
        return None
    return os.path.join(folder, hashlib.sha256(index.encode()).hexdigest()[:32] + ".lock")


def _lock(fd: int) -> None:
    """Lock `fd`, waiting up to `PATIENCE` seconds for the process holding it (then going on without it)."""
    deadline = time.monotonic() + PATIENCE
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() > deadline:
                return
            time.sleep(0.05)


def compile_one_at_a_time(folder: str) -> None:
    """Wrap numba's `Dispatcher.compile` with the lock files of `folder` (the module docstring)."""
    compile_ = Dispatcher.compile

    def compile(self, sig):
        with global_compiler_lock:      # numba's own, re-entrant: one compile at a time in this process
            held = _held.__dict__.setdefault("paths", set())
            try:
                args, _ = sigutils.normalize_signature(sig)
                done = tuple(args) in self.overloads
            except Exception:  # noqa: BLE001 - a signature numba reads otherwise: it says what is wrong itself
                done = True
            path = None if done else _lock_path(folder, self)
            if path is None or path in held:
                return compile_(self, sig)
            try:
                fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
            except OSError:
                return compile_(self, sig)
            try:
                _lock(fd)
                held.add(path)
                try:
                    return compile_(self, sig)
                finally:
                    held.discard(path)
            finally:
                os.close(fd)        # closing releases the lock

    Dispatcher.compile = compile
