"""Values out of reach end in one line naming what is reachable, before any game: level targets above the
optimum or below the dial's weakest play."""
import pytest

from tournaments.cli import main


@pytest.mark.parametrize("spec, message", [
    ("level?mean=400", "agent level (mean=400): target mean=400 is above the optimal expected score under rules "
                       "'yacht' (254.59)"),
    ("level?mean=10", "agent level (mean=10): target mean=10 is out of the dial's reach under rules 'yacht': "
                      "strengths 0 .. 1 give"),
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
    assert err == ["yacht tournament: error: entrant 'level?mean=400': agent level (mean=400): target mean=400 is "
                   "above the optimal expected score under rules 'yacht' (254.59)"]
    assert not out.exists()
