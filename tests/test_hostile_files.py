"""The safe-file module (`yacht_env.safe_file`) and the files the program writes and reads against planted
links, hard links, FIFOs, devices, folders, huge and truncated files, concurrent writers and files changed
while they are written: nothing is written through a link or into a shared file, nothing hangs, nothing is
read past its bound, and every refusal is one line naming the file."""
import json
import os
import threading
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from yacht_env.config import ConfigError
from yacht_env.safe_file import (
    FileRefused,
    NoSuchFile,
    atomic_writer,
    bounded_lines,
    ensure_folder,
    is_temporary,
    open_append,
    open_read,
    open_rw,
    read_bytes,
    read_text,
    write_atomic,
)

SECRET = b"a user's file that must survive\n"


@pytest.fixture
def victim(tmp_path) -> Path:
    """A file outside the folder being written, standing for a user's file a link points to."""
    p = tmp_path / "elsewhere" / "victim.txt"
    p.parent.mkdir()
    p.write_bytes(SECRET)
    return p


@pytest.fixture
def folder(tmp_path) -> Path:
    f = tmp_path / "run"
    f.mkdir()
    return f


def fifo(path: Path) -> Path:
    os.mkfifo(path)
    return path


def one_line(e: Exception) -> str:
    text = str(e)
    assert "\n" not in text and text
    return text


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


# ---- the tournament folder -----------------------------------------------------------------------

CONFIG = {"entrants": ["first", "best", "random"], "games": 2, "seed": 5}


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """A finished tournament folder (copied per test before links are planted in it)."""
    from tournaments.config import parse_config
    from tournaments.run import run_tournament
    out = tmp_path_factory.mktemp("played") / "run"
    run_tournament(parse_config(CONFIG), out=out, progress=False, factory="tournament_agents:make_agent")
    return out


@pytest.fixture
def run_folder(played, tmp_path) -> Path:
    import shutil
    out = tmp_path / "copy"
    shutil.copytree(played, out)
    return out


def cli_error(capsys, argv) -> str:
    from tournaments.cli import main
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"yacht {argv[0]}: error: "), err
    return err[0]


@pytest.mark.parametrize("name", ["report.md", "report.html", "results.json", "scores.png"])
def test_a_report_file_planted_as_a_link_is_refused_and_its_target_kept(run_folder, victim, capsys, name):
    (run_folder / name).unlink()
    (run_folder / name).symlink_to(victim)
    err = cli_error(capsys, ["report", str(run_folder)])
    assert name in err and "symbolic link" in err
    assert victim.read_bytes() == SECRET


@pytest.mark.parametrize("name", ["games.jsonl", "tournament.lock"])
@pytest.mark.parametrize("plant", ["symlink", "hardlink"])
def test_the_store_never_appends_or_locks_through_a_link(run_folder, victim, capsys, name, plant):
    from tournaments.config import parse_config
    from tournaments.run import run_tournament
    (run_folder / name).unlink()
    if plant == "symlink":
        (run_folder / name).symlink_to(victim)
    else:
        os.link(victim, run_folder / name)
    with pytest.raises(ConfigError, match="symbolic link|hard links") as e:
        run_tournament(parse_config(CONFIG), out=run_folder, progress=False, factory="tournament_agents:make_agent")
    assert name in one_line(e.value)
    assert victim.read_bytes() == SECRET


def test_a_fifo_or_device_as_the_games_file_is_refused_without_hanging(run_folder, capsys):
    (run_folder / "games.jsonl").unlink()
    fifo(run_folder / "games.jsonl")
    assert "FIFO" in cli_error(capsys, ["report", str(run_folder)])
    (run_folder / "games.jsonl").unlink()
    (run_folder / "games.jsonl").symlink_to("/dev/zero")
    assert "device" in cli_error(capsys, ["report", str(run_folder)])


def test_a_fifo_as_tournament_json_is_refused_without_hanging(run_folder, capsys):
    (run_folder / "tournament.json").unlink()
    fifo(run_folder / "tournament.json")
    assert "FIFO" in cli_error(capsys, ["report", str(run_folder)])


# ---- yacht serve's table files -------------------------------------------------------------------

def test_web_tables_are_never_written_through_links_and_never_read_from_fifos(tmp_path, victim):
    pytest.importorskip("starlette")
    from tournaments.web.tables import Seat, Table
    table = Table.create("yacht", {}, [Seat("Ann"), Seat("Bob")], pace=0)
    path = tmp_path / f"{table.id}.json"
    path.symlink_to(victim)                                   # planted where the table file goes
    with pytest.raises(FileRefused, match="symbolic link"):
        table.flush(tmp_path)
    assert victim.read_bytes() == SECRET
    path.unlink()
    table.flush(tmp_path)                                     # the whole table, as a regular file
    table.handle({0, 1}, {"type": "roll", "seat": table.game.current_seat})
    log = tmp_path / f"{table.id}.log"
    log.symlink_to(victim)                                    # planted where the journal goes
    with pytest.raises(FileRefused, match="symbolic link"):
        table.flush(tmp_path)
    assert victim.read_bytes() == SECRET
    log.unlink()
    fifo(log)                                                 # a journal that would never end
    with pytest.raises(FileRefused, match="FIFO"):
        Table.load(path)


def test_match_json_is_never_written_through_a_planted_link(tmp_path, victim, capsys):
    from tournaments.cli import main
    out = tmp_path / "m"
    argv = ["match", "greedy", "random", "--max-games", "2", "--out", str(out), "--quiet", "--no-analysis"]
    assert main(argv) == 0
    (out / "match.json").unlink()
    (out / "match.json").symlink_to(victim)
    before = victim.read_bytes()
    capsys.readouterr()
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "match.json" in err[0], err
    assert victim.read_bytes() == before
