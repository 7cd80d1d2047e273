"""`bench.py first-run`: the main job (`yacht tournament`, the default preset) from empty caches, then warm.

Three scenarios, each in fresh processes: **cold** (an empty solver cache folder, `$YACHT_CACHE_DIR`, and
an empty numba cache, `$NUMBA_CACHE_DIR`: a first run after the install), **compiled** (numba's cache
kept from the cold run, the solver cache empty again: what is left once the kernels are compiled) and
**warm** (both kept: every later run). For each, the whole command `yacht tournament --out DIR --quiet`
is timed (wall clock, and the CPU seconds of the command and its children: the steadier figure on a
shared machine), then a second process times its parts one after the other: imports, the solved table
(`solve`), the levels' dial settings (`calibrate`), playing the 2,000 games (`play`) and the report with
its move analysis (`report`). cold - compiled is the compiling; compiled - warm is the solving and
calibrating (none for the default preset, whose table and level settings ship with the package: only
reading them). The load average is printed beside every number: on a shared machine the times grow
with it.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PARTS = r"""
import json, sys, time
t0 = last = time.perf_counter()
parts = {}
def mark(name):
    global last
    now = time.perf_counter()
    parts[name] = now - last
    last = now
from tournaments.config import load_config
from tournaments.run import run_tournament
from agents.levels import level
from yacht_env.solver import solution_for
mark("import")
config = load_config(None)
solution_for(config.ruleset, progress=False)
mark("solve")
for name in ("normal", "easy"):
    level(name, config.ruleset, progress=False)
mark("calibrate")
res = run_tournament(config, out=sys.argv[1], workers=int(sys.argv[2]), progress=False)
mark("play+report")
parts["play"] = res["run"]["seconds"]
parts["report"] = parts.pop("play+report") - parts["play"]
parts["total"] = time.perf_counter() - t0
print(json.dumps(parts))
"""


def add_parser(sub):
    p = sub.add_parser("first-run", help="the main job from empty caches (cold), compiled, and warm",
                       description=__doc__)
    p.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="game workers (default: one per CPU)")
    return p


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def timed(argv: list[str], env: dict) -> tuple[float, float, str]:
    """(wall seconds, CPU seconds of the process and its children, stdout) of a command."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    out = subprocess.run(argv, env=env, capture_output=True, text=True, check=True, cwd=ROOT)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, out.stdout


def run(args):
    print(f"{os.cpu_count()} CPUs; {sys.executable}")
    with tempfile.TemporaryDirectory(prefix="yacht-first-run-") as tmp:
        tmp = Path(tmp)
        numba = tmp / "numba"
        env = {**os.environ, "NUMBA_CACHE_DIR": str(numba), "PYTHONPATH": os.pathsep.join(
            p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)}
        yacht = [sys.executable, "-m", "yacht_arena.cli", "tournament", "--quiet", "--workers", str(args.workers)]
        parts_cmd = [sys.executable, "-c", PARTS]
        print(f"{'scenario':<10}{'command s':>10}{'CPU s':>8}{'load':>17}   parts (s), load")
        for k, scenario in enumerate(("cold", "compiled", "warm")):
            cache = tmp / ("cache-warm" if scenario == "warm" else f"cache-{scenario}")
            if scenario == "warm":
                cache = tmp / "cache-compiled"           # the compiled run's solved table and settings
            env["YACHT_CACHE_DIR"] = str(cache)
            before = load()
            seconds, cpu, _ = timed(yacht + ["--out", str(tmp / f"run-{k}")], env)
            if scenario != "warm":                       # the parts from empty solver caches again
                env["YACHT_CACHE_DIR"] = str(tmp / f"parts-{scenario}")
            if scenario == "cold":                       # and numba's from empty again
                env["NUMBA_CACHE_DIR"] = str(tmp / "numba-parts")
            parts_load = load()
            _, _, out = timed(parts_cmd + [str(tmp / f"parts-run-{k}"), str(args.workers)], env)
            env["NUMBA_CACHE_DIR"] = str(numba)
            parts = json.loads(out.strip().splitlines()[-1])
            shown = ", ".join(f"{name} {value:.1f}" for name, value in parts.items())
            print(f"{scenario:<10}{seconds:>10.1f}{cpu:>8.1f}  {before:>15}   {shown}; load {parts_load}", flush=True)
            if scenario == "cold":
                compiled = sorted({p.name.split("-")[0] for p in numba.rglob("*.nbi")})
                print(f"  the cold command compiled {len(compiled)} functions: {' '.join(compiled)}", flush=True)
    return 0
