"""Rule files and overrides: loading, validation messages."""
import pytest

from yacht_env.rules import RuleError, load, parse_sets, presets, rules_hash


def test_presets_load_and_describe():
    for name in presets():
        r = load(name)
        assert r.name == name and r.boxes and r.description


def test_overrides_and_dotted_keys():
    r = load("yacht", joker="free", rolls_per_turn=2, **{"upper_bonus.points": 50})
    assert (r.joker, r.rolls_per_turn, r.upper_bonus) == ("free", 2, 50)
    assert load("yacht", **{"boxes.full_house.points": 30}).score("full_house", [1, 1, 2, 2, 2]) == 30
    assert parse_sets(["joker=free", "columns=2", "extra_yacht_bonus=false"]) == {
        "joker": "free", "columns": 2, "extra_yacht_bonus": False}


def test_switch_off_removes_bonus_and_joker():
    r = load("yacht", extra_yacht_bonus=False)
    assert (r.extra_yacht_bonus, r.joker) == (0, "none")


def test_hash_ignores_name_but_not_rules():
    assert rules_hash(load("yacht")) != rules_hash(load("verhoeff"))
    assert rules_hash(load("yacht")) == rules_hash(load(load("yacht").to_dict() | {"name": "x"}))


def test_load_from_path_and_extends(tmp_path):
    p = tmp_path / "mine.yaml"
    p.write_text("extends: classic\nname: mine\nrolls_per_turn: 2\n")
    r = load(str(p))
    assert r.name == "mine" and r.rolls_per_turn == 2 and len(r.boxes) == 12


@pytest.mark.parametrize("text,key,allowed", [
    ("extends: yacht\njoker: sometimes\n", "joker", "none, forced, free, verhoeff, kirakuken"),
    ("extends: yacht\nrolls_per_turn: 0\n", "rolls_per_turn", "whole number from 1 to 5"),
    ("extends: yacht\ncolumns: 4\n", "columns", "from 1 to 3"),
    ("extends: yacht\nbonus: 3\n", "bonus", "unknown key; allowed:"),
    ("extends: yacht\nplayers: {min: 5, max: 2}\n", "players", "min (5) is more than max (2)"),
    ("extends: yacht\ntiebreak: coin\n", "tiebreak", "share, sudden_death"),
    ("extends: yacht\nteams: 1\n", "teams", "0 for no teams"),
    ("boxes: [{id: ones, kind: upper, face: 7}]\n", "boxes.ones.face", "from 1 to 6"),
    ("boxes: [{id: a, kind: dragon}]\n", "boxes.a.kind", "must be one of upper"),
    ("boxes: [{id: a, kind: chance}, {id: a, kind: chance}]\n", "boxes", "repeated: a"),
    ("boxes: [{id: a, kind: chance}]\nupper_bonus: false\njoker: forced\n", "joker", "needs a yacht box"),
    ("boxes: [{id: a, kind: chance}]\nupper_bonus: {threshold: 63, points: 35}\njoker: none\n"
     "extra_yacht_bonus: 0\n", "upper_bonus", "needs upper boxes"),
    ("boxes: [{id: s, kind: straight, runs: [[1, 9]]}]\njoker: none\nextra_yacht_bonus: 0\n"
     "upper_bonus: false\n", "boxes.s.runs", "length: N or runs"),
    ("boxes: [{id: Big, kind: chance}]\n", "boxes[0].id", "snake_case"),
    ("- just\n- a list\n", "top level", "mapping"),
    ("key: [unclosed\n", "yaml", "not valid YAML"),
])
def test_bad_rule_files_name_file_key_and_allowed(tmp_path, text, key, allowed):
    p = tmp_path / "bad.yaml"
    p.write_text(text)
    with pytest.raises(RuleError) as e:
        load(str(p))
    msg = str(e.value)
    assert msg.startswith(str(p)) and f": {key}: " in msg and allowed in msg


def test_bad_overrides():
    with pytest.raises(RuleError, match=r"\(override\): colour: unknown key"):
        load("yacht", colour="red")
    with pytest.raises(RuleError, match="no box 'nope' to change"):
        load("yacht", **{"boxes.nope.points": 1})
    with pytest.raises(RuleError, match="expected key=value"):
        parse_sets(["joker"])
    with pytest.raises(RuleError, match="no such rule set; presets: cheerio"):
        load("nonexistent")
    with pytest.raises(RuleError, match="no full_house box"):
        load("yacht", **{"boxes.full_house.kind": "chance"}, full_house_flat=25)
