"""The config layer (`yacht_env.config`): the bounded YAML reader, the typed checks, the error family."""
import math
import os
import pickle
import tracemalloc

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.registry import AgentSpecError
from agents.training.errors import ModelFileError
from yacht_arena.cli.options import USER_ERRORS
from yacht_env.config import (MAX_DEPTH, MAX_FILE_BYTES, ConfigError, choice, flag, items, mapping,
                              names_a_file, number, parse_yaml, read_yaml, slug, text, whole)
from yacht_env.rules import RuleError, load

BILLION_LAUGHS = """\
a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
"""


def refused(text_, match):
    with pytest.raises(ConfigError, match=match):
        parse_yaml(text_, "t.yaml")


def test_alias_bomb_fails_at_once_in_bounded_memory(tmp_path):
    assert len(BILLION_LAUGHS) < 700
    path = tmp_path / "bomb.yaml"
    path.write_text(BILLION_LAUGHS)
    tracemalloc.start()
    try:
        with pytest.raises(ConfigError) as e:
            read_yaml(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert str(e.value) == (f"{path}: anchors and aliases (&name, *name) are not allowed; write the value out "
                            "(line 1, column 4)")
    assert peak < 2_000_000


@pytest.mark.parametrize("text_", ["a: &x 1\n", "a: *x\n", "a: &x {b: 1}\nc: *x\n", "<<: *base\n"])
def test_every_anchor_and_alias_is_refused(text_):
    refused(text_, "anchors and aliases")


@pytest.mark.parametrize("text_", ["[" * 100_000, "{a: " * 5000, "- " * 40 + "1\n",
                                   "".join(f"{'  ' * i}k{i}:\n" for i in range(40)) + "  " * 40 + "v\n"])
def test_deep_nesting_is_refused_without_recursion_error(text_):
    refused(text_, f"nested deeper than {MAX_DEPTH} levels")


def test_nesting_up_to_the_limit_is_read():
    assert parse_yaml("[" * (MAX_DEPTH - 1) + "]" * (MAX_DEPTH - 1)) is not None


@pytest.mark.parametrize("text_, match", [
    ("games: 1\ngames: 2\n", r"key 'games' appears twice \(first on line 1\) \(line 2, column 1\)"),
    ("1: a\n", r"keys must be text, got 1 \(quote it\)"),
    ("yes: a\n", "keys must be text, got True"),
    ("? [a, b]\n: c\n", "keys must be text, got \\['a', 'b'\\]"),
    ("a: !!set {x, y}\n", "the tag !!set is not allowed"),
    ("a: !!binary aGVsbG8=\n", "the tag !!binary is not allowed"),
    ("a: !!omap [{x: 1}]\n", "the tag !!omap is not allowed"),
    ("a: !!python/object:os.system ls\n", "not valid YAML: could not determine a constructor"),
    ("a: !custom 3\n", "not valid YAML: could not determine a constructor"),
    ("a: " + "9" * 5000 + "\n", "a number with too many digits"),
    ("a: [unclosed\n", r"not valid YAML: expected ',' or '\]'.*\(line 2, column 1\)"),
    ("a: b\n c: d: e\n", "not valid YAML: mapping values are not allowed here"),
    ("\t- a\n", "not valid YAML"),
])
def test_odd_yaml_is_refused_with_its_line(text_, match):
    refused(text_, match)


def test_plain_data_only():
    data = parse_yaml("d: 2024-01-01\nt: 2001-12-14t21:59:43.10-05:00\ne: =\nn: .nan\ni: .inf\nx: 0x1F\n"
                      "m: {<<: {a: 1}, b: 2}\n")
    assert data["d"] == "2024-01-01" and data["t"].startswith("2001") and data["e"] == "="
    assert math.isnan(data["n"]) and data["i"] == math.inf and data["x"] == 31 and data["m"] == {"a": 1, "b": 2}
    assert parse_yaml("") is None and parse_yaml("\ufeffa: 1") == {"a": 1}


def test_files(tmp_path):
    with pytest.raises(ConfigError, match=r"absent.yaml: no such rules file$"):
        read_yaml(tmp_path / "absent.yaml", "rules file")
    with pytest.raises(ConfigError, match="is a folder, not a file"):
        read_yaml(tmp_path)
    fifo = tmp_path / "fifo.yaml"
    os.mkfifo(fifo)
    with pytest.raises(ConfigError, match="not a regular file"):
        read_yaml(fifo)
    with pytest.raises(ConfigError, match="not a regular file"):
        read_yaml("/dev/zero")
    with pytest.raises(ConfigError, match="not a valid path"):
        read_yaml("a\0b.yaml")
    big = tmp_path / "big.yaml"
    big.write_text("a: 1\n" + "#" * MAX_FILE_BYTES)
    with pytest.raises(ConfigError, match=f"may have at most {MAX_FILE_BYTES:,}"):
        read_yaml(big)
    latin = tmp_path / "latin.yaml"
    latin.write_bytes(b"name: caf\xe9\n")
    with pytest.raises(ConfigError, match=r"not UTF-8 text \(byte 9\)"):
        read_yaml(latin)
    with pytest.raises(ConfigError, match="longer than"):
        parse_yaml("a" * (MAX_FILE_BYTES + 1))


def test_checks_name_source_key_and_what_is_allowed():
    def msg(check, *args):
        with pytest.raises(ConfigError) as e:
            check("t.yaml", "k", *args)
        return str(e.value)

    assert whole("s", "k", 3, 1, 5) == 3
    for bad in (True, 3.0, "3", None, 0, 6):
        assert msg(whole, bad, 1, 5) == f"t.yaml: k: must be a whole number from 1 to 5, got {bad!r}"
    assert msg(whole, 2**70, 0, 2**63 - 1).endswith("from 0 to 9,223,372,036,854,775,807, got 1180591620717411303424")
    assert number("s", "k", 2, 0, 5) == 2.0 and isinstance(number("s", "k", 2, 0, 5), float)
    for bad in (math.nan, math.inf, -math.inf, -1, 0, 1e300, True, "1"):
        assert "must be a finite number above 0 and at most 86,400, got" in msg(number, bad, 0, 86_400, True)
    assert msg(number, -0.5, 0, 1) == "t.yaml: k: must be a finite number from 0 to 1, got -0.5"
    assert msg(choice, "x", ("a", "b")) == "t.yaml: k: must be one of a, b, got 'x'"
    assert msg(choice, [1], ("a", "b")).endswith("got [1]")
    assert msg(flag, "yes") == "t.yaml: k: must be true or false, got 'yes'"
    assert text("s", "k", "  ok ") == "ok"
    assert msg(text, 7) == "t.yaml: k: must be text, got 7 (quote it)"
    assert msg(text, "  ") == "t.yaml: k: must not be empty"
    assert msg(text, "a\x00b") == "t.yaml: k: must not contain control characters, got 'a\\x00b'"
    assert msg(text, "a\u202eb") .endswith("must not contain control characters, got 'a\\u202eb'")
    assert msg(text, "x" * 201) == "t.yaml: k: must be at most 200 characters, got 201"
    assert text("s", "k", "two\nlines", lines=True) == "two\nlines"
    assert msg(mapping, [1]) == "t.yaml: k: must be a mapping, got a list"
    assert msg(mapping, {"b": 1}, ("a",)) == "t.yaml: k.b: unknown key; allowed: a"
    assert msg(mapping, {"overrides": {}}, ("rules", "set")) == (
        "t.yaml: k.overrides: renamed: write `set:` instead (rule overrides are `set:` in every config, as "
        "`--set` on the command line)")
    assert msg(items, "x", 1, 3) == "t.yaml: k: must be a list, got 'x'"
    assert msg(items, [], 1, 3) == "t.yaml: k: must have 1 to 3 items, got 0"


def test_one_error_family():
    for cls in (RuleError, AgentSpecError, ModelFileError):
        assert issubclass(cls, ConfigError) and issubclass(cls, USER_ERRORS)
    assert issubclass(ConfigError, ValueError)
    e = RuleError("f.yaml", "joker", "must be one of none")
    assert (str(e), e.source, e.key, e.problem) == ("f.yaml: joker: must be one of none", "f.yaml", "joker",
                                                    "must be one of none")
    assert str(ConfigError("just a problem")) == "just a problem" and str(ConfigError("f", "p")) == "f: p"
    back = pickle.loads(pickle.dumps(e))
    assert type(back) is RuleError and str(back) == str(e) and back.key == "joker"


def test_preset_names_and_file_names():
    for spec in ("yacht", "my-rules", "x.y", "yacht.txt"):
        assert not names_a_file(spec)
    for spec in ("./yacht", "rules/x", "/abs/x", "yacht.yaml", "X.YML", "rules\\x"):
        assert names_a_file(spec)


def test_slug():
    assert slug("a.b") == slug("a_b") == slug("A B") == slug("a__b") == "a_b"
    assert slug("ﬁsh") == slug("FISH") == "fish"          # NFKC and case folding
    assert slug("Łukasz") == "łukasz" and slug("...") == "_"
    assert slug("strong?skill=0.5") == "strong_skill_0_5"


yaml_chars = st.sampled_from(list("ab01 :-[]{},&*!?|>'\"#%@`\n\t.~=<") + ["\u00e9", "\ufeff", "\x00", "\x85"])


@settings(max_examples=400, deadline=None)
@given(st.lists(yaml_chars, max_size=80).map("".join) | st.text(max_size=60))
def test_any_text_is_plain_data_or_one_config_error(text_):
    try:
        data = parse_yaml(text_, "h.yaml")
    except ConfigError as e:
        assert str(e).startswith("h.yaml: ") and "\n" not in str(e).split(" (line")[0]
        return
    _assert_plain(data, 1)


def _assert_plain(x, depth):
    assert depth <= MAX_DEPTH
    if isinstance(x, dict):
        for k, v in x.items():
            assert isinstance(k, str)
            _assert_plain(v, depth + 1)
    elif isinstance(x, list):
        for v in x:
            _assert_plain(v, depth + 1)
    else:
        assert x is None or isinstance(x, (bool, int, float, str))


plain = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
                     lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
                     max_leaves=20)


@settings(max_examples=200, deadline=None)
@given(plain)
def test_plain_data_round_trips(data):
    assert parse_yaml(yaml.safe_dump(data)) == data


@pytest.mark.parametrize("spec, start", [("a\0b", "a\\x00b: rules: no such rule set"),
                                         ("a\nb", "a\\nb: rules: no such rule set"),
                                         ("x" * 5000, "x" * 200 + "...: rules: no such rule set"),
                                         ("x" * 5000 + ".yaml", "x" * 200 + "...: cannot read the rules file"),
                                         ("./a\x1b[2Jb.yaml", "a\\x1b[2Jb.yaml: no such rules file")])
def test_messages_stay_one_printable_line(spec, start):
    with pytest.raises(RuleError) as e:
        load(spec)
    msg = str(e.value)
    assert msg.startswith(start) and msg.isprintable() and len(msg) < 400


def test_a_huge_or_long_bad_value_is_quoted_short():
    from yacht_env.config import ConfigError, number, text, whole
    for check, value in ((whole, 10 ** 4000), (whole, 10 ** 5000), (number, -(10 ** 400)), (text, ["x"] * 5000)):
        with pytest.raises(ConfigError) as e:
            check("f.yaml", "key", value, *(() if check is text else (0, 10)))
        assert len(str(e.value)) < 300, str(e.value)[:400]


def test_finite_takes_ints_of_any_size_and_finite_floats_only():
    from yacht_env.config import finite
    assert finite(10 ** 400) and finite(-3) and finite(2.5)
    assert not any(finite(v) for v in (True, float("nan"), float("inf"), "3", None, [1]))
