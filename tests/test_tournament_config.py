"""Bad tournament configs fail before any game, with one clear message."""
import pytest

from tournaments.cli import main
from tournaments.config import check_agents, default_config_path, load_config, parse_config
from tournaments.schedule import schedule, tables
from yacht_env.cli_common import CommandError
from yacht_env.dice_source import game_seed

from tournament_agents import make_agent

BASE = {"entrants": ["first", "best", "random"], "games": 2}


def fails(message, **changes):
    data = {**BASE, **changes}
    data = {k: v for k, v in data.items() if v is not None}
    with pytest.raises(CommandError, match=message):
        cfg = parse_config(data, "t.yaml")
        check_agents(cfg, make_agent)


def test_unknown_agent():
    fails(r"entrant 'nobody': cannot make agent 'nobody': unknown agent 'nobody'", entrants=["first", "nobody"])


def test_unknown_rules():
    fails(r"t.yaml: rules: .*no such rule set", rules="no-such-rules")


def test_bad_rule_override():
    fails(r"t.yaml: rules: .*rolls_per_turn: must be a whole number", set={"rolls_per_turn": 0})


def test_more_seats_than_rules_allow():
    fails(r"t.yaml: seats: rules 'yacht' allow 1 to 2 players, got 3", seats=3, set={"players": {"min": 1, "max": 2}})


def test_seats_out_of_range_and_more_than_entrants():
    fails(r"t.yaml: seats: must be a whole number from 2 to 8, got 9", seats=9)
    fails(r"t.yaml: seats: must be a whole number from 2 to 8, got 1", seats=1)
    fails(r"t.yaml: seats: 3 seats per table need at least 3 entrants, got 2", seats=3, entrants=["first", "best"])


def test_teams_must_divide_seats():
    fails(r"t.yaml: seats: 3 seats cannot split into 2 teams", seats=3, set={"teams": 2})


def test_zero_games():
    fails(r"t.yaml: games: must be a whole number at least 1, got 0", games=0)


def test_unknown_key():
    fails(r"t.yaml: gmaes: unknown key; allowed: name, rules, set, entrants, seats, games, seed, move_timeout",
          gmaes=3)


def test_bad_entrants_and_timeout():
    fails(r"t.yaml: entrants: must be a non-empty list", entrants=[])
    fails(r"t.yaml: entrants\[1\]: duplicate entrant name 'first'", entrants=["first", "first"])
    fails(r"t.yaml: entrants\[0\]: expected an agent spec string", entrants=[3, "first"])
    fails(r"t.yaml: move_timeout: must be a positive number of seconds or null, got -1", move_timeout=-1)


def test_missing_and_invalid_files(tmp_path):
    with pytest.raises(CommandError, match="no such tournament config file"):
        load_config(tmp_path / "absent.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("entrants: [a\n")
    with pytest.raises(CommandError, match="bad.yaml: not valid YAML"):
        load_config(bad)
    bad.write_text("- just a list\n")
    with pytest.raises(CommandError, match="bad.yaml: top level: must be a mapping"):
        load_config(bad)


def test_cli_reports_one_line_and_exit_2(tmp_path, capsys):
    cfg = tmp_path / "t.yaml"
    cfg.write_text("entrants: [first, best]\ngames: 0\n")
    assert main(["tournament", str(cfg), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"yacht tournament: error: {cfg}: games: must be a whole number at least 1, got 0"
    assert not (tmp_path / "out").exists()
    assert main(["report", str(tmp_path / "nowhere")]) == 2
    assert "no such folder" in capsys.readouterr().err


def test_default_config_is_embedded_and_valid():
    cfg = load_config()
    assert default_config_path().is_file()
    assert cfg.rules == "yacht" and set(cfg.entrants) == {"easy", "normal", "strong", "greedy", "random"}


def test_overrides_and_hash():
    a = parse_config(BASE)
    b = parse_config(BASE, games=3)
    assert b.games == 3 and a.hash != b.hash
    assert parse_config(BASE, seed=None).hash == a.hash
    # the hash follows what the rules mean, not how they are named
    assert parse_config({**BASE, "set": {"joker": "forced"}}).hash == a.hash


def test_schedule_rotations_share_the_deal():
    cfg = parse_config({"entrants": ["first", "best", "random", "crash"], "seats": 3, "games": 2, "seed": 5})
    jobs = schedule(cfg)
    assert len(tables(cfg)) == 4 and len(jobs) == 4 * 2 * 3
    assert len({j.key for j in jobs}) == len(jobs)
    for j in jobs:
        assert j.seed == game_seed(5, j.table, j.deal)
        members = tables(cfg)[j.table]
        assert j.agents == tuple(members[(i + j.rotation) % 3] for i in range(3))


def test_bad_workers_fail_before_any_game(tmp_path, capsys):
    cfg = tmp_path / "t.yaml"
    cfg.write_text("entrants: [greedy, random]\ngames: 1\n")
    assert main(["tournament", str(cfg), "--out", str(tmp_path / "out"), "--workers", "0"]) == 2
    assert capsys.readouterr().err.strip() == "yacht tournament: error: workers must be a whole number of at least 1, got 0"
    assert not (tmp_path / "out").exists()


def test_shipped_configs_are_valid():
    from tournaments.config import default_config_path
    from agents.registry import make_agent as registry_make_agent
    for path in sorted(default_config_path().parent.glob("*.yaml")):
        cfg = load_config(path)
        for spec in cfg.entrants.values():
            registry_make_agent(spec)
