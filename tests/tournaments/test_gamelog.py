"""The games log itself (`tournaments.gamelog.log`): appending reads nothing of the log but its last byte,
two processes appending at once leave whole lines, a planted link, FIFO or shared file is refused before a
byte is written, a torn last line is cut before appending and never read as a game, reading is streamed."""
import fcntl
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.planted import SECRET, fifo, one_line
from tournaments import gamelog
from tournaments.gamelog import log as gamelog_log
from yacht_env.config import ConfigError
from yacht_env.safe_file import FileRefused, NoSuchFile

ROOT = Path(__file__).resolve().parents[2]


def refuse(number, problem):
    raise ValueError(f"line {number}: {problem}")


def keys(path) -> list:
    return [rec["key"] for _, _, rec in gamelog.read(path, refuse)]


def test_appending_reads_only_the_last_byte_of_the_log(tmp_path, monkeypatch):
    path = tmp_path / gamelog.GAMES
    gamelog.append(path, [{"key": f"g{i}", "pad": "x" * 1000} for i in range(200)])
    read = []
    for name in ("read", "pread", "readv", "preadv"):
        real = getattr(os, name)
        monkeypatch.setattr(gamelog_log.os, name, lambda fd, *a, _real=real, _name=name:
                            read.append((_name, a)) or _real(fd, *a))
    assert gamelog.append(path, [{"key": "last"}]) is True
    assert read == [("pread", (1, path.stat().st_size - len(b'{"key":"last"}\n') - 1))]
    monkeypatch.undo()
    assert keys(path) == [f"g{i}" for i in range(200)] + ["last"]


def test_a_torn_last_line_is_no_game_and_is_cut_before_the_next_append(tmp_path):
    path = tmp_path / gamelog.GAMES
    gamelog.append(path, [{"key": "a"}, {"key": "b"}])
    with open(path, "ab") as f:
        f.write(b'{"key": "torn", "log": [1, 2')          # a write cut short by a kill
    assert keys(path) == ["a", "b"]
    assert [r["key"] for _, _, r in gamelog.read(path, refuse, unterminated=True)] == ["a", "b"]
    gamelog.append(path, [{"key": "c"}])
    assert path.read_bytes() == b'{"key":"a"}\n{"key":"b"}\n{"key":"c"}\n'
    with open(path, "ab") as f:
        f.write(b"x" * (3 * gamelog_log.TAIL_BLOCK))        # a torn line longer than a block read back
    gamelog.cut_torn_tail(path)
    assert keys(path) == ["a", "b", "c"] and path.read_bytes().endswith(b'"c"}\n')
    gamelog.cut_torn_tail(tmp_path / "none.jsonl")         # no log: nothing to cut, nothing made
    assert not (tmp_path / "none.jsonl").exists()


def test_once_appends_only_to_a_log_without_a_game(tmp_path):
    path = tmp_path / gamelog.GAMES
    assert gamelog.append(path, [{"key": "a"}], once=True) is True
    assert gamelog.append(path, [{"key": "b"}], once=True) is False
    assert keys(path) == ["a"]
    torn = tmp_path / "torn.jsonl"
    torn.write_bytes(b'{"key": "half')                      # a game cut short is no game: this one is stored
    assert gamelog.append(torn, [{"key": "a"}], once=True) is True and keys(torn) == ["a"]


@pytest.mark.parametrize("kind", ["symlink", "hardlink", "fifo", "folder"])
def test_a_planted_file_is_refused_before_a_byte_is_written(kind, tmp_path, victim):
    path = tmp_path / gamelog.GAMES
    if kind == "symlink":
        path.symlink_to(victim)
    elif kind == "hardlink":
        os.link(victim, path)
    elif kind == "fifo":
        fifo(path)
    else:
        path.mkdir()
    with pytest.raises(FileRefused) as e:
        gamelog.append(path, [{"key": "a"}])
    assert str(path) in one_line(e.value)
    with pytest.raises(FileRefused):
        gamelog.cut_torn_tail(path)
    assert victim.read_bytes() == SECRET
    if kind in ("fifo", "folder"):
        with pytest.raises(FileRefused):
            list(gamelog.read(path, refuse))


def test_a_lock_held_by_another_process_is_waited_for_boundedly_and_then_refused(tmp_path, monkeypatch):
    path = tmp_path / gamelog.GAMES
    gamelog.append(path, [{"key": "a"}])
    monkeypatch.setattr(gamelog_log, "LOCK_WAIT", 0.05)
    holder = os.open(path, os.O_RDONLY)            # another open file: its lock conflicts as another process's
    try:
        fcntl.flock(holder, fcntl.LOCK_EX)
        with pytest.raises(ConfigError) as e:
            gamelog.append(path, [{"key": "b"}])
        assert "another process has held the games log's lock" in one_line(e.value)
    finally:
        os.close(holder)
    gamelog.append(path, [{"key": "b"}])
    assert keys(path) == ["a", "b"]


def test_a_full_disk_is_one_line_naming_the_log(tmp_path, monkeypatch):
    path = tmp_path / gamelog.GAMES

    def full(fd, data):
        raise OSError(28, os.strerror(28))

    monkeypatch.setattr(gamelog_log.os, "write", full)
    with pytest.raises(ConfigError, match=f"cannot write {path}: No space left on device; .*free some space"):
        gamelog.append(path, [{"key": "a"}])


def test_reading_is_streamed_one_record_at_a_time(tmp_path):
    path = tmp_path / gamelog.GAMES
    gamelog.append(path, [{"key": "a"}, {"key": "b"}])
    with open(path, "ab") as f:
        f.write(b"not json\n")
    records = gamelog.read(path, refuse)
    first, second = next(records), next(records)             # given before the bad line is read
    assert [first[2]["key"], second[2]["key"]] == ["a", "b"]
    with pytest.raises(ValueError, match="line 3: not JSON"):
        next(records)
    assert [r["key"] for r in gamelog.read_at(path, [second[1], first[1]])] == ["b", "a"]
    assert list(gamelog.read(tmp_path / "none", refuse, missing_ok=True)) == []
    with pytest.raises(NoSuchFile):
        list(gamelog.read(tmp_path / "none", refuse))


APPENDER = """
import os, sys, time
from tournaments import gamelog
who, n, path, go = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
for _ in range(3000):                  # both start together: each waits for the go file
    if os.path.exists(go):
        break
    time.sleep(0.01)
for i in range(n):
    gamelog.append(path, [{"key": f"{who}{i}", "pad": who * (5000 + 37 * i)}, {"key": f"{who}{i}+"}])
"""


@pytest.mark.slow          # two Python processes start and import the package (seconds on a busy machine)
def test_two_processes_appending_at_once_leave_whole_lines(tmp_path):
    path = tmp_path / gamelog.GAMES
    n, go = 400, tmp_path / "go"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    procs = [subprocess.Popen([sys.executable, "-c", APPENDER, who, str(n), str(path), str(go)], env=env)
             for who in "xy"]
    time.sleep(0.5)         # not a verdict: only lets both processes reach the start line
    go.touch()
    for p in procs:
        assert p.wait(timeout=120) == 0
    lines = path.read_bytes().split(b"\n")
    assert lines[-1] == b"" and len(lines) == 4 * n + 1
    got = [json.loads(line)["key"] for line in lines[:-1]]
    for who in "xy":            # each appender's lines whole, in its order, each pair of one append together
        mine = [k for k in got if k.startswith(who)]
        assert mine == [k for i in range(n) for k in (f"{who}{i}", f"{who}{i}+")]
        at = [got.index(f"{who}{i}") for i in range(n)]
        assert all(got[a + 1] == f"{who}{i}+" for i, a in enumerate(at))
