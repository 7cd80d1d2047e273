"""Dice anyone can check: `tournaments.verify.check_dice` and `yacht verify` replay every roll of stored games
(a web table's, a tournament's) from their seeds; a changed die is named; the table publishes the seed's hash
before the first roll and the seed at the end. And the refusals of the table's newer fields and messages."""
import json
import shutil

import pytest

pytest.importorskip("starlette")

from tournaments.config import parse_config
from tournaments.run import run_tournament
from tournaments.verify import check_dice, commitment
from yacht_arena.cli import main
from yacht_arena.web.server import Server
from yacht_arena.web.tables import Seat, Table, TableError, store_game
from yacht_env.rules import load


def finished_table() -> Table:
    table = Table.create("yacht", {"first_player": "roll_off"}, [Seat("Ann"), Seat("Bob")], pace=0)
    while not table.game.is_over:
        seat = table.game.current_seat
        table.handle({0, 1}, {"type": "roll", "seat": seat})
        table.handle({0, 1}, {"type": "roll", "seat": seat, "hold": [0, 1]})
        table.handle({0, 1}, {"type": "score", "seat": seat, "box": table.game.legal_boxes()[-1]})
    return table


def test_a_web_game_and_a_tournament_verify_and_a_changed_die_is_named(tmp_path, capsys):
    table = finished_table()
    hashed = table.state(set())["commitment"]
    assert hashed == commitment(table.game_seed) and table.state(set())["result"]["seed"] == str(table.game_seed)
    folder = tmp_path / store_game(table, tmp_path)
    (record,) = [json.loads(x) for x in (folder / "games.jsonl").read_text().splitlines()]
    assert check_dice(record, load("yacht", first_player="roll_off")) is None
    assert main(["verify", str(folder)]) == 0
    assert f"every roll matches seed {table.game_seed} (hash {hashed})" in capsys.readouterr().out

    bad = tmp_path / "bad"
    shutil.copytree(folder, bad)
    first = next(e for e in record["log"] if "dice" in e)
    first["dice"] = [6 if f != 6 else 5 for f in first["dice"]]
    (bad / "games.jsonl").write_text(json.dumps(record) + "\n")
    assert main(["verify", str(bad)]) == 1
    out = capsys.readouterr().out
    assert "MISMATCH: move 1: " in out and f"but seed {table.game_seed} gives" in out

    run_tournament(parse_config({"entrants": ["random", "greedy"], "seats": 2, "games": 2}), out=tmp_path / "cup")
    assert main(["verify", str(tmp_path / "cup")]) == 0
    assert capsys.readouterr().out.endswith("4 of 4 games: every roll matches its seed\n")
    assert main(["verify", str(tmp_path / "cup"), "--game", "t9-d9-r9"]) == 2


def test_verify_json_gives_the_same_verdicts_and_exit_codes(tmp_path, capsys):
    table = finished_table()
    folder = tmp_path / store_game(table, tmp_path)
    assert main(["verify", str(folder), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["all_match"] is True and (doc["matching"], doc["total"]) == (1, 1)
    assert doc["rules"]["name"] == "yacht" and doc["rules"]["set"] == {"first_player": "roll_off"}
    (game,) = doc["games"]
    assert game == {"game": game["game"], "seed": str(table.game_seed), "commitment": commitment(table.game_seed),
                    "matches": True, "problem": None}

    record = json.loads((folder / "games.jsonl").read_text())
    first = next(e for e in record["log"] if "dice" in e)
    first["dice"] = [6 if f != 6 else 5 for f in first["dice"]]
    (folder / "games.jsonl").write_text(json.dumps(record) + "\n")
    assert main(["verify", str(folder), "--json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["all_match"] is False and (doc["matching"], doc["total"]) == (0, 1)
    assert doc["games"][0]["matches"] is False and doc["games"][0]["problem"].startswith("move 1: ")
    assert main(["verify", str(folder), "--json", "--game", "t9-d9-r9"]) == 2
    assert capsys.readouterr().out == ""


def test_bad_new_fields_are_refused_with_a_message(tmp_path):
    server = Server(tmp_path / "data")
    for doc, why in [({"public": "yes"}, "public must be true or false"), ({"undo_wait": 99}, "undo before a CPU"),
                     ({"undo_wait": True}, "undo before a CPU")]:
        with pytest.raises(TableError, match=why):
            server.open_table({"rules": "yacht", "seats": [{"kind": "person", "name": "Ann"}], **doc})
    assert not list((tmp_path / "data" / "tables").iterdir())
    table = Table.create("yacht", {}, [Seat("Ann"), Seat("Bob")], pace=0)
    for msg, why in [({"type": "react", "seat": 0, "phrase": 9}, "phrases offered"),
                     ({"type": "react", "seat": 0, "phrase": True}, "phrases offered"),
                     ({"type": "reclaim", "seat": 0}, "already yours"),
                     ({"type": "roll", "seat": table.game.current_seat, "seq": table.seq + 1}, "already made")]:
        with pytest.raises(TableError, match=why):
            table.handle({0, 1}, msg)
    with pytest.raises(TableError, match="No seat is free"):
        table.fill({0}, "easy", "Easy")
