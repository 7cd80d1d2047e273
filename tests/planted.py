"""What a hostile user plants where the program reads or writes: a file of theirs that a link points to
(`victim`, a fixture every test folder gets through tests/conftest.py), FIFOs and other non-files (`plant`),
and the one-line check of a refusal; text that would act on a terminal or a page (HOSTILE_TEXT)."""
import os
from pathlib import Path

import pytest

SECRET = b"a user's file that must survive\n"
# text that would act on a terminal or a page: screen clears, title sets, carriage returns, bidi overrides,
# NULs, C1 escapes, line separators
HOSTILE_TEXT = ["\x1b[2J\x1b[H", "\x1b]0;pwned\x07", "a\rb", "\u202eevil", "nul\x00", "\x9b31m", "line\u2028break"]


@pytest.fixture
def victim(tmp_path) -> Path:
    """A file outside the folder being written, standing for a user's file a link points to."""
    p = tmp_path / "elsewhere" / "victim.txt"
    p.parent.mkdir()
    p.write_bytes(SECRET)
    return p


def fifo(path: Path) -> Path:
    os.mkfifo(path)
    return path


def plant(path: Path, kind: str, victim: Path | None = None) -> Path:
    """Put something other than a regular file of the program's at `path`: a "fifo", a "folder", a
    "device" (a link to /dev/zero, endless to read) or a "symlink" to `victim`."""
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "folder":
        path.mkdir()
    elif kind == "device":
        path.symlink_to("/dev/zero")
    elif kind == "symlink":
        path.symlink_to(victim)
    else:
        raise ValueError(f"no such plant: {kind!r}")
    return path


def one_line(e: Exception) -> str:
    """The refusal's message, asserted to be one non-empty line."""
    text = str(e)
    assert "\n" not in text and text
    return text
