"""The tournament store: `tournament.json` (the config and its hash) and `games.jsonl`, one finished game
per line, flushed and fsynced as it is written.

The store is the source of truth: a rerun skips the games already in it, duplicates are dropped by
game key (first one wins), and a torn last line left by a killed run is cut off before appending.
"""
import json
import os
from pathlib import Path

from yacht_env.cli_common import CommandError

from .config import TournamentConfig, parse_config

META = "tournament.json"
GAMES = "games.jsonl"


class Store:
    """A folder holding one tournament's games."""

    def __init__(self, folder):
        self.folder = Path(folder)

    @property
    def games_path(self) -> Path:
        return self.folder / GAMES

    @property
    def meta_path(self) -> Path:
        return self.folder / META

    def open(self, config: TournamentConfig) -> None:
        """Create the folder for `config`, or check that it already holds the same tournament."""
        if self.folder.exists() and not self.folder.is_dir():
            raise CommandError(f"{self.folder}: exists and is not a folder")
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise CommandError(f"{self.folder}: cannot create the tournament folder ({e.strerror})") from None
        if self.meta_path.exists():
            meta = self.meta()
            if meta.get("config_hash") != config.hash:
                raise CommandError(
                    f"{self.folder} holds a different tournament (config hash {meta.get('config_hash')}, this "
                    f"config is {config.hash}); use another --out folder or delete this one")
        else:
            if self.games_path.exists():
                raise CommandError(f"{self.folder}: {GAMES} without {META}; not a tournament folder this "
                                   f"program wrote")
            tmp = self.meta_path.with_suffix(".tmp")
            tmp.write_text(json.dumps({"config_hash": config.hash, "config": config.to_dict()}, indent=2) + "\n")
            os.replace(tmp, self.meta_path)
        self._cut_torn_tail()

    def meta(self) -> dict:
        if not self.meta_path.is_file():
            raise CommandError(f"{self.folder}: no {META}; not a tournament folder (run `yacht tournament` first)")
        try:
            return json.loads(self.meta_path.read_text())
        except json.JSONDecodeError as e:
            raise CommandError(f"{self.meta_path}: not valid JSON ({e})") from None

    def config(self) -> TournamentConfig:
        """The config this folder was written for."""
        return parse_config(self.meta()["config"], str(self.meta_path))

    def _cut_torn_tail(self) -> None:
        """Drop a last line without its newline (a write cut short by a kill)."""
        if not self.games_path.exists():
            return
        with open(self.games_path, "rb+") as f:
            data = f.read()
            if data and not data.endswith(b"\n"):
                f.truncate(data.rfind(b"\n") + 1)
                f.flush()
                os.fsync(f.fileno())

    def records(self) -> dict[str, dict]:
        """Every finished game by key; a torn last line is ignored."""
        out: dict[str, dict] = {}
        if not self.games_path.exists():
            return out
        lines = self.games_path.read_bytes().split(b"\n")
        for i, line in enumerate(lines):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:
                if i == len(lines) - 1:
                    break  # torn last line: that game was not finished
                raise CommandError(f"{self.games_path}: line {i + 1} is not valid JSON; the store is damaged") from None
            out.setdefault(rec["key"], rec)
        return out

    def append(self, lines) -> None:
        """Append finished games (records as JSON lines), durably: flush + fsync after each."""
        with open(self.games_path, "a", encoding="utf-8") as f:
            for line in lines:
                f.write(line + "\n")
                f.flush()
                os.fsync(f.fileno())
