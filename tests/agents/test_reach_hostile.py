"""Agents asked for what they cannot reach end in one line naming what is reachable, before any game: level
targets above the optimum or below the dial's weakest play, and rule sets an agent cannot play (past the exact
solver's memory)."""
import re
from pathlib import Path

import pytest
from tests.solver_tables import PAST_MEMORY, past_memory_file

from yacht_arena.cli import main


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


def _big_rules(tmp_path):
    """A legal rule set past the exact solver's memory (`tests.solver_tables.past_memory`)."""
    return past_memory_file(tmp_path)


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
    monkeypatch.chdir(Path(__file__).resolve().parents[2])
    out = tmp_path / "out"
    assert main([*argv, "--rules", _big_rules(tmp_path), "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and who in err[0], err
    assert PAST_MEMORY in err[0] or "learned" in argv[1]
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
                                              "from the exact solver's table: rules 'big' have 222,298,112 solver "
                                              "states"):
            check_playable({spec: agents[spec]}, big, 3)


def test_yacht_play_refuses_an_opponent_that_cannot_play_the_rules(tmp_path, capsys, monkeypatch):
    import io
    monkeypatch.setattr("sys.stdin", io.StringIO("q\n"))
    assert main(["play", "--vs", "strong", "--rules", _big_rules(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [err[0]] and "agent 'strong' cannot play rules 'big' at 2 seats" in err[0]
