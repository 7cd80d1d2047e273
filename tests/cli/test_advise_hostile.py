"""`yacht advise` against positions no game can reach and hostile --state files: each a one-line error with
exit status 2; and every position a real game reaches is still accepted, with the sheet's own total."""
import json
import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.solver_tables import solved, temp_cache

from yacht_arena.cli import main
from yacht_arena.cli.advise import _sheet
from yacht_env.core.game import Game
from yacht_env.rules import load

DICE = ["--dice", "1", "2", "3", "3", "5"]


@pytest.fixture(autouse=True)
def cache(monkeypatch):
    with temp_cache() as d:
        monkeypatch.setenv("YACHT_CACHE_DIR", d)
        yield d


def error(capsys, argv) -> str:
    assert main(["advise", *argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("yacht advise: error: "), err
    return err[0]


# ---- every reachable position is accepted --------------------------------------------------------

RULES = [("yacht", {}), ("verhoeff", {}), ("kirakuken", {}), ("classic", {}), ("knizia", {}),
         ("classic", {"joker": "free"}), ("classic", {"joker": "verhoeff"}), ("classic", {"joker": "forced"}),
         ("extended", {"joker": "kirakuken"}), ("yacht", {"columns": 2}), ("yacht", {"extra_yacht_bonus": False})]


def positions(rules, seed: int):
    """Every turn start of a solitaire game played to make Yachts (chase the commonest face; a Yacht goes
    in the Yacht box while it is open, then mostly in a lower box as a joker; other rolls in a random box):
    (sheet, upper totals, extra-Yacht points, total)."""
    rng = np.random.default_rng(seed)
    g = Game(rules, 1, seed=seed)
    yacht = rules.tables.yacht_box
    while not g.is_over:
        s = g.sheets[0]
        yield s.scores.copy(), s.upper.copy(), int(s.extra_bonus.sum()), s.total
        g.roll()
        while g.rolls_left > 0 and len(set(g.dice)) > 1:
            face = np.bincount(g.dice).argmax()
            g.roll(hold=[i for i, d in enumerate(g.dice) if d == face])
        options = list(g.preview())
        if len(set(g.dice)) == 1 and yacht >= 0:   # a Yacht: in the Yacht box, else mostly as a joker below
            lower = [o for o in options if rules.boxes_spec[rules.boxes.index(o[1])].face == 0]
            options = ([o for o in options if o[1] == rules.boxes[yacht]]
                       or (lower if lower and rng.random() < 0.7 else options))
        col, box = options[rng.integers(len(options))]
        g.score(box, col)


def filled_of(rules, scores) -> dict:
    at = rules.columns > 1
    return {f"{rules.boxes[b]}@{c + 1}" if at else rules.boxes[b]: int(scores[c, b])
            for c, b in zip(*np.nonzero(scores >= 0))}


@pytest.mark.parametrize("name, overrides", RULES, ids=[f"{n}-{o}" for n, o in RULES])
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2 ** 32 - 1), rolls=st.sampled_from([3, 5]))
def test_every_position_a_game_reaches_is_accepted(name, overrides, seed, rolls):
    rules = load(name, **overrides, rolls_per_turn=rolls)   # five rolls a turn: many Yachts, jokers and bonuses
    for scores, upper, bonus, total in positions(rules, seed):
        if (scores >= 0).all():
            continue
        got, got_upper, banked = _sheet(rules, filled_of(rules, scores), upper.tolist(), bonus)
        assert (got == scores).all() and (got_upper == upper).all() and banked == total


# ---- positions no game reaches -------------------------------------------------------------------

IMPOSSIBLE = [
    (["--filled", "ones=3", "--upper", "40"], "upper: the filled upper boxes add up to 3, got 40"),
    (["--upper", "7"], "upper: the filled upper boxes add up to 0, got 7"),
    (["--filled", "ones=3", "twos=4", "--upper", "6"], "upper: the filled upper boxes add up to 7, got 6"),
    (["--filled", "ones=7"], "box 'ones' cannot hold 7 points under 'yacht'; possible: 0, 1, 2, 3, 4, 5"),
    (["--filled", "chance=0"], "box 'chance' cannot hold 0 points"),
    (["--filled", "full_house=24"], "box 'full_house' cannot hold 24 points"),
    (["--filled", "ones=99999999999"], "points must be a whole number"),
    (["--filled", "ones=1_0"], "points must be a whole number"),
    (["--filled", "ones=3", "ones=2"], "--filled: box 'ones' is given twice"),
    (["--bonus", "100"], "room for at most 0"),
    (["--filled", "yacht=0", "fives=25", "--bonus", "100"], "room for at most 0"),
    (["--filled", "yacht=50", "fives=20", "--bonus", "100"], "room for at most 0"),
    (["--filled", "yacht=50", "fives=25", "--bonus", "200"], "room for at most 1"),
    (["--filled", "yacht=50", "fives=25", "--bonus", "150"], "is 100 per extra Yacht"),
    (["--set", "extra_yacht_bonus=false", "--filled", "yacht=50", "fives=25", "--bonus", "100"],
     "rules 'yacht' pay no extra-Yacht bonus"),
    (["--rules", "classic", "--filled", "full_house=5"], "box 'full_house' cannot hold 5 points under 'classic'"),
    (["--rules", "classic", "--set", "joker=free", "--filled", "full_house=5"], "cannot hold 5 points"),
    (["--rules", "classic", "--set", "joker=kirakuken", "--filled", "yacht=0", "full_house=5"], "cannot hold 5"),
    (["--rules", "classic", "--set", "joker=verhoeff", "--filled", "yacht=50", "full_house=5"], "cannot hold 5"),
    (["--rules", "classic", "--set", "joker=forced", "--filled", "yacht=50", "full_house=5"], "cannot hold 5"),
    (["--set", "columns=2", "--filled", "ones@1=3", "ones@01=2"], "box 'ones@01' is given twice (as 'ones@1' too)"),
    (["--set", "columns=2", "--filled", "yacht@1=50", "fives@2=25", "--bonus", "100"], "room for at most 0"),
    (["--set", "columns=2", "--upper", "0"], "upper: one whole number >= 0 per column (2), got [0]"),
    (["--top", "-1"], "--top must be 0 (all) or more, got -1"),
    (["--dice", "1", "2", "3", "3", "5", "6"], "dice: five faces 1..6 are needed"),
    (["--dice", "0", "2", "3", "3", "5"], "dice: five faces 1..6 are needed"),
]


@pytest.mark.parametrize("argv, message", IMPOSSIBLE)
def test_a_position_no_game_reaches_is_refused(capsys, argv, message):
    args = argv if "--dice" in argv else [*DICE, *argv]
    assert message in error(capsys, args)


@pytest.mark.parametrize("argv", [
    ["--rules", "classic", "--set", "joker=free", "--filled", "yacht=50", "full_house=5"],
    ["--rules", "classic", "--set", "joker=kirakuken", "--filled", "yacht=50", "full_house=5"],
    ["--rules", "classic", "--set", "joker=verhoeff", "--filled", "yacht=50", "ones=4", "full_house=5"],
    ["--filled", "yacht=50", "fives=25", "fours=20", "--bonus", "200", "--upper", "45"],
])
def test_joker_points_and_bonuses_are_accepted_where_the_sheet_allows_them(capsys, argv):
    solved("classic", joker=argv[3].split("=")[1]) if argv[0] == "--rules" else solved("yacht")
    assert main(["advise", "--json", *DICE, *argv]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["banked"] == sum(int(a.split("=")[1]) for a in argv if "=" in a and "@" not in a
                                and a.split("=")[0] in ("yacht", "full_house", "ones", "fives", "fours")) \
        + (200 if "--bonus" in argv else 0)


# ---- hostile --state files -----------------------------------------------------------------------

STATES = [
    ('{"dice": [1, 2, 3, 3, 5], "upper": NaN}', "upper: one whole number >= 0 per column (1), got [nan]"),
    ('{"dice": [1, 2, 3, 3, 5], "bonus": Infinity}', "bonus must be a whole number >= 0, got inf"),
    ('{"dice": [1, 2, 3, 3, 5], "bonus": -100}', "bonus must be a whole number >= 0, got -100"),
    ('{"dice": [1, 2, 3, 3, 5], "rolls_left": "2"}', "rolls left must be 0..2 under 'yacht'"),
    ('{"dice": [1, 2, 3, 3, 5], "rolls_left": true}', "rolls left must be 0..2"),
    ('{"dice": [1.0, 2, 3, 3, 5]}', "dice: five faces 1..6 are needed, got [1.0, 2, 3, 3, 5]"),
    ('{"dice": "12335"}', "dice: five faces 1..6 are needed, got '12335'"),
    ('{"dice": {"a": 1}}', "dice: five faces 1..6 are needed"),
    ('{"dice": [1, 2, 3, 3, 5], "filled": {"ones": 3.0}}', "box 'ones': points must be a whole number >= 0, got 3.0"),
    ('{"dice": [1, 2, 3, 3, 5], "filled": {"ones": "3"}}', "box 'ones': points must be a whole number >= 0"),
    ('{"dice": [1, 2, 3, 3, 5], "filled": {"ones": [3]}}', "box 'ones': points must be a whole number >= 0"),
    ('{"dice": [1, 2, 3, 3, 5], "filled": {"ones": 1e400}}', "box 'ones': points must be a whole number >= 0"),
    ('{"dice": [1, 2, 3, 3, 5], "filled": {"ones": 3}, "filled": {}}', "key 'filled' is given twice"),
    ('{"dice": [1, 2, 3, 3, 5], "filled": {"ones": 3, "ones": 2}}', "key 'ones' is given twice"),
    ('{"dice": [1, 2, 3, 3, 5], "filled": {"ones": 3}, "upper": 4}', "upper: the filled upper boxes add up to 3"),
    ('{"dice": [1, 2, 3, 3, 5], "bonus": ' + "9" * 5000 + "}", "is not valid JSON (Exceeds the limit"),
    ('{"dice": [1, 2, 3, 3, 5], "upper": ' + "[" * 30_000 + "]" * 30_000 + "}", "not valid JSON (nested too deeply)"),
    ('{"dice": [1, 2, 3, 3, 5], "pad": "' + "x" * 70_000 + '"}', "is larger than 65536 bytes"),
    ("[1, 2, 3]", "unknown key top level"),
    ("", "is not valid JSON (Expecting value, line 1)"),
    (b"\xff\xfe\xfa", "is not valid JSON ("),
]


@pytest.mark.parametrize("text, message", STATES, ids=range(len(STATES)))
def test_hostile_state_files(capsys, tmp_path, text, message):
    solved("yacht")
    f = tmp_path / "pos.json"
    f.write_bytes(text if isinstance(text, bytes) else text.encode())
    assert message in error(capsys, ["--state", str(f)])


def test_a_folder_or_endless_device_as_state(capsys, tmp_path):
    assert "cannot read --state" in error(capsys, ["--state", str(tmp_path)])
    assert "cannot read --state /dev/zero: is a device" in error(capsys, ["--state", "/dev/zero"])
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    assert "is a FIFO" in error(capsys, ["--state", str(fifo)])       # refused, never waited on


SCALAR = st.none() | st.booleans() | st.integers(-10 ** 30, 10 ** 30) | st.floats() | st.text(max_size=6)
VALUE = st.recursive(SCALAR, lambda inner: st.lists(inner, max_size=6) | st.dictionaries(st.text(max_size=6), inner,
                                                                                          max_size=4), max_leaves=10)
STATE = st.fixed_dictionaries({}, optional={
    "dice": st.lists(st.integers(-1, 8), min_size=4, max_size=6) | VALUE,
    "rolls_left": st.integers(-1, 3) | VALUE,
    "filled": st.dictionaries(st.sampled_from(["ones", "twos", "fives", "yacht", "chance", "full_house", "x"]),
                              st.integers(-1, 60) | VALUE, max_size=5) | VALUE,
    "upper": st.integers(-1, 70) | VALUE,
    "bonus": st.sampled_from([0, 100, 200, 50]) | VALUE})


@settings(max_examples=120, deadline=None)
@given(state=STATE)
def test_generated_state_files_give_advice_or_one_clear_error(tmp_path_factory, state):
    solved("yacht")
    f = tmp_path_factory.mktemp("state") / "pos.json"
    f.write_text(json.dumps(state))
    import io
    from contextlib import redirect_stderr, redirect_stdout
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(["advise", "--json", "--state", str(f)])
    if code == 0:
        doc = json.loads(out.getvalue())
        rules = load("yacht")
        scores, upper, banked = _sheet(rules, state.get("filled") or {}, None if state.get("upper") is None else
                                       [state["upper"]] if not isinstance(state["upper"], list) else state["upper"],
                                       state.get("bonus"))
        assert doc["banked"] == banked and doc["dice"] == sorted(state["dice"])
    else:
        lines = err.getvalue().strip().splitlines()
        assert code == 2 and len(lines) == 1 and lines[0].startswith("yacht advise: error: "), err.getvalue()
