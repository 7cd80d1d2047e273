"""`yacht serve`'s tables that cannot go on and its data folder: seats checked against the rules, a CPU that
fails taken over by the fallback, tables restored under a changed config, damaged journals, moves the disk
refuses, `--data` that is not a folder, and two servers on one folder; message sequences by hypothesis."""
import asyncio
import json
import os

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.planted import SECRET, fifo
from tests.web.test_web_tables import Client
from yacht_arena.cli import main
from yacht_arena.web.child import free_port, serving
from yacht_arena.web.server import Server
from yacht_arena.web.settings import ServeConfig
from yacht_arena.web.tables import JournalError, Seat, Table, TableError

ANN = {"kind": "person", "name": "Ann"}
CRASHING_BOT = "external:python -c 'import sys; sys.exit(3)'"


def play_to_cpu(table: Table) -> None:
    """Ann (seat 0) plays her turns until a CPU is to move."""
    while not table.game.is_over and not table.seats[table.game.current_seat].cpu:
        seat = table.game.current_seat
        table.handle({seat}, {"type": "roll", "seat": seat})
        table.handle({seat}, {"type": "score", "seat": seat, "box": table.game.legal_boxes()[0].split("@")[0]})


def drive(server: Server, table: Table) -> None:
    async def run():
        server.cpus.drive(table)
        await asyncio.wait_for(server.cpus.drivers[table.id], 300)
        await server.close()
    asyncio.run(run())


# ---- tables that cannot go on --------------------------------------------------------------------------

def test_seats_are_checked_against_the_rules_before_a_table_opens(tmp_path):
    server = Server(tmp_path)
    three_columns = {"rules": "yacht", "set": ["columns=3"], "pace": 0}
    with pytest.raises(TableError, match=r"seat 2 \(Strong, playing to win\) cannot play these rules: .*column"):
        server.open_table({**three_columns, "seats": [ANN, {"kind": "cpu", "cpu": "strong-win"}]})
    with pytest.raises(TableError, match="takes over a left seat .* cannot play these rules"):
        server.open_table({**three_columns, "seats": [ANN], "replace_after": 30, "replace_cpu": "strong-win"})
    assert not list(server.storage.table_dir.iterdir())
    made = server.open_table({**three_columns, "seats": [ANN, {"kind": "cpu", "cpu": "strong"}]})
    assert made["id"] in server.tables


def test_a_maxi_table_takes_a_cpu_that_plays_six_dice_for_a_left_seat(tmp_path):
    """Under Maxi Yatzy the solver's CPUs cannot sit down: Strong would first solve the rules (3.6 GB) and the
    levels have no calibration; a CPU seat of theirs is refused naming why, and the CPU that takes over a left
    seat is the fallback (greedy) unless the host named one, which is checked."""
    server = Server(tmp_path)
    maxi = {"rules": "maxi", "pace": 0, "replace_after": 30}
    with pytest.raises(TableError, match=r"seat 2 \(Strong\) cannot play these rules: it would first solve"):
        server.open_table({**maxi, "seats": [ANN, {"kind": "cpu", "cpu": "strong"}]})
    with pytest.raises(TableError, match=r"takes over a left seat \(Normal\) cannot play these rules"):
        server.open_table({**maxi, "seats": [ANN], "replace_cpu": "normal"})
    made = server.open_table({**maxi, "seats": [ANN, {"kind": "person", "name": "Bob"}]})
    table = server.tables[made["id"]]
    assert table.replace_spec == "greedy" and table.rules.dice == 6
    for seat in (0, 1):                                   # both left: the CPU plays the game out
        table.replace(seat, table.replace_spec, "CPU")
    drive(server, table)
    assert table.game.is_over and all(len(e["dice"]) == 6 for e in table.game.log if "dice" in e)


def test_a_cpu_that_fails_is_a_fault_and_the_fallback_plays_on(tmp_path, capsys):
    config = ServeConfig(cpus={"Broken": CRASHING_BOT}, allow_external=True)
    server = Server(tmp_path, config)
    broken = next(k for k, (label, _) in server.menu.entries.items() if label == "Broken")
    made = server.open_table({"rules": "yacht", "pace": 0, "replace_cpu": "easy",
                              "seats": [ANN, {"kind": "cpu", "cpu": broken}]})
    table = server.tables[made["id"]]
    play_to_cpu(table)
    drive(server, table)
    assert table.seats[1].spec == "easy" and table.seats[1].name == "Broken"
    assert any(e["seat"] == 1 and "box" in e for e in table.game.log)          # the fallback played the turn
    (note,) = table.notes
    assert "Broken" in note and "could not play on" in note and "plays this seat now" in note
    assert table.state(set())["notes"] == [note]
    assert "seat 2 (Broken) failed" in capsys.readouterr().err
    again = Server(tmp_path, config)                                          # the fault is on disk too
    assert again.tables[table.id].notes == [note] and again.tables[table.id].seats[1].spec == "easy"


def test_a_table_whose_cpus_keep_failing_stops_and_says_so(tmp_path, monkeypatch):
    from yacht_arena.web import cpus
    monkeypatch.setattr(cpus, "MAX_FAULTS", 2)
    other = "external:python -c 'import sys; sys.exit(4)'"
    server = Server(tmp_path, ServeConfig(cpus={"Broken": CRASHING_BOT, "Also broken": other}, allow_external=True))
    ids = {label: k for k, (label, _) in server.menu.entries.items()}
    made = server.open_table({"rules": "yacht", "pace": 0, "replace_cpu": ids["Also broken"],
                              "seats": [ANN, {"kind": "cpu", "cpu": ids["Broken"]}]})
    table = server.tables[made["id"]]
    for _ in range(2):                                                        # Broken, then Also broken fail
        play_to_cpu(table)
        drive(server, table)
    assert table.seats[1].spec == other and table.seats[1].label == "Also broken" and not table.game.is_over
    assert len(table.notes) == 2 and "the table stops here" in table.notes[-1]


def test_restored_tables_follow_the_operators_current_config(tmp_path):
    bot = "external:python scripts/example_bot.py"
    server = Server(tmp_path, ServeConfig(cpus={"My bot": bot}, allow_external=True))
    entry = next(k for k, (label, _) in server.menu.entries.items() if label == "My bot")
    made = server.open_table({"rules": "yacht", "pace": 0, "seats": [ANN, {"kind": "cpu", "cpu": entry}]})
    later = Server(tmp_path, ServeConfig())                                     # the operator took the bot away
    table = later.tables[made["id"]]
    assert table.seats[1].spec == "normal" and table.seats[1].name == "My bot"
    assert "no longer offers" in table.notes[0]
    assert json.loads((later.storage.table_dir / f"{table.id}.json").read_text())["seats"][1]["spec"] == "normal"
    assert Server(tmp_path, ServeConfig()).tables[made["id"]].notes == table.notes   # said once


# ---- the data folder ------------------------------------------------------------------------------------

def two_tables(tmp_path) -> tuple[Server, Table, Table]:
    server = Server(tmp_path)
    a, b = (server.tables[server.open_table({"rules": "yacht", "pace": 0, "seats": [ANN]})["id"]] for _ in range(2))
    for t in (a, b):
        t.handle({0}, {"type": "roll", "seat": 0})
        t.handle({0}, {"type": "score", "seat": 0, "box": "chance"})
        t.flush(server.storage.table_dir)
    return server, a, b


@pytest.mark.parametrize("line, why", [
    (b'{"shout":1}\n', "line 4: not a move this server knows"),
    (b'{"roll":"all"}\n', "line 4: not a move this server knows"),
    (b'{"undo":2}\n', "line 4: not a move this server knows"),
    (b'\x00\xff{\n', "line 4: damaged"),
    (b'{"score":"nope","column":0}\n', "line 4: a move the game refuses"),
])
def test_a_damaged_journal_line_stops_only_its_table(tmp_path, capsys, line, why):
    server, a, b = two_tables(tmp_path)
    log = server.storage.table_dir / f"{a.id}.log"
    assert log.read_bytes().startswith(b'{"journal":1}\n') and log.read_bytes().count(b"\n") == 3
    with open(log, "ab") as f:
        f.write(line)
    again = Server(tmp_path)
    assert a.id not in again.tables and again.tables[b.id].state({0}) == b.state({0})
    err = capsys.readouterr().err
    assert f"{a.id}.json: not loaded ({log}: {why}" in err and err.count("\n") == 1
    with pytest.raises(JournalError, match=why):
        Table.load(server.storage.table_dir / f"{a.id}.json")


def test_journal_and_table_formats_are_checked(tmp_path):
    server, a, _ = two_tables(tmp_path)
    log = server.storage.table_dir / f"{a.id}.log"
    log.write_bytes(log.read_bytes().replace(b'{"journal":1}', b'{"journal":9}'))
    with pytest.raises(JournalError, match="line 1: journal format 9; this server reads format 1"):
        Table.load(server.storage.table_dir / f"{a.id}.json")
    log.unlink()
    path = server.storage.table_dir / f"{a.id}.json"
    doc = json.loads(path.read_text())
    path.write_text(json.dumps({**doc, "format": 2}))
    with pytest.raises(JournalError, match="table file format 2"):
        Table.load(path)
    path.write_text("{not json")
    with pytest.raises(JournalError, match="damaged JSON"):
        Table.load(path)


def test_a_move_the_disk_refuses_is_refused_and_the_table_unchanged(tmp_path, victim):
    with serving(tmp_path / "data") as srv:
        code, made = srv.post("/api/tables", {"rules": "yacht", "pace": 0, "seats": [ANN]})
        ann = Client(srv.url, made["id"], [made["tokens"]["0"]])
        log = tmp_path / "data" / "tables" / f"{made['id']}.log"
        log.symlink_to(victim)                                              # planted where the journal goes
        before = ann.state
        assert "could not be saved" in ann.error({"type": "roll", "seat": 0})
        log.unlink()
        fifo(log)                                                           # a journal that would never end
        assert "could not be saved" in ann.error({"type": "roll", "seat": 0})
        log.unlink()
        ann.send({"type": "hello", "tokens": [made["tokens"]["0"]]})
        now = ann.until(lambda m: m["type"] == "state")
        assert now["dice"] == before["dice"] and now["moves"] == before["moves"] == 0
        ann.send({"type": "roll", "seat": 0})
        rolled = ann.until(lambda m: m["type"] == "state" and m["moves"] == 1)
        ann.close()
        srv.kill9()
        out = srv.output()
        assert "not saved, the move is undone" in out and "Traceback" not in out
        assert victim.read_bytes() == SECRET
    with serving(tmp_path / "data") as srv:
        again = Client(srv.url, made["id"], [made["tokens"]["0"]])
        assert again.state["dice"] == rolled["dice"] and again.state["moves"] == 1
        again.close()


def device_link(path):
    path.symlink_to("/dev/null")


@pytest.mark.parametrize("make, why", [
    (lambda p: p.write_text("x"), "is a regular file, not a folder"),
    (lambda p: p.symlink_to(p.parent / "nowhere"), "cannot use the data folder"),
    (device_link, "is a device, not a folder"),
    (fifo, "is a FIFO"),
    (lambda p: (p.mkdir(), (p / "tables").symlink_to(p.parent)), "tables: is a symbolic link"),
    (lambda p: (p.mkdir(), (p / "games").write_text("")), "games: is a regular file"),
    (lambda p: (p.mkdir(), fifo(p / "serve.lock")), "FIFO"),
    (lambda p: (p.mkdir(), (p / "serve.lock").symlink_to(p.parent / "elsewhere" / "victim.txt")), "symbolic link"),
])
def test_data_that_is_not_a_folder_is_one_line(tmp_path, capsys, victim, make, why):
    data = tmp_path / "data"
    make(data)
    assert main(["serve", "--port", str(free_port()), "--data", str(data)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("yacht serve: error: --data: ") and why in err and err.count("\n") == 1
    assert victim.read_bytes() == SECRET


def test_two_servers_started_at_once_on_one_folder_leave_one(tmp_path):
    from concurrent.futures import ThreadPoolExecutor

    from yacht_arena.web.child import Served

    def start(_):
        try:
            return Served(tmp_path / "data")
        except RuntimeError as e:
            return str(e)
    with ThreadPoolExecutor(2) as pool:
        got = list(pool.map(start, range(2)))
    served = [g for g in got if not isinstance(g, str)]
    refused = [g for g in got if isinstance(g, str)]
    try:
        assert len(served) == 1 and len(refused) == 1
        assert "another `yacht serve` is writing this folder" in refused[0] and "Traceback" not in refused[0]
        assert served[0].get("/api/menu")["max_seats"] == 8
    finally:
        for s in served:
            s.stop()


def test_one_server_per_data_folder(tmp_path, capsys):
    with serving(tmp_path / "data") as srv:
        assert main(["serve", "--port", str(free_port()), "--data", str(tmp_path / "data")]) == 2
        err = capsys.readouterr().err
        assert f"another `yacht serve` is writing this folder (pid {srv.proc.pid} on " in err
        assert err.count("\n") == 1
    with serving(tmp_path / "data") as srv:                                  # the lock went with its server
        assert srv.get("/api/menu")["max_seats"] == 8


# ---- message sequences ----------------------------------------------------------------------------------

MESSAGES = st.one_of(
    st.fixed_dictionaries({"type": st.just("roll"), "seat": st.integers(-1, 2),
                           "hold": st.lists(st.integers(-1, 5), max_size=6)}),
    st.fixed_dictionaries({"type": st.just("score"), "seat": st.integers(0, 1),
                           "box": st.sampled_from(["ones", "chance", "yacht", "full_house", "nope"]),
                           "column": st.integers(-1, 1)}),
    st.fixed_dictionaries({"type": st.sampled_from(["undo", "rematch", "shout"]), "seat": st.integers(0, 1)}),
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.sampled_from([frozenset(), frozenset({0}), frozenset({1}), frozenset({0, 1})]),
                          MESSAGES), max_size=40))
def test_any_message_sequence_is_refused_unchanged_or_journalled_and_replayed(tmp_path_factory, sequence):
    folder = tmp_path_factory.mktemp("tables")
    table = Table.create("yacht", {}, [Seat("Ann"), Seat("Bob")], pace=0)
    table.flush(folder)
    for held, msg in sequence:
        before = json.dumps(table.to_json(), sort_keys=True)
        try:
            table.handle(set(held), msg)
        except TableError:
            assert json.dumps(table.to_json(), sort_keys=True) == before
            continue
        table.flush(folder)
    loaded = Table.load(folder / f"{table.id}.json")
    assert loaded.state({0, 1}) == table.state({0, 1})
    for name in os.listdir(folder):
        assert name.startswith(table.id)
