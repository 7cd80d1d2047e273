"""Tournaments: same records for any worker count, forfeits, resume after SIGKILL, report re-rendering."""
import json
import os
import signal
import sys

import pytest
from tests.fake_agents import FACTORY, FAST, tournament_process
from tests.waiting import group_gone

from tournaments.config import parse_config
from tournaments.report import render
from tournaments.run import run_tournament
from tournaments.store import Store
from yacht_env.config import ConfigError



def run(cfg, out, factory=FACTORY, **kw):
    return run_tournament(cfg, out=out, progress=False, factory=factory, **kw)


def stored(out):
    return Store(out).records()


def openings(rec, seat):
    """The first roll of each of `seat`'s turns."""
    log = rec["log"]
    return [e["dice"] for i, e in enumerate(log)
            if "dice" in e and e["seat"] == seat and (i == 0 or "box" in log[i - 1])]


def test_duplicate_dice_every_rotation_sees_the_same_deal(tmp_path):
    cfg = parse_config({"entrants": ["first", "best"], "games": 3, "seed": 1})
    run(cfg, tmp_path)
    recs = stored(tmp_path)
    assert len({recs[f"t0-d{d}-r0"]["seed"] for d in range(3)}) == 3
    for d in range(3):
        r0, r1 = recs[f"t0-d{d}-r0"], recs[f"t0-d{d}-r1"]
        assert r0["seed"] == r1["seed"] and r0["agents"] == r1["agents"][::-1] == ["first", "best"]
        for seat in (0, 1):
            assert len(openings(r0, seat)) == 13
            assert openings(r0, seat) == openings(r1, seat), "each sheet opens every turn with the same dice"
        assert openings(r0, 0) != openings(r0, 1)


def test_same_records_for_one_and_two_workers(tmp_path):
    cfg = parse_config({"entrants": ["first", "best", "random"], "games": 4, "seed": 3})
    one = run(cfg, tmp_path / "one", workers=1)
    two = run(cfg, tmp_path / "two", workers=2)
    assert stored(tmp_path / "one") == stored(tmp_path / "two")
    one.pop("run"), two.pop("run")
    assert one == two
    assert (tmp_path / "one" / "report.md").read_text() == (tmp_path / "two" / "report.md").read_text()


@pytest.mark.parametrize("workers", [1, 2])
def test_forfeits_are_recorded_and_the_tournament_goes_on(tmp_path, workers):
    cfg = parse_config({"entrants": ["best", "crash", "illegal", "hang"], "games": 1, "move_timeout": 0.3})
    res = run(cfg, tmp_path, workers=workers)
    assert res["tournament"]["complete"] and res["tournament"]["games_played"] == 12
    errors = {f["agent"]: f["error"] for f in res["faults"]}
    assert errors["crash"] == "RuntimeError: boom"
    assert errors["illegal"].startswith("IllegalMove: no rolls left")
    assert errors["hang"] == "MoveTimeout: no move within the 0.3 s limit"
    assert res["agents"]["best"]["forfeits"] == 0 and res["agents"]["crash"]["forfeits"] == 6
    for rec in stored(tmp_path).values():
        for seat, name in enumerate(rec["agents"]):
            if name == "best":
                assert rec["places"][seat] == 1 and rec["faults"][seat] is None
            else:
                assert rec["faults"][seat]["error"] == errors[name]
        assert sum(1 for e in rec["log"] if "box" in e) == 2 * 13  # every game is played to the end
    h2h = {(h["a"], h["b"]): h for h in res["head_to_head"]}
    assert h2h[("best", "crash")]["wins"] == 2 and h2h[("crash", "illegal")]["draws"] == 2


def test_report_rerender_is_identical(tmp_path):
    cfg = parse_config({"entrants": ["first", "best", "random"], "games": 3, "seats": 3})
    run(cfg, tmp_path)
    files = {p: (tmp_path / p).read_bytes() for p in ("report.md", "results.json", "hist_best.png", "scores.png")}
    for p in files:
        (tmp_path / p).unlink()
    render(tmp_path)
    assert files == {p: (tmp_path / p).read_bytes() for p in files}
    res = json.loads(files["results.json"])
    assert res["ratings"]["elo"] is None and set(res["ratings"]["openskill"]) == {"first", "best", "random"}
    assert res["agents"]["best"]["games"] == 9 and len(res["head_to_head"]) == 3


def test_other_config_in_same_folder_is_refused(tmp_path):
    run(parse_config({"entrants": ["first", "best"], "games": 1}), tmp_path)
    with pytest.raises(ConfigError, match=r"holds a different tournament \(config hash [0-9a-f]{16}, this config "
                                           r"is [0-9a-f]{16}\); use another --out folder or delete this one"):
        run(parse_config({"entrants": ["first", "best"], "games": 2}), tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("workers", [1, 2])
def test_resume_after_sigkill(tmp_path, workers):
    config = {"entrants": ["slow", "best", "first"], "games": 8, "seed": 9}
    cfg = parse_config(config)
    out = tmp_path / "killed"
    proc = tournament_process(config, out, workers=workers, games=10)
    games = out / "games.jsonl"
    # kill the tournament process alone: its pool workers must notice and go too
    proc.kill()
    proc.wait()
    if not group_gone(proc.pid):
        os.killpg(proc.pid, signal.SIGKILL)
        pytest.fail("processes of the killed run were left behind")
    n_before = games.read_bytes().count(b"\n")
    assert 10 <= n_before < 48, "the run should be killed in the middle"
    with open(games, "ab") as f:  # a write cut short by the kill
        f.write(b'{"key": "t0-d7-r1", "tab')
    res = run(cfg, out, factory=FAST)  # `slow` without its pauses: the same moves
    lines = games.read_bytes().split(b"\n")
    keys = [json.loads(x)["key"] for x in lines if x]
    assert len(keys) == len(set(keys)) == 48, "no game lost or counted twice"
    fresh = tmp_path / "fresh"
    run(cfg, fresh, factory=FAST)
    assert stored(out) == stored(fresh)
    assert (out / "report.md").read_text() == (fresh / "report.md").read_text()
    assert res["run"]["games_run"] == 48 - n_before


def test_external_bot_faults_are_forfeits(tmp_path):
    dead = f"external?timeout=2:{sys.executable} -c 'raise SystemExit(3)'"
    cfg = parse_config({"entrants": ["greedy", {"name": "dead", "agent": dead}], "games": 1})
    res = run(cfg, tmp_path, factory="agents.registry:make_agent")
    assert res["agents"]["dead"]["forfeits"] == 2 and res["agents"]["greedy"]["forfeits"] == 0
    assert all(f["agent"] == "dead" and f["error"].startswith("crash: the bot exited with code 3")
               for f in res["faults"]) and len(res["faults"]) == 2
    assert res["head_to_head"][0]["wins"] == 2


def test_cli_tournament_then_report(tmp_path, capsys):
    from yacht_arena.cli import main
    cfg = tmp_path / "t.yaml"
    cfg.write_text("name: tiny\nentrants: [greedy, random]\ngames: 2\n")
    out = tmp_path / "out"
    assert main(["tournament", str(cfg), "--out", str(out), "--workers", "1", "--quiet"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("tiny: 4/4 games, rules yacht, 2 seats") and "report: " in text
    first = (out / "report.md").read_text()
    assert main(["report", str(out), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["tournament"]["games_played"] == 4 and set(doc["agents"]) == {"greedy", "random"}
    assert (out / "report.md").read_text() == first
    # the same command again finds everything done
    assert main(["tournament", str(cfg), "--out", str(out), "--workers", "1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["run"]["games_run"] == 0



def test_a_resumed_run_says_what_it_kept_and_counts_the_whole_run(tmp_path, capsys, monkeypatch):
    from yacht_arena.cli import main
    cfg = tmp_path / "t.yaml"
    cfg.write_text("name: tiny\nentrants: [greedy, random]\ngames: 2\n")
    out = tmp_path / "out"
    argv = ["tournament", str(cfg), "--out", str(out), "--workers", "1", "--quiet"]
    assert main(argv) == 0
    games = out / "games.jsonl"
    games.write_bytes(b"".join(games.read_bytes().splitlines(keepends=True)[:3]))   # as a run killed after 3
    capsys.readouterr()
    assert main(argv) == 0
    text = capsys.readouterr()
    assert f"{out}: 3 of 4 games kept from an earlier run, resuming: 1 left to play" in text.err
    assert "4 games: 1 played now in " in text.out and ", 3 kept from an earlier run; report: " in text.out
    assert main(argv + ["--json"]) == 0
    run = json.loads(capsys.readouterr().out)["run"]
    assert (run["games_run"], run["games_kept"]) == (0, 4)

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt
    monkeypatch.setattr("yacht_arena.cli.tournament.run_tournament", interrupted)
    assert main(argv) == 130
    assert capsys.readouterr().err == (f"yacht tournament: interrupted; the games played are kept in {out}; rerun the "
                                       f"same command to resume\n")


def test_stored_move_log_replays_the_game(tmp_path):
    from yacht_env.core.game import Game
    cfg = parse_config({"entrants": ["best", "random", "crash"], "games": 1, "seats": 3, "set": {"joker": "free"}})
    run(cfg, tmp_path)
    for rec in stored(tmp_path).values():
        g = Game(cfg.ruleset, num_players=3, seed=rec["seed"])
        for e in rec["log"]:
            if "dice" in e:
                assert list(g.roll(e["hold"])) == e["dice"]
            else:
                assert g.score(e["box"], e["column"]) == e["points"] + e["bonus"]
        assert g.is_over and g.totals() == rec["totals"]
