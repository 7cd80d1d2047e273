"""`yacht analyze`, `yacht show` and the report's analysis section: JSON schema, folders and files, every bad
input as one line with exit status 2."""
import json

import pytest
from tests.analysis_records import FirstRollThen, play_records, record_of, write_games
from tests.solver_tables import past_memory_file, solved, temp_cache

from agents.base import play_game
from agents.registry import make_agent
from yacht_arena.cli import main
from tournaments.config import parse_config
from tournaments.run import run_tournament
from yacht_env.core.game import Game
from yacht_env.rules import rules_hash

DOC_KEYS = {"rules", "values", "note", "optimal_expected_score", "path", "rules_from", "thresholds", "games",
            "decisions", "states", "forfeited_decisions", "seconds", "agents", "worst",
            "win_note", "worst_win"}    # the chance to win lost: two-player games
AGENT_KEYS = {"games", "forfeits", "decisions", "loss", "loss_per_game", "loss_per_decision", "accuracy",
              "expected_score", "mean_score", "optimal_decisions", "inaccuracies", "inaccuracies_per_game", "mistakes",
              "mistakes_per_game", "blunders", "blunders_per_game", "holds", "boxes", "by_box", "by_turn",
              "loss_histogram", "loss_quantiles", "worst", "win", "worst_win"}
PART_KEYS = {"decisions", "loss", "loss_per_game", "loss_per_decision"}


@pytest.fixture
def cache(monkeypatch):
    with temp_cache() as d:
        monkeypatch.setenv("YACHT_CACHE_DIR", d)
        yield d


@pytest.fixture
def evaluate_dir(tmp_path, cache):
    """An `evaluate --out` folder: games of normal and greedy under classic with two rolls."""
    rules, _ = solved("classic", rolls_per_turn=2)
    records = play_records(rules, ["normal", "greedy"], games=3, seed=1)
    return write_games(tmp_path / "eval", records, {"rules": "classic", "set": {"rolls_per_turn": 2}})


def run_json(argv, capsys):
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def fails(argv, capsys, message):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert err.startswith(f"yacht {argv[0]}: error: ") and message in err, err
    return err


def test_analyze_json_schema(evaluate_dir, capsys):
    doc = run_json(["analyze", str(evaluate_dir), "--json", "--worst", "3"], capsys)
    assert set(doc) == DOC_KEYS
    assert doc["rules"] == {"name": "classic", "set": {"rolls_per_turn": 2}, "hash": rules_hash(solved(
        "classic", rolls_per_turn=2)[0])}
    assert doc["rules_from"] == "evaluate.json" and doc["values"] == "exact"
    assert doc["games"] == 3 and doc["decisions"] == sum(a["decisions"] for a in doc["agents"].values())
    assert doc["thresholds"] == {"tolerance": 1e-9, "inaccuracy": 0.5, "mistake": 2.0, "blunder": 5.0}
    assert list(doc["agents"]) == ["normal", "greedy"] and len(doc["worst"]) == 3
    for a in doc["agents"].values():
        assert set(a) == AGENT_KEYS and set(a["holds"]) == set(a["boxes"]) == PART_KEYS
        assert list(a["by_box"]) == list(solved("classic")[0].boxes) and len(a["by_turn"]) == 12
        assert 0 < a["accuracy"] < 100 and a["loss_per_game"] == pytest.approx(a["loss"] / 3)
        assert a["inaccuracies"] + a["mistakes"] + a["blunders"] <= a["decisions"]
    assert doc["worst"][0]["loss"] >= doc["worst"][-1]["loss"] > 0


def test_analyze_text_and_out_files(evaluate_dir, tmp_path, capsys):
    assert main(["analyze", str(evaluate_dir), "--out", str(tmp_path / "a"), "--agent", "normal"]) == 0
    out = capsys.readouterr().out
    assert "accuracy" in out and "where the points go" in out and "by turn" in out and "greedy" not in out
    doc = json.loads((tmp_path / "a" / "analysis.json").read_text())
    assert list(doc["agents"]) == ["normal"]
    assert (tmp_path / "a" / "analysis.txt").read_text().startswith(str(evaluate_dir / "games.jsonl"))


def test_analyze_bare_file_takes_rules_from_the_command_line(tmp_path, cache, capsys):
    rules, _ = solved("classic", rolls_per_turn=2)
    write_games(tmp_path, play_records(rules, ["easy"], games=2, seed=3))
    log = str(tmp_path / "games.jsonl")
    doc = run_json(["analyze", log, "--rules", "classic", "--set", "rolls_per_turn=2", "--json"], capsys)
    assert doc["rules_from"] == "--rules" and doc["agents"]["easy"]["loss"] > 0
    fails(["analyze", log], capsys, "' in these rules; boxes: ones, twos")   # the default rules do not fit


def test_tournament_folder_and_report_section(tmp_path, cache, capsys):
    solved("yacht")
    cfg = parse_config({"name": "t", "entrants": ["greedy", "strong"], "games": 2, "seed": 1})
    res = run_tournament(cfg, out=tmp_path, progress=False)
    section = res["analysis"]
    assert section["values"] == "exact" and set(section["agents"]) == {"greedy", "strong"}
    assert section["agents"]["strong"]["loss_per_game"] == 0 and section["agents"]["greedy"]["accuracy"] < 100
    assert set(section["agents"]["greedy"]) == {
        "games", "decisions", "loss_per_game", "loss_per_decision", "accuracy", "expected_score",
        "inaccuracies_per_game", "mistakes_per_game", "blunders_per_game", "holds_loss_per_game",
        "boxes_loss_per_game"}
    report = (tmp_path / "report.md").read_text()
    assert "## Move analysis" in report and "| strong | " in report
    doc = run_json(["analyze", str(tmp_path), "--json"], capsys)
    assert doc["rules_from"] == "tournament.json" and doc["games"] == 4
    assert doc["agents"]["greedy"]["loss_per_game"] == pytest.approx(section["agents"]["greedy"]["loss_per_game"])
    ranked = [x["agent"] for x in res["standings"]]
    assert ranked == ["strong", "greedy"] and list(doc["agents"]) == ranked == list(section["agents"])
    fails(["analyze", str(tmp_path), "--rules", "classic"], capsys, "tournament.json names the rules")
    assert main(["report", str(tmp_path), "--no-analysis", "--json"]) == 0
    assert "analysis" not in json.loads(capsys.readouterr().out)
    assert "Move analysis" not in (tmp_path / "report.md").read_text()


def test_report_notes_rules_out_of_the_solvers_reach(tmp_path, cache):
    wide = past_memory_file(tmp_path, "wide")
    cfg = parse_config({"entrants": ["greedy", "random"], "games": 1, "rules": str(wide)})
    res = run_tournament(cfg, out=tmp_path / "t", progress=False)
    assert "cannot be analysed" in res["analysis"]["skipped"]
    report = (tmp_path / "t" / "report.md").read_text()
    assert "## Move analysis\n\nSkipped: rules 'wide' cannot be analysed" in report


def _mistake_game(tmp_path):
    """A solitaire game whose first roll, 6 6 6 6 6, is scored as sixes; strong plays the rest."""
    rules, _ = solved("yacht")
    game = Game(rules, dice=FirstRollThen(7, [6] * 5), seed=7)
    game.roll()
    game.score("sixes")
    play_game(game, [make_agent("strong")])
    return write_games(tmp_path / "g", [record_of(game, ["strong"], "m1")], {"rules": "yacht"})


def test_show_replays_a_game_with_its_analysis(tmp_path, cache, capsys):
    folder = _mistake_game(tmp_path)
    assert main(["show", str(folder), "m1"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "game m1 (line 1), rules yacht: seat 1 strong " + str(json.loads(
        (folder / "games.jsonl").read_text())["totals"][0])
    assert out[3] == "turn 1, seat 1 strong (sheet total 0)"
    first = out[4].split()
    assert first[:9] == ["roll", "1", "6", "6", "6", "6", "6", "score", "sixes"] and first[9] == "30"
    assert first[11:] == ["??", "best:", "score", "yacht"] and float(first[10]) < -5
    assert out[5] == "  sheet  sixes 30 · upper 30/63" and out[6] == "         total 30"
    assert out[8] == "turn 2, seat 1 strong (sheet total 30)"
    assert sum(line.rstrip().endswith(" best") for line in out) >= 12   # strong's own moves are best
    assert out[-1].startswith("seat 1 strong: ") and "0 ?!, 0 ?, 1 ??" in out[-1]
    assert any(line.startswith("total") for line in out)                # the final scorecard
    assert main(["show", str(folder), "1", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["game"] == "m1" and doc["decisions"][0]["class"] == "blunder"
    assert doc["decisions"][0]["best"] == "score yacht"


def test_show_one_seat_of_a_two_seat_game(evaluate_dir, capsys):
    assert main(["show", str(evaluate_dir), "g1", "--seat", "2"]) == 0
    out = capsys.readouterr().out
    assert "seat 2 greedy" in out and "turn 1, seat 1" not in out and "turn 12, seat 2 greedy" in out
    fails(["show", str(evaluate_dir), "g1", "--seat", "3"], capsys, "--seat must be 1..2")
    fails(["show", str(evaluate_dir), "g9"], capsys, "no game 'g9' in ")
    err = fails(["show", str(evaluate_dir), "0"], capsys, "give a key (g0, g1, g2) or one of the line numbers 1..3")
    assert "3 games" in err


def test_bad_inputs_are_one_line_errors(tmp_path, evaluate_dir, capsys):
    fails(["analyze", str(tmp_path / "nowhere")], capsys, "no such file or folder")
    (tmp_path / "empty_dir").mkdir()
    fails(["analyze", str(tmp_path / "empty_dir")], capsys, "no games.jsonl in this folder")
    junk = tmp_path / "junk.jsonl"
    junk.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00binary\nmore\n")
    fails(["analyze", str(junk)], capsys, "line 1 is not valid JSON; not a games log")
    fails(["analyze", str(evaluate_dir / "evaluate.json")], capsys, "line 1 is not a game record")
    deep = tmp_path / "deep.jsonl"
    deep.write_text("[" * 100_000 + "]" * 100_000 + "\n")
    fails(["analyze", str(deep)], capsys, "line 1 is not valid JSON")
    empty = tmp_path / "e" / "games.jsonl"
    empty.parent.mkdir()
    empty.write_text("")
    fails(["analyze", str(empty)], capsys, "no games to analyse")
    fails(["analyze", str(evaluate_dir), "--agent", "nobody"], capsys, "no agent 'nobody' in these games; agents: "
                                                                       "normal, greedy")
    fails(["analyze", str(evaluate_dir), "--worst", "-1"], capsys, "--worst must be >= 0")
    fails(["analyze", str(evaluate_dir), "--rules", "classic"], capsys, "evaluate.json names the rules")
    fails(["analyze", str(junk), "--rules", "nosuch"], capsys, "no such rule set")


def test_damaged_logs_name_file_line_and_move(evaluate_dir, capsys):
    lines = (evaluate_dir / "games.jsonl").read_text().splitlines()
    rec = json.loads(lines[1])
    rec["log"][4]["points"] = 77 if "points" in rec["log"][4] else rec["log"][4].get("hold", 0)
    rec["log"][1] = {**rec["log"][1], "dice": [9, 9, 9, 9, 9]} if "dice" in rec["log"][1] else rec["log"][1]
    (evaluate_dir / "games.jsonl").write_text("\n".join([lines[0], json.dumps(rec), lines[2]]) + "\n")
    err = fails(["analyze", str(evaluate_dir)], capsys, "games.jsonl line 2 (game g1): log[")
    assert "impossible under rules 'classic'" in err
    (evaluate_dir / "games.jsonl").write_text(lines[0] + "\n" + lines[1][:50])   # a torn last line is ignored
    assert run_json(["analyze", str(evaluate_dir), "--json"], capsys)["games"] == 1
    (evaluate_dir / "games.jsonl").write_text(lines[0] + "\n" + lines[1][:50] + "\n" + lines[2] + "\n")
    fails(["analyze", str(evaluate_dir)], capsys, "line 2 is not valid JSON")
    (evaluate_dir / "games.jsonl").write_text(lines[0] + "\n" + lines[0] + "\n")   # a repeated key: first wins
    assert run_json(["analyze", str(evaluate_dir), "--json"], capsys)["games"] == 1


@pytest.mark.parametrize("meta,message", [
    ("{not json", "evaluate.json: not valid JSON"),
    ('{"rules": 5}', "evaluate.json: rules: expected a preset name"),
    ('{"rules": "nosuch"}', "evaluate.json: rules: "),
    ('{"rules": "classic", "set": [1]}', "evaluate.json: set: expected a mapping"),
    ('{"rules": "classic", "set": {"rolls_per_turn": 9}}', "evaluate.json: rules: "),
    ('{"rules": "classic", "rules_hash": "abc"}', "is not the hash of the rules it names"),
])
def test_bad_evaluate_json(evaluate_dir, capsys, meta, message):
    (evaluate_dir / "evaluate.json").write_text(meta)
    fails(["analyze", str(evaluate_dir)], capsys, message)


def test_unsolvable_rules_are_refused(tmp_path, capsys):
    wide = past_memory_file(tmp_path, "wide")
    write_games(tmp_path / "w", [{"agents": ["a"], "log": []}])
    fails(["analyze", str(tmp_path / "w"), "--rules", str(wide)], capsys, "rules 'wide' cannot be analysed")


def test_commands_have_help(capsys):
    for cmd in ("analyze", "show"):
        with pytest.raises(SystemExit) as e:
            main([cmd, "--help"])
        assert e.value.code == 0
        assert "--json" in capsys.readouterr().out


def test_same_figures_whatever_order_the_games_were_appended_in(evaluate_dir, capsys):
    first = run_json(["analyze", str(evaluate_dir), "--json"], capsys)
    log = evaluate_dir / "games.jsonl"
    log.write_text("\n".join(reversed(log.read_text().splitlines())) + "\n")
    again = run_json(["analyze", str(evaluate_dir), "--json"], capsys)
    first.pop("seconds"), again.pop("seconds")
    for w in first["worst"] + again["worst"] + first["worst_win"] + again["worst_win"]:
        w.pop("line")
    for a in list(first["agents"].values()) + list(again["agents"].values()):
        for w in a["worst"] + a["worst_win"]:
            w.pop("line")
    assert first == again


def test_show_marks_the_fallback_moves_of_a_forfeit(tmp_path, cache, capsys):
    folder = _mistake_game(tmp_path)
    rec = json.loads((folder / "games.jsonl").read_text())
    rec["faults"] = [{"error": "MoveTimeout: no move within the 1 s limit", "move": 6}]
    (folder / "games.jsonl").write_text(json.dumps(rec) + "\n")
    assert main(["show", str(folder), "m1"]) == 0
    out = capsys.readouterr().out.splitlines()
    moves = [line for line in out if line.startswith("  roll ")]
    before = sum(1 for j, e in enumerate(rec["log"]) if "dice" in e and j + 1 < 6)   # decisions moved before log[6]
    assert moves[0].split()[11] == "??" and not any(m.endswith("fault)") for m in moves[:before])
    assert all(m.endswith("(fallback move after a fault)") for m in moves[before:])
    assert "forfeited at log[6]: MoveTimeout: no move within the 1 s limit" in out[-1]
    doc = run_json(["analyze", str(folder), "--json"], capsys)
    assert doc["agents"]["strong"]["forfeits"] == 1 and doc["agents"]["strong"]["games"] == 0
