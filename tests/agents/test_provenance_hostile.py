"""Provenance and consistency: a resumed tournament refuses a model file, bot script or rules file that changed
since the run began (naming it; --force goes on knowingly), as `yacht evaluate` and `yacht levels` refuse to
write over another run. (Records that contradict themselves: tests/tournaments/test_records_hostile.py.)"""
import json
import os
import shutil
from pathlib import Path

import pytest

from agents.provenance import MAX_RUN_RECORD_BYTES, changed, check_replace, check_unchanged, digests, spec_files
from tests.cli_errors import error_line
from tests.planted import plant
from yacht_arena.cli import main
from tournaments.config import parse_config
from tournaments.run import run_tournament
from tournaments.gamelog import GAMES, TOURNAMENT_META
from yacht_env.config import ConfigError

SHIPPED = Path(__file__).resolve().parents[2] / "models" / "bc-strong.pt"


def test_spec_files_names_model_files_and_bot_scripts(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("bot.py").write_text("print()\n")
    Path("m.pt").write_bytes(b"x")
    specs = ["learned:m.pt", "learned?lookahead=2:m.pt", "external?timeout=2:python bot.py --fast", "strong",
             "external:python -c 'print()'", "not a spec ?&"]
    assert spec_files(specs) == ["m.pt", "bot.py"]


def test_a_changed_or_missing_file_is_named_and_force_goes_on(tmp_path):
    f = tmp_path / "m.pt"
    f.write_bytes(b"one")
    recorded = digests([str(f)])
    assert changed(recorded) == []
    check_unchanged(recorded, "t.json")
    f.write_bytes(b"two")
    with pytest.raises(ConfigError, match=r"m.pt changed since the run began .*--force") as e:
        check_unchanged(recorded, "t.json")
    assert str(e.value).startswith("t.json: ") and "\n" not in str(e.value)
    check_unchanged(recorded, "t.json", force=True)
    f.unlink()
    f.mkdir()                                    # replaced by a folder: gone as a file
    assert "is gone or unreadable" in changed(recorded)[0]
    with pytest.raises(ConfigError, match="files: must be a mapping"):
        check_unchanged(["m.pt"], "t.json")


@pytest.fixture
def learned_run(tmp_path):
    """A finished one-game tournament of a learned model (a copy of the shipped one) against random."""
    model = tmp_path / "model.pt"
    shutil.copyfile(SHIPPED, model)
    cfg = parse_config({"entrants": [{"name": "net", "agent": f"learned:{model}"}, "random"], "games": 1, "seed": 2})
    out = tmp_path / "run"
    run_tournament(cfg, out=out, progress=False, analysis=False)
    return cfg, out, model


def test_resuming_with_a_changed_model_file_is_refused_naming_it(learned_run, capsys):
    cfg, out, model = learned_run
    meta = json.loads((out / TOURNAMENT_META).read_text())
    assert meta["files"] == digests([str(model)])
    games = (out / GAMES).read_bytes()
    model.write_bytes(model.read_bytes() + b"\0")          # another file under the same entrant name
    with pytest.raises(ConfigError, match=f"{model} changed since the run began"):
        run_tournament(cfg, out=out, progress=False, analysis=False)
    assert (out / GAMES).read_bytes() == games
    res = run_tournament(cfg, out=out, progress=False, analysis=False, force=True)
    assert res["run"]["games_run"] == 0
    # the new content, knowingly
    assert json.loads((out / TOURNAMENT_META).read_text())["files"] == digests([str(model)])
    run_tournament(cfg, out=out, progress=False, analysis=False)                    # and now it is the run's


# ---- evaluate, levels and rules files -----------------------------------------------------------

def test_evaluate_records_its_files_and_refuses_another_run_over_them(tmp_path, capsys):
    model, rules = tmp_path / "m.pt", tmp_path / "mine.yaml"
    shutil.copyfile(SHIPPED, model)
    rules.write_text("extends: yacht\nname: mine\n")
    out = tmp_path / "ev"
    argv = ["evaluate", f"learned:{model}", "--games", "2", "--no-progress", "--rules", str(rules), "--out", str(out)]
    assert main(argv) == 0
    meta = json.loads((out / "evaluate.json").read_text())
    assert meta["files"] == digests([str(model), str(rules)])
    assert main(argv) == 0                                              # the same run again: replaced as it was
    capsys.readouterr()
    model.write_bytes(model.read_bytes() + b"\0")
    assert main(argv) == 2
    line = error_line(capsys)
    assert "evaluate.json: holds a run whose files changed since" in line and f"{model} changed" in line
    assert "--force" in line
    shutil.copyfile(SHIPPED, model)
    rules.write_text("extends: yacht\nname: mine\ndescription: edited\n")     # the file, if not the game
    assert main(argv) == 2
    assert f"{rules} changed since the run began" in error_line(capsys)
    assert main([*argv, "--force"]) == 0                               # knowingly: the new run replaces it
    assert json.loads((out / "evaluate.json").read_text())["files"] == digests([str(model), str(rules)])
    capsys.readouterr()
    assert main(["evaluate", "greedy", "--games", "2", "--no-progress", "--rules", str(rules), "--out", str(out)]) == 2
    assert "holds another run (agent " in error_line(capsys)


def test_levels_records_its_sources_and_refuses_another_run_over_them(tmp_path, capsys):
    model = tmp_path / "m.pt"
    shutil.copyfile(SHIPPED, model)
    out = tmp_path / "lv"
    argv = ["levels", "--only", "greedy", f"learned:{model}", "--games", "2", "--no-progress", "--out", str(out)]
    assert main(argv) == 0
    assert json.loads((out / "levels.json").read_text())["sources"] == digests([str(model)])
    capsys.readouterr()
    model.write_bytes(model.read_bytes() + b"\0")
    assert main(argv) == 2
    assert f"levels.json: holds a run whose files changed since: {model} changed" in error_line(capsys)
    shutil.copyfile(SHIPPED, model)
    assert main([*argv[:3], "random", *argv[4:]]) == 2
    assert "holds another run (specs " in error_line(capsys)


def test_a_tournament_names_the_rules_file_that_changed(tmp_path):
    rules = tmp_path / "mine.yaml"
    rules.write_text("extends: yacht\nname: mine\n")
    raw = {"entrants": ["greedy", "random"], "games": 1, "seed": 2, "rules": str(rules)}
    out = tmp_path / "run"
    run_tournament(parse_config(raw), out=out, progress=False, analysis=False)
    assert json.loads((out / TOURNAMENT_META).read_text())["files"] == digests([str(rules)])
    rules.write_text("extends: yacht\nname: mine\nrolls_per_turn: 2\n")
    with pytest.raises(ConfigError, match=f"holds a different tournament .*; {rules} changed since the run began"):
        run_tournament(parse_config(raw), out=out, progress=False, analysis=False)


def test_training_records_its_rules_file(tmp_path):
    from agents.training.config import parse_config as train_config
    from agents.training.run import run_files
    rules = tmp_path / "mine.yaml"
    rules.write_text("extends: yacht\nname: mine\n")
    cfg = train_config({"name": "t", "rules": str(rules)})
    assert run_files(cfg) == digests([str(rules)])



@pytest.mark.parametrize("kind, message", [
    ("fifo", "is a FIFO"), ("folder", "is a folder"), ("huge", "may have at most"), ("truncated", "is damaged"),
    ("device", "device"),
    ("not an object", "is damaged"), ("bad files", "files: must be a mapping"),
])
def test_a_planted_or_damaged_run_record_is_one_line_never_a_hang(tmp_path, kind, message):
    record = tmp_path / "evaluate.json"
    if kind in ("fifo", "folder", "device"):            # a device is endless: read, it would never end
        plant(record, kind)
    elif kind == "huge":
        with open(record, "wb") as f:
            f.truncate(MAX_RUN_RECORD_BYTES + 1)          # sparse: no disk used
    else:
        record.write_text({"truncated": '{"agent": "greedy", "fi', "not an object": "[1, 2]",
                           "bad files": '{"agent": "greedy", "files": ["a"]}'}[kind])
    with pytest.raises(ConfigError) as e:
        check_replace(record, {"agent": "greedy"}, {})
    assert message in str(e.value) and "\n" not in str(e.value), str(e.value)
    check_replace(record, {"agent": "greedy"}, {}, force=True)     # --force replaces whatever it is


def test_a_record_read_through_a_symlink_is_checked_and_a_link_is_never_written_through(tmp_path, capsys):
    out = tmp_path / "ev"
    out.mkdir()
    victim = tmp_path / "victim.json"
    victim.write_text(json.dumps({"agent": "random", "files": {}}))
    (out / "evaluate.json").symlink_to(victim)
    argv = ["evaluate", "greedy", "--games", "2", "--no-progress", "--out", str(out)]
    assert main(argv) == 2
    assert "holds another run (agent 'random'" in error_line(capsys)
    assert main([*argv, "--force"]) == 2                            # forced: the write refuses the link itself
    assert "link" in error_line(capsys)
    assert json.loads(victim.read_text()) == {"agent": "random", "files": {}}


def test_recorded_files_that_are_fifos_folders_or_links_never_hang_and_are_named(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    os.mkfifo("pipe.py")
    Path("dir.py").mkdir()
    Path("real.py").write_text("print()\n")
    Path("link.py").symlink_to("real.py")
    assert spec_files(["external:python pipe.py", "external:python dir.py", "external:python link.py"]) == ["link.py"]
    found = digests(["pipe.py", "dir.py", "link.py"])               # a FIFO and a folder are left out, no hang
    assert list(found) == ["link.py"] and found["link.py"] == digests(["real.py"])["real.py"]
    recorded = digests(["link.py"])
    Path("real.py").write_text("print(1)\n")                         # changed under the link
    assert "link.py changed since the run began" in changed(recorded)[0]
    os.unlink("link.py")
    os.mkfifo("link.py")                                             # replaced by a FIFO: gone, and no hang
    assert "link.py is gone or unreadable" in changed(recorded)[0]


def test_a_model_file_changed_while_evaluate_plays_is_refused_and_nothing_written(tmp_path, capsys, monkeypatch):
    import agents.evaluation as evaluation
    import yacht_arena.cli.evaluate as command
    model = tmp_path / "m.pt"
    shutil.copyfile(SHIPPED, model)
    real = evaluation.solitaire

    def swapped_under_the_run(*args, **kwargs):
        result = real(*args, **kwargs)
        model.write_bytes(model.read_bytes() + b"\0")          # replaced while the games were played
        return result
    monkeypatch.setattr(command, "solitaire", swapped_under_the_run)
    out = tmp_path / "ev"
    assert main(["evaluate", f"learned:{model}", "--games", "2", "--no-progress", "--out", str(out)]) == 2
    line = error_line(capsys)
    assert f"{model} changed since the run began" in line and "while the games were played" in line
    assert not (out / "evaluate.json").exists()


def test_a_model_file_changed_while_a_tournament_plays_stops_it_before_the_report(tmp_path, monkeypatch):
    import tournaments.run as run
    model = tmp_path / "model.pt"
    shutil.copyfile(SHIPPED, model)
    cfg = parse_config({"entrants": [{"name": "net", "agent": f"learned:{model}"}, "random"], "games": 1, "seed": 2})
    real = run._play

    def swapped_under_the_run(*args, **kwargs):
        played = real(*args, **kwargs)
        model.write_bytes(model.read_bytes() + b"\0")
        return played
    monkeypatch.setattr(run, "_play", swapped_under_the_run)
    out = tmp_path / "run"
    with pytest.raises(ConfigError, match=f"{model} changed since the run began .* while the games were played"):
        run_tournament(cfg, out=out, progress=False, analysis=False)
    assert len((out / GAMES).read_bytes().splitlines()) == cfg.total_games and not (out / "report.md").exists()
    monkeypatch.setattr(run, "_play", real)
    res = run_tournament(cfg, out=out, progress=False, analysis=False, force=True)      # knowingly
    assert res["run"]["games_run"] == 0 and (out / "report.md").exists()


@pytest.mark.parametrize("command, lock", [("evaluate", "evaluate.lock"), ("levels", "levels.lock")])
def test_a_second_run_writing_the_same_out_folder_is_refused_naming_the_first(tmp_path, capsys, command, lock):
    from yacht_env.safe_file import release_lock, take_lock

    out = tmp_path / "out"
    out.mkdir()
    first = take_lock(out / lock)            # a first run holding the folder
    args = ["evaluate", "greedy", "--games", "2"] if command == "evaluate" else \
        ["levels", "--only", "random", "greedy", "--games", "2"]
    try:
        assert main([*args, "--no-progress", "--out", str(out)]) == 2
    finally:
        release_lock(first)
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"another `yacht {command}` is writing this folder (pid {os.getpid()}" in err[0]
    assert sorted(p.name for p in out.iterdir()) == [lock]          # nothing else was written
    assert main([*args, "--no-progress", "--out", str(out)]) == 0   # the lock goes with its holder
