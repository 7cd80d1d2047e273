"""What the benchmarks that drive `yacht serve` on loopback (web, soak, arena) share: percentiles of their
timings and the server process's memory."""

from __future__ import annotations

from pathlib import Path


def percentile(xs, q: float) -> float:
    """The q-quantile (0..1) of the numbers xs, nearest rank from below; NaN when there are none."""
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else float("nan")


def rss_mb(pid: int) -> float:
    """The resident memory (VmRSS) of process `pid` in MB; NaN when it cannot be read (the process is gone)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")
