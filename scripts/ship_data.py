"""Make the data that ships with the package because it is the same on every machine (package data):

- the named levels' calibrations of every preset (agents/calibrations/), and
- the solved table of the `yacht` preset, the main job's rules (yacht_env/solver/tables/), and
- the strength dial's level curves of the presets in `agents.placement.SHIPPED_CURVES` (`yacht`, `yatzy`;
  agents/calibrations/).

    python scripts/ship_data.py                   # all of it
    python scripts/ship_data.py classic knizia    # these presets' calibrations only

Each is made from scratch, by the code a first run would otherwise use (`yacht_env.solver.solve`,
`agents.levels.settings_with`), in an empty cache folder, and copied into the package. tests/agents/test_levels.py
and tests/solver/test_solver_values.py check the shipped files against the current versions and rules and, in
slow tests, against a new calibration and a new solve. Rerun this when they say a file is stale. Minutes
per preset.
"""
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TABLES = ("yacht",)          # presets whose solved table ships (the main job's)


def main(names: list[str]) -> int:
    sys.path.insert(0, str(ROOT))
    from agents import levels, placement
    from yacht_env.rules import load, presets
    from yacht_env.solver import solve
    from yacht_env.solver.cache import save, shipped_path

    for name in TABLES if not names else ():
        rules = load(name)
        start = time.perf_counter()
        path = shipped_path(rules)
        save(solve(rules, progress=True), path, compressed=True)
        print(f"{name}: {path.relative_to(ROOT)} ({time.perf_counter() - start:.0f} s)")
    for name in placement.SHIPPED_CURVES if not names else ():
        rules = load(name)
        start = time.perf_counter()
        path = Path(str(placement.shipped_curve_path(rules)))
        placement.write_curve(rules, placement.build_curve(rules), path)
        print(f"{name}: {path.relative_to(ROOT)} ({time.perf_counter() - start:.0f} s)")
    for name in names or presets():
        rules = load(name)
        with tempfile.TemporaryDirectory(prefix="yacht-ship-levels-") as cache:
            os.environ["YACHT_CACHE_DIR"] = cache
            shipped = Path(str(levels.shipped_path(rules)))
            shipped.unlink(missing_ok=True)               # found from scratch, not read back
            levels._FOUND.clear()
            start = time.perf_counter()
            levels.settings_with(rules, [(n, levels.level_target(n)) for n in levels.LEVELS], progress=True)
            shipped.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(levels.settings_path(rules), shipped)
        print(f"{name}: {shipped.relative_to(ROOT)} ({time.perf_counter() - start:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
