"""Benchmarks: ``python scripts/bench.py BENCHMARK [options]`` (env, solver, tournament, memory, ...).

Each subcommand is a module ``scripts/bench/<name>.py`` exposing ``add_parser(sub)`` (which adds
its subparser) and ``run(args)``; add one to ``BENCHMARKS`` below to register it. Modules are
imported only when present, so a missing benchmark does not break the others.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path

BENCHMARKS = ("env", "solver", "tournament", "analysis", "agents", "first_run", "web", "formats", "sprt", "luck",
              "adaptive", "memory", "distribution", "dispatch", "planned_kernel", "soak", "arena",
              "solver_digests")


def main(argv: list[str] | None = None) -> int:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    parser = argparse.ArgumentParser(prog="bench.py", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="benchmark", metavar="BENCHMARK", required=True)
    for name in BENCHMARKS:
        try:
            module = importlib.import_module(f"bench.{name}")
        except ModuleNotFoundError as err:
            if err.name != f"bench.{name}":
                raise
            continue
        module.add_parser(sub).set_defaults(_run=module.run)
    args = parser.parse_args(argv)
    return args._run(args) or 0


if __name__ == "__main__":
    sys.exit(main())
