"""The best solo score per rule set, kept beside the games: `yacht play` and the web tables' solo games.

`BestScores(folder)` is `folder/best.json`; `yacht play` keeps it in its data folder, `yacht serve` in
its own (keyed there by rules hash and the player's name).
"""
import json
import sys
from pathlib import Path

from yacht_env.safe_file import FileRefused, NoSuchFile, read_text, write_atomic

BEST_FILE = "best.json"
MAX_BEST_FILE = 1 << 20           # bytes; a larger best.json is not one this program wrote
MAX_NAME = 20                     # characters of a name kept (people's names are at most that long)


def _warn(text: str) -> None:
    print(f"yacht: warning: {text}", file=sys.stderr, flush=True)


class BestScores:
    """The best solo score per rules hash, in `folder/best.json`:
    {"best": {hash: {"score": int, "rules": name, "name": who}}}.

    A file that cannot be read or is not such a mapping is left alone (one warning; nothing is saved
    this session); a file that cannot be written costs one warning. Saving re-reads the file first and
    replaces it in one rename, so two sessions never leave a torn file. `warn` is called with each
    warning's text (default: one line on stderr)."""

    def __init__(self, folder: Path, warn=None):
        self.path = Path(folder) / BEST_FILE
        self.warn = warn or _warn
        self.usable = True
        self.entries = self._read(warn=True)

    def _read(self, warn: bool) -> dict:
        try:
            problem, entries = _parse(read_text(self.path, MAX_BEST_FILE, "best-score file"))
            if problem is None:
                return entries
        except NoSuchFile:
            return {}
        except FileRefused as e:     # not a regular file, too large, not UTF-8
            problem = f"cannot be read ({e.problem})"
        self.usable = False
        if warn:
            self.warn(f"{self.path} {problem}; best scores are not kept this session (delete the file to start afresh)")
        return {}

    def get(self, key: str) -> dict | None:
        return self.entries.get(key)

    def offer(self, key: str, score: int, rules: str, name: str) -> dict | None:
        """Record `score` if it beats the best for `key`; the previous best when it did, else None."""
        if not self.usable:
            return None
        entries = self._read(warn=True)
        if not self.usable:
            return None
        old = entries.get(key)
        if old is not None and old["score"] >= score:
            self.entries = entries
            return None
        entries[key] = {"score": int(score), "rules": rules, "name": name}
        try:
            write_atomic(self.path, json.dumps({"best": entries}, indent=2, sort_keys=True) + "\n", "best-score file")
        except FileRefused as e:
            self.warn(f"cannot save the best score to {self.path} ({e.problem})")
            self.usable = False
            return None
        except OSError as e:
            self.warn(f"cannot save the best score to {self.path} ({e.strerror or e})")
            self.usable = False
            return None
        self.entries = entries
        return old or {"score": None}


def _parse(text: str) -> tuple[str | None, dict]:
    """(problem, entries) of a best-score file's text."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as e:
        return f"is not valid JSON ({str(e).splitlines()[0][:80]})", {}
    if not isinstance(data, dict) or not isinstance(data.get("best"), dict):
        return 'is not a best-score file (expected {"best": {...}})', {}
    entries = {}
    for key, entry in data["best"].items():
        score = entry.get("score") if isinstance(entry, dict) else None
        if isinstance(score, bool) or not isinstance(score, int) or not 0 <= score <= 100_000:
            return f"has a bad entry for rules hash {str(key)[:20]!r}: score {str(score)[:20]}", {}
        entries[key] = {"score": score, "rules": str(entry.get("rules", ""))[:80],
                        "name": str(entry.get("name", ""))[:MAX_NAME]}
    return None, entries
