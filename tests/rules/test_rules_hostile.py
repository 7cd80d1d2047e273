"""Rule sets at the edge: an override or a rule-file key that cannot apply is refused, never ignored, and
degenerate but legal rule sets play, analyse and report."""
import pytest

from yacht_arena.cli import main


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
