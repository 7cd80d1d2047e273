"""The safe-file module (`yacht_env.safe_file`) against planted links, hard links, FIFOs, devices, folders,
huge and truncated files, concurrent writers and files changed while they are written: nothing is written
through a link or into a shared file, nothing hangs, nothing is read past its bound, and every refusal is one
line naming the file. (The files of a tournament folder: tests/tournaments/test_store_hostile.py; yacht
serve's table files: tests/web/test_tables_hostile.py.)"""
import json
import os
import threading
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.planted import SECRET, fifo, one_line, plant
from yacht_env.config import ConfigError
from yacht_env.safe_file import (
    FileRefused,
    NoSuchFile,
    atomic_writer,
    bounded_lines,
    build_lock,
    ensure_folder,
    is_temporary,
    open_append,
    open_read,
    open_rw,
    read_bytes,
    read_text,
    write_atomic,
)


@pytest.fixture
def folder(tmp_path) -> Path:
    f = tmp_path / "run"
    f.mkdir()
    return f


# ---- writing whole files -------------------------------------------------------------------------

def test_write_atomic_writes_and_replaces_a_regular_file(folder):
    target = folder / "report.md"
    write_atomic(target, "one")
    write_atomic(target, b"two")
    assert target.read_bytes() == b"two"
    assert sorted(p.name for p in folder.iterdir()) == ["report.md"]   # no temporary file left


def test_write_atomic_never_writes_through_a_symlink(folder, victim):
    target = folder / "report.md"
    target.symlink_to(victim)
    with pytest.raises(FileRefused, match="symbolic link") as e:
        write_atomic(target, "overwritten")
    assert str(target) in one_line(e.value)
    assert victim.read_bytes() == SECRET and target.is_symlink()


def test_write_atomic_refuses_a_dangling_symlink(folder, tmp_path):
    target = folder / "results.json"
    target.symlink_to(tmp_path / "would-be-created")
    with pytest.raises(FileRefused, match="symbolic link"):
        write_atomic(target, "{}")
    assert not (tmp_path / "would-be-created").exists()


def test_write_atomic_leaves_a_hard_linked_file_alone(folder, victim):
    target = folder / "best.json"
    os.link(victim, target)
    write_atomic(target, "new")          # the name gets new content, the other name keeps its own
    assert target.read_bytes() == b"new" and victim.read_bytes() == SECRET


@pytest.mark.parametrize("make", ["fifo", "folder"])
def test_write_atomic_refuses_a_fifo_or_a_folder_at_the_target(folder, make):
    target = folder / "scores.png"
    fifo(target) if make == "fifo" else target.mkdir()
    with pytest.raises(FileRefused, match="FIFO" if make == "fifo" else "folder"):
        write_atomic(target, b"png")
    assert not any(is_temporary(p.name) for p in folder.iterdir())


def test_atomic_writer_keeps_the_old_file_when_writing_fails(folder):
    target = folder / "model.pt"
    target.write_bytes(b"old")
    with pytest.raises(RuntimeError), atomic_writer(target) as f:
        f.write(b"half")
        raise RuntimeError("disk went away")
    assert target.read_bytes() == b"old" and sorted(p.name for p in folder.iterdir()) == ["model.pt"]


def test_a_link_planted_while_the_file_is_written_is_refused(folder, victim):
    target = folder / "curve.png"
    with pytest.raises(FileRefused, match="symbolic link"), atomic_writer(target) as f:
        f.write(b"png")
        target.symlink_to(victim)          # changed under the writer
    assert victim.read_bytes() == SECRET


def test_concurrent_writers_leave_one_whole_file(folder):
    target = folder / "levels.json"
    texts = [json.dumps({"writer": i, "pad": "x" * 50_000}) for i in range(8)]
    threads = [threading.Thread(target=write_atomic, args=(target, t)) for t in texts]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert target.read_text() in texts
    assert sorted(p.name for p in folder.iterdir()) == ["levels.json"]


def test_ensure_folder_refuses_a_file(folder):
    (folder / "out").write_text("x")
    with pytest.raises(FileRefused, match="not a folder"):
        ensure_folder(folder / "out")
    assert ensure_folder(folder / "a" / "b").is_dir()


# ---- writing in place ----------------------------------------------------------------------------

@pytest.mark.parametrize("opener", [open_append, open_rw])
def test_in_place_writers_refuse_a_symlink(folder, victim, opener):
    target = folder / "games.jsonl"
    target.symlink_to(victim)
    with pytest.raises(FileRefused, match="symbolic link"):
        opener(target)
    assert victim.read_bytes() == SECRET


@pytest.mark.parametrize("opener", [open_append, open_rw])
def test_in_place_writers_refuse_a_hard_link(folder, victim, opener):
    target = folder / "tournament.lock"
    os.link(victim, target)
    with pytest.raises(FileRefused, match="hard links"):
        opener(target)
    assert victim.read_bytes() == SECRET


@pytest.mark.parametrize("opener", [open_append, open_rw])
def test_in_place_writers_refuse_a_fifo_without_hanging(folder, opener):
    with pytest.raises(FileRefused, match="FIFO"):
        opener(fifo(folder / "games.jsonl"))


def test_in_place_writers_refuse_a_folder(folder):
    (folder / "curve.csv").mkdir()
    with pytest.raises(FileRefused, match="folder"):
        open_append(folder / "curve.csv")


@pytest.mark.parametrize("kind", ["symlink", "fifo", "folder"])
def test_a_build_lock_that_cannot_be_had_runs_the_body_unlocked_and_writes_nothing_through(folder, victim, kind):
    target = plant(folder / "table.dist.lock", kind, victim)
    ran = []
    with build_lock(target):        # no lock to be had: building twice only costs time; no hang, no error
        ran.append(True)
    assert ran and victim.read_bytes() == SECRET


def test_a_build_lock_is_held_for_its_body_and_made_with_its_folder(folder):
    import fcntl
    target = folder / "new" / "table.dist.lock"
    with build_lock(target):
        fd = os.open(target, os.O_RDWR)      # another open file description: flock sees another holder
        try:
            with pytest.raises(BlockingIOError):
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        finally:
            os.close(fd)
    fd = os.open(target, os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)      # released when the body ends
    finally:
        os.close(fd)


def test_open_append_creates_and_appends(folder):
    target = folder / "curve.csv"
    for text in (b"a\n", b"b\n"):
        fd = open_append(target)
        os.write(fd, text)
        os.close(fd)
    assert target.read_bytes() == b"a\nb\n"


# ---- reading -------------------------------------------------------------------------------------

def test_read_refuses_a_fifo_without_hanging(folder):
    with pytest.raises(FileRefused, match="FIFO") as e:
        read_bytes(fifo(folder / "config.yaml"), 100)
    assert "regular file" in one_line(e.value)


def test_read_refuses_a_device():
    with pytest.raises(FileRefused, match="device"):
        read_bytes("/dev/zero", 1 << 20, "games file")


def test_read_refuses_a_folder(folder):
    with pytest.raises(FileRefused, match="folder"):
        read_text(folder, 100)


def test_read_refuses_a_huge_file_before_reading_it(folder):
    big = folder / "big.json"
    with open(big, "wb") as f:
        f.truncate(1 << 40)                # a sparse terabyte: never read
    with pytest.raises(FileRefused, match="at most 1,000 bytes"):
        read_bytes(big, 1000, "settings")


def test_read_follows_a_link_to_a_regular_file_and_refuses_a_link_to_a_fifo(folder, victim):
    (folder / "mine.yaml").symlink_to(victim)
    assert read_bytes(folder / "mine.yaml", 100) == SECRET
    (folder / "pipe.yaml").symlink_to(fifo(folder / "pipe"))
    with pytest.raises(FileRefused, match="FIFO"):
        read_bytes(folder / "pipe.yaml", 100)


def test_missing_file_is_no_such_file_and_a_config_error(folder):
    with pytest.raises(NoSuchFile) as e:
        open_read(folder / "absent", "rule file")
    assert isinstance(e.value, ConfigError) and "no such rule file" in str(e.value)


def test_read_text_refuses_bytes_that_are_not_utf8(folder):
    (folder / "x.yaml").write_bytes(b"ok\xff")
    with pytest.raises(FileRefused, match="not UTF-8"):
        read_text(folder / "x.yaml", 100)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.binary(max_size=40).map(lambda b: b.replace(b"\n", b"")), max_size=8), st.integers(1, 30))
def test_bounded_lines_yield_every_short_line_and_refuse_a_long_one(tmp_path, lines, limit):
    path = tmp_path / "lines"
    path.write_bytes(b"".join(x + b"\n" for x in lines))
    with open_read(path) as f:
        if all(len(x) + 1 <= limit for x in lines):
            assert [x for _, x in bounded_lines(f, limit, str(path))] == [x + b"\n" for x in lines]
        else:
            first = next(i for i, x in enumerate(lines) if len(x) + 1 > limit) + 1
            with pytest.raises(FileRefused, match=f"line {first}: longer than"):
                list(bounded_lines(f, limit, str(path)))


def test_a_truncated_last_line_is_yielded_as_it_is(folder):
    (folder / "g.jsonl").write_bytes(b'{"a":1}\n{"a":')
    with open_read(folder / "g.jsonl") as f:
        assert [x for _, x in bounded_lines(f, 100, "g")] == [b'{"a":1}\n', b'{"a":']

