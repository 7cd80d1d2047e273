"""Make the named levels' calibrations that ship with the package (agents/calibrations/, package data).

    python scripts/ship_levels.py                 # every preset
    python scripts/ship_levels.py yacht classic   # some

For each preset the levels (`easy`, `normal`) are calibrated from scratch, by the code every first run
would otherwise use (`agents.levels.settings_with`), in an empty cache folder, and the settings file
is copied to agents/calibrations/. tests/test_levels.py checks the shipped files against the protocol
(seed, budget, solver and dial versions, rules hash) and, in a slow test, against a new calibration.
Rerun it whenever that test says the shipped files are stale. Minutes per preset.
"""
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main(names: list[str]) -> int:
    sys.path.insert(0, str(ROOT))
    from agents import levels
    from yacht_env.rules import load, presets

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
