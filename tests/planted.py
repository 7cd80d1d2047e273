"""What a hostile user plants where the program reads or writes: a file of theirs that a link points to
(`victim`, a fixture every test folder gets through tests/conftest.py), FIFOs, and the one-line check of a
refusal."""
import os
from pathlib import Path

import pytest

SECRET = b"a user's file that must survive\n"


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


def one_line(e: Exception) -> str:
    """The refusal's message, asserted to be one non-empty line."""
    text = str(e)
    assert "\n" not in text and text
    return text
