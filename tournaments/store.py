"""The tournament store: what a schedule adds to a folder of game records (`tournaments.gamelog`).

A tournament folder is a folder of stored games (`gamelog.layout`): `tournament.json` (the config and
its hash) and `games.jsonl`, one finished game per line, appended and read through `gamelog.log`. The
store adds what a run needs on top: the folder's config, resuming (a rerun skips the games already
stored: `keys`, a `KeySet` of the schedule's game keys), one run at a time, and the schedule's check of
every record.

- **One run.** `Store.open` takes an exclusive `flock` on `tournament.lock` and holds it until
  `close()`; a second run on the folder is refused with the first one's pid. The kernel drops the lock
  when its holder dies, so a lock left by a killed run is simply taken over. (Each append also takes
  the log's own lock, `gamelog.append`.)
- **Checked records.** Every line read (and every record appended) is checked against the folder's
  config (`Expected`: the record schema of `gamelog.check_record` plus the schedule): its key must be a
  scheduled game with the same table, deal, rotation, seed and seats, the config hash it carries must be
  the folder's, and every number the report reads must have the right shape and a value the rules allow.
  A line that fails is a `ConfigError` naming the file and line, never a game. A `Store` object checks
  each line once: it keeps a digest of every line it wrote or read and found good, and a line read again
  whose bytes are exactly such a line is not checked again (a run reading back the games it just
  appended, for its report). A line changed in any byte is checked; another `Store` object (a `yacht
  report`, a resumed run) checks every line itself. Duplicates are dropped by game key (first one wins).
- **Other folders left alone.** A folder that holds files but no `tournament.json` is never written
  into; in a tournament folder only the store, the lock and the report's own files are written.
- **Disk errors.** A failed write (no space, quota, I/O error) ends the run with one line; the games
  already stored stay, a torn last line is cut on the next open (and before every append), and
  rerunning resumes.
"""
import hashlib
import json
from pathlib import Path

import numpy as np

from agents.provenance import changed, check_unchanged
from yacht_env.config import ConfigError
from yacht_env.gc_pause import gc_paused
from yacht_env.safe_file import (
    Busy,
    NoSuchFile,
    is_temporary,
    read_bytes,
    release_lock,
    take_lock,
    writing_elsewhere,
    write_atomic,
)

from . import gamelog
from .config import TournamentConfig, parse_config
from .formats import format_of
from .gamelog import GAMES, MAX_META_BYTES, MAX_RECORD_BYTES, TOURNAMENT_META, Schema, check_record, disk_error, \
    is_whole, record_line
from .schedule import job_of, parse_key
from .seating import games_per_deal

LOCK = "tournament.lock"
META_TMP = "tournament.tmp"                  # earlier versions' temporary tournament.json
OWN_FILES = (TOURNAMENT_META, GAMES, LOCK, META_TMP)   # with them a folder is still this program's (see `open`)


class Expected(Schema):
    """What the records of a tournament folder are checked against, from its `tournament.json`: the
    record schema (`tournaments.gamelog.Schema`) plus the schedule -- every game key a scheduled job's."""

    def __init__(self, config: TournamentConfig):
        super().__init__(config.ruleset, config.seats, config.hash)
        self.config = config
        self.format = format_of(config)

    @classmethod
    def of(cls, config: TournamentConfig) -> "Expected":
        return cls(config)

    def job(self, key):
        """The scheduled game of this key, or None (computed from the key: no schedule is held; a Swiss
        game's seats are known only to the run that paired its round, so its `agents` is empty)."""
        return job_of(self.config, key, teams=self.rules.teams, fmt=self.format)

    def seating_problem(self, rec) -> str | None:
        """The game key is scheduled and table, deal, rotation, seed and seats are that job's."""
        key = rec["key"]
        job = self.job(key)
        if job is None:
            return f"game key {str(key)[:40]!r} is not in this tournament's schedule"
        for field in ("table", "deal", "rotation", "seed"):
            if not is_whole(rec[field]) or rec[field] != getattr(job, field):
                return (f"game {key} does not match the schedule: {field} {str(rec[field])[:40]}, "
                        f"expected {getattr(job, field)}")
        if job.agents:
            if rec["agents"] != list(job.agents):
                return (f"game {key} does not match the schedule: agents {str(rec['agents'])[:80]}, "
                        f"expected {list(job.agents)}")
        elif not (isinstance(rec["agents"], list) and len(rec["agents"]) == self.config.seats
                  and all(isinstance(a, str) and a in self.config.entrants for a in rec["agents"])
                  and len(set(rec["agents"])) == len(rec["agents"])):
            return f"game {key}: agents must be {self.config.seats} distinct entrants of this tournament"
        return None


class KeySet:
    """A set of a tournament's game keys (`schedule.game_key`): one bit per scheduled game, numbered by
    (table, deal, arrangement), when the schedule has at most `BITS` games; else (a round robin of
    astronomically many tables) a set of the key strings. A key that is not a scheduled game's is kept
    as a string either way."""

    BITS = 1 << 28            # 32 MB of bits at most

    def __init__(self, tables: int, deals: int, arrangements: int):
        self.deals, self.arrangements = deals, arrangements
        size = tables * deals * arrangements
        self.bits = np.zeros((size + 7) // 8, dtype=np.uint8) if size <= self.BITS else None
        self.size = size
        self.others: set[str] = set()
        self.count = 0

    def _bit(self, key) -> int | None:
        parsed = parse_key(key) if self.bits is not None else None
        if parsed is None:
            return None
        t, d, r = parsed
        if d >= self.deals or r >= self.arrangements:
            return None
        at = (t * self.deals + d) * self.arrangements + r
        return at if at < self.size else None

    def add(self, key) -> bool:
        """Add `key`; True if it was not in the set."""
        at = self._bit(key)
        if at is None:
            if key in self.others:
                return False
            self.others.add(key)
        else:
            byte, bit = divmod(at, 8)
            if self.bits[byte] >> bit & 1:
                return False
            self.bits[byte] |= 1 << bit
        self.count += 1
        return True

    def __contains__(self, key) -> bool:
        at = self._bit(key)
        if at is None:
            return key in self.others
        return bool(self.bits[at >> 3] >> (at & 7) & 1)

    def __len__(self) -> int:
        return self.count


class Store:
    """A folder holding one tournament's games. `open(config)` before `append`; reading needs no lock."""

    def __init__(self, folder):
        self.folder = Path(folder)
        self._lock_fd: int | None = None
        self._expected: Expected | None = None   # once tournament.json has been read and checked
        self._good: set[bytes] = set()           # digests of the lines this object found good (`line_digest`)

    @property
    def games_path(self) -> Path:
        return self.folder / GAMES

    @property
    def meta_path(self) -> Path:
        return self.folder / TOURNAMENT_META

    @property
    def lock_path(self) -> Path:
        return self.folder / LOCK

    # ---- opening for writing ---------------------------------------------------------------------
    def open(self, config: TournamentConfig, files: dict | None = None, force: bool = False) -> "Store":
        """Lock the folder for `config`'s run: create it, or check that it holds the same tournament.

        Refuses a path that is not a folder, a folder with files but no `tournament.json`, a folder
        written for another config, and a folder another run holds. `files` ({file: sha256} of the files
        the agents depend on, `agents.provenance`) is recorded in a new folder's tournament.json; resuming
        refuses when one of the recorded files changed, naming it, unless `force` (then the new contents
        are recorded). Returns the store (usable as a context manager that closes it)."""
        if self.folder.exists() and not self.folder.is_dir():
            raise ConfigError(f"{self.folder}: exists and is not a folder")
        self._refuse_foreign_folder()
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise ConfigError(f"{self.folder}: cannot create the tournament folder ({e.strerror})") from None
        self._lock()
        try:
            self._refuse_foreign_folder()   # again, now that no other run can be writing it
            if self.meta_path.exists():
                have = self.meta().get("config_hash")
                if have != config.hash:
                    recorded = self.meta().get("files")
                    why = changed(recorded) if isinstance(recorded, dict) else []
                    raise ConfigError(
                        f"{self.folder} holds a different tournament (config hash {have}, this config is "
                        f"{config.hash}{'; ' + why[0] if why else ''}); use another --out folder or delete this one")
                self.config()               # tournament.json must agree with its own hash
                recorded = self.meta().get("files")
                if recorded is None or force:   # a folder from before files were recorded, or going on knowingly
                    if files and recorded != files:   # no files is what a folder without the key records
                        self._write_meta(config, files)
                else:
                    check_unchanged(recorded, str(self.meta_path))
            else:
                self._write_meta(config, files)
            gamelog.cut_torn_tail(self.games_path)   # a write cut short by a kill or a full disk
        except BaseException:
            self.close()
            raise
        return self

    def close(self) -> None:
        """Release the folder's lock (idempotent)."""
        if self._lock_fd is None:
            return
        fd, self._lock_fd = self._lock_fd, None
        release_lock(fd)

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _refuse_foreign_folder(self) -> None:
        if not self.folder.is_dir() or self.meta_path.exists():
            return
        try:
            names = sorted(p.name for p in self.folder.iterdir())
        except OSError as e:
            raise ConfigError(f"{self.folder}: cannot list the folder ({e.strerror})") from None
        if GAMES in names:
            raise ConfigError(f"{self.folder}: {GAMES} without {TOURNAMENT_META}; not a tournament folder this program "
                              f"wrote")
        stray = [n for n in names if n not in OWN_FILES and not is_temporary(n)]
        if stray:
            more = f" and {len(stray) - 1} more" if len(stray) > 1 else ""
            raise ConfigError(f"{self.folder}: not a tournament folder (it holds {stray[0]!r}{more} but no "
                              f"{TOURNAMENT_META}); nothing was written: give --out a new or empty folder")

    def _lock(self) -> None:
        if self._lock_fd is not None:
            return
        try:
            self._lock_fd = take_lock(self.lock_path, "run lock")
        except Busy as e:
            raise ConfigError(writing_elsewhere(self.folder, "yacht tournament", e.holder)) from None

    def _write_meta(self, config: TournamentConfig, files: dict | None = None) -> None:
        try:
            (self.folder / META_TMP).unlink(missing_ok=True)   # left by a version that wrote it in place
        except OSError:
            pass
        try:
            doc = {"config_hash": config.hash, "config": config.to_dict(), **({"files": files} if files else {})}
            write_atomic(self.meta_path, json.dumps(doc, indent=2) + "\n", TOURNAMENT_META, create_folder=False)
        except OSError as e:
            raise disk_error(f"{self.meta_path}", e) from None

    # ---- reading ---------------------------------------------------------------------------------
    def meta(self) -> dict:
        """`tournament.json`, checked to be a JSON object with `config` (a mapping) and `config_hash`."""
        try:
            raw = read_bytes(self.meta_path, MAX_META_BYTES, TOURNAMENT_META)   # a regular file, bounded
        except NoSuchFile:
            raise ConfigError(f"{self.folder}: no {TOURNAMENT_META}; not a tournament folder (run `yacht tournament` "
                              f"first)") from None
        try:
            doc = json.loads(raw)
        except (ValueError, RecursionError) as e:   # JSONDecodeError, bad UTF-8, absurd nesting
            raise ConfigError(f"{self.meta_path}: not valid JSON ({_reason(e)})") from None
        if not isinstance(doc, dict):
            raise ConfigError(f"{self.meta_path}: expected a JSON object with config and config_hash, "
                               f"got {type(doc).__name__}")
        for key, kind in (("config", dict), ("config_hash", str)):
            if key not in doc:
                raise ConfigError(f"{self.meta_path}: no {key!r}; not a file this program wrote")
            if not isinstance(doc[key], kind):
                raise ConfigError(f"{self.meta_path}: {key!r} must be a JSON {'object' if kind is dict else 'string'}, "
                                   f"got {type(doc[key]).__name__}")
        return doc

    def config(self) -> TournamentConfig:
        """The config this folder was written for, checked against the hash stored with it."""
        return self.expected().config

    def expected(self) -> Expected:
        """The config, rules and schedule this folder's records are checked against."""
        if self._expected is None:
            meta = self.meta()
            config = parse_config(meta["config"], str(self.meta_path))
            if config.hash != meta["config_hash"]:
                raise ConfigError(f"{self.meta_path}: config_hash {meta['config_hash']!r} does not match its config "
                                   f"(hash {config.hash}); the file was changed after the run wrote it")
            self._expected = Expected.of(config)
        return self._expected

    def records(self) -> dict[str, dict]:
        """Every finished game by key, each line checked (see `check_record`); a torn last line is not a
        game. A line that is not a game of this tournament raises `ConfigError` with its line number.
        Holds every record: for small stores and tests; runs and reports read `stream`."""
        out: dict[str, dict] = {}
        with gc_paused():                 # many acyclic objects kept: no collection passes over them
            for rec in self.stream():
                out[rec["key"]] = rec
        return out

    def stream(self, offsets: bool = False):
        """Every finished game once (the first line of a key wins), each checked, in file order, one at
        a time: memory does not grow with the store (the keys seen are kept as a `KeySet`: a bit a
        scheduled game). offsets=True: yield (byte offset of its line in games.jsonl, record)."""
        seen = self.key_set()
        for offset, rec in self._lines_read():
            if seen.add(rec["key"]):
                yield (offset, rec) if offsets else rec

    def keys(self) -> "KeySet":
        """The keys of every finished game (each line checked), as a `KeySet`."""
        keys = self.key_set()
        for _, rec in self._lines_read():
            keys.add(rec["key"])
        return keys

    def key_set(self) -> "KeySet":
        """An empty `KeySet` for this folder's schedule."""
        e = self.expected()
        return KeySet(e.format.table_count, e.config.games, games_per_deal(e.config.seats, e.rules.teams))

    def _lines_read(self):
        expected = self.expected()
        for number, at, rec, line in gamelog.read(self.games_path, self._bad_line, raw=True, missing_ok=True):
            digest = line_digest(line)
            if digest not in self._good:          # not a line this object already wrote or read and checked
                problem = check_record(rec, expected)
                if problem:
                    self._damaged(number, problem)
                self._good.add(digest)
            yield at, rec

    def _bad_line(self, number: int, problem: str):
        self._damaged(number, f"longer than {MAX_RECORD_BYTES} bytes: not a game record" if problem == "too long"
                      else "not valid JSON")

    def _damaged(self, number: int, problem: str):
        raise ConfigError(f"{self.games_path}: line {number}: {problem}; the store is damaged or was written by "
                           f"another version (remove that line and rerun, or play into a new folder)")

    # ---- writing ---------------------------------------------------------------------------------
    def append(self, records) -> None:
        """Append finished games (records as dicts or JSON lines) durably, each checked and stamped with the
        config hash: written in order, then one fsync for them all. A record that fails its check is
        refused with `ConfigError` after the ones before it are written. Needs `open`."""
        if self._lock_fd is None:
            raise RuntimeError("Store.append needs the folder opened (Store.open) first")
        expected = self.expected()
        with gc_paused():
            lines, refused = self._lines(records, expected)
        if lines:
            self._write(lines)
            self._good.update(line_digest(line) for line in lines)
        if refused is not None:
            raise refused

    @staticmethod
    def _lines(records, expected) -> tuple[list[bytes], ConfigError | None]:
        """The checked, stamped JSON lines of records (UTF-8), up to the first refused (and why)."""
        lines, refused = [], None
        for record in records:
            rec = {**(record if isinstance(record, dict) else json.loads(record)), "config_hash": expected.config_hash}
            problem = check_record(rec, expected)
            if problem:
                refused = ConfigError(f"game {rec.get('key')!r}: record refused ({problem}); was the game "
                                      f"changed by an agent?")
                break
            lines.append(record_line(rec))
        return lines, refused

    def _write(self, lines: list[bytes]) -> None:
        gamelog.append(self.games_path, lines)   # never through a planted link or into a shared file


def line_digest(line: bytes) -> bytes:
    """What a `Store` remembers of a line it found good: a hash of its exact bytes (BLAKE2b, 16 bytes), so
    that only the same bytes are taken as checked."""
    return hashlib.blake2b(line, digest_size=16).digest()


def _reason(e: Exception) -> str:
    if isinstance(e, RecursionError):
        return "nested too deeply"
    return str(e).splitlines()[0][:200] if str(e) else type(e).__name__


