"""The locked settings file: the calibrations found for a rule set, kept in the solver's cache folder.

One small JSON file per rule set (`settings_path`), keyed by `protocol` (the target and everything that
decides its result), written atomically and found again under a lock (`locked`) by concurrent
processes; the package ships the named levels' settings for every preset (`shipped_settings`).
"""
import json
import os
from importlib.resources import files

from yacht_env.rules import rules_hash
from yacht_env.safe_file import FileRefused, build_lock, read_text, write_atomic
from yacht_env.solver import SOLVER_VERSION, cache_dir

from .calibration import CALIBRATION_SEED, DEALS, GAMES, Calibration, calibration_rules
from .dial import DIAL_VERSION
from .targets import Target

MAX_SETTINGS_BYTES = 1 << 20   # a calibration is a few hundred bytes
SHIPPED = "calibrations"       # package data: the named levels' settings for every preset (scripts/ship_data.py)


def settings_path(rules):
    """The JSON file that keeps the calibrations of a rule set (in the solver's cache folder)."""
    return cache_dir() / f"levels-v{DIAL_VERSION}-{rules_hash(calibration_rules(rules))}.json"


def protocol(target: Target, deals: int = DEALS, games: int = GAMES, seed: int = CALIBRATION_SEED) -> str:
    """The key a calibration is kept under: the target and everything that decides its result."""
    budget = f"deals={deals}" if target.kind == "win" else f"games={games}"
    return f"{target.key};{budget};seed={seed};solver={SOLVER_VERSION}"


def read_settings(rules, path=None) -> dict:
    """{protocol key: Calibration} kept for a rule set (in `path`, default `settings_path(rules)`); a missing,
    unreadable or damaged file is empty (its calibrations are found again and the file is written anew), a
    damaged entry is left out."""
    path = settings_path(rules) if path is None else path
    try:
        text = read_text(path, MAX_SETTINGS_BYTES, "calibration settings") if isinstance(path, os.PathLike) \
            else path.read_text()          # package data inside an archive
        doc = json.loads(text)
    except (FileRefused, OSError, ValueError, RecursionError):   # missing, not a regular file, too large, not JSON
        return {}
    if not isinstance(doc, dict) or doc.get("rules_hash") != rules_hash(calibration_rules(rules)) \
            or not isinstance(doc.get("settings"), dict):
        return {}
    out = {}
    for key, entry in doc["settings"].items():
        try:
            out[key] = Calibration.from_json(entry)
        except ValueError:
            continue
    return out


def shipped_path(rules):
    """Where the package keeps the calibrations made for a preset (`SHIPPED`, package data; the same file
    name and format as `settings_path`): the same on every machine, so a first run need not find them."""
    return files(__package__) / SHIPPED / settings_path(rules).name


def shipped_settings(rules) -> dict:
    """{protocol key: Calibration} shipped with the package for a rule set ({} for rules that have none)."""
    return read_settings(rules, shipped_path(rules))


def write_settings(rules, settings: dict, path=None) -> bool:
    """Keep `settings` ({protocol key: Calibration}) for a rule set (in `path`, default `settings_path(rules)`);
    False when the folder is not writable or the file's name holds something other than a regular file
    (nothing is written through a link)."""
    path = settings_path(rules) if path is None else path
    crules = calibration_rules(rules)
    doc = {"version": DIAL_VERSION, "rules": crules.name, "rules_hash": rules_hash(crules),
           "settings": {k: c.to_json() for k, c in sorted(settings.items())}}
    try:
        write_atomic(path, json.dumps(doc, indent=1) + "\n", "calibration settings")
    except (OSError, FileRefused):
        return False
    return True


def locked(rules):
    """Hold the rule set's settings lock (one process calibrates, the others wait and read its result;
    `yacht_env.safe_file.build_lock`)."""
    return build_lock(settings_path(rules).with_suffix(".lock"), "calibration lock")
