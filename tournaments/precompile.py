"""Compiling the report's move-analysis kernels in a second process while the games are played.

On a first run nothing is in numba's cache, and compiling is most of the main job's time: the play
kernels in the process that plays, then the analysis kernels when the report is written. Those two sets
share nothing the analysis needs first, so on a machine with a second core a helper process compiles
the analysis kernels into the cache while the games are played, and the report loads them.

The helper runs only while a marker beside the compiled functions says they have not been compiled for
this source yet (numba's cache folder is named after the source, `yacht_env.jit_cache`): a warm run
starts no process. It only ever fills numba's cache, so whatever becomes of it (killed, failed, slow)
the report is the same: `wait` lets it finish (up to `WAIT_SECONDS`), and whatever is not in the cache
then is compiled by the report as it would have been without the helper. The helper analyses no games of
the `yacht` preset, whose solved table ships with the package (nothing is solved): every rule set's
tables and records have the same array types, so the kernels it compiles are the ones any report calls.

    python -m tournaments.precompile     # the helper: compile, then write the marker
"""
import os
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

import numba

from yacht_env.rules import load
from agents.analysis import compile_kernels

WAIT_SECONDS = 600.0
MARKER = "analysis-compiled"


def _marker() -> Path:
    return Path(numba.config.CACHE_DIR) / MARKER


def compiled() -> bool:
    """Whether the analysis kernels of this source are in numba's cache (as far as the marker knows)."""
    return _marker().is_file()


def mark_compiled() -> None:
    """Record that the analysis kernels of this source are in numba's cache."""
    marker = _marker()
    try:
        marker.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(marker, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW, 0o644)
        os.close(fd)
    except OSError:        # a read-only or planted cache folder: the next run compiles in a helper again
        pass


class _Helper:
    """The helper process (None: none was started); `wait` lets it finish, up to `WAIT_SECONDS`."""

    def __init__(self, process: subprocess.Popen | None):
        self.process = process

    def wait(self) -> None:
        if self.process is not None:
            try:
                self.process.wait(timeout=WAIT_SECONDS)
            except subprocess.TimeoutExpired:
                pass
            self.stop()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()


@contextmanager
def analysis_compiled_beside(enabled: bool = True, command: tuple = (sys.executable, "-m", "tournaments.precompile")):
    """Compile the analysis kernels in a helper process (`command`) while the body runs, when they are
    not compiled yet and the machine has a second core. The body calls `.wait()` on what this yields
    before it analyses; on leaving (a return or an exception) a helper still running is stopped."""
    start = enabled and not compiled() and (os.cpu_count() or 1) >= 2
    # the helper's numba cache folder is this process's (both are named after the same source)
    env = {**os.environ, "NUMBA_CACHE_DIR": str(Path(numba.config.CACHE_DIR).parent)}
    helper = _Helper(subprocess.Popen(list(command), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                      stderr=subprocess.DEVNULL, env=env) if start else None)
    try:
        yield helper
    finally:
        helper.stop()


def main() -> int:
    compile_kernels(load("yacht"))
    mark_compiled()
    return 0


if __name__ == "__main__":
    sys.exit(main())
