"""Safe files: the one place where the project opens a file to read or to write it.

Every file the program writes (the tournament store, locks, reports, plots, caches, best scores,
calibration settings, training outputs) and every file it reads (configs, rule files, caches,
settings, games logs, model files) goes through these functions, so a file planted by someone else,
a damaged disk or a careless path cannot turn a write or a read into something else:

- **Writing whole files** (`write_atomic`, `atomic_writer`): the folder is opened once and everything
  happens relative to it; the content goes to a new temporary file created beside the target with
  `O_CREAT | O_EXCL | O_NOFOLLOW` (so it can never be an existing file or a link), is fsynced, then
  renamed over the target. A rename replaces a name, never what a link points to, so a symbolic link
  planted at the target is replaced, not written through; a hard link keeps its old content. A target
  that exists and is not a regular file (a symbolic link, a FIFO, a device, a folder) is refused with
  `FileRefused` and nothing is written.
- **Writing in place** (`open_append`, `open_rw`: the store's games, its lock, a training curve):
  opened with `O_NOFOLLOW | O_NONBLOCK`, then checked to be a regular file with one link; anything
  else is refused before a byte is written.
- **Reading** (`open_read`, `read_bytes`, `read_text`, `bounded_lines`): a path may be a link to a
  regular file (a user may link a config), but what is opened must be a regular file: a FIFO (which
  would hang), a device (`/dev/zero` never ends) or a folder is refused with one line. Every read has
  a size bound, checked on the file's size before reading and again on what was read (a file may grow
  while it is read); lines are read one at a time with a length bound.

Refusals are `FileRefused` (a `ConfigError`: one line naming the file, what it is and what is
allowed); a missing file is `NoSuchFile`, a subclass, so a cache can treat both as a miss. Disk
errors while writing (no space, I/O error) stay `OSError` for the caller to word.
"""
import errno
import fcntl
import hashlib
import os
import secrets
import socket
import stat
import time
from contextlib import contextmanager
from pathlib import Path

from .errors import ConfigError

FILE_MODE = 0o644


class FileRefused(ConfigError):
    """A file that is not used as asked: not a regular file, a link where none may be, too large, a
    line too long. The message names the file, what it is and what is allowed."""


class NoSuchFile(FileRefused):
    """A file that should be read is not there."""


class TooLarge(FileRefused):
    """A file or a line over its size bound."""


def kind(mode: int) -> str:
    """What a file of this `st_mode` is, in words ("a symbolic link", "a FIFO", ...)."""
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a regular file" if stat.S_ISREG(mode) else "not a regular file"


def _size(n: int) -> str:
    return f"{n:,} bytes"


# ---- reading -------------------------------------------------------------------------------------

def open_read(path, what: str = "file", limit: int | None = None):
    """A binary file object of `path`, checked to be a regular file (a link to one is followed) of at
    most `limit` bytes. Raises `NoSuchFile`, or `FileRefused` for a FIFO, device, folder or socket, a
    file over the limit and one that cannot be opened; the caller closes the file."""
    source = str(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)   # a FIFO opens without waiting
    except (FileNotFoundError, NotADirectoryError):    # a part of the path that is a file: no such file either
        raise NoSuchFile(source, f"no such {what}") from None
    except IsADirectoryError:
        raise FileRefused(source, f"is a folder, not a {what}") from None
    except ValueError:                   # a NUL character in the path
        raise FileRefused(source, f"not a valid path for a {what}") from None
    except OSError as e:
        raise FileRefused(source, f"cannot read the {what} ({e.strerror or e})") from None
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise FileRefused(source, f"is a folder, not a {what}")
        if not stat.S_ISREG(st.st_mode):
            raise FileRefused(source, f"is {kind(st.st_mode)}, not a regular file; a {what} is read only from "
                                      f"a regular file")
        if limit is not None and st.st_size > limit:
            raise TooLarge(source, f"{_size(st.st_size)}; a {what} may have at most {_size(limit)}")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_bytes(path, limit: int, what: str = "file") -> bytes:
    """The whole content of a regular file of at most `limit` bytes (see `open_read`)."""
    with open_read(path, what, limit) as f:
        try:
            raw = f.read(limit + 1)
        except OSError as e:
            raise FileRefused(str(path), f"cannot read the {what} ({e.strerror or e})") from None
    if len(raw) > limit:
        raise TooLarge(str(path), f"more than {_size(limit)}; a {what} may have at most that")
    return raw


def read_text(path, limit: int, what: str = "file") -> str:
    """The UTF-8 text (a byte order mark is dropped) of a regular file of at most `limit` bytes."""
    raw = read_bytes(path, limit, what)
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise FileRefused(str(path), f"not UTF-8 text (byte {e.start})") from None


def file_digest(path, limit: int, what: str = "file") -> str:
    """The SHA-256 (hex) of a regular file of at most `limit` bytes, read in pieces (see `open_read`)."""
    digest = hashlib.sha256()
    with open_read(path, what, limit) as f:
        while piece := f.read(1 << 20):
            digest.update(piece)
    return digest.hexdigest()


def bounded_lines(f, limit: int, source: str, what: str = "line"):
    """The lines of an open binary file, each read with at most `limit` bytes: yields (number, line).
    A longer line raises `FileRefused` naming the file and the line number; a last line without its
    newline is yielded as it is (the caller decides whether a torn line counts)."""
    number = 0
    while True:
        line = f.readline(limit + 1)
        if not line:
            return
        number += 1
        if len(line) > limit:
            raise TooLarge(source, f"line {number}: longer than {_size(limit)}; a {what} has at most that")
        yield number, line


# ---- folders -------------------------------------------------------------------------------------

def ensure_folder(folder, what: str = "folder") -> Path:
    """`folder`, created with its parents when missing, checked to be a folder (a link to one, named by
    the user, is followed). Raises `FileRefused` when it is something else or cannot be created."""
    folder = Path(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        pass   # checked below
    except OSError as e:
        raise FileRefused(str(folder), f"cannot create the {what} ({e.strerror or e})") from None
    try:
        st = os.stat(folder)
    except OSError as e:
        raise FileRefused(str(folder), f"cannot use the {what} ({e.strerror or e})") from None
    if not stat.S_ISDIR(st.st_mode):
        raise FileRefused(str(folder), f"is {kind(st.st_mode)}, not a folder; the {what} must be a folder")
    return folder


def check_folder(folder, what: str = "folder") -> Path:
    """`folder`, checked before a run that will create and fill it, creating nothing: it is a folder (a link
    to one is followed), or it is missing and its nearest existing parent is a folder. Raises `FileRefused`
    when it is a file, a device, a FIFO or a dangling link, or lies under one (`ensure_folder` creates it)."""
    folder = Path(folder)
    for at in (folder, *folder.parents):
        try:
            st = os.stat(at)
        except (FileNotFoundError, NotADirectoryError):       # missing, or under a file: the parents say which
            if at.is_symlink():
                raise FileRefused(str(at), f"is a link to nothing; the {what} must be a folder") from None
            continue
        except OSError as e:
            raise FileRefused(str(at), f"cannot use the {what} ({e.strerror or e})") from None
        if not stat.S_ISDIR(st.st_mode):
            where = "" if at == folder else f" above the {what} {str(folder)!r}"
            raise FileRefused(str(at), f"is {kind(st.st_mode)}{where}, not a folder; the {what} must be a folder")
        return folder
    return folder


def _open_dir(folder: Path, what: str) -> int:
    try:
        return os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except NotADirectoryError:
        raise FileRefused(str(folder), f"is not a folder; the {what} must be written into a folder") from None
    except OSError as e:
        raise FileRefused(str(folder), f"cannot open the folder for the {what} ({e.strerror or e})") from None


def _refuse_unless_regular(dfd: int, name: str, path: Path, what: str) -> None:
    """Refuse a target that exists and is not a regular file (looked at without following a link)."""
    try:
        st = os.stat(name, dir_fd=dfd, follow_symlinks=False)
    except FileNotFoundError:
        return
    if not stat.S_ISREG(st.st_mode):
        raise FileRefused(str(path), f"is {kind(st.st_mode)}; the {what} is written only as a regular file, "
                                     f"never through a link or onto another kind of file: remove it and rerun")


# ---- writing whole files -------------------------------------------------------------------------

def temporary_name(name: str) -> str:
    """A fresh name for the temporary file that will replace `name` (hidden, unique, ending `.tmp`)."""
    return f".{name[:80]}.{os.getpid()}.{secrets.token_hex(4)}.tmp"


def is_temporary(name: str) -> bool:
    """True for a name `temporary_name` could have made (one left behind by a killed writer)."""
    return name.startswith(".") and name.endswith(".tmp")


@contextmanager
def atomic_writer(path, what: str = "file", create_folder: bool = True):
    """A binary file object whose content replaces `path` when the block ends without an error.

    The folder is created (`create_folder`) and opened; a target that is not a regular file is refused
    (`FileRefused`) before anything is written; the content goes to a new temporary file beside it
    (`O_EXCL | O_NOFOLLOW`), is fsynced and renamed over the target. On an error the temporary file is
    removed and the target left as it was. Disk errors are `OSError`."""
    path = Path(path)
    folder = ensure_folder(path.parent) if create_folder else path.parent
    dfd = _open_dir(folder, what)
    try:
        _refuse_unless_regular(dfd, path.name, path, what)
        tmp = temporary_name(path.name)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, FILE_MODE,
                     dir_fd=dfd)
        try:
            with os.fdopen(fd, "wb") as f:
                yield f
                f.flush()
                os.fsync(f.fileno())
            _refuse_unless_regular(dfd, path.name, path, what)   # planted while we wrote
            os.replace(tmp, path.name, src_dir_fd=dfd, dst_dir_fd=dfd)
        except BaseException as e:
            try:
                os.unlink(tmp, dir_fd=dfd)
            except OSError:
                pass
            if isinstance(e, OSError) and not e.filename:
                e.filename = str(path)      # a failed write names the file it was for
            raise
        try:
            os.fsync(dfd)   # the rename itself reaches the disk
        except OSError:
            pass
    finally:
        os.close(dfd)


def write_atomic(path, data, what: str = "file", create_folder: bool = True) -> None:
    """Replace `path` with `data` (bytes, or text written as UTF-8) as `atomic_writer` does."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    with atomic_writer(path, what, create_folder) as f:
        f.write(data)


# ---- writing in place ----------------------------------------------------------------------------

def _open_in_place(path, flags: int, what: str) -> int:
    path = Path(path)
    try:
        fd = os.open(path, flags | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, FILE_MODE)
    except OSError as e:
        # ELOOP: a symbolic link; ENXIO: a FIFO no one reads, a device without its driver; EISDIR: a folder
        if e.errno not in (errno.ELOOP, errno.ENXIO, errno.EISDIR, errno.ENODEV):
            raise
        try:
            what_is = kind(os.stat(path, follow_symlinks=False).st_mode)
        except OSError:
            what_is = "not a regular file"
        raise FileRefused(str(path), f"is {what_is}; the {what} is written only into a regular file, never "
                                     f"through a link: remove it and rerun") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise FileRefused(str(path), f"is {kind(st.st_mode)}; the {what} must be a regular file: "
                                         f"remove it and rerun")
        if st.st_nlink > 1:
            raise FileRefused(str(path), f"has {st.st_nlink} hard links; the {what} is never written into a "
                                         f"file shared with another name: remove it and rerun")
        os.set_blocking(fd, True)
        return fd
    except BaseException:
        os.close(fd)
        raise


def open_append(path, what: str = "file") -> int:
    """A descriptor appending to `path` (created when missing): a regular file with one link, never a
    link, FIFO, device or folder (`FileRefused`). Other failures are `OSError`. The caller closes it."""
    return _open_in_place(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, what)


def open_rw(path, what: str = "file", create: bool = True) -> int:
    """A read-write descriptor of `path` (created when missing and `create`), checked as `open_append`."""
    return _open_in_place(path, os.O_RDWR | (os.O_CREAT if create else 0), what)


class Busy(FileRefused):
    """Another process holds the lock (`holder`: what it wrote in the lock file)."""

    def __init__(self, path, holder: str):
        super().__init__(f"{path}: held by {holder}")
        self.holder = holder


def take_lock(path, what: str = "lock") -> int:
    """An exclusive `flock` on the lock file `path`, taken without waiting: the descriptor holding it
    (the lock goes when it is closed, or when its process dies, so a lock left by a killed run is simply
    taken over). The file is opened as `open_rw` opens files (never through a link, never a FIFO or a shared
    file) and says which process holds it. `Busy` (naming the holder) when another process holds it;
    `FileRefused` when it cannot be created or locked."""
    try:
        fd = open_rw(path, what)
    except OSError as e:
        raise FileRefused(f"{path}: cannot create the {what} ({e.strerror})") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = os.pread(fd, 200, 0).decode("utf-8", "replace").strip() or "a process that has not said which"
        os.close(fd)
        raise Busy(path, holder) from None
    except OSError as e:
        os.close(fd)
        raise FileRefused(f"{path}: cannot lock the folder ({e.strerror}); is it on a filesystem without file "
                          f"locks?") from None
    note = f"pid {os.getpid()} on {socket.gethostname()}, since {time.strftime('%Y-%m-%d %H:%M:%S')}"
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, note.encode() + b"\n", 0)
    except OSError as e:
        os.close(fd)
        raise FileRefused(f"{path}: cannot write the {what} ({e.strerror})") from None
    return fd


def release_lock(fd: int) -> None:
    """Let go of a lock `take_lock` took (its note emptied first: it is only a hint for the next run)."""
    try:
        os.ftruncate(fd, 0)
    except OSError:
        pass
    os.close(fd)


@contextmanager
def build_lock(path, what: str = "lock"):
    """Hold an exclusive `flock` on the lock file `path` for the body, waiting while another process holds it:
    one process builds a cached file and the others wait, then find what it built (the body looks again
    once it holds the lock). The kernel drops a lock when its holder's descriptor closes or its process dies,
    so a lock left by a killed process is never waited on. Without a lock to be had (the folder cannot be
    made or written, the name is a link, FIFO or shared file `open_rw` refuses, a filesystem without locks)
    the body runs unlocked: building twice only costs time."""
    try:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        fd = open_rw(path, what)
    except (OSError, FileRefused):
        fd = None
    try:
        if fd is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
            except OSError:
                pass        # no locks on this filesystem: unlocked, as above
        yield
    finally:
        if fd is not None:
            os.close(fd)


def writing_elsewhere(folder, command: str, holder: str) -> str:
    """The one line for a folder whose lock another run of `command` holds."""
    return (f"{folder}: another `{command}` is writing this folder ({holder}); wait for it to finish, or stop it "
            f"and rerun")


@contextmanager
def folder_lock(path, command: str):
    """`take_lock(path)` for the body; another process holding it is one `FileRefused` line
    (`writing_elsewhere`)."""
    try:
        fd = take_lock(path)
    except Busy as e:
        raise FileRefused(writing_elsewhere(Path(path).parent, command, e.holder)) from None
    try:
        yield
    finally:
        release_lock(fd)
