"""Values out of reach end in one line naming what is reachable, before any game: level targets above the
optimum or below the dial's weakest play."""
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
