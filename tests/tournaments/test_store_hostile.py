"""The store against hostile input: two runs on one folder, damaged records and tournament.json files,
full disks, and folders that are not tournament folders. Each ends in one clear error (exit status 2 on
the command line) and nothing finished is lost or counted twice; and links, FIFOs and devices planted in a
tournament folder or a match folder, never written through, never read to a hang."""
import copy
import errno
import json
import os
import shutil
import signal
import subprocess
import time
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tournaments.store as store_module
from tournaments.gamelog import log as gamelog_log
import yacht_env.safe_file as safe_file
from tests.cli_errors import cli_error
from tests.fake_agents import FACTORY, FAST, tournament_process
from tests.planted import SECRET, fifo, one_line
from yacht_arena.cli import main
from tournaments.config import parse_config
from tournaments.report import REPORT, REPORT_HTML, RESULTS, SCORES_PNG, histogram_name, render
from tournaments.run import run_tournament
from tournaments.gamelog import GAMES, TOURNAMENT_META
from tournaments.store import LOCK, Store
from yacht_arena.cli.options import USER_ERRORS
from yacht_env.config import ConfigError

CONFIG = {"entrants": ["first", "best", "random"], "games": 2, "seed": 5}


def run(cfg, out, factory=FACTORY, **kw):
    return run_tournament(cfg, out=out, progress=False, factory=factory, **kw)


def keys_in(folder) -> list[str]:
    return [json.loads(x)["key"] for x in (Path(folder) / GAMES).read_bytes().split(b"\n") if x]


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """A finished tournament folder of CONFIG (copied per test before it is damaged)."""
    out = tmp_path_factory.mktemp("played") / "run"
    run(parse_config(CONFIG), out)
    return out


def copy_of(played, tmp_path) -> Path:
    out = tmp_path / "run"
    shutil.copytree(played, out)
    return out


# ---- one writer per folder -----------------------------------------------------------------------

@pytest.mark.slow
def test_second_run_is_refused_naming_the_first_and_a_killed_runs_lock_is_taken_over(tmp_path):
    config = {"entrants": ["slow", "best", "first"], "games": 8, "seed": 9}
    cfg = parse_config(config)
    out = tmp_path / "shared"
    proc = tournament_process(config, out, games=4)
    try:
        assert proc.poll() is None, "the first run should still be playing"
        before = (out / GAMES).read_bytes()
        with pytest.raises(ConfigError, match=rf"shared: another `yacht tournament` is writing this folder "
                                               rf"\(pid {proc.pid} on .+, since .+\); wait for it to finish"):
            run(cfg, out, factory=FAST)
        assert (out / GAMES).read_bytes()[:len(before)] == before, "the refused run wrote nothing"
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    assert f"pid {proc.pid}" in (out / LOCK).read_text(), "the killed run's lock file is still there"
    res = run(cfg, out, factory=FAST)  # the kernel dropped the dead run's lock: this run takes it over
    keys = keys_in(out)
    assert len(keys) == len(set(keys)) == 48 and res["tournament"]["complete"]
    fresh = tmp_path / "fresh"
    run(cfg, fresh, factory=FAST)
    assert Store(out).records() == Store(fresh).records()
    assert (out / LOCK).read_text() == "", "a finished run leaves the lock file empty"


def test_second_store_in_the_same_process_is_refused_until_the_first_closes(tmp_path):
    cfg = parse_config(CONFIG)
    first = Store(tmp_path).open(cfg)
    with pytest.raises(ConfigError, match="another `yacht tournament` is writing this folder"):
        Store(tmp_path).open(cfg)
    first.open(cfg)  # reopening the store that holds the lock is fine
    first.close()
    with Store(tmp_path).open(cfg):
        pass


def test_append_needs_the_lock(tmp_path):
    cfg = parse_config(CONFIG)
    Store(tmp_path).open(cfg).close()
    with pytest.raises(RuntimeError, match="needs the folder opened"):
        Store(tmp_path).append(["{}"])


# ---- folders that are not tournament folders -----------------------------------------------------

@pytest.mark.parametrize("names", [["report.md"], ["results.json", "notes.txt"], [".keep"], ["sub/"]])
def test_a_folder_that_is_not_a_tournament_folder_is_never_written(tmp_path, capsys, names):
    mine = tmp_path / "mine"
    mine.mkdir()
    for name in names:
        if name.endswith("/"):
            (mine / name).mkdir()
        else:
            (mine / name).write_text("the user's own file\n")
    before = sorted(p.name for p in mine.iterdir())
    cfg = tmp_path / "t.yaml"
    cfg.write_text("name: tiny\nentrants: [greedy, random]\ngames: 1\n")
    err = cli_error(capsys, ["tournament", str(cfg), "--out", str(mine), "--workers", "1", "--quiet"])
    assert f"mine: not a tournament folder (it holds {sorted(n.rstrip('/') for n in names)[0]!r}" in err
    assert "nothing was written: give --out a new or empty folder" in err
    assert sorted(p.name for p in mine.iterdir()) == before
    assert all((mine / n).read_text() == "the user's own file\n" for n in names if not n.endswith("/"))
    assert "not a tournament folder" in cli_error(capsys, ["report", str(mine)])
    assert sorted(p.name for p in mine.iterdir()) == before


def test_an_empty_folder_or_one_left_by_a_run_killed_before_its_config_is_used(tmp_path):
    cfg = parse_config(CONFIG)
    (tmp_path / "empty").mkdir()
    run(cfg, tmp_path / "empty")
    left = tmp_path / "left"
    left.mkdir()
    (left / LOCK).write_text("pid 1 on elsewhere, since long ago\n")
    (left / "tournament.tmp").write_text('{"config_')
    res = run(cfg, left)
    assert res["tournament"]["complete"] and not (left / "tournament.tmp").exists()


def test_only_the_store_lock_and_report_files_are_written_in_a_tournament_folder(played, tmp_path):
    out = copy_of(played, tmp_path)
    (out / "my_notes.txt").write_text("mine\n")
    before = {p.name: p.stat().st_mtime_ns for p in out.iterdir()}
    time.sleep(0.01)
    run(parse_config(CONFIG), out)
    changed = {p.name for p in out.iterdir() if before.get(p.name) != p.stat().st_mtime_ns}
    assert (out / "my_notes.txt").read_text() == "mine\n"
    report_files = {REPORT, REPORT_HTML, RESULTS, SCORES_PNG} | {histogram_name(a) for a in CONFIG["entrants"]}
    assert changed <= report_files | {LOCK, GAMES}, changed


# ---- tournament.json -----------------------------------------------------------------------------

def good_meta(out) -> dict:
    return json.loads((out / TOURNAMENT_META).read_text())


@pytest.mark.parametrize("text, message", [
    ("not json {", r"tournament.json: not valid JSON \("),
    ("[1, 2]", r"tournament.json: expected a JSON object with config and config_hash, got list"),
    ("null", r"tournament.json: expected a JSON object with config and config_hash, got NoneType"),
    ('{"config_hash": "abc"}', r"tournament.json: no 'config'; not a file this program wrote"),
    ("NO_HASH", r"tournament.json: no 'config_hash'; not a file this program wrote"),
    ('{"config": [], "config_hash": "x"}', r"tournament.json: 'config' must be a JSON object, got list"),
    ("HASH_NUMBER", r"tournament.json: 'config_hash' must be a JSON string, got int"),
    ("EDITED", r"tournament.json: config_hash '[0-9a-f]{16}' does not match its config \(hash [0-9a-f]{16}\)"),
    ("BAD_CONFIG", r"tournament.json: seats: must be a whole number"),
    ("[" * 100_000 + "]" * 100_000, r"tournament.json: not valid JSON \(nested too deeply\)"),
    ("HUGE", r"tournament.json: [0-9,]+ bytes; a tournament.json may have at most 1,048,576 bytes"),
    (b"\xff\xfe{}", r"tournament.json: not valid JSON \("),
])
def test_a_damaged_tournament_json_is_a_clear_error(played, tmp_path, capsys, text, message):
    out = copy_of(played, tmp_path)
    meta = good_meta(out)
    if text == "NO_HASH":
        text = json.dumps({"config": meta["config"]})
    elif text == "HASH_NUMBER":
        text = json.dumps({**meta, "config_hash": 7})
    elif text == "EDITED":
        text = json.dumps({**meta, "config": {**meta["config"], "games": 3}})
    elif text == "BAD_CONFIG":
        text = json.dumps({**meta, "config": {**meta["config"], "seats": "two"}})
    elif text == "HUGE":
        text = json.dumps({**meta, "padding": "x" * (1 << 20)})
    (out / TOURNAMENT_META).write_bytes(text if isinstance(text, bytes) else text.encode())
    files = {p.name: p.read_bytes() for p in out.iterdir()}
    with pytest.raises(USER_ERRORS, match=message):
        Store(out).records()
    err = cli_error(capsys, ["report", str(out)])
    assert "tournament.json" in err
    with pytest.raises(USER_ERRORS, match=message):
        run(parse_config(CONFIG), out)
    assert {p.name: p.read_bytes() for p in out.iterdir() if p.name != LOCK} == \
        {k: v for k, v in files.items() if k != LOCK}, "nothing in the folder changed"


# ---- records -------------------------------------------------------------------------------------

def first_record(out) -> dict:
    return json.loads((out / GAMES).read_bytes().split(b"\n")[0])


def append_line(out, line: bytes) -> int:
    """Append a raw line to games.jsonl; return its line number."""
    data = (out / GAMES).read_bytes()
    (out / GAMES).write_bytes(data + line + b"\n")
    return data.count(b"\n") + 1


def other_tournament_record(tmp_path):
    """A record of a tournament with the same entrant names, seats and seed but other agents."""
    cfg = parse_config({**CONFIG, "entrants": [{"name": "first", "agent": "best"}, "best", "random"]})
    run(cfg, tmp_path / "other")
    return first_record(tmp_path / "other")


@pytest.mark.parametrize("change, message", [
    (lambda r: [], "not a game record (a JSON list)"),
    (lambda r: 42, "not a game record (a JSON int)"),
    (lambda r: None, "not a game record (a JSON NoneType)"),
    (lambda r: {"hello": "world"}, "not a game record (no 'key')"),
    (lambda r: {k: v for k, v in r.items() if k != "totals"}, "not a game record (no 'totals')"),
    (lambda r: {**r, "key": "t9-d0-r0"}, "game key 't9-d0-r0' is not in this tournament's schedule"),
    (lambda r: {**r, "key": ["t0-d0-r0"]}, "game key \"['t0-d0-r0']\" is not in this tournament's schedule"),
    (lambda r: {**r, "agents": r["agents"][::-1]}, "does not match the schedule: agents"),
    (lambda r: {**r, "seed": r["seed"] + 1}, "does not match the schedule: seed"),
    (lambda r: {**r, "rotation": True}, "does not match the schedule: rotation True"),
    (lambda r: {**r, "config_hash": "0123456789abcdef"}, "written for another tournament (config hash "
                                                          "'0123456789abcdef', this folder's is"),
    (lambda r: {**r, "config_hash": None}, "written for another tournament (config hash 'None'"),
    (lambda r: {**r, "totals": [t + 1 for t in r["totals"]]}, "but its sheet and bonuses add up to"),
    (lambda r: {**r, "totals": [float("nan")] * 2}, "totals must be 2 whole numbers"),
    (lambda r: {**r, "totals": [10 ** 4000] * 2}, "totals[0] is"),
    (lambda r: {**r, "totals": r["totals"][:1]}, "totals must be 2 whole numbers"),
    (lambda r: {**r, "places": [0, 1]}, "places must be 2 places from 1 to 2"),
    (lambda r: {**r, "places": ["1", 2]}, "places must be 2 places from 1 to 2"),
    (lambda r: {**r, "sheet_of": [0, 0]}, "sheet_of must be [0, 1]"),
    (lambda r: {**r, "upper_bonus": [34, 0]}, "upper_bonus must be 2 multiples of 35 up to 35"),
    (lambda r: {**r, "extra_bonus": [-100, 0]}, "extra_bonus must be 2 multiples of 100"),
    (lambda r: {**r, "faults": [None]}, "faults must be 2 entries"),
    (lambda r: {**r, "faults": [{"error": 3, "move": 0}, None]}, "faults must be 2 entries"),
    (lambda r: {**r, "log": "moves"}, "log must be a list of moves"),
    (lambda r: {**r, "sheets": [[[1] * 13]] * 2}, "sheets[0] must be 1 column(s) of 13 box scores"),
    (lambda r: {**r, "sheets": [[r["sheets"][0][0][:12]], r["sheets"][1]]}, "sheets[0] must be 1 column(s)"),
    (lambda r: {**r, "sheets": [[[1000] + r["sheets"][0][0][1:]], r["sheets"][1]]}, "each one the box can hold"),
])
def test_a_record_that_is_not_a_game_of_this_tournament_is_an_error_with_its_line(played, tmp_path, capsys,
                                                                                  change, message):
    out = copy_of(played, tmp_path)
    n = append_line(out, json.dumps(change(first_record(out))).encode())
    with pytest.raises(ConfigError) as e:
        Store(out).records()
    assert f"games.jsonl: line {n}: " in str(e.value) and message in str(e.value), str(e.value)
    assert "the store is damaged or was written by another version (remove that line and rerun, or play into " \
           "a new folder)" in str(e.value)
    assert f"line {n}: " in cli_error(capsys, ["report", str(out)])
    with pytest.raises(ConfigError, match=f"line {n}: "):
        run(parse_config(CONFIG), out)


def test_a_run_checks_each_line_once_and_any_other_reader_checks_them_all(tmp_path, monkeypatch):
    """The run's own store checks a game when it appends it (or reads it from an earlier run) and not again
    when its report reads it back; a resumed run and `yacht report` check every line themselves."""
    checked = Counter()
    check = store_module.check_record
    monkeypatch.setattr(store_module, "check_record", lambda rec, expected: checked.update([rec["key"]])
                        or check(rec, expected))
    out, cfg = tmp_path / "run", parse_config(CONFIG)
    for reader in (lambda: run(cfg, out),        # plays and appends every game
                   lambda: run(cfg, out),        # resumes: reads every game, plays none
                   lambda: render(out)):         # `yacht report`
        checked.clear()
        reader()
        assert sorted(checked) == sorted(keys_in(out)) and set(checked.values()) == {1}


def test_a_line_changed_after_the_store_checked_it_is_checked_again(played, tmp_path):
    out = copy_of(played, tmp_path)
    store = Store(out)
    store.records()                             # every line checked, and remembered as good
    lines = (out / GAMES).read_bytes().splitlines(keepends=True)
    rec = json.loads(lines[2])
    rec["totals"][0] += 1
    lines[2] = json.dumps(rec, separators=(",", ":")).encode() + b"\n"
    (out / GAMES).write_bytes(b"".join(lines))
    with pytest.raises(ConfigError, match="line 3: totals.0. is .*, but its sheet and bonuses add up to"):
        store.records()


def test_a_record_of_another_tournament_with_the_same_names_and_seeds_is_refused(played, tmp_path):
    out = copy_of(played, tmp_path)
    n = append_line(out, json.dumps(other_tournament_record(tmp_path)).encode())
    with pytest.raises(ConfigError, match=f"line {n}: written for another tournament"):
        Store(out).records()


@pytest.mark.parametrize("line, message", [
    (b"[" * 50_000 + b"]" * 50_000, "not valid JSON"),
    (b'{"key": "t0-d0-r0", "totals": [1' + b"0" * 5000 + b"]}", "not valid JSON"),
    (b"\xff\xfe\x00garbage", "not valid JSON"),
    (b'"' + b"x" * (8 << 20) + b'"', "longer than 8388608 bytes: not a game record"),
])
def test_hostile_lines(played, tmp_path, line, message):
    out = copy_of(played, tmp_path)
    n = append_line(out, line)
    with pytest.raises(ConfigError, match=f"line {n}: {message}"):
        Store(out).records()


def test_a_torn_last_line_is_not_a_game_and_is_cut_before_appending(played, tmp_path):
    out = copy_of(played, tmp_path)
    whole = (out / GAMES).read_bytes()
    last = whole.rstrip(b"\n").rsplit(b"\n", 1)[-1]
    (out / GAMES).write_bytes(whole[:-len(last) - 1])          # the last game lost its line ...
    with open(out / GAMES, "ab") as f:
        f.write(last)                                           # ... and came back without the newline
    assert len(Store(out).records()) == whole.count(b"\n") - 1
    run(parse_config(CONFIG), out)
    assert (out / GAMES).read_bytes() == whole                  # cut, replayed, identical


JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=8),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
                    max_leaves=12)
CHECKED = ("key", "table", "deal", "rotation", "seed", "agents", "sheet_of", "totals", "sheets", "upper_bonus",
           "extra_bonus", "config_hash")


def test_records_written_before_they_carried_the_config_hash_still_count(played, tmp_path):
    out = copy_of(played, tmp_path)
    lines = (out / GAMES).read_bytes().split(b"\n")[:-1]
    old = [json.dumps({k: v for k, v in json.loads(x).items() if k != "config_hash"}).encode() for x in lines]
    (out / GAMES).write_bytes(b"\n".join(old) + b"\n")
    assert len(Store(out).records()) == len(lines)
    res = run(parse_config(CONFIG), out)
    assert res["run"]["games_run"] == 0 and res["tournament"]["complete"]


def paths(value, prefix=()):
    """Every path into a JSON value (its own path first)."""
    yield prefix
    if isinstance(value, dict):
        for k, v in value.items():
            yield from paths(v, prefix + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from paths(v, prefix + (i,))


@pytest.fixture(scope="module")
def store_and_record(played, tmp_path_factory):
    out = tmp_path_factory.mktemp("hyp") / "run"
    shutil.copytree(played, out)
    return out, (out / GAMES).read_bytes(), first_record(out)


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
def test_generated_changes_to_a_record_are_refused_or_harmless(store_and_record, data):
    out, original, rec = store_and_record
    deep = data.draw(st.booleans())            # half the time a field inside a move of the log (also checked)
    candidates = [p for p in paths(rec) if p and ((p[0] == "log" and len(p) >= 3) if deep
                                                  else (p[0] != "log" or len(p) < 3))]
    path = data.draw(st.sampled_from(candidates))
    value = data.draw(JSON)
    changed = with_value(rec, path, value)
    (out / GAMES).write_bytes(original + json.dumps(changed).encode() + b"\n")
    got = records_or_refused(out, original.count(b"\n") + 1)
    if got is None:
        return
    # accepted: then it is a duplicate of a stored game (first one wins) and changed nothing checked
    assert len(got) == original.count(b"\n") and got[rec["key"]] == rec
    assert path[0] not in CHECKED or json.dumps(value) == json.dumps(_at(rec, path)), (path, value)


def _at(value, path):
    for step in path:
        value = value[step]
    return value


def records_or_refused(out, line: int):
    """The store's records, or None when it refused them naming line `line` (asserted)."""
    try:
        return Store(out).records()
    except ConfigError as e:
        assert f"line {line}: " in str(e)
        return None


def with_value(doc, path, value):
    """A deep copy of the JSON value `doc` with `value` put at `path` (a path of `paths(doc)`, not its own)."""
    changed = copy.deepcopy(doc)
    _at(changed, path[:-1])[path[-1]] = value
    return changed


@settings(max_examples=100, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(line=JSON | st.binary(max_size=64).filter(lambda b: b"\n" not in b))
def test_generated_lines_are_never_games(store_and_record, line):
    out, original, _ = store_and_record
    raw = line if isinstance(line, bytes) else json.dumps(line).encode()
    (out / GAMES).write_bytes(original + raw + b"\n")
    got = records_or_refused(out, original.count(b"\n") + 1)
    if got is None:
        return
    assert not raw.strip() and len(got) == original.count(b"\n")   # only a blank line is accepted


# ---- full disks ----------------------------------------------------------------------------------

def writes_to(fd, name: str) -> bool:
    return os.readlink(f"/proc/self/fd/{fd}").endswith(name)


def failing_write(monkeypatch, after: int, code: int):
    """os.write to games.jsonl: `after` whole lines, then half a line and OSError(code), as a full disk."""
    real = os.write
    lines = {"n": 0}

    def write(fd, data):
        if not writes_to(fd, GAMES):
            return real(fd, data)
        data = bytes(data)
        room = after - lines["n"]
        ends = [i for i, b in enumerate(data) if b == ord("\n")]
        if len(ends) <= room:
            lines["n"] += len(ends)
            return real(fd, data)
        start = ends[room - 1] + 1 if room > 0 else 0
        real(fd, data[:start + (ends[room] + 1 - start) // 2])
        lines["n"] = after
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(gamelog_log.os, "write", write)


@pytest.mark.parametrize("code, hint", [(errno.ENOSPC, "No space left on device; every game stored so far is kept: "
                                                       "free some space, then rerun the same command to resume"),
                                        (errno.EDQUOT, "free some space"), (errno.EIO, "check the disk")])
def test_disk_full_while_appending_is_a_clear_error_and_the_rerun_resumes(tmp_path, capsys, monkeypatch, code, hint):
    cfg_file = tmp_path / "t.yaml"
    cfg_file.write_text("name: tiny\nentrants: [greedy, random, easy]\ngames: 3\nseed: 4\n")
    out = tmp_path / "out"
    failing_write(monkeypatch, after=5, code=code)
    err = cli_error(capsys, ["tournament", str(cfg_file), "--out", str(out), "--workers", "1", "--quiet"])
    assert f"cannot write {out / GAMES}" in err and hint in err
    assert not (out / GAMES).read_bytes().endswith(b"\n"), "half a line was left, as a full disk leaves it"
    assert len(Store(out).records()) == 5
    monkeypatch.undo()
    assert main(["tournament", str(cfg_file), "--out", str(out), "--workers", "1", "--quiet"]) == 0
    fresh = tmp_path / "fresh"
    assert main(["tournament", str(cfg_file), "--out", str(fresh), "--workers", "1", "--quiet"]) == 0
    keys = keys_in(out)
    assert len(keys) == len(set(keys)) == 18
    assert Store(out).records() == Store(fresh).records()
    assert (out / "report.md").read_text() == (fresh / "report.md").read_text()


def test_disk_full_while_writing_the_report_is_a_clear_error(played, tmp_path, capsys, monkeypatch):
    out = copy_of(played, tmp_path)
    games = (out / GAMES).read_bytes()

    real = os.fsync

    def fsync(fd):
        if os.path.basename(os.readlink(f"/proc/self/fd/{fd}")).startswith("."):   # a temporary file
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real(fd)

    monkeypatch.setattr(safe_file.os, "fsync", fsync)
    err = cli_error(capsys, ["report", str(out)])
    assert f"{out}: cannot write the report (No space left on device: {out / RESULTS})" in err
    with pytest.raises(ConfigError, match="cannot write the report"):
        run(parse_config(CONFIG), out)
    monkeypatch.undo()
    assert (out / GAMES).read_bytes() == games
    assert main(["report", str(out)]) == 0


def test_disk_full_while_writing_tournament_json(tmp_path, monkeypatch):
    real = os.fsync

    def fsync(fd):
        if ".tournament.json." in os.readlink(f"/proc/self/fd/{fd}"):   # its temporary file
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real(fd)

    monkeypatch.setattr(safe_file.os, "fsync", fsync)
    out = tmp_path / "new"
    with pytest.raises(ConfigError, match=r"cannot write .*tournament.json.*: No space left on device"):
        Store(out).open(parse_config(CONFIG))
    assert sorted(p.name for p in out.iterdir()) == [LOCK]
    monkeypatch.undo()
    run(parse_config(CONFIG), out)  # the folder holds only the lock file: still this program's


@pytest.fixture
def small_disk(tmp_path):
    """A 96 KiB tmpfs (needs root and mount); remounted larger with `grow()`."""
    if os.geteuid() != 0 or not shutil.which("mount"):
        pytest.skip("needs root to mount a small tmpfs")
    mnt = tmp_path / "disk"
    mnt.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=96k", "tmpfs", str(mnt)], capture_output=True).returncode:
        pytest.skip("cannot mount a tmpfs here")
    try:
        yield mnt, lambda: subprocess.run(["mount", "-o", "remount,size=64m", str(mnt)], check=True)
    finally:
        subprocess.run(["umount", "-l", str(mnt)], capture_output=True)


@pytest.mark.slow
def test_a_really_full_disk_then_resume(small_disk, tmp_path, capsys):
    mnt, grow = small_disk
    cfg_file = tmp_path / "t.yaml"
    cfg_file.write_text("name: tiny\nentrants: [greedy, random, easy]\ngames: 20\nseed: 2\n")
    out = mnt / "run"
    err = cli_error(capsys, ["tournament", str(cfg_file), "--out", str(out), "--workers", "1", "--quiet"])
    assert "No space left on device" in err and "rerun the same command to resume" in err
    stored = len(Store(out).records())
    assert 0 < stored < 120
    grow()
    assert main(["tournament", str(cfg_file), "--out", str(out), "--workers", "1", "--quiet", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["run"]["games_run"] == 120 - stored
    keys = keys_in(out)
    assert len(keys) == len(set(keys)) == 120
    fresh = tmp_path / "fresh"
    assert main(["tournament", str(cfg_file), "--out", str(fresh), "--workers", "1", "--quiet"]) == 0
    assert Store(out).records() == Store(fresh).records()
    assert (out / "report.md").read_text() == (fresh / "report.md").read_text()


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                   HealthCheck.too_slow])
@given(data=st.data())
def test_generated_tournament_json_is_used_or_one_clear_error(store_and_record, data):
    out, original, _ = store_and_record
    (out / GAMES).write_bytes(original)
    meta_path = out / TOURNAMENT_META
    good = meta_path.read_bytes()
    meta = json.loads(good)
    path = data.draw(st.sampled_from([p for p in paths(meta) if p]))
    value = data.draw(JSON)
    changed = with_value(meta, path, value)
    meta_path.write_text(json.dumps(changed))
    try:
        got = Store(out).records()
        # accepted: the change kept the tournament's meaning (a null `set` is no overrides, 30 is 30.0, ...)
        assert parse_config(changed["config"]).hash == changed["config_hash"] == meta["config_hash"]
        assert len(got) == original.count(b"\n")
    except USER_ERRORS as e:
        assert "tournament.json" in str(e), str(e)
    finally:
        meta_path.write_bytes(good)


# ---- links, FIFOs and devices planted in a tournament folder or a match folder ---------------------

@pytest.mark.parametrize("name", ["report.md", "report.html", "results.json", "scores.png"])
def test_a_report_file_planted_as_a_link_is_refused_and_its_target_kept(played, tmp_path, victim, capsys, name):
    run_folder = copy_of(played, tmp_path)
    (run_folder / name).unlink()
    (run_folder / name).symlink_to(victim)
    err = cli_error(capsys, ["report", str(run_folder)])
    assert name in err and "symbolic link" in err
    assert victim.read_bytes() == SECRET


@pytest.mark.parametrize("name", ["games.jsonl", "tournament.lock"])
@pytest.mark.parametrize("plant", ["symlink", "hardlink"])
def test_the_store_never_appends_or_locks_through_a_link(played, tmp_path, victim, capsys, name, plant):
    run_folder = copy_of(played, tmp_path)
    (run_folder / name).unlink()
    if plant == "symlink":
        (run_folder / name).symlink_to(victim)
    else:
        os.link(victim, run_folder / name)
    with pytest.raises(ConfigError, match="symbolic link|hard links") as e:
        run(parse_config(CONFIG), run_folder)
    assert name in one_line(e.value)
    assert victim.read_bytes() == SECRET


def test_a_fifo_or_device_as_the_games_file_is_refused_without_hanging(played, tmp_path, capsys):
    run_folder = copy_of(played, tmp_path)
    (run_folder / "games.jsonl").unlink()
    fifo(run_folder / "games.jsonl")
    assert "FIFO" in cli_error(capsys, ["report", str(run_folder)])
    (run_folder / "games.jsonl").unlink()
    (run_folder / "games.jsonl").symlink_to("/dev/zero")
    assert "device" in cli_error(capsys, ["report", str(run_folder)])


def test_a_fifo_as_tournament_json_is_refused_without_hanging(played, tmp_path, capsys):
    run_folder = copy_of(played, tmp_path)
    (run_folder / "tournament.json").unlink()
    fifo(run_folder / "tournament.json")
    assert "FIFO" in cli_error(capsys, ["report", str(run_folder)])


def test_match_json_is_never_written_through_a_planted_link(tmp_path, victim, capsys):
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
