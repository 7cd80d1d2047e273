"""Waiting for something another process does, without a verdict that depends on the machine's speed.

A test waits for an event (a file appears, a process is gone) with `until`: it returns as soon as the
event happens, so a generous PATIENCE costs nothing on a quiet machine and keeps a busy one (a loaded CI
runner, two CPU-bound processes beside the suite) from failing the test; only a thing that never happens
takes the whole PATIENCE."""
import os
import time

PATIENCE = 120.0       # seconds: far beyond any healthy wait on a loaded 2-core machine


def until(condition, seconds: float = PATIENCE, step: float = 0.02):
    """Call `condition()` every `step` seconds until it gives a true value (returned) or `seconds` have passed
    (False)."""
    end = time.monotonic() + seconds
    while True:
        got = condition()
        if got:
            return got
        if time.monotonic() >= end:
            return False
        time.sleep(step)


def group_gone(group: int, seconds: float = PATIENCE) -> bool:
    """True once no process is left in the process group `group` (within `seconds`)."""
    def gone():
        try:
            os.killpg(group, 0)
        except ProcessLookupError:
            return True
        return False
    return until(gone, seconds, step=0.05)


def lines_written(path, n: int, proc, seconds: float = PATIENCE) -> bool:
    """Wait until the file `path` holds `n` whole lines or the process `proc` (a Popen) has ended; True when
    the lines are there (a run killed in the middle waits for its first games this way)."""
    def count() -> int:
        try:
            return path.read_bytes().count(b"\n")
        except FileNotFoundError:
            return 0
    until(lambda: count() >= n or proc.poll() is not None, seconds, step=0.05)
    return count() >= n
