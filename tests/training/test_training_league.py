"""Self-play at a table (`agents.training.league`): the `league` config keys, the counter-based draw of the
opponents, the bounded snapshot pool, and tiny league runs at 2 and 4 seats that play their past versions and
write their files, the same for the same seed."""
import json
import math
from dataclasses import replace

import numpy as np
import pytest

from agents.training.checkpoint import load_checkpoint, new_policy
from agents.training.config import ConfigError, LeagueConfig, load_config, parse_config, split_sets
from agents.training.league import League, draws, pick
from agents.training.run import train
from yacht_arena.cli import main

LEAGUE = {"current": 1, "past": 1, "specs": {"greedy": 1}, "snapshot_every": 64, "pool": 2}
TABLE = {"name": "l", "total_timesteps": 384, "n_envs": 4, "ppo": {"n_steps": 16, "batch_size": 32, "n_epochs": 1},
         "policy": {"pi": [16], "vf": [16]}, "num_players": 2, "opponents": "greedy", "reward": "win",
         "eval_every": 10**6, "eval_games": 8, "checkpoint_every": 10**6, "distinct_holds": True,
         "league": LEAGUE}


# ---- config ------------------------------------------------------------------------------------

def test_league_keys_are_read_and_recorded():
    cfg = parse_config({**TABLE, "league": {**LEAGUE, "specs": {"strong?goal=win": 0.5, "greedy": 2},
                                            "deterministic": True}})
    assert cfg.league == LeagueConfig(current=1.0, past=1.0, specs={"strong?goal=win": 0.5, "greedy": 2.0},
                                      snapshot_every=64, pool=2, deterministic=True)
    d = cfg.to_dict()
    assert d["league"]["specs"] == {"strong?goal=win": 0.5, "greedy": 2.0} and json.loads(json.dumps(d)) == d
    plain = parse_config({k: v for k, v in TABLE.items() if k != "league"})
    assert plain.league is None and "league" not in plain.to_dict()      # other configs record what they did
    assert load_config("configs/train/league4.yaml").league.specs == {"strong": 0.3, "strong?goal=win": 0.2}


@pytest.mark.parametrize("league, message", [
    (3, "<config>: league: must be a mapping, got 3"),
    ({"colour": 1}, "<config>: league.colour: unknown key; allowed: current, past, specs, snapshot_every, pool"),
    ({"current": -1}, "league.current: must be a finite number from 0 to 1e+06, got -1"),
    ({"past": math.nan}, "league.past: must be a finite number from 0 to 1e+06, got nan"),
    ({"current": True}, "league.current: must be a finite number"),
    ({"current": 0, "past": 0}, "league: the weights (current, past and every spec's) sum to 0"),
    ({"specs": ["strong"]}, "league.specs: must be a mapping, got a list"),
    ({"specs": {"nobody": 1}}, "league.specs['nobody']: unknown agent 'nobody'"),
    ({"specs": {"human": 1}}, "league.specs['human']: human plays at a terminal"),
    ({"specs": {"external:python bot.py": 1}}, "league.specs['external:python bot.py']: an external bot plays one "
                                               "game per process"),
    ({"specs": {"strong": math.inf}}, "league.specs['strong']: must be a finite number from 0 to 1e+06, got inf"),
    ({"specs": {f"level?pct={p}": 1 for p in range(17)}}, "league.specs: at most 16 agent specs, got 17"),
    ({"snapshot_every": 0}, "league.snapshot_every: must be a whole number from 1 to 2,000,000,000, got 0"),
    ({"pool": 0}, "league.pool: must be a whole number from 1 to 64, got 0"),
    ({"pool": 65}, "league.pool: must be a whole number from 1 to 64, got 65"),
    ({"deterministic": "yes"}, "league.deterministic: must be true or false, got 'yes'"),
])
def test_bad_league_keys(league, message):
    with pytest.raises(ConfigError) as e:
        parse_config({**TABLE, "league": league})
    assert message in str(e.value)


def test_league_keys_are_set_from_the_command_line_checked_as_in_the_file(tmp_path, capsys):
    keys, rules = split_sets({"league.current": 0.5, "league.specs": {"greedy": 2}, "joker": "free"})
    assert rules == {"joker": "free"} and set(keys) == {"league.current", "league.specs"}
    cfg = load_config("configs/train/league4.yaml", settings=keys)
    assert cfg.league == replace(load_config("configs/train/league4.yaml").league, current=0.5, specs={"greedy": 2.0})
    plain = {k: v for k, v in TABLE.items() if k != "league"}
    assert parse_config(plain, settings={"league.past": 1}).league == LeagueConfig(past=1.0)       # makes one
    assert parse_config(plain, settings={"league": {"current": 1}, "league.pool": 3}).league == LeagueConfig(
        current=1.0, pool=3)                                                               # over --set league=
    with pytest.raises(ConfigError, match="t.yaml: league.pool: must be a whole number"):   # the file's own key
        parse_config({**TABLE, "league": {**LEAGUE, "pool": 0}}, "t.yaml", settings={"league.current": 2})
    with pytest.raises(ConfigError, match="t.yaml: league: must be a mapping, got 3"):
        parse_config({**TABLE, "league": 3}, "t.yaml", settings={"league.current": 2})
    for pair, message in (("league.current=-1", "command line: league.current: must be a finite number from 0"),
                          ("league.current=.nan", "command line: league.current: must be a finite number"),
                          ("league.pool=1e300", "command line: league.pool: must be a whole number from 1 to 64"),
                          ("league.colour=1", "command line: league.colour: unknown key; allowed: current, past"),
                          ("league.specs.greedy=1", "command line: league.specs.greedy: unknown key"),
                          ("league.specs=[strong]", "command line: league.specs: must be a mapping, got a list"),
                          ("league.specs={nobody: 1}", "command line: league.specs['nobody']: unknown agent"),
                          ("league.deterministic=3", "command line: league.deterministic: must be true or false")):
        assert main(["train", "configs/train/league4.yaml", "--set", pair, "--no-progress",
                     "--out", str(tmp_path / "never")]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and message in err[0], (pair, err)
    assert not (tmp_path / "never").exists()


def test_a_league_needs_a_table():
    alone = {k: v for k, v in TABLE.items() if k not in ("num_players", "opponents", "reward")}
    with pytest.raises(ConfigError, match="league: needs a table: set num_players to 2 .. 8"):
        parse_config(alone)


# ---- the draw ----------------------------------------------------------------------------------

def test_the_draw_is_counter_based_and_follows_the_weights():
    seeds = np.arange(1, 20_001, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    seats = np.arange(20_000) % 4
    kind, member = draws(7, seeds, seats)
    again = draws(7, seeds[::-1], seats[::-1])                # any order, any batch: the same numbers
    assert np.array_equal(kind, again[0][::-1]) and np.array_equal(member, again[1][::-1])
    assert not np.array_equal(kind, draws(8, seeds, seats)[0])          # the run seed is a part of the hash
    assert ((kind >= 0) & (kind < 1)).all() and ((member >= 0) & (member < 1)).all()
    counts = np.bincount(pick([1, 2, 3, 4], kind), minlength=4)
    assert counts.tolist() == np.bincount(pick([1, 2, 3, 4], kind), minlength=4).tolist()
    assert np.allclose(counts / counts.sum(), [0.1, 0.2, 0.3, 0.4], atol=0.012)
    assert (pick([0, 1, 0, 1], kind) % 2 == 1).all()                    # a weight of 0 is never drawn
    assert np.corrcoef(kind, member)[0, 1] < 0.05                      # the two numbers are not the same draw


def test_the_pool_is_bounded(tmp_path):
    cfg = parse_config({**TABLE, "league": {**LEAGUE, "pool": 3}, "out": str(tmp_path / "run")})
    rules = cfg.ruleset
    league = League(cfg, rules, cfg.out_dir)
    policy = new_policy(cfg.to_dict(), rules)
    for step in range(0, 640, 64):
        league.snapshot(policy, step)
    assert league.pool_names() == ["step_448", "step_512", "step_576"]
    assert sorted(p.name for p in (cfg.out_dir / "league").iterdir()) == ["step_448.pt", "step_512.pt", "step_576.pt"]
    record = json.loads((cfg.out_dir / "league.json").read_text())
    assert record["pool"] == league.pool_names() and len(record["snapshots"]) == 10
    assert [s["dropped"] for s in record["snapshots"][:2]] == [192, 256]
    assert len(league.players) == 1 + 1 + 3          # current, the spec, the pool: dropped players are let go
    assert load_checkpoint(cfg.out_dir / "league" / "step_576.pt")["num_timesteps"] == 576


# ---- runs --------------------------------------------------------------------------------------

def league_run(tmp_path, name, **changes):
    cfg = parse_config({**TABLE, "name": name, "out": str(tmp_path / name), **changes})
    trained = train(cfg, progress=False)
    lines = [json.loads(line) for line in (trained.out / "league.jsonl").read_text().splitlines()]
    return trained, lines


@pytest.mark.parametrize("seats", [2, 4])
def test_a_tiny_league_run_plays_its_past_versions(tmp_path, seats):
    trained, lines = league_run(tmp_path, f"l{seats}", num_players=seats)
    out = trained.out
    for name in ("league.json", "league.jsonl", "final.pt", "curve.csv", "config.json"):
        assert (out / name).is_file(), name
    record = json.loads((out / "league.json").read_text())
    assert record["shares"] == {"current": 1 / 3, "past": 1 / 3, "greedy": 1 / 3}
    assert len(record["pool"]) == 2 and record["snapshots"][0]["name"] == "step_0"
    assert sorted(p.name for p in (out / "league").iterdir()) == [f"{n}.pt" for n in sorted(record["pool"])]
    assert [line["timesteps"] for line in lines] == list(range(64, 385, 64))
    played = {label for line in lines for label in line["seats"]}
    assert {"current", "greedy", "past:step_0"} <= played
    assert any(label.startswith("past:step_") and label != "past:step_0" for label in played)   # later versions
    for line in lines:                        # every table's other seats, one mix each
        assert sum(line["seats"].values()) == (seats - 1) * sum(line["mixes"].values())
        assert all(len(mix.split(" + ")) == seats - 1 for mix in line["mixes"])
    assert json.loads((out / "config.json").read_text())["config"]["league"]["pool"] == 2


def test_the_same_seed_gives_the_same_league_run(tmp_path):
    a, lines_a = league_run(tmp_path, "a")
    b, lines_b = league_run(tmp_path, "b")
    assert lines_a == lines_b
    wa, wb = (load_checkpoint(t.out / "final.pt")["policy"] for t in (a, b))
    assert all(np.array_equal(wa[k].numpy(), wb[k].numpy()) for k in wa)
    c, lines_c = league_run(tmp_path, "c", seed=1)
    assert lines_c != lines_a


def test_a_resumed_league_run_takes_its_pool_back(tmp_path):
    first, _ = league_run(tmp_path, "r")
    assert json.loads((first.out / "league.json").read_text())["pool"] == ["step_256", "step_320"]
    for league, asks in (({**LEAGUE, "current": 0.5}, "'current': 0.5"), ({**LEAGUE, "pool": 3}, "'pool': 3"),
                         (None, "None")):
        changed = parse_config({**TABLE, "name": "r", "out": str(first.out), "total_timesteps": 512, "league": league})
        with pytest.raises(ConfigError, match=f"cannot resume from .*last.pt: it was trained with league .*'current': "
                                              f"1.0.*, the config asks for .*{asks}"):
            train(changed, resume=first.out / "last.pt", progress=False)
    cfg = parse_config({**TABLE, "name": "r", "out": str(first.out), "total_timesteps": 512})
    train(cfg, resume=first.out / "last.pt", progress=False)
    record = json.loads((first.out / "league.json").read_text())
    assert record["pool"] == ["step_320", "step_448"]
    lines = [json.loads(line) for line in (first.out / "league.jsonl").read_text().splitlines()]
    assert [line["timesteps"] for line in lines][-3:] == [384, 448, 512]
    assert lines[-2]["pool"] == ["step_256", "step_320"]


@pytest.mark.parametrize("record, message", [
    ("{", "league.json: pool: must be a list of snapshot names"),
    ('{"pool": 3, "snapshots": []}', "league.json: pool: must be a list of snapshot names"),
    ('{"pool": ["../../x"], "snapshots": []}', "league.json: pool: must be a list of snapshot names"),
    ('{"pool": ["step_5"], "snapshots": [1]}', "league.json: pool: must be a list of snapshot names"),
    ('{"pool": ["step_5"], "snapshots": []}', "league.json: pool: snapshot step_5:"),
])
def test_a_damaged_league_record_is_refused_on_resume(tmp_path, record, message):
    cfg = parse_config({**TABLE, "out": str(tmp_path / "run")})
    cfg.out_dir.mkdir()
    (cfg.out_dir / "league.json").write_text(record)
    with pytest.raises(ConfigError) as e:
        League(cfg, cfg.ruleset, cfg.out_dir, resume=True)
    assert message in str(e.value)


def test_a_league_run_with_every_sheet_in_the_observation(tmp_path):
    """`table_obs: full` and a league together: the learned members read the full table as the learner does."""
    trained, lines = league_run(tmp_path, "full", num_players=3, table_obs="full")
    assert json.loads((trained.out / "config.json").read_text())["config"]["table_obs"] == "full"
    played = {label for line in lines for label in line["seats"]}
    assert {"current", "past:step_0"} <= played and (trained.out / "final.pt").is_file()
