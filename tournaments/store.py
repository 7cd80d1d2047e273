"""The tournament store: `tournament.json` (the config and its hash) and `games.jsonl`, one finished game
per line, each batch of finished games fsynced as it is written.

The store is the source of truth: a rerun skips the games already in it, duplicates are dropped by
game key (first one wins), and a torn last line left by a killed run is cut off before appending.

- **One writer.** `Store.open` takes an exclusive `flock` on `tournament.lock` and holds it until
  `close()`; a second run on the folder is refused with the first one's pid. The kernel drops the lock
  when its holder dies, so a lock left by a killed run is simply taken over.
- **Checked records.** Every line read (and every record appended) is checked against the folder's
  config: its key must be a scheduled game with the same table, deal, rotation, seed and seats, the
  config hash it carries must be the folder's, and every number the report reads must have the right shape and a value
  the rules allow. A line that fails is a `ConfigError` naming the file and line, never a game. A `Store`
  object checks each line once: it keeps a digest of every line it wrote or read and found good, and a
  line read again whose bytes are exactly such a line is not checked again (a run reading back the games
  it just appended, for its report). A line changed in any byte is checked; another `Store` object (a
  `yacht report`, a resumed run) checks every line itself.
- **Other folders left alone.** A folder that holds files but no `tournament.json` is never written
  into; in a tournament folder only the store, the lock and the report's own files are written.
- **Disk errors.** A failed write (no space, quota, I/O error) ends the run with one line; the games
  already stored stay, a torn line is cut on the next open, and rerunning resumes.
"""
import errno
import hashlib
import json
import os
from pathlib import Path
from typing import NamedTuple

import numpy as np

from agents.provenance import changed, check_unchanged
from agents.records import MAX_RECORD_BYTES, record_lines
from yacht_env.config import ConfigError
from yacht_env.gc_pause import gc_paused
from yacht_env.safe_file import (
    Busy,
    NoSuchFile,
    is_temporary,
    open_append,
    open_read,
    open_rw,
    read_bytes,
    release_lock,
    take_lock,
    writing_elsewhere,
    write_atomic,
)

from .config import TournamentConfig, parse_config
from .formats import format_of
from .schedule import job_of, parse_key
from .seating import games_per_deal

META = "tournament.json"
GAMES = "games.jsonl"
LOCK = "tournament.lock"
META_TMP = "tournament.tmp"                  # earlier versions' temporary tournament.json
OWN_FILES = (META, GAMES, LOCK, META_TMP)   # with them a folder is still this program's (see `open`)
MAX_META_BYTES = 1 << 20
MAX_LINE_BYTES = MAX_RECORD_BYTES
RECORD_KEYS = ("key", "table", "deal", "rotation", "seed", "agents", "sheet_of", "totals", "places", "sheets",
               "upper_bonus", "extra_bonus", "faults", "log")


class Expected(NamedTuple):
    """What the records of a folder are checked against, from its `tournament.json`."""
    config: TournamentConfig
    config_hash: str
    rules: object                  # the config's RuleSet
    format: object                 # the config's format (tournaments.formats)
    box_points: list               # per box, every score it can hold (plain or joker points)

    @classmethod
    def of(cls, config: TournamentConfig) -> "Expected":
        rules = config.ruleset
        t = rules.tables
        points = [frozenset(t.score[b].tolist()) | frozenset(t.joker_score[b].tolist()) for b in range(t.n_boxes)]
        return cls(config, config.hash, rules, format_of(config), points)

    def job(self, key):
        """The scheduled game of this key, or None (computed from the key: no schedule is held; a Swiss
        game's seats are known only to the run that paired its round, so its `agents` is empty)."""
        return job_of(self.config, key, teams=self.rules.teams, fmt=self.format)


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


def disk_error(what: str, err: OSError) -> ConfigError:
    """The one-line message for a failed write: what could not be written, why, and what to do."""
    where = f" ({err.filename})" if err.filename else ""
    if err.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
        hint = "free some space"
    elif err.errno == errno.EIO:
        hint = "check the disk"
    else:
        hint = "fix the cause"
    return ConfigError(f"cannot write {what}{where}: {err.strerror or err}; every game stored so far is kept: "
                        f"{hint}, then rerun the same command to resume")


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
        return self.folder / META

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
            self._cut_torn_tail()
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
            raise ConfigError(f"{self.folder}: {GAMES} without {META}; not a tournament folder this program wrote")
        stray = [n for n in names if n not in OWN_FILES and not is_temporary(n)]
        if stray:
            more = f" and {len(stray) - 1} more" if len(stray) > 1 else ""
            raise ConfigError(f"{self.folder}: not a tournament folder (it holds {stray[0]!r}{more} but no {META}); "
                               f"nothing was written: give --out a new or empty folder")

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
            write_atomic(self.meta_path, json.dumps(doc, indent=2) + "\n", META, create_folder=False)
        except OSError as e:
            raise disk_error(f"{self.meta_path}", e) from None

    def _cut_torn_tail(self) -> None:
        """Drop a last line without its newline (a write cut short by a kill or a full disk)."""
        if not self.games_path.exists():
            return
        try:
            with os.fdopen(open_rw(self.games_path, GAMES, create=False), "rb+") as f:
                size = f.seek(0, os.SEEK_END)
                if size == 0:
                    return
                f.seek(size - 1)
                if f.read(1) == b"\n":
                    return
                pos = size
                while pos > 0:            # back to the last newline, a block at a time
                    step = min(pos, 1 << 16)
                    f.seek(pos - step)
                    nl = f.read(step).rfind(b"\n")
                    if nl >= 0:
                        pos = pos - step + nl + 1
                        break
                    pos -= step
                f.truncate(pos)
                f.flush()
                os.fsync(f.fileno())
        except OSError as e:
            raise disk_error(f"{self.games_path}", e) from None

    # ---- reading ---------------------------------------------------------------------------------
    def meta(self) -> dict:
        """`tournament.json`, checked to be a JSON object with `config` (a mapping) and `config_hash`."""
        try:
            raw = read_bytes(self.meta_path, MAX_META_BYTES, META)   # a regular file, bounded
        except NoSuchFile:
            raise ConfigError(f"{self.folder}: no {META}; not a tournament folder (run `yacht tournament` first)") \
                from None
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
        try:
            f = open_read(self.games_path, "games file")   # a regular file: never a FIFO or a device
        except NoSuchFile:
            return
        with f:
            for number, at, rec, line in record_lines(f, self._bad_line, MAX_LINE_BYTES, raw=True):
                digest = line_digest(line)
                if digest not in self._good:      # not a line this object already wrote or read and checked
                    problem = check_record(rec, expected)
                    if problem:
                        self._damaged(number, problem)
                    self._good.add(digest)
                yield at, rec

    def _bad_line(self, number: int, problem: str):
        self._damaged(number, f"longer than {MAX_LINE_BYTES} bytes: not a game record" if problem == "too long"
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
            # records are trees
            lines.append((json.dumps(rec, separators=(",", ":"), check_circular=False) + "\n").encode())
        return lines, refused

    def _write(self, lines: list[bytes]) -> None:
        try:
            fd = open_append(self.games_path, GAMES)   # never through a planted link or into a shared file
        except OSError as e:
            raise disk_error(f"{self.games_path}", e) from None
        try:
            data = memoryview(b"".join(lines))
            while data:
                data = data[os.write(fd, data):]
            os.fsync(fd)
        except OSError as e:
            raise disk_error(f"{self.games_path}", e) from None
        finally:
            os.close(fd)


def line_digest(line: bytes) -> bytes:
    """What a `Store` remembers of a line it found good: a hash of its exact bytes (BLAKE2b, 16 bytes), so
    that only the same bytes are taken as checked."""
    return hashlib.blake2b(line, digest_size=16).digest()


def _reason(e: Exception) -> str:
    if isinstance(e, RecursionError):
        return "nested too deeply"
    return str(e).splitlines()[0][:200] if str(e) else type(e).__name__


def _whole(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _wholes(x, n: int, lo: int, hi: int | None = None) -> bool:
    """x is a list of n whole numbers in lo..hi."""
    return (isinstance(x, list) and len(x) == n and all(_whole(v) and v >= lo and (hi is None or v <= hi)
                                                         for v in x))


def check_record(rec, expected: Expected) -> str | None:
    """What is wrong with a store record for this tournament, or None when it is a game of it.

    Checked: the keys the report reads; the config hash (when the record carries it); the game key is
    scheduled and table, deal, rotation, seed and seats are that job's; per seat its sheet index, total,
    place, bonuses and fault have the right type and range; each sheet has the rules' columns x boxes, with
    points each box can hold; every total is its sheet plus its bonuses; the scores agree with the move
    log (`_log_problem`) and the places with the totals (`_places_problem`)."""
    _, config_hash, rules, _, allowed = expected
    if not isinstance(rec, dict):
        return f"not a game record (a JSON {type(rec).__name__})"
    missing = [k for k in RECORD_KEYS if k not in rec]
    if missing:
        return f"not a game record (no {missing[0]!r})"
    if rec.get("config_hash", config_hash) != config_hash:   # stores written before records carried it
        return (f"written for another tournament (config hash {str(rec['config_hash'])[:40]!r}, this folder's is "
                f"{config_hash})")
    key = rec["key"]
    job = expected.job(key)
    if job is None:
        return f"game key {str(key)[:40]!r} is not in this tournament's schedule"
    for field in ("table", "deal", "rotation", "seed"):
        if not _whole(rec[field]) or rec[field] != getattr(job, field):
            return (f"game {key} does not match the schedule: {field} {str(rec[field])[:40]}, "
                    f"expected {getattr(job, field)}")
    if job.agents:
        if rec["agents"] != list(job.agents):
            return (f"game {key} does not match the schedule: agents {str(rec['agents'])[:80]}, "
                    f"expected {list(job.agents)}")
    elif not (isinstance(rec["agents"], list) and len(rec["agents"]) == expected.config.seats
              and all(isinstance(a, str) and a in expected.config.entrants for a in rec["agents"])
              and len(set(rec["agents"])) == len(rec["agents"])):
        return f"game {key}: agents must be {expected.config.seats} distinct entrants of this tournament"
    n = expected.config.seats
    sheets_n = rules.teams or n
    if rec["sheet_of"] != [s % sheets_n for s in range(n)]:
        return f"sheet_of must be {[s % sheets_n for s in range(n)]}"
    if not _wholes(rec["places"], n, 1, n):
        return f"places must be {n} places from 1 to {n}"
    top = rules.upper_bonus * rules.columns
    if not _wholes(rec["upper_bonus"], n, 0, top) or any(b % max(rules.upper_bonus, 1) for b in rec["upper_bonus"]):
        return f"upper_bonus must be {n} multiples of {rules.upper_bonus} up to {rules.upper_bonus * rules.columns}"
    extra = rules.extra_yacht_bonus
    if not _wholes(rec["extra_bonus"], n, 0, extra * rules.columns * len(rules.boxes)) or \
            any(b % max(extra, 1) for b in rec["extra_bonus"]):
        return f"extra_bonus must be {n} multiples of {extra}"
    faults = rec["faults"]
    if not isinstance(faults, list) or len(faults) != n or not all(
            f is None or (isinstance(f, dict) and isinstance(f.get("error"), str) and _whole(f.get("move"))
                          and f["move"] >= 0) for f in faults):
        return f"faults must be {n} entries, each null or {{error: text, move: number}}"
    if not isinstance(rec["log"], list):
        return "log must be a list of moves"
    sheets = rec["sheets"]
    if not isinstance(sheets, list) or len(sheets) != n:
        return f"sheets must be one sheet per seat ({n})"
    for s, sheet in enumerate(sheets):
        if not isinstance(sheet, list) or len(sheet) != rules.columns or not all(
                isinstance(col, list) and len(col) == len(allowed) and all(
                    _whole(p) and p in ok for p, ok in zip(col, allowed)) for col in sheet):
            return (f"sheets[{s}] must be {rules.columns} column(s) of {len(allowed)} box scores, each one "
                    f"the box can hold under rules {rules.name!r}")
    totals = rec["totals"]
    if not _wholes(totals, n, 0):
        return f"totals must be {n} whole numbers"
    for s in range(n):
        expect = sum(map(sum, sheets[s])) + rec["upper_bonus"][s] + rec["extra_bonus"][s]
        if totals[s] != expect:
            return f"totals[{s}] is {str(totals[s])[:40]}, but its sheet and bonuses add up to {expect}"
    return _log_problem(rec, rules, n, sheets_n) or _places_problem(rec, rules, n, sheets_n)


def _log_problem(rec, rules, n: int, sheets_n: int) -> str | None:
    """What is wrong with a record's scores against its move log, or None (also when the log is empty: a
    record without one). Every scoring move names a seat of the table and a box and column of the rules,
    scores each box of each sheet exactly once, with the points its sheet holds there; each sheet's total is
    what its moves gained (points and bonuses); a fault's move is within the log."""
    log = rec["log"]
    if not log:
        return None
    index = _box_index(rules)
    sheets, sheet_of, cols = rec["sheets"], rec["sheet_of"], rules.columns
    scored = [set() for _ in range(sheets_n)]
    gained = [0] * sheets_n
    if not all(type(m) is dict for m in log):
        k = next(k for k, m in enumerate(log) if type(m) is not dict)
        return f"log[{k}] is not a move"
    seats = {m.get("seat") if type(m.get("seat")) is int else -1 for m in log}
    if not seats <= _SEATS[n]:
        k, seat = next((k, m.get("seat")) for k, m in enumerate(log)
                       if type(m.get("seat")) is not int or not 0 <= m["seat"] < n)
        return f"log[{k}]: seat must be 0 to {n - 1}, got {str(seat)[:40]}"
    for k, m in ((k, m) for k, m in enumerate(log) if "box" in m):
        b, col, points, bonus = index.get(m["box"]) if isinstance(m["box"], str) else None, m.get("column"), \
            m.get("points"), m.get("bonus")
        if b is None or type(col) is not int or not 0 <= col < cols or not _whole(points) or not _whole(bonus):
            return f"log[{k}]: a scoring move needs a box of the rules, a column 0 to {cols - 1}, points and bonus"
        sheet = sheet_of[m["seat"]]
        if (col, b) in scored[sheet]:
            return f"log[{k}]: box {rules.boxes[b]!r} of sheet {sheet} (column {col}) is scored twice"
        scored[sheet].add((col, b))
        if sheets[sheet][col][b] != points:
            return (f"log[{k}] scores {points} in {rules.boxes[b]!r} (sheet {sheet}, column {col}), but the sheet "
                    f"holds {sheets[sheet][col][b]}")
        gained[sheet] += points + bonus
    for sheet in range(sheets_n):
        if len(scored[sheet]) != cols * len(rules.boxes):
            return f"the log scores {len(scored[sheet])} of the {cols * len(rules.boxes)} boxes of sheet {sheet}"
    for s in range(n):
        if rec["totals"][s] != gained[sheet_of[s]]:
            return f"totals[{s}] is {rec['totals'][s]}, but the moves of the log gained {gained[sheet_of[s]]}"
    for s, f in enumerate(rec["faults"]):
        if f is not None and f["move"] > len(log):
            return f"faults[{s}]: move {f['move']} is past the log's {len(log)} moves"
    return None


_BOX_INDEX: dict = {}
_SEATS = [frozenset(range(n)) for n in range(9)]     # the seats of a table of n


def _box_index(rules) -> dict:
    """{box name: index} of a rule set (kept per set of box names)."""
    key = tuple(rules.boxes)
    if key not in _BOX_INDEX:
        _BOX_INDEX[key] = {b: i for i, b in enumerate(key)}
    return _BOX_INDEX[key]


def _places_problem(rec, rules, n: int, sheets_n: int) -> str | None:
    """What is wrong with a record's places given its totals and faults, or None (see `tournaments.play.
    placements`): teammates share a place and a sheet total; a sheet with a faulted seat is placed below
    every other; among the others a higher total is a better place, equal totals share one unless the rules
    break ties by a roll-off, and every place is 1 + the number of sheets placed better."""
    places, totals, sheet_of = rec["places"], rec["totals"], rec["sheet_of"]
    place, total, bad = {}, {}, set()
    for s in range(n):
        k = sheet_of[s]
        if place.setdefault(k, places[s]) != places[s] or total.setdefault(k, totals[s]) != totals[s]:
            return f"seats {sheet_of.index(k)} and {s} share a sheet but not its place and total"
        if rec["faults"][s] is not None:
            bad.add(k)
    good = [k for k in range(sheets_n) if k not in bad and k in place]
    for k in bad:
        if place[k] != len(good) + 1:
            return f"places: a sheet with a faulted seat is placed {place[k]}, expected {len(good) + 1} (last)"
    for i in good:
        if place[i] != 1 + sum(1 for j in good if place[j] < place[i]):
            return f"places {places} are not a ranking (1 = best, ties share)"
        for j in good:
            if total[i] > total[j] and place[i] >= place[j]:
                return f"places {places} contradict totals {totals}: a higher total has a worse place"
            if total[i] == total[j] and place[i] != place[j] and rules.tiebreak != "sudden_death":
                return f"places {places} contradict totals {totals}: equal totals share a place under these rules"
    return None

