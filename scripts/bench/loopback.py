"""What the benchmarks that drive `yacht serve` on loopback (web, soak, arena) share: a simulated person's
move, percentiles of the timings and the server process's memory."""

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


def person_move(state: dict, seat: int) -> dict:
    """A simulated person's move at its turn in a table's `state`: roll while it may, else score the box its
    dice pay most in."""
    if state["phase"] == "roll":
        return {"type": "roll", "seat": seat}
    key = max(state["preview"], key=lambda k: state["preview"][k])
    box, _, col = key.partition("@")
    return {"type": "score", "seat": seat, "box": box, "column": int(col)}
