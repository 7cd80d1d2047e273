"""Bad tournament configs fail before any game, with one clear message; records read back exactly."""
import json
import math

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from yacht_arena.cli import main
from tournaments.config import (MAX_GAMES, check_agents, load_config, parse_config, presets)
from tournaments.schedule import schedule, tables
from tournaments.store import Store
from yacht_env.config import ConfigError
from yacht_env.core.dice_source import game_seed
from yacht_env.rules import load, rules_hash

from tests.config_files import check_bad_files
from tests.fake_agents import make_agent

BASE = {"entrants": ["first", "best", "random"], "games": 2}


def fails(message, **changes):
    data = {**BASE, **changes}
    data = {k: v for k, v in data.items() if v is not None}
    with pytest.raises(ConfigError, match=message):
        cfg = parse_config(data, "t.yaml")
        check_agents(cfg, make_agent)


def test_unknown_agent():
    fails(r"entrant 'nobody': cannot make agent 'nobody': unknown agent 'nobody'", entrants=["first", "nobody"])


def test_unknown_rules():
    fails(r"t.yaml: rules: no-such-rules: rules: no such rule set", rules="no-such-rules")
    fails(r"t.yaml: rules: must be text, got \['yacht'\]", rules=["yacht"])


def test_bad_rule_override():
    fails(r"t.yaml: rules: .*rolls_per_turn: must be a whole number", set={"rolls_per_turn": 0})
    fails(r"t.yaml: set: must be a mapping, got a list", set=["joker=free"])
    fails(r"t.yaml: set: rule keys are names such as rolls_per_turn or boxes.full_house.points, got 1", set={1: 2})
    fails(r"t.yaml: set: rule keys are names such as rolls_per_turn", set={("a",): 2})
    fails(r"t.yaml: rules: .*joker: must be one of", set={"joker": {"a": [1, {2: 3}]}})
    fails(r"t.yaml: rules: .*rolls_per_turn: must be a whole number", set={"rolls_per_turn": math.nan})
    fails(r"t.yaml: rules: .*rolls_per_turn: must be a whole number", set={"rolls_per_turn": 10**30})
    with pytest.raises(ConfigError, match=r"command line: --set: rule keys are names"):
        parse_config(BASE, "t.yaml", set={1: 2})


def test_more_seats_than_rules_allow():
    fails(r"t.yaml: seats: rules 'yacht' allow 1 to 2 players, got 3", seats=3, set={"players": {"min": 1, "max": 2}})


def test_seats_out_of_range_and_more_than_entrants():
    fails(r"t.yaml: seats: must be a whole number from 2 to 8, got 9", seats=9)
    fails(r"t.yaml: seats: must be a whole number from 2 to 8, got 1", seats=1)
    fails(r"t.yaml: seats: must be a whole number from 2 to 8, got 2.0", seats=2.0)
    fails(r"t.yaml: seats: 3 seats per table need at least 3 entrants, got 2", seats=3, entrants=["first", "best"])


def test_teams_must_divide_seats():
    fails(r"t.yaml: seats: 3 players cannot split into 2 teams", seats=3, set={"teams": 2})


@pytest.mark.parametrize("games", [0, -1, True, 2.5, "10", math.nan, MAX_GAMES + 1, 1_000_000_000_000])
def test_games_are_whole_and_bounded(games):
    fails(rf"t.yaml: games: must be a whole number from 1 to 1,000,000, got {games!r}"
          .replace("(", r"\(").replace(")", r"\)").replace(".", r"\."), games=games)


def test_total_games_are_bounded_before_anything_is_built():
    entrants = [f"e{i}" for i in range(60)]
    with pytest.raises(ConfigError) as e:
        parse_config({"entrants": entrants, "seats": 4, "games": 1}, "t.yaml")
    assert str(e.value) == ("t.yaml: games: 487,635 tables x 1 deals x 4 arrangements = 1,950,540 games; a "
                            "tournament may schedule at most 1,000,000 (split it into several, or play fewer deals)")
    with pytest.raises(ConfigError, match="command line: games: 3 tables x 200,000 deals x 2 arrangements"):
        parse_config(BASE, "t.yaml", games=200_000)


@pytest.mark.parametrize("timeout", [math.nan, math.inf, -math.inf, -1, 0, 86_401, 1e300, True, "30"])
def test_move_timeout_is_finite_positive_and_bounded(timeout):
    with pytest.raises(ConfigError) as e:
        parse_config({**BASE, "move_timeout": timeout}, "t.yaml")
    assert str(e.value) == (f"t.yaml: move_timeout: must be a finite number above 0 and at most 86,400, "
                            f"got {timeout!r}")


def test_yaml_nan_and_inf_timeouts(tmp_path):
    for text in (".nan", ".inf", "-.inf", ".NaN"):
        p = tmp_path / "t.yaml"
        p.write_text(f"entrants: [greedy, random]\nmove_timeout: {text}\n")
        with pytest.raises(ConfigError, match=r"move_timeout: must be a finite number above 0 and at most 86,400"):
            load_config(p)
    p.write_text("entrants: [greedy, random]\nmove_timeout: null\n")
    assert load_config(p).move_timeout is None


@pytest.mark.parametrize("seed, ok", [(0, True), (2**63 - 1, True), (-1, False), (2**63, False), (2**64, False),
                                      (1.5, False), (False, False)])
def test_seeds(seed, ok):
    if ok:
        assert parse_config({**BASE, "seed": seed}).seed == seed
    else:
        fails(r"t.yaml: seed: must be a whole number from 0 to 9,223,372,036,854,775,807", seed=seed)


def test_unknown_and_renamed_keys():
    fails(r"t.yaml: gmaes: unknown key; allowed: name, rules, set, entrants, seats, games, seed, move_timeout",
          gmaes=3)
    fails(r"t.yaml: overrides: renamed: write `set:` instead", overrides={"joker": "free"})
    with pytest.raises(ConfigError, match="command line: workers: unknown key; allowed: rules, set, games, seed"):
        parse_config(BASE, workers=3)


def test_bad_entrants_and_names():
    fails(r"t.yaml: entrants: must be a non-empty list", entrants=[])
    fails(r"t.yaml: entrants\[1\]: duplicate entrant name 'first'", entrants=["first", "first"])
    fails(r"t.yaml: entrants\[0\]: expected an agent spec string", entrants=[3, "first"])
    fails(r"t.yaml: entrants\[1\]: entrant names 'a.b' and 'a_b' would share the file hist_a_b.png; names must "
          r"differ in their letters or digits", entrants={"a.b": "first", "a_b": "best"})
    fails(r"entrants\[1\]: entrant names 'Best' and 'best' would share", entrants=[
        {"name": "Best", "agent": "first"}, {"name": "best", "agent": "best"}])
    fails(r"t.yaml: entrants\[0\].name: must not contain control characters", entrants=[
        {"name": "fir\x1bst", "agent": "first"}, "best"])
    fails(r"t.yaml: entrants\[0\].name: must not be empty", entrants=[{"name": " ", "agent": "first"}, "best"])
    fails(r"t.yaml: entrants\[0\].name: must be text, got 7 \(quote it\)", entrants=[{"name": 7, "agent": "first"},
                                                                                    "best"])
    fails(r"t.yaml: entrants\[0\].name: must be at most 64 characters", entrants=[
        {"name": "x" * 65, "agent": "first"}, "best"])
    fails(r"t.yaml: entrants\[0\]: the spec 'external:.*' is too long to be the entrant's name; write "
          r"\{name: SHORT_NAME, agent: ...\}", entrants=["external:python " + "x" * 80 + ".py", "best"])
    fails(r"t.yaml: entrants\[0\].agent: must be text, got None", entrants=[{"name": "x"}, "best"])
    fails(r"t.yaml: entrants\[0\].colour: unknown key; allowed: name, agent", entrants=[
        {"agent": "first", "colour": "red"}, "best"])
    fails(r"t.yaml: entrants: at most 10000 entrants, got 10001", entrants=[f"e{i}" for i in range(10_001)])
    fails(r"t.yaml: name: must not contain / or \\ \(it names the run folder\)", name="../../elsewhere")
    fails(r"t.yaml: name: must be text, got 2024", name=2024)


def test_missing_and_invalid_files(tmp_path):
    check_bad_files(load_config, tmp_path, "tournament config")
    with pytest.raises(ConfigError, match=r"^nope: config: no such tournament config; presets: default, four_seats"):
        load_config("nope")


def test_relative_rules_path_is_taken_from_the_config_folder(tmp_path, monkeypatch):
    # the training config's twin: tests/training/test_training_config.py::test_set_and_rules_paths (same rule)
    (tmp_path / "cfg").mkdir()
    (tmp_path / "cfg" / "mine.yaml").write_text("extends: yacht\nname: mine\nrolls_per_turn: 2\n")
    (tmp_path / "cfg" / "t.yaml").write_text("entrants: [greedy, random]\nrules: mine.yaml\n")
    monkeypatch.chdir(tmp_path)
    cfg = load_config("cfg/t.yaml")
    assert cfg.ruleset.rolls_per_turn == 2 and cfg.rules == "cfg/mine.yaml"
    with pytest.raises(ConfigError, match=r"^command line: rules: mine.yaml: no such rules file$"):
        load_config("cfg/t.yaml", rules="mine.yaml")     # the command line's paths are the working folder's


def test_cli_reports_one_line_and_exit_2(tmp_path, capsys):
    cfg = tmp_path / "t.yaml"
    cfg.write_text("entrants: [first, best]\ngames: 0\n")
    assert main(["tournament", str(cfg), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"yacht tournament: error: {cfg}: games: must be a whole number from 1 to 1,000,000, got 0"
    assert not (tmp_path / "out").exists()
    assert main(["report", str(tmp_path / "nowhere")]) == 2
    assert "no such folder" in capsys.readouterr().err
    for argv, message in (
            (["--games", "1000000000000"], "command line: games: must be a whole number from 1 to 1,000,000"),
            (["--seed", "-1"], "argument --seed: must be a whole number from 0 to 9223372036854775807, got '-1' "
                               "(see yacht tournament --help)"),
            (["--set", "joker"], "--set: joker: expected key=value"),
            (["--set", "joker=&a [*a]"], "--set joker: anchors and aliases"),
            (["--rules", "yacht", "--set", "rolls_per_turn=.nan"], "command line: rules: yacht (override): "
                                                                   "rolls_per_turn: must be a whole number")):
        with pytest.raises(SystemExit) if argv[0] == "--seed" else _no_raise():
            assert main(["tournament", *argv, "--out", str(tmp_path / "out")]) == 2
        err = capsys.readouterr().err
        assert err.startswith("yacht tournament: error: ") and message in err and err.count("\n") == 1, err
    assert not (tmp_path / "out").exists()


class _no_raise:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_presets_are_embedded_and_valid():
    from agents.registry import make_agent as registry_make_agent
    assert presets() == ["default", "four_seats"]
    cfg = load_config()
    assert cfg == load_config("default")
    assert cfg.rules == "yacht" and set(cfg.entrants) == {"easy", "normal", "strong", "greedy", "random"}
    for name in presets():
        for spec in load_config(name).entrants.values():
            registry_make_agent(spec)


def test_changes_and_hash():
    a = parse_config(BASE)
    b = parse_config(BASE, games=3)
    assert b.games == 3 and a.hash != b.hash
    assert parse_config(BASE, seed=None).hash == a.hash
    # the hash follows what the rules mean, not how they are named
    assert parse_config({**BASE, "set": {"joker": "forced"}}).hash == a.hash
    c = parse_config({**BASE, "set": {"joker": "free"}}, set={"rolls_per_turn": 2})
    both = {"joker": "free", "rolls_per_turn": 2}
    assert c.set == both and c.ruleset == load("yacht", **both) and c.hash != a.hash
    assert parse_config(BASE, rules="verhoeff").hash == parse_config({**BASE, "rules": "verhoeff"}).hash
    assert c.rules_block == {"name": "yacht", "set": both, "hash": rules_hash(c.ruleset)}


def test_hash_of_a_config_is_the_one_earlier_versions_wrote():
    """Run folders written before the config recorded its rules keep their hash (and so resume)."""
    cfg = parse_config({"name": "default", "entrants": ["easy", "normal", "strong", "greedy", "random"],
                        "games": 100, "move_timeout": 30})
    assert cfg.hash == "c626ddae39c20724"
    assert parse_config({**BASE, "set": {"joker": "free"}}).hash == "9ccd275ae254f1fe"


def test_record_round_trips_and_needs_no_rules_file(tmp_path):
    rules = tmp_path / "mine.yaml"
    rules.write_text("extends: classic\nname: mine\n")
    cfg = parse_config({**BASE, "rules": str(rules), "set": {"rolls_per_turn": 2}}, "t.yaml")
    record = json.loads(json.dumps(cfg.to_dict()))
    rules.unlink()
    back = parse_config(record, "tournament.json")
    assert back == cfg and back.hash == cfg.hash and back.ruleset.rolls_per_turn == 2 and len(back.ruleset.boxes) == 12


@pytest.mark.parametrize("key", ["entrants", "games", "seats", "seed", "move_timeout", "rules", "set", "name"])
def test_a_record_lacking_a_key_is_refused(key):
    record = parse_config(BASE).to_dict()
    del record[key]
    with pytest.raises(ConfigError) as e:
        parse_config(record, "runs/x/tournament.json")
    assert str(e.value) == (f"runs/x/tournament.json: {key}: missing; a recorded config has every key (this folder "
                            "was not written by `yacht tournament`)")


def test_a_damaged_record_is_refused(tmp_path):
    record = parse_config(BASE).to_dict()
    with pytest.raises(ConfigError, match=r"tournament.json: resolved_rules: <dict>: joker: must be one of"):
        parse_config({**record, "resolved_rules": {**record["resolved_rules"], "joker": "maybe"}}, "tournament.json")
    with pytest.raises(ConfigError, match=r"tournament.json: resolved_rules: must be a mapping, got 'yacht'"):
        parse_config({**record, "resolved_rules": "yacht"}, "tournament.json")


def test_store_reads_the_config_it_recorded(tmp_path):
    cfg = parse_config({**BASE, "set": {"joker": "free"}})
    store = Store(tmp_path / "run")
    store.open(cfg)
    meta = json.loads((tmp_path / "run" / "tournament.json").read_text())
    assert meta["config"]["resolved_rules"]["joker"] == "free" and meta["config"]["set"] == {"joker": "free"}
    assert store.config() == cfg


def test_store_reads_a_folder_written_before_configs_recorded_their_rules(tmp_path):
    cfg = parse_config(BASE)
    old = {k: v for k, v in cfg.to_dict().items() if k != "resolved_rules"}
    (tmp_path / "tournament.json").write_text(json.dumps({"config_hash": cfg.hash, "config": old}))
    assert Store(tmp_path).config() == cfg


def test_schedule_rotations_share_the_deal():
    cfg = parse_config({"entrants": ["first", "best", "random", "crash"], "seats": 3, "games": 2, "seed": 5})
    jobs = schedule(cfg)
    assert len(tables(cfg)) == 4 and len(jobs) == 4 * 2 * 3 == cfg.total_games
    assert len({j.key for j in jobs}) == len(jobs)
    for j in jobs:
        assert j.seed == game_seed(5, j.table, j.deal)
        members = tables(cfg)[j.table]
        assert j.agents == tuple(members[(i + j.rotation) % 3] for i in range(3))


@settings(max_examples=30, deadline=None)
@given(st.integers(2, 7), st.integers(2, 8), st.integers(1, 3))
def test_total_games_is_what_the_schedule_holds(n, seats, games):
    if seats > n:
        return
    cfg = parse_config({"entrants": [f"e{i}" for i in range(n)], "seats": seats, "games": games})
    assert cfg.total_games == len(schedule(cfg))


def test_bad_workers_fail_before_any_game(tmp_path, capsys):
    cfg = tmp_path / "t.yaml"
    cfg.write_text("entrants: [greedy, random]\ngames: 1\n")
    assert main(["tournament", str(cfg), "--out", str(tmp_path / "out"), "--workers", "0"]) == 2
    assert capsys.readouterr().err.strip() == ("yacht tournament: error: workers must be a whole number of at least 1, "
                                               "got 0")
    assert not (tmp_path / "out").exists()


def test_cli_rules_and_set_are_recorded_and_change_the_folder(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    cfg = tmp_path / "t.yaml"
    cfg.write_text("name: t\nentrants: [greedy, random]\ngames: 1\nset: {joker: free}\n")
    argv = ["tournament", str(cfg), "--workers", "1", "--quiet", "--json"]
    assert main([*argv, "--set", "rolls_per_turn=2"]) == 0
    res = json.loads(capsys.readouterr().out)
    folder = tmp_path / res["run"]["folder"]
    meta = json.loads((folder / "tournament.json").read_text())
    assert meta["config"]["set"] == {"joker": "free", "rolls_per_turn": 2}
    assert meta["config"]["resolved_rules"]["rolls_per_turn"] == 2
    expected = load("yacht", joker="free", rolls_per_turn=2)
    assert res["rules"] == {"name": "yacht", "set": meta["config"]["set"], "hash": rules_hash(expected)}
    assert main(argv) == 0
    plain = json.loads(capsys.readouterr().out)
    assert plain["run"]["folder"] != res["run"]["folder"] and plain["rules"]["set"] == {"joker": "free"}
    assert main([*argv, "--rules", "classic", "--out", str(folder)]) == 2
    assert "holds a different tournament" in capsys.readouterr().err


@st.composite
def tournament_dicts(draw):
    value = st.one_of(st.none(), st.booleans(), st.integers(-2, 10), st.integers(2**62, 2**65), st.floats(),
                      st.text(max_size=6), st.sampled_from(["yacht", "classic", "nope", "./x.yaml", "greedy"]),
                      st.lists(st.sampled_from(["greedy", "random", "a.b", "a_b", "", 3]), max_size=5),
                      st.dictionaries(st.sampled_from(["joker", "rolls_per_turn", "a", "name", "agent"]),
                                      st.sampled_from(["free", 2, 0, "random", None]), max_size=2))
    keys = st.sampled_from(["name", "rules", "set", "entrants", "seats", "games", "seed", "move_timeout",
                            "overrides", "resolved_rules", "extra"])
    return draw(st.dictionaries(keys, value, max_size=8))


@settings(max_examples=300, deadline=None)
@given(tournament_dicts())
def test_any_config_parses_or_raises_one_config_error(tmp_path_factory, data):
    path = tmp_path_factory.mktemp("h") / "t.yaml"
    path.write_text(yaml.safe_dump(data))
    try:
        cfg = load_config(path)
    except ConfigError as e:
        assert "\n" not in str(e)
        return
    assert (1 <= cfg.total_games <= MAX_GAMES and cfg.move_timeout is None) or 0 < cfg.move_timeout <= 86_400
    assert parse_config(json.loads(json.dumps(cfg.to_dict())), "tournament.json") == cfg
