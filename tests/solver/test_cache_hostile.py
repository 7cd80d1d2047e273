"""Solver cache files that are cut off, empty, wrong-shaped, garbage or written by two processes at once:
detected on load, solved again and replaced, so `yacht solve` and `yacht evaluate strong` just work."""
import io
import json
import os
import subprocess
import sys
import time
import tracemalloc
import zipfile
from pathlib import Path

import numpy as np
import pytest

from tests.planted import plant
from yacht_arena.cli import main
from yacht_env.rules import load
from yacht_env.solver import cache_path, solution_for
from yacht_env.solver.cache import DamagedCache, load_file, read_file, save

TINY = {"name": "tiny", "description": "six boxes, for cache tests",
        "boxes": [{"id": "ones", "kind": "upper", "face": 1}, {"id": "twos", "kind": "upper", "face": 2},
                  {"id": "threes", "kind": "upper", "face": 3},
                  {"id": "full_house", "kind": "full_house", "points": 25},
                  {"id": "yacht", "kind": "yacht", "points": 50}, {"id": "chance", "kind": "chance", "points": "sum"}],
        "upper_bonus": {"threshold": 10, "points": 5}, "extra_yacht_bonus": 100, "joker": "forced"}


@pytest.fixture
def tiny(tmp_path, monkeypatch):
    """(rules file, rules, reference solution) with YACHT_CACHE_DIR in tmp_path."""
    monkeypatch.setenv("YACHT_CACHE_DIR", str(tmp_path / "cache"))
    path = tmp_path / "tiny.yaml"
    path.write_text(json.dumps(TINY))   # JSON is YAML
    rules = load(str(path))
    reference = solution_for(rules, progress=False)
    return path, rules, reference


def table_files(folder) -> list[str]:
    """The names in a cache folder but its build locks (`solution_for` leaves `<stem>.lock` beside the table)."""
    return sorted(p.name for p in folder.iterdir() if p.suffix != ".lock")


def npz(**arrays) -> bytes:
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    return buf.getvalue()


def rewritten(good: bytes, **changes) -> bytes:
    """The cache file `good` with its meta fields or values replaced."""
    with np.load(io.BytesIO(good)) as f:
        meta, values = json.loads(str(f["meta"])), f["values"]
    values = changes.pop("values", values)
    meta.update(changes)
    return npz(values=values, meta=np.array(json.dumps(meta)))


def huge_header() -> bytes:
    """A values.npy whose header declares 10^12 float64 (8 TB) but holds a few bytes."""
    head = np.lib.format.header_data_from_array_1_0(np.zeros(1))
    head["shape"] = (10 ** 12,)
    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(buf, head)
    return buf.getvalue() + b"\0" * 64


def with_member(good: bytes, name: str, data: bytes) -> bytes:
    src = zipfile.ZipFile(io.BytesIO(good))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for info in src.infolist():
            z.writestr(info.filename, data if info.filename == name else src.read(info.filename))
    return buf.getvalue()


DAMAGE = {
    "empty": (lambda good: b"", "unreadable"),
    "cut off": (lambda good: good[:len(good) // 2], "unreadable"),
    "cut off at the end": (lambda good: good[:-30], "unreadable"),
    "garbage": (lambda good: b"\x89garbage" * 100, "unreadable"),
    "a zip of other files": (lambda good: npz(x=np.zeros(3)), "members ['x.npy'], expected"),
    "wrong shape": (lambda good: rewritten(good, values=np.zeros(7)), "values of shape (7,)"),
    "2-d values": (lambda good: rewritten(good, values=np.zeros((2, 3))), "values of shape (2, 3)"),
    "int values": (lambda good: rewritten(good, values=np.zeros(good_size(good), np.int64)), "type int64"),
    "object values": (lambda good: with_member(good, "values.npy", pickled()), "type object"),
    "nan values": (lambda good: rewritten(good, values=np.full(good_size(good), np.nan)), "not finite"),
    "one value changed": (lambda good: rewritten(good, values=changed_value(good)), "do not match their checksum"),
    "no checksum": (lambda good: rewritten(good, sha256=None), "lacks its rules key or checksum"),
    "other version": (lambda good: rewritten(good, version=0), "solver version 0"),
    "other rules": (lambda good: rewritten(good, rules_key="0123456789abcdef"), "written for other rules"),
    "meta not json": (lambda good: npz(values=np.zeros(good_size(good)), meta=np.array("{not json")), "not valid JSON"),
    "meta a list": (lambda good: npz(values=np.zeros(good_size(good)), meta=np.array("[1]")), "not a JSON object"),
    "meta nested": (lambda good: npz(values=np.zeros(1), meta=np.array("[" * 5000 + "]" * 5000)), "not valid JSON"),
    "meta too large": (lambda good: npz(values=np.zeros(1), meta=np.array("x" * 20000)), "meta.npy is too large"),
    "space wrong": (lambda good: rewritten(good, space={"n_boxes": 40}), "no valid state space"),
    "summary nan": (lambda good: rewritten(good, expected_score=float("nan")), "expected_score is not a finite"),
    "huge header": (lambda good: with_member(good, "values.npy", huge_header()), "values of shape (1000000000000,)"),
}


def good_size(good: bytes) -> int:
    with np.load(io.BytesIO(good)) as f:
        return f["values"].size


def changed_value(good: bytes) -> np.ndarray:
    with np.load(io.BytesIO(good)) as f:
        values = f["values"].copy()
    values[len(values) // 2] += 1e-9
    return values


def pickled() -> bytes:
    buf = io.BytesIO()
    np.lib.format.write_array(buf, np.array([{"a": 1}], dtype=object), allow_pickle=True)
    return buf.getvalue()


@pytest.mark.parametrize("kind", list(DAMAGE))
def test_a_damaged_cache_file_is_detected_solved_again_and_replaced(tiny, capsys, kind):
    path, rules, reference = tiny
    cached = cache_path(rules)
    good = cached.read_bytes()
    damage, reason = DAMAGE[kind]
    cached.write_bytes(damage(good))
    tracemalloc.start()
    try:
        with pytest.raises(DamagedCache) as e:
            read_file(cached, rules)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert reason in str(e.value) and peak < 16 << 20, (str(e.value), peak)
    assert load_file(cached, rules) is None
    assert main(["solve", "--rules", str(path), "--json", "--no-progress"]) == 0
    assert json.loads(capsys.readouterr().out)["expected_score"] == reference.expected_score
    back = read_file(cached, rules)
    assert np.array_equal(back.values, reference.values)
    assert back.summary()["expected_score"] == reference.expected_score
    assert table_files(cached.parent) == [cached.name], "no temporary file left"


def test_evaluate_strong_repairs_a_cut_off_cache(tiny, capsys):
    path, rules, reference = tiny
    cached = cache_path(rules)
    cached.write_bytes(cached.read_bytes()[:100])
    assert main(["evaluate", "strong", "--rules", str(path), "--games", "3", "--no-progress", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["games"] == 3
    assert np.array_equal(read_file(cached, rules).values, reference.values)


def test_a_cache_path_that_cannot_be_written_costs_only_a_solve(tiny, capsys):
    path, rules, reference = tiny
    cached = cache_path(rules)
    cached.unlink()
    cached.mkdir()           # a folder where the file should be: unreadable and unreplaceable
    assert main(["solve", "--rules", str(path), "--json", "--no-progress"]) == 0
    assert json.loads(capsys.readouterr().out)["expected_score"] == reference.expected_score
    assert cached.is_dir() and table_files(cached.parent) == [cached.name]


def test_a_failed_save_leaves_the_old_file_and_no_temporary_file(tiny, monkeypatch):
    _, rules, reference = tiny
    cached = cache_path(rules)
    before = cached.read_bytes()

    def full(*a, **k):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(np, "savez", full)
    with pytest.raises(OSError):
        save(reference, cached)
    assert cached.read_bytes() == before and table_files(cached.parent) == [cached.name]


WRITER = """
import sys
from pathlib import Path
from yacht_env.solver.cache import load_file, save
path = Path(sys.argv[1])
solution = load_file(Path(sys.argv[2]))
for _ in range(int(sys.argv[3])):
    save(solution, path)
"""


@pytest.mark.slow
def test_concurrent_writers_never_leave_a_broken_file(tiny, tmp_path):
    _, rules, reference = tiny
    source = cache_path(rules)
    target = tmp_path / "shared" / source.name
    save(reference, target)
    writers = [subprocess.Popen([sys.executable, "-c", WRITER, str(target), str(source), "150"]) for _ in range(2)]
    reads = 0
    while any(w.poll() is None for w in writers):
        got = load_file(target, rules)
        assert got is not None, "a reader saw a damaged file while two writers replaced it"
        reads += 1
        time.sleep(0.001)
    assert all(w.wait() == 0 for w in writers) and reads > 0
    assert np.array_equal(read_file(target, rules).values, reference.values)
    assert [p.name for p in target.parent.iterdir()] == [target.name], "no temporary file left"


@pytest.mark.slow
def test_two_processes_solving_the_same_rules_at_once(tiny, tmp_path):
    path, rules, reference = tiny
    cache = Path(tmp_path / "fresh-cache")
    code = "import sys; from yacht_env.rules import load; from yacht_env.solver import solution_for; " \
           "print(solution_for(load(sys.argv[1]), use_cache=False, progress=False).expected_score)"
    env = {**__import__("os").environ, "YACHT_CACHE_DIR": str(cache)}
    procs = [subprocess.Popen([sys.executable, "-c", code, str(path)], env=env, stdout=subprocess.PIPE, text=True)
             for _ in range(2)]
    outs = [p.communicate(timeout=300)[0] for p in procs]
    assert all(p.returncode == 0 for p in procs) and {float(o) for o in outs} == {reference.expected_score}
    (name,) = table_files(cache)
    file = cache / name
    assert np.array_equal(read_file(file, rules).values, reference.values)


# a process asking for the solved table (argv[3] "values") or the risk-0.02 distributions (argv[3]
# "distributions") of the rules file argv[1], noting in the file argv[2] each miss of the cache's file and each
# solve or build; it prints the expected score or the distributions' checksum
COUNTED = """
import sys
import numpy as np
import yacht_env.solver.cache as cache
from yacht_env.rules import load

def note(word):
    with open(sys.argv[2], "a") as f:
        f.write(word + "\\n")

def building(real, word):
    def counted(*args, **kwargs):
        note(word)
        return real(*args, **kwargs)
    return counted

def loading(real, missed):
    def counted(*args):
        found = real(*args)
        if found is None and missed(*args):
            note("miss")
        return found
    return counted

rules = load(sys.argv[1])
if sys.argv[3] == "values":
    cache.solve = building(cache.solve, "solve")
    cache.load_file = loading(cache.load_file, lambda path, rules: path == cache.cache_path(rules))
    print(cache.solution_for(rules, progress=False).expected_score)
else:
    cache.build = building(cache.build, "build")
    cache.load_distributions = loading(cache.load_distributions, lambda *args: True)
    d = cache.distributions_for(rules, progress=False, risk=0.02)
    print(float(np.asarray(d.data, np.float64).sum()), int(d.offset.max()))
"""


def cold_cache(tiny, tmp_path, monkeypatch):
    """(rules file, the risk-0.02 distributions' lock file, the log file) with an empty cache folder."""
    from yacht_env.solver.cache import distribution_paths
    path, rules, _ = tiny
    monkeypatch.setenv("YACHT_CACHE_DIR", str(tmp_path / "cold"))
    return path, distribution_paths(rules, 0.02)[0].with_suffix(".lock"), tmp_path / "log"


@pytest.mark.slow
def test_two_processes_on_a_cold_cache_solve_once(tiny, tmp_path, monkeypatch):
    from tests.waiting import PATIENCE, until
    from yacht_env.safe_file import build_lock
    path, rules, reference = tiny
    monkeypatch.setenv("YACHT_CACHE_DIR", str(tmp_path / "cold"))
    log = tmp_path / "log"
    with build_lock(cache_path(rules).with_suffix(".lock")):    # held until both have missed the cache
        procs = [subprocess.Popen([sys.executable, "-c", COUNTED, str(path), str(log), "values"],
                                  stdout=subprocess.PIPE, text=True) for _ in range(2)]
        assert until(lambda: log.is_file() and log.read_text().count("miss") == 2)
    outs = [p.communicate(timeout=PATIENCE)[0] for p in procs]
    assert [p.returncode for p in procs] == [0, 0] and {float(o) for o in outs} == {reference.expected_score}
    # the first to take the lock looks again (a miss), solves and stores; the second reads what it stored
    assert sorted(log.read_text().split()) == ["miss", "miss", "miss", "solve"]


@pytest.mark.slow
def test_two_processes_on_a_cold_cache_build_the_distributions_once(tiny, tmp_path, monkeypatch):
    from tests.waiting import PATIENCE, until
    from yacht_env.safe_file import build_lock
    path, lock, log = cold_cache(tiny, tmp_path, monkeypatch)
    with build_lock(lock):          # held until both have missed the cache: they then meet at the lock
        procs = [subprocess.Popen([sys.executable, "-c", COUNTED, str(path), str(log), "distributions"],
                                  stdout=subprocess.PIPE, text=True) for _ in range(2)]
        assert until(lambda: log.is_file() and log.read_text().count("miss") == 2)
    outs = [p.communicate(timeout=PATIENCE)[0] for p in procs]
    assert [p.returncode for p in procs] == [0, 0] and outs[0] == outs[1]
    # the first to take the lock looks again (a miss), builds and writes; the second finds what it wrote
    assert sorted(log.read_text().split()) == ["build", "miss", "miss", "miss"]


@pytest.mark.slow
def test_a_lock_left_by_a_killed_process_is_not_waited_on(tiny, tmp_path, monkeypatch):
    from tests.waiting import PATIENCE, until
    path, lock, log = cold_cache(tiny, tmp_path, monkeypatch)
    held = tmp_path / "held"
    holder = subprocess.Popen([sys.executable, "-c", "import sys, time; from yacht_env.safe_file import build_lock\n"
                               "with build_lock(sys.argv[1]):\n    open(sys.argv[2], 'w').close()\n"
                               "    time.sleep(3600)", str(lock), str(held)])
    assert until(held.is_file)
    holder.kill()
    holder.wait()
    assert lock.is_file()           # the file stays; the kernel dropped the killed process's lock on it
    done = subprocess.run([sys.executable, "-c", COUNTED, str(path), str(log), "distributions"],
                          capture_output=True, text=True, timeout=PATIENCE)
    assert done.returncode == 0, done.stderr
    assert log.read_text().split() == ["miss", "miss", "build"]


def test_a_link_planted_at_the_cache_path_is_never_written_through(tiny, capsys):
    path, rules, reference = tiny
    cached = cache_path(rules)
    victim = cached.parent.parent / "victim.txt"
    victim.write_text("keep me")
    cached.unlink()
    cached.symlink_to(victim)
    assert load_file(cached, rules) is None      # a link to something that is not a cache file: a miss
    assert main(["solve", "--rules", str(path), "--json", "--no-progress"]) == 0
    assert json.loads(capsys.readouterr().out)["expected_score"] == reference.expected_score
    assert victim.read_text() == "keep me" and cached.is_symlink()


@pytest.mark.parametrize("make", ["fifo", "device"])
def test_a_fifo_or_a_device_at_the_cache_path_is_a_miss_without_hanging(tiny, make):
    _, rules, reference = tiny
    cached = cache_path(rules)
    cached.unlink()
    plant(cached, make)
    with pytest.raises(DamagedCache, match="FIFO" if make == "fifo" else "device"):
        read_file(cached, rules)
    assert load_file(cached, rules) is None
    assert solution_for(rules, progress=False).expected_score == reference.expected_score


def test_score_distributions_come_back_from_the_cache_and_damaged_files_are_built_again(tiny):
    from yacht_env.solver import distributions_for
    from yacht_env.safe_file import FileRefused
    from yacht_env.solver.cache import distribution_paths
    _, rules, _ = tiny
    built = distributions_for(rules, progress=False)
    data_path, index_path = distribution_paths(rules)
    assert data_path.is_file() and index_path.is_file()
    again = distributions_for(rules, progress=False)
    assert isinstance(again.data, np.memmap) and np.array_equal(again.data, built.data)
    for name in ("offset", "length", "lo", "lost"):
        assert np.array_equal(getattr(again, name), getattr(built, name))

    good = data_path.read_bytes()
    data_path.write_bytes(good[: len(good) // 2])                        # cut off: built again
    assert np.array_equal(distributions_for(rules, progress=False).data, built.data)
    assert data_path.read_bytes() == good
    data_path.unlink()
    os.mkfifo(data_path)                                                 # a FIFO is never opened to read
    with pytest.raises(FileRefused, match="FIFO"):
        distributions_for(rules, progress=False)                        # ... nor written through
    data_path.unlink()
    other = data_path.with_name("elsewhere")
    other.write_bytes(b"mine")
    data_path.symlink_to(other)
    with pytest.raises(FileRefused, match="link"):
        distributions_for(rules, progress=False)
    assert other.read_bytes() == b"mine"
