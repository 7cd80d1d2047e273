"""The games log on disk: appending to it and reading it, the one place that opens a `games.jsonl`.

- **Appending** (`append`): the lines go to the end of the log in one write, then one fsync, by one
  writer at a time -- an exclusive `flock` on the log itself, held from the open to the close, waited
  for at most `LOCK_WAIT` seconds (a process holding it longer: one refusal line, nothing written).
  Nothing of the log is read first but its last byte: a last line without its newline (a write cut
  short by a kill or a full disk) is cut back to the last newline before the new lines go after it, so
  every line of the log is whole. The log is opened as `yacht_env.safe_file.open_rw` opens files:
  never through a symbolic link, never a FIFO, a device, a folder or a file with a second hard link.
  `once=True` appends only to a log that holds no line yet (a folder of one game stored twice keeps
  one record).
- **Reading** (`read`, `read_at`): a regular file only (a link to one is followed; a FIFO or a device
  is refused), one line at a time with a length bound (`records.record_lines`): memory does not grow
  with the log.
- **Writing a whole log** (`write`): a new log replacing any old one in one rename (`yacht evaluate
  --out`, whose run replaces the folder's).

Disk errors while appending are one `ConfigError` line (`disk_error`); a refused file is `FileRefused`.
"""
import errno
import fcntl
import json
import os
import time

from yacht_env.config import ConfigError
from yacht_env.safe_file import NoSuchFile, atomic_writer, open_read, open_rw

from .records import MAX_RECORD_BYTES, record_line, record_lines

WHAT = "games file"
TAIL_BLOCK = 1 << 16       # bytes read at a time when a torn last line is cut back
LOCK_WAIT = 60.0           # seconds an appender waits for another to finish (an append takes milliseconds)


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


def append(path, lines, once: bool = False) -> bool:
    """Append `lines` (whole JSON lines as bytes, or records as dicts) to the log at `path`, created when
    missing, durably and as the only writer (see the module docstring). False when `once` and the log
    already holds a line (nothing written), else True. Disk errors: `ConfigError` (`disk_error`); a link,
    FIFO, device or shared file at `path`: `FileRefused`, nothing written."""
    data = b"".join(line if isinstance(line, bytes) else record_line(line) for line in lines)
    try:
        fd = open_rw(path, WHAT)
    except OSError as e:
        raise disk_error(str(path), e) from None
    try:
        _lock(fd, path)                         # another appender finishes its write first
        end = _cut_torn_tail(fd)
        if once and end:
            return False
        os.lseek(fd, end, os.SEEK_SET)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
        return True
    except OSError as e:
        raise disk_error(str(path), e) from None
    finally:
        os.close(fd)                            # and with it the lock


def cut_torn_tail(path) -> None:
    """Cut a torn last line off the log at `path` (nothing when there is no log), under the appenders'
    lock. Disk errors: `ConfigError`."""
    try:
        fd = open_rw(path, WHAT, create=False)
    except FileNotFoundError:
        return
    except OSError as e:
        raise disk_error(str(path), e) from None
    try:
        _lock(fd, path)
        _cut_torn_tail(fd)
    except OSError as e:
        raise disk_error(str(path), e) from None
    finally:
        os.close(fd)


def _lock(fd: int, path) -> None:
    """Take the appenders' lock on the open log `fd`, waiting up to `LOCK_WAIT` seconds; `ConfigError` when
    another process holds it longer (no appender does: it holds the lock for one write and one fsync)."""
    deadline = time.monotonic() + LOCK_WAIT
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() >= deadline:
                raise ConfigError(f"{path}: another process has held the games log's lock for {LOCK_WAIT:g} s; "
                                  f"nothing was written: stop the process that holds it, then rerun") from None
            time.sleep(0.01)


def _cut_torn_tail(fd: int) -> int:
    """Drop a last line without its newline from the open log `fd` (reading back from its end, a block
    at a time, only as far as the last newline); the log's size after."""
    size = os.lseek(fd, 0, os.SEEK_END)
    if size == 0 or os.pread(fd, 1, size - 1) == b"\n":
        return size
    pos = size
    while pos > 0:
        step = min(pos, TAIL_BLOCK)
        nl = os.pread(fd, step, pos - step).rfind(b"\n")
        if nl >= 0:
            pos = pos - step + nl + 1
            break
        pos -= step
    os.ftruncate(fd, pos)
    os.fsync(fd)
    return pos


def read(path, bad, limit: int = MAX_RECORD_BYTES, unterminated: bool = False, raw: bool = False,
         missing_ok: bool = False, what: str = WHAT):
    """The records of the log at `path`, streamed as `records.record_lines` yields them (`bad`, `limit`,
    `unterminated` and `raw` as there). A missing log: `NoSuchFile`, or no records when `missing_ok`; a
    FIFO, device or folder: `FileRefused`. The file is opened when the first record is asked for and closed
    when the last is given (or the generator is closed)."""
    try:
        f = open_read(path, what)
    except NoSuchFile:
        if missing_ok:
            return
        raise
    with f:
        yield from record_lines(f, bad, limit, unterminated, raw)


def read_at(path, offsets, limit: int = MAX_RECORD_BYTES):
    """The records of the log at `path` that start at byte `offsets` (as `read` gave them), in that order."""
    with open_read(path, WHAT) as f:
        for at in offsets:
            f.seek(at)
            yield json.loads(f.readline(limit + 1))


def write(path, records) -> None:
    """A new log at `path` holding `records` (dicts), replacing any old one in one rename (fsynced; never
    through a link). Disk errors stay `OSError`."""
    with atomic_writer(path, WHAT) as f:
        for rec in records:
            f.write(record_line(rec))
