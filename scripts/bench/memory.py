"""`bench.py memory`: the memory of a whole tournament run (play and report) against the games it plays.

For each `--games N` the default tournament (`yacht tournament --games N`, the README's first command with
more deals: 10 tables x N deals x 2 seat orders = 20 N games) runs as a child process into a fresh folder,
and every `--every` seconds the resident sizes (RSS, /proc/PID/statm) of that process and every process
under it (game workers, the analysis compiler) are summed; the peak of that sum is the run's memory (pages
shared between the processes are counted in each, so it is an upper bound). Prints, per size: games,
peak, the resident size when the run began to play and ended, wall time, and the load average before and
after (figures taken under load are upper bounds on time, not on memory). Linux only (/proc).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def add_parser(sub):
    p = sub.add_parser("memory", help="peak memory of the default tournament against its games", description=__doc__)
    p.add_argument("--games", type=int, nargs="+", default=[500, 2000], metavar="N",
                   help="deals per table (the run plays 20 N games; default: 500 2000, i.e. 10k and 40k games)")
    p.add_argument("--every", type=float, default=0.2, help="seconds between two samples (default 0.2)")
    p.add_argument("--out", default=None, help="keep the folders here (default: a temporary folder, removed)")
    p.add_argument("--args", default="", help="more arguments for `yacht tournament` (one string)")
    p.add_argument("--trace", default=None, help="write every sample (seconds, bytes) to TRACE-<N>.tsv")
    return p


def tree_rss(root: int) -> int:
    """Bytes resident in `root` and every process under it (each process's RSS, summed)."""
    # Walks /proc like the hostile-bot tests' process finder, for another answer (a tree's memory).
    parent = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        parent[int(entry)] = int(stat[stat.rindex(b")") + 2:].split()[1])
    members, frontier = {root}, [root]
    while frontier:
        p = frontier.pop()
        for child, pp in parent.items():
            if pp == p and child not in members:
                members.add(child)
                frontier.append(child)
    total = 0
    for pid in members:
        try:
            with open(f"/proc/{pid}/statm", "rb") as f:
                total += int(f.read().split()[1]) * PAGE
        except (OSError, IndexError, ValueError):
            pass
    return total


def measure(argv: list[str], every: float, trace: str | None = None) -> dict:
    """Run argv; sample its process tree's summed RSS every `every` s; return the peak and the time."""
    load = os.getloadavg()[0]
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    peak, samples = 0, []
    while proc.poll() is None:
        rss = tree_rss(proc.pid)
        peak = max(peak, rss)
        samples.append((time.perf_counter() - start, rss))
        time.sleep(every)
    err = proc.stderr.read().decode(errors="replace")
    seconds = time.perf_counter() - start
    if proc.returncode:
        raise SystemExit(f"{' '.join(argv)} failed ({proc.returncode}):\n{err[-2000:]}")
    if trace:
        Path(trace).write_text("".join(f"{t:.2f}\t{b}\n" for t, b in samples))
    return {"peak": peak, "seconds": seconds, "samples": len(samples), "load_before": load,
            "load_after": os.getloadavg()[0]}


def run(args):
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs")
    print(f"{'deals':>7}{'games':>9}{'peak MB':>9}{'wall s':>9}{'samples':>9}{'load':>12}")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(args.out or tmp)
        for n in args.games:
            out = root / f"memory-{n}"
            argv = [sys.executable, "-m", "yacht_arena.cli", "tournament", "--games", str(n), "--out", str(out),
                    "--quiet", *args.args.split()]
            m = measure(argv, args.every, f"{args.trace}-{n}.tsv" if args.trace else None)
            print(f"{n:>7}{20 * n:>9,}{m['peak'] / 1e6:>9.0f}{m['seconds']:>9.1f}{m['samples']:>9}"
                  f"{m['load_before']:>6.1f}{m['load_after']:>6.1f}", flush=True)
