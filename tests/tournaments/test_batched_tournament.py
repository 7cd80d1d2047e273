"""Tournaments play tables of batched agents in lockstep: the stored records and the report are the ones
the per-game path (every game in a watched game worker) writes, game by game."""
import json
import sys
from pathlib import Path

import pytest
from tests.fake_agents import PER_GAME
from tests.solver_tables import solve_once, temp_cache

from tournaments.config import parse_config
from tournaments.run import run_tournament
from tournaments.store import Store
from yacht_env.rules import load

BOT = f"external:{sys.executable} {Path(__file__).resolve().parents[2] / 'scripts' / 'example_bot.py'}"


@pytest.fixture(autouse=True)
def cache():
    with temp_cache():
        yield


def both_paths(tmp_path, config: dict, workers: int = 1):
    # no move limit: the records compared must not depend on how busy the machine is
    cfg = parse_config({"move_timeout": None, **config})
    solve_once(load(cfg.ruleset, columns=1))
    batched = run_tournament(cfg, out=tmp_path / "batched", progress=False)
    single = run_tournament(cfg, out=tmp_path / "single", progress=False, factory=PER_GAME, workers=workers)
    return cfg, (tmp_path / "batched", batched), (tmp_path / "single", single)


def assert_same_records(a, b):
    ra, rb = Store(a).records(), Store(b).records()
    assert sorted(ra) == sorted(rb)
    for key in ra:
        assert ra[key] == rb[key], key


@pytest.mark.parametrize("config", [
    {"entrants": ["random", "easy", "normal"], "games": 3},
    {"entrants": ["random", "greedy", "strong", {"name": "dial", "agent": "strong?strength=0.6"}], "games": 2,
     "seats": 3, "rules": "classic", "set": {"tiebreak": "sudden_death", "rolls_per_turn": 2}},
    {"entrants": ["random", "normal", "strong", {"name": "strong2", "agent": "strong"}], "games": 1, "seats": 4,
     "set": {"teams": 2}},
    {"entrants": ["greedy", "strong"], "games": 2, "set": {"columns": 2}},
], ids=["two-seats", "classic-three-seats", "teams", "two-columns"])
def test_batched_tables_store_the_per_game_records(tmp_path, config):
    cfg, (a, res_a), (b, res_b) = both_paths(tmp_path, config)
    assert_same_records(a, b)
    assert len(Store(a).records()) == cfg.total_games
    for r in (res_a, res_b):
        r.pop("run")
    assert json.dumps(res_a, sort_keys=True) == json.dumps(res_b, sort_keys=True)
    assert (a / "report.md").read_text() == (b / "report.md").read_text()


def test_mixed_tournaments_play_per_game_tables_in_workers(tmp_path):
    """A table with a per-game agent goes to the game workers; the others stay batched; same records."""
    config = {"entrants": ["greedy", "normal", {"name": "bot", "agent": BOT}], "games": 2}
    cfg, (a, _), (b, _) = both_paths(tmp_path, config, workers=2)
    assert_same_records(a, b)


def test_a_batched_run_resumes(tmp_path):
    cfg = parse_config({"entrants": ["random", "greedy"], "games": 4})
    out = tmp_path / "run"
    run_tournament(cfg, out=out, progress=False)
    lines = (out / "games.jsonl").read_text().splitlines()
    (out / "games.jsonl").write_text("\n".join(lines[:3]) + "\n")
    res = run_tournament(cfg, out=out, progress=False)
    assert res["run"]["games_run"] == len(lines) - 3
    fresh = tmp_path / "fresh"
    run_tournament(cfg, out=fresh, progress=False)
    assert_same_records(out, fresh)


def test_roll_off_for_the_first_turn_is_balanced_by_the_rotations(tmp_path):
    """first_player: roll_off (seed 003): a deal's roll-off is the same in every rotation, so each entrant
    starts the same number of games; batched and per-game records agree."""
    cfg, (a, _), (b, _) = both_paths(tmp_path, {"entrants": ["random", "greedy", "strong"], "games": 4, "seats": 3,
                                                 "set": {"first_player": "roll_off"}})
    assert_same_records(a, b)
    starts = {}
    for r in Store(a).records().values():
        name = r["agents"][r["log"][0]["seat"]]
        starts[name] = starts.get(name, 0) + 1
    assert starts == {"random": 4, "greedy": 4, "strong": 4}
    assert len({r["log"][0]["seat"] for r in Store(a).records().values()}) > 1      # not always seat 0
