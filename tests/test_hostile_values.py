"""Values out of reach end in one line naming what is reachable, before any game: level targets above the
optimum or below the dial's weakest play."""
import re
from pathlib import Path

import pytest

from tournaments.cli import main


@pytest.mark.parametrize("spec, message", [
    ("level?mean=400", ("agent level (mean=400): target mean=400 is above the optimal expected score under "
                        "rules 'yacht' (254.59)")),
    ("level?mean=10", ("agent level (mean=10): target mean=10 is out of the dial's reach under rules 'yacht': "
                       "strengths 0 .. 1 give")),
])
def test_a_level_target_out_of_reach_is_one_line_before_any_game(tmp_path, capsys, spec, message):
    out = tmp_path / "ev"
    assert main(["evaluate", spec, "--games", "2", "--no-progress", "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"yacht evaluate: error: {message}"), err
    assert not out.exists()


def test_a_tournament_entrant_out_of_reach_is_refused_before_any_game(tmp_path, capsys):
    config = tmp_path / "t.yaml"
    config.write_text('entrants: ["level?mean=400", random]\ngames: 1\n')
    out = tmp_path / "run"
    assert main(["tournament", str(config), "--out", str(out), "--quiet", "--workers", "1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [("yacht tournament: error: entrant 'level?mean=400': agent level (mean=400): target mean=400 "
                    "is above the optimal expected score under rules 'yacht' (254.59)")]
    assert not out.exists()


@pytest.mark.parametrize("override, message", [
    ("boxes.ones.points=5", ("yacht (override): boxes.ones.points: an upper box does not use points (its keys: "
                             "id, kind, face); nothing would change")),
    ("boxes.chance.face=3", "boxes.chance.face: a chance box does not use face"),
    ("boxes.yacht.count=4", "boxes.yacht.count: a yacht box does not use count"),
])
def test_a_rule_override_that_cannot_apply_is_refused_not_ignored(capsys, override, message):
    assert main(["odds", "--set", override]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0], err


def test_a_straights_runs_override_replaces_its_length():
    from yacht_env.rules import load, parse_sets
    rules = load("yacht", **parse_sets(["boxes.large_straight.runs=[[1,2,3,4,5]]"]))
    box = next(b for b in rules.boxes_spec if b.id == "large_straight")
    assert box.runs == ((1, 2, 3, 4, 5),)


def test_a_rule_file_with_a_key_its_box_does_not_use_is_refused(tmp_path):
    from yacht_env.rules import RuleError, load
    path = tmp_path / "r.yaml"
    path.write_text("extends: yacht\nboxes:\n  - {id: ones, kind: upper, face: 1, points: 50}\n"
                    "  - {id: chance, kind: chance}\n")
    with pytest.raises(RuleError, match=r"boxes.ones.points: an upper box does not use points"):
        load(str(path))


DEGENERATE = {
    "every box scores 0": ("boxes:\n  - {id: yacht, kind: yacht, points: 0}\n"
                           "  - {id: chance, kind: chance, points: 0}\n"),
    "a single box": "boxes:\n  - {id: chance, kind: chance}\n",
}


@pytest.mark.parametrize("name", list(DEGENERATE))
def test_degenerate_legal_rules_play_analyse_and_report(tmp_path, capsys, name):
    rules = tmp_path / "r.yaml"
    rules.write_text(f"name: degenerate\n{DEGENERATE[name]}upper_bonus: {{threshold: 0, points: 0}}\n"
                     "extra_yacht_bonus: 0\njoker: none\n")
    config = tmp_path / "t.yaml"
    config.write_text("entrants: [random, greedy]\ngames: 1\n")
    out = tmp_path / "run"
    argv = ["tournament", str(config), "--rules", str(rules), "--out", str(out), "--quiet", "--workers", "1"]
    assert main(argv) == 0
    assert (out / "report.md").read_text().count("# ") >= 1 and (out / "report.html").exists()
    assert main(["analyze", str(out)]) == 0
    assert main(["show", str(out), "1"]) == 0
    text = capsys.readouterr().out
    assert ("accuracy –" in text) == (name == "every box scores 0")


def test_check_memory_refuses_what_cannot_fit_and_passes_what_can(monkeypatch):
    import yacht_env.config as config
    from yacht_env.config import ConfigError, check_memory
    with pytest.raises(ConfigError, match=r"--games: 9 games would need about 8.0 GiB of memory and this machine "
                                          r"has 1.0 GiB available"):
        check_memory("command line", "--games", 8 << 30, "9 games", have=1 << 30)
    check_memory("command line", "--games", 1 << 30, "9 games", have=1 << 30)
    monkeypatch.setattr(config, "available_memory", lambda: None)
    check_memory("command line", "--games", 1 << 60, "9 games")    # a machine that cannot tell: no refusal


@pytest.mark.parametrize("argv", [["evaluate", "random", "--games", "100000", "--out", "OUT", "--no-progress"],
                                  ["levels", "--games", "100000", "--no-progress"]])
def test_sizes_that_cannot_fit_in_memory_are_refused_before_work_starts(monkeypatch, tmp_path, capsys, argv):
    import yacht_env.config as config
    monkeypatch.setattr(config, "available_memory", lambda: 1 << 30)    # a machine with 1 GiB to give
    argv = [str(tmp_path / "out") if a == "OUT" else a for a in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "would need about" in err[0] and "1.0 GiB available" in err[0], err
    assert not (tmp_path / "out").exists()


def _big_rules(tmp_path):
    """A legal rule set of 16 boxes: past the exact solver's 15."""
    src = (Path(__file__).resolve().parents[1] / "yacht_env" / "rules" / "presets" / "yacht.yaml").read_text()
    extra = "".join(f"\n  - {{id: chance{i}, kind: chance}}" for i in range(2, 5))
    path = tmp_path / "big.yaml"
    path.write_text(src.replace("name: yacht", "name: big").replace("  - {id: chance, kind: chance}",
                                                                    "  - {id: chance, kind: chance}" + extra))
    return str(path)


@pytest.mark.parametrize("argv, who", [
    (["evaluate", "strong", "--games", "2", "--no-progress"], "agent 'strong' cannot play rules 'big' at 1 seat"),
    (["evaluate", "normal", "--games", "2", "--no-progress"], "agent 'normal' cannot play rules 'big' at 1 seat"),
    (["evaluate", "strong?goal=win", "--games", "2", "--no-progress"], "agent 'strong?goal=win' cannot play"),
    (["levels", "--only", "greedy", "strong", "--games", "2", "--no-progress"], "agent 'strong' cannot play"),
    (["match", "strong", "greedy", "--max-games", "2", "--quiet"], "entrant 'strong': cannot play rules 'big' at 2"),
    (["evaluate", "learned:models/bc-strong.pt", "--games", "2", "--no-progress"], "cannot play rules 'big' ("),
])
def test_rules_an_agent_cannot_play_are_refused_in_one_line_before_any_game(tmp_path, capsys, monkeypatch,
                                                                            argv, who):
    monkeypatch.chdir(Path(__file__).resolve().parents[1])
    out = tmp_path / "out"
    assert main([*argv, "--rules", _big_rules(tmp_path), "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and who in err[0], err
    assert "exact solver handles at most 15" in err[0] or "learned" in argv[1]
    assert not out.exists()


def test_check_rules_is_cheap_and_general(tmp_path):
    from agents.base import check_playable
    from agents.registry import make_agent
    from yacht_env.config import ConfigError
    from yacht_env.rules import load
    agents = {s: make_agent(s) for s in ("random", "greedy", "strong", "normal", "level?mean=200")}
    check_playable(agents, load("yacht"), 2)
    check_playable(agents, load("yacht", columns=3), 4)          # column-additive: the one column is solvable
    big = load(_big_rules(tmp_path))
    check_playable({s: agents[s] for s in ("random", "greedy")}, big, 3)   # they play any rule set
    for spec in ("strong", "normal", "level?mean=200"):
        with pytest.raises(ConfigError, match=f"agent '{re.escape(spec)}' cannot play rules 'big' at 3 seats: it plays "
                                              "from the exact solver's table: rules 'big' have 16 boxes"):
            check_playable({spec: agents[spec]}, big, 3)


def test_a_tournament_that_cannot_fit_in_memory_is_refused_before_work_starts(monkeypatch, tmp_path, capsys):
    import yacht_env.config as config
    monkeypatch.setattr(config, "available_memory", lambda: 1 << 30)
    cfg = tmp_path / "t.yaml"
    cfg.write_text("entrants: [random, greedy, strong, normal]\ngames: 40000\nseats: 2\n")
    out = tmp_path / "run"
    assert main(["tournament", str(cfg), "--out", str(out), "--quiet", "--workers", "2"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "tournament: games: 480,000 games of 2 seats on 2 worker(s) would need about" in err[0]
    assert "1.0 GiB available" in err[0] and "YACHT_MEMORY_CHECK=off" in err[0]
    assert not out.exists()
    from tournaments.config import parse_config
    from tournaments.run import memory_needed
    small = parse_config({"entrants": ["random", "greedy"], "games": 10})
    big = parse_config({"entrants": ["random", "greedy", "strong", "normal"], "games": 40000})
    assert memory_needed(small, 1) < 1 << 30 < memory_needed(big, 2)
    monkeypatch.setenv("YACHT_MEMORY_CHECK", "off")
    config.check_memory("tournament", "games", 1 << 60, "a lot")       # the override goes on knowingly


def test_a_training_run_that_cannot_fit_in_memory_is_refused_before_anything_is_built(monkeypatch, tmp_path,
                                                                                      capsys):
    import yacht_env.config as config
    monkeypatch.setattr(config, "available_memory", lambda: 1 << 30)
    out = tmp_path / "run"
    argv = ["train", "configs/train/smoke.yaml", "--out", str(out), "--no-progress", "--set", "n_envs=8192",
            "--set", "ppo.n_steps=256"]
    monkeypatch.chdir(Path(__file__).resolve().parents[1])
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "n_envs: 8,192 envs x 256 steps a rollout" in err[0] and "would need about" in err[0]
    assert not out.exists()


def test_yacht_play_refuses_an_opponent_that_cannot_play_the_rules(tmp_path, capsys, monkeypatch):
    import io
    monkeypatch.setattr("sys.stdin", io.StringIO("q\n"))
    assert main(["play", "--vs", "strong", "--rules", _big_rules(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [err[0]] and "agent 'strong' cannot play rules 'big' at 2 seats" in err[0]
