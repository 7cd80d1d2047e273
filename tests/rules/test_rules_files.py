"""Rule files and overrides: loading, validation messages, extends chains, preset names, the cache."""
import os
import shlex

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from yacht_arena.cli import main
from yacht_env.rules import RuleError, command_args, load, parse_sets, presets, rules_block, rules_hash


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


# one bad rule file a row: the rows are alike by design (duplicates lists them as twins)
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
    ("extends: yacht\nname: [1]\n", "name", "must be text, got [1]"),
    ("extends: yacht\nextends: classic\n", "", "key 'extends' appears twice"),
    ("extends: [yacht, classic]\n", "extends", "must be one preset name or one path to a rules file, got ['yacht'"),
    ("extends: 3\n", "extends", "got 3"),
    ("boxes: [{id: s, kind: straight, runs: [[true, 2]]}]\njoker: none\nextra_yacht_bonus: 0\n"
     "upper_bonus: false\n", "boxes.s.runs", "length: N or runs"),
    ("extends: yacht\nrolls_per_turn: .nan\n", "rolls_per_turn", "got nan"),
    ("extends: yacht\ncolumns: .inf\n", "columns", "got inf"),
    ("extends: yacht\nextra_yacht_bonus: 1.0e+400\n", "extra_yacht_bonus", "got inf"),
    ("extends: yacht\nupper_bonus: {threshold: 99999999999999999999}\n", "upper_bonus.threshold", "from 0 to 105"),
    ("boxes: [{id: p, kind: pairs, count: 3}]\nupper_bonus: false\njoker: none\nextra_yacht_bonus: 0\n",
     "boxes.p.count", "3 pairs of different faces need 6 dice"),
    ("extends: yatzy\nforced_order: sometimes\n", "forced_order", "true (boxes filled top to bottom) or false"),
    ("extends: yacht\nforced_order: true\n", "forced_order", "with forced_order, joker must be none"),
])
def test_bad_rule_files_name_file_key_and_allowed(tmp_path, text, key, allowed):
    p = tmp_path / "bad.yaml"
    p.write_text(text)
    with pytest.raises(RuleError) as e:
        load(str(p))
    msg = str(e.value)
    assert msg.startswith(str(p)) and (not key or f": {key}: " in msg) and allowed in msg


@pytest.mark.parametrize("text, problem", [
    ("key: [unclosed\n", "not valid YAML: expected ',' or ']', but got '<stream end>' (line 2, column 1)"),
    ("base: &b {joker: free}\nother: *b\n", "anchors and aliases (&name, *name) are not allowed; write the value "
                                             "out (line 1, column 7)"),
    ("[" * 100 + "]" * 100, "nested deeper than 32 levels (line 1, column 33)"),
])
def test_unreadable_rule_files(tmp_path, text, problem):
    p = tmp_path / "bad.yaml"
    p.write_text(text)
    with pytest.raises(RuleError) as e:
        load(str(p))
    assert str(e.value) == f"{p}: {problem}"


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


def test_extends_itself_and_two_file_cycle(tmp_path):
    a, b = tmp_path / "a.yaml", tmp_path / "b.yaml"
    a.write_text("extends: a.yaml\n")
    with pytest.raises(RuleError) as e:
        load(a)
    assert str(e.value) == f"{a}: extends: a cycle: {a} -> {a}"
    a.write_text("extends: ./b.yaml\njoker: free\n")
    b.write_text(f"extends: {a}\n")
    with pytest.raises(RuleError) as e:
        load(str(a))
    assert str(e.value) == f"{b}: extends: a cycle: {a} -> {b} -> {a}"


def test_symlink_loop_and_long_chains(tmp_path):
    (tmp_path / "loop.yaml").symlink_to(tmp_path / "loop2.yaml")
    (tmp_path / "loop2.yaml").symlink_to(tmp_path / "loop.yaml")
    with pytest.raises(RuleError, match="loop.yaml: cannot read the rules file"):
        load(tmp_path / "loop.yaml")
    for i in range(20):
        (tmp_path / f"c{i}.yaml").write_text(f"extends: c{i + 1}.yaml\n" if i < 19 else "extends: yacht\n")
    with pytest.raises(RuleError, match="extends: a chain of more than 16 rule files"):
        load(tmp_path / "c0.yaml")
    assert load(tmp_path / "c5.yaml").boxes == load("yacht").boxes


def test_relative_extends_is_taken_from_the_file_folder(tmp_path, monkeypatch):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "base.yaml").write_text("extends: classic\nrolls_per_turn: 2\n")
    (tmp_path / "sub" / "mine.yaml").write_text("extends: base.yaml\nname: mine\n")
    (tmp_path / "base.yaml").write_text("extends: yacht\nrolls_per_turn: 4\n")   # a decoy in the working folder
    monkeypatch.chdir(tmp_path)
    r = load("sub/mine.yaml")
    assert (r.name, r.rolls_per_turn, len(r.boxes)) == ("mine", 2, 12)
    (tmp_path / "sub" / "base.yaml").unlink()
    with pytest.raises(RuleError, match=r"^sub/base.yaml: no such rules file$"):
        load("sub/mine.yaml")


def test_a_stray_file_or_folder_never_shadows_a_preset(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "yacht").mkdir()
    (tmp_path / "classic").write_text("not yaml: [\n")
    (tmp_path / "yacht.yaml").write_text("extends: classic\nname: local\n")
    assert load("yacht") == load("yacht", joker="forced") and len(load("yacht").boxes) == 13
    assert load("classic").name == "classic"
    assert load("yacht.yaml").name == load("./yacht.yaml").name == "local"
    with pytest.raises(RuleError, match="^mine: rules: no such rule set; presets: cheerio, .*; a file is named with "
                                        r"a path or a .yaml suffix \(./mine.yaml\)$"):
        load("mine")
    with pytest.raises(RuleError, match=r"^mine.yaml: no such rules file$"):
        load("mine.yaml")
    with pytest.raises(RuleError, match="is a folder, not a rules file"):
        load("./yacht")
    assert main(["rules", "--rules", "yacht", "--json"]) == 0


def test_cache_follows_the_file_not_the_name(tmp_path, monkeypatch):
    for d, rolls in (("one", 2), ("two", 4)):
        (tmp_path / d).mkdir()
        (tmp_path / d / "r.yaml").write_text(f"extends: base.yaml\nrolls_per_turn: {rolls}\n")
        (tmp_path / d / "base.yaml").write_text("extends: yacht\n")
    monkeypatch.chdir(tmp_path / "one")
    assert load("r.yaml").rolls_per_turn == 2
    monkeypatch.chdir(tmp_path / "two")
    assert load("r.yaml").rolls_per_turn == 4
    base = tmp_path / "two" / "base.yaml"
    base.write_text("extends: classic\n")       # a file further up the chain changes
    os.utime(base, ns=(1, 1))
    assert len(load("r.yaml").boxes) == 12


def test_set_values_use_the_bounded_reader():
    assert parse_sets(["name=2024-01-01", "joker=free"]) == {"name": "2024-01-01", "joker": "free"}
    with pytest.raises(RuleError, match="^--set joker: anchors and aliases"):
        parse_sets(["joker=&a [*a]"])
    with pytest.raises(RuleError, match="^--set joker: nested deeper than 32"):
        parse_sets(["joker=" + "[" * 50])
    with pytest.raises(RuleError, match="expected key=value"):
        parse_sets(["=3"])
    with pytest.raises(RuleError, match="boxes are changed one field at a time: boxes.ID.FIELD"):
        load("yacht", boxes=[])
    with pytest.raises(RuleError, match=r"^yacht \(override\): extends: unknown key; allowed: name, description, "
                                        r"upper_bonus, .*, boxes.ID.FIELD$"):
        load("yacht", extends="classic")


def test_dicts_and_odd_arguments():
    r = load({"extends": "classic", "rolls_per_turn": 2})
    assert r.rolls_per_turn == 2 and len(r.boxes) == 12
    with pytest.raises(RuleError, match="must hold only mappings, lists, text, numbers"):
        load({"extends": "yacht", "name": object()})
    with pytest.raises(RuleError, match="a preset name, a rules file path, a mapping or a RuleSet, got 3"):
        load(3)
    with pytest.raises(RuleError, match="must name a preset or a rules file"):
        load("  ")


def test_rules_block_names_name_overrides_and_hash():
    r = load("yacht", joker="free")
    assert rules_block(r, {"joker": "free"}) == {"name": "yacht", "set": {"joker": "free"}, "hash": rules_hash(r)}
    assert rules_block(load("verhoeff"))["hash"] != rules_block(load("yacht"))["hash"]


rule_values = st.one_of(st.none(), st.booleans(), st.integers(-3, 200), st.floats(), st.text(max_size=8),
                        st.sampled_from(["sum", "matching", "forced", "free", "share", "yacht", "classic", "upper"]),
                        st.lists(st.integers(0, 7), max_size=6), st.dictionaries(st.sampled_from(
                            ["threshold", "points", "min", "max", "x"]), st.integers(-1, 200), max_size=3))
box = st.fixed_dictionaries({"id": st.sampled_from(["ones", "a", "yacht", "Bad", "s"]),
                             "kind": st.sampled_from(["upper", "of_a_kind", "full_house", "two_pairs", "straight",
                                                      "yacht", "chance", "dragon"])},
                            optional={k: rule_values for k in ("face", "count", "points", "runs", "length",
                                                               "five_alike", "colour")})
rule_dict = st.dictionaries(st.sampled_from(["name", "description", "extends", "upper_bonus", "extra_yacht_bonus",
                                             "joker", "rolls_per_turn", "columns", "teams", "tiebreak", "players",
                                             "full_house_flat", "bonus"]), rule_values, max_size=6)


@settings(max_examples=300, deadline=None)
@given(rule_dict, st.lists(box, max_size=4) | st.none())
def test_any_rule_file_loads_or_raises_one_rule_error(tmp_path_factory, data, boxes):
    if boxes is not None:
        data = {**data, "boxes": boxes}
    path = tmp_path_factory.mktemp("h") / "r.yaml"
    path.write_text(yaml.safe_dump(data))
    try:
        rules = load(path)
    except RuleError as e:
        assert "\n" not in str(e) and e.source and e.problem
        return
    assert isinstance(rules.name, str) and 1 <= len(rules.boxes) <= 20 and 1 <= rules.rolls_per_turn <= 5


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.sampled_from(["joker", "rolls_per_turn", "columns", "upper_bonus.points", "players.max",
                                        "boxes.yacht.points", "boxes.nope.points", "teams", "tiebreak", "colour",
                                        "boxes", "upper_bonus", "players.min.x"]), rule_values, max_size=4))
def test_any_overrides_load_or_raise_one_rule_error(overrides):
    try:
        load("yacht", **overrides)
    except RuleError as e:
        assert "\n" not in str(e)


@pytest.mark.parametrize("changes", [{}, {"saved_rolls": 2}, {"boxes.chance.points": 30}, {"forced_order": True},
                                     {"joker": "free", "first_player": "roll_off", "players": {"min": 2, "max": 4}},
                                     {"upper_bonus": False}, {"boxes.full_house.five_alike": True}])
def test_command_args_name_the_rules_as_changed(changes):
    """`command_args` gives the command line that loads the same rules: its source and a --set per change."""
    rules = load("yatzy", **changes)
    args = shlex.split(command_args(rules))
    assert args[:2] == ["--rules", "yatzy"] and args[2::2] == ["--set"] * len(changes)
    assert rules_hash(load(args[1], **parse_sets(args[3::2]))) == rules_hash(rules)


def test_command_args_name_rules_made_from_a_dict_by_their_preset():
    """A web table rebuilds its rules from their dict: the command line names the preset of their name."""
    assert command_args(load(load("maxi").to_dict())) == "--rules maxi"
    assert command_args(load(load("yatzy", saved_rolls=2).to_dict())) == "--rules yatzy --set saved_rolls=2"
