"""Web tables (`yacht serve`): the table's messages and their checks, the same dice after a restart, finished
games in the store format that `yacht analyze`, `show` and `report` read, and the server's protocol over a
real WebSocket (bad frames, rates, kill -9)."""
import json

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
websockets = pytest.importorskip("websockets.sync.client")
from websockets.exceptions import ConnectionClosed  # noqa: E402

from agents.analysis import analyze_game  # noqa: E402
from tournaments.gamelog import read_games  # noqa: E402
from tournaments.report import results  # noqa: E402
from tournaments.store import Store  # noqa: E402
from yacht_arena.web.connections import MAX_FRAME  # noqa: E402
from yacht_arena.web.server import Server  # noqa: E402
from yacht_arena.web.settings import Menu  # noqa: E402
from yacht_arena.web.child import serving  # noqa: E402
from yacht_arena.web.tables import Seat, Table, TableError, store_game  # noqa: E402
from yacht_env.rules import load  # noqa: E402

WAIT = 120.0       # seconds a test waits for the server's answer (a first strong CPU solves its tables)


def two_people(rules="yacht", **kw) -> Table:
    return Table.create(rules, kw.pop("sets", {}), [Seat("Ann"), Seat("Bob")], pace=0, **kw)


def snapshot(table: Table) -> str:
    return json.dumps(table.to_json(), sort_keys=True)


def play_first_boxes(table: Table, held: set[int]) -> None:
    """Play the table to the end: every person seat rolls once and scores its first legal box."""
    while not table.game.is_over:
        seat = table.game.current_seat
        table.handle(held, {"type": "roll", "seat": seat})
        table.handle(held, {"type": "score", "seat": seat, "box": table.game.legal_boxes()[0].split("@")[0]})


# ---- the table ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("rules, sets, seats, why", [
    ("nope", {}, [Seat("a")], "unknown rule set"),
    ("yacht", {"rolls_per_turn": "x"}, [Seat("a")], "rules"),
    ("yacht", {}, [], "1 to 8 seats"),
    ("yacht", {}, [Seat("a")] * 9, "1 to 8 seats"),
    ("yacht", {}, [Seat("", "strong")], "at least one person"),
    ("yacht", {"teams": 2}, [Seat("a"), Seat("b"), Seat("c")], "teams"),
    ("yacht", {}, [Seat("ann"), Seat("Ann!")], "same name"),
])
def test_a_table_refuses_setups_that_do_not_fit(rules, sets, seats, why):
    with pytest.raises(TableError, match=why):
        Table.create(rules, sets, seats)


def test_every_bad_message_gets_an_error_and_leaves_the_table_unchanged():
    table = two_people()
    ann, bob = {0}, {1}
    first = table.game.current_seat
    mover, other = ({0}, {1}) if first == 0 else ({1}, {0})
    bad = [
        (mover, {"type": "shout"}, "unknown message type"),
        (mover, {"type": "roll"}, "no such seat"),
        (mover, {"type": "roll", "seat": True}, "no such seat"),
        (mover, {"type": "roll", "seat": 7}, "no such seat"),
        (other, {"type": "roll", "seat": first}, "token"),
        (other, {"type": "roll", "seat": 1 - first}, "turn"),
        (mover, {"type": "score", "seat": first, "box": "chance"}, "Roll the dice first"),
        (mover, {"type": "undo", "seat": first}, "Nothing of yours to undo"),
        (mover, {"type": "rematch"}, "not over yet"),
        (set(), {"type": "rematch"}, "Only a player"),
    ]
    for held, msg, why in bad:
        before = snapshot(table)
        with pytest.raises(TableError, match=why):
            table.handle(held, msg)
        assert snapshot(table) == before
    table.handle(mover, {"type": "roll", "seat": first})
    for held, msg, why in [
        (mover, {"type": "roll", "seat": first, "hold": [0, 0]}, "each at most once"),
        (mover, {"type": "roll", "seat": first, "hold": [5]}, "each at most once"),
        (mover, {"type": "roll", "seat": first, "hold": "01"}, "Hold dice"),
        (mover, {"type": "roll", "seat": first, "hold": [0, 1, 2, 3, 4]}, "holding every die"),
        (mover, {"type": "score", "seat": first, "box": "nope"}, "no box .nope. under these rules"),
        (mover, {"type": "score", "seat": first, "box": ["chance"]}, "no such box"),
        (mover, {"type": "score", "seat": first, "box": "chance", "column": 3}, "column"),
    ]:
        before = snapshot(table)
        with pytest.raises(TableError, match=why):
            table.handle(held, msg)
        assert snapshot(table) == before
    assert ann | bob == {0, 1}


def test_undo_gives_the_same_dice_back_until_the_next_roll():
    table = two_people()
    first = table.game.current_seat
    me = {first}
    table.handle(me, {"type": "roll", "seat": first})
    dice = table.game.dice
    table.handle(me, {"type": "score", "seat": first, "box": "chance"})
    assert table.state(me)["undo"] == first
    with pytest.raises(TableError, match="Nothing of yours"):
        table.handle({1 - first}, {"type": "undo", "seat": 1 - first})
    table.handle(me, {"type": "undo", "seat": first})
    assert table.game.dice == dice and table.game.current_seat == first
    table.handle(me, {"type": "score", "seat": first, "box": "ones"})
    table.handle({1 - first}, {"type": "roll", "seat": 1 - first})
    with pytest.raises(TableError, match="Nothing of yours"):
        table.handle(me, {"type": "undo", "seat": first})


def test_a_reloaded_table_plays_on_with_the_same_dice(tmp_path):
    table = two_people()
    both = {0, 1}
    for _ in range(5):
        seat = table.game.current_seat
        table.handle(both, {"type": "roll", "seat": seat})
        table.handle(both, {"type": "roll", "seat": seat, "hold": [0, 1]})
        table.handle(both, {"type": "score", "seat": seat, "box": table.game.legal_boxes()[-1]})
    copy = Table.from_json(json.loads(json.dumps(table.to_json())))
    assert copy.state({0}) == table.state({0})
    table.flush(tmp_path)                                    # the whole table, then a journal of moves
    seat = table.game.current_seat
    table.handle(both, {"type": "roll", "seat": seat})
    table.handle(both, {"type": "score", "seat": seat, "box": table.game.legal_boxes()[0]})
    table.handle(both, {"type": "undo", "seat": seat})
    table.flush(tmp_path)
    with open(tmp_path / f"{table.id}.log", "ab") as f:
        f.write(b'{"roll":')                                  # a write a kill cut short
    loaded = Table.load(tmp_path / f"{table.id}.json")
    assert loaded.state({0}) == table.state({0})
    for t in (table, loaded):
        t.handle(both, {"type": "score", "seat": seat, "box": t.game.legal_boxes()[-1]})
        t.handle(both, {"type": "roll", "seat": t.game.current_seat})
    assert loaded.game.dice == table.game.dice
    assert loaded.state(set())["sheets"] == table.state(set())["sheets"]


def test_state_shows_tokens_only_of_the_seats_held_and_previews_the_joker_boxes():
    table = two_people()
    state = table.state({1})
    assert [("token" in s) for s in state["seats"]] == [False, True]
    assert "invite" in state and "invite" not in table.state(set())
    first = table.game.current_seat
    table.handle({first}, {"type": "roll", "seat": first})
    state = table.state(set())
    assert set(state["preview"]) == {f"{b}@0" for b in table.game.legal_boxes()}
    for key, counting in state["counting"].items():
        assert len(counting) == 5 and (any(counting) == (state["preview"][key] > 0))


def test_a_roll_off_rules_who_plays_first_and_a_rematch_passes_the_first_turn():
    table = two_people(sets={"first_player": "roll_off"})
    state = table.state(set())
    assert state["roll_off"] and state["first_seat"] == table.game.first_seat
    faces = state["roll_off"][0]
    assert faces[table.game.first_seat] == max(faces)
    play_first_boxes(table, {0, 1})
    with pytest.raises(TableError, match="being stored"):
        table.handle({0}, {"type": "rematch"})
    table.stored.append(table.game_folder)
    first = table.game.first_seat
    table.handle({0}, {"type": "rematch"})
    assert table.number == 2 and table.game.first_seat == 1 - first and table.game.turn == 0


def test_box_counting_marks_the_dice_that_score():
    rules = load("yacht")
    assert rules.box("threes").counting([1, 3, 3, 5, 6], 6) == [False, True, True, False, False]
    assert rules.box("small_straight").counting([1, 2, 3, 4, 4], 30) == [True, True, True, True, False]
    assert rules.box("chance").counting([1, 2, 3, 4, 4], 14) == [True] * 5
    assert rules.box("yacht").counting([1, 2, 3, 4, 4], 0) == [False] * 5


def test_sitting_down_needs_the_invite_and_a_fresh_name():
    table = Table.create("yacht", {}, [Seat("Ann"), Seat(""), Seat("", "easy", label="Easy")], pace=0)
    with pytest.raises(TableError, match="Wait until every seat"):
        table.handle({0}, {"type": "roll", "seat": table.game.current_seat})
    for invite, name, why in [("x", "Bob", "invite"), (table.invite, "ann", "already called"),
                              (table.invite, "<>", "letter or digit"), (table.invite, "x" * 21, "1 to 20"),
                              (table.invite, 5, "text")]:
        with pytest.raises(TableError, match=why):
            table.sit(invite, name)
    assert table.sit(table.invite, "  Bob  ") == 1 and table.seats[1].name == "Bob"
    with pytest.raises(TableError, match="Every seat"):
        table.sit(table.invite, "Cy")


# ---- the store -----------------------------------------------------------------------------------------

def test_a_finished_game_is_a_tournament_folder_that_analyze_and_report_read(tmp_path):
    table = Table.create("yacht", {"teams": 2}, [Seat("Ann"), Seat("Bob"), Seat("Cy"), Seat("Di")], pace=0)
    play_first_boxes(table, {0, 1, 2, 3})
    folder = store_game(table, tmp_path)
    assert store_game(table, tmp_path) == folder            # storing again keeps one record
    records = Store(tmp_path / folder).records()
    (rec,) = records.values()
    assert rec["agents"] == ["Ann", "Bob", "Cy", "Di"] and rec["seed"] == table.game_seed
    assert rec["totals"] == table.game.totals() and rec["log"] == table.game.log
    res = results(Store(tmp_path / folder), analysis=False)
    assert res["tournament"]["games_played"] == 1 and {x["agent"] for x in res["standings"]} == set(rec["agents"])
    games = read_games(tmp_path / folder)
    seats = analyze_game(games.records[0], games.rules)["seats"]
    assert sum(x["decisions"] for x in seats) == 2 * 13 and {x["decisions"] for x in seats} <= {6, 7}


def test_a_solo_game_is_an_evaluate_folder(tmp_path):
    table = Table.create("yacht", {}, [Seat("Ann")], pace=0)
    play_first_boxes(table, {0})
    folder = store_game(table, tmp_path)
    games = read_games(tmp_path / folder)
    assert games.rules_from == "evaluate.json" and games.records[0]["totals"] == table.game.totals()


def test_the_menu_offers_what_the_registry_accepts_and_refuses_the_rest():
    from yacht_arena.web.settings import accepted
    menu = Menu.of()
    assert {"easy", "normal", "strong"} <= set(menu.entries)
    assert ("strong-win" in menu.entries) == accepted("strong?goal=win")    # offered once the registry has it
    assert menu.spec({"dial": 0.5}) == ("strong?strength=0.5", "Dial 0.5")
    for bad in ("external:rm -rf /", "human", {"dial": 2}, {"dial": "0.5"}, {"spec": "strong"}, None):
        with pytest.raises(TableError):
            menu.spec(bad)
    with pytest.raises(Exception, match="allow_external"):
        Menu.of({"bot": "external:python bot.py"})


def test_the_server_reloads_its_tables_and_stores_a_game_a_kill_left_unstored(tmp_path):
    server = Server(tmp_path)
    made = server.open_table({"rules": "yacht", "seats": [{"kind": "person", "name": "Ann"}], "pace": 0})
    table = server.tables[made["id"]]
    play_first_boxes(table, {0})
    table.flush(server.storage.table_dir)                            # killed before it stored the game
    again = Server(tmp_path)
    assert again.tables[made["id"]].stored == [f"{made['id']}-1"]
    assert read_games(tmp_path / "games" / f"{made['id']}-1").records[0]["totals"] == table.game.totals()
    assert again.best(table.state(set())["rules"]["hash"], "Ann")["score"] == table.game.totals()[0]


def test_a_full_server_closes_finished_tables_nobody_watches(tmp_path):
    from yacht_arena.web.settings import Limits, ServeConfig
    server = Server(tmp_path, ServeConfig(limits=Limits(tables=2)))
    solo = {"rules": "yacht", "seats": [{"kind": "person", "name": "Ann"}], "pace": 0}
    first, second = server.open_table(solo)["id"], server.open_table(solo)["id"]
    with pytest.raises(TableError, match="as many tables"):
        server.open_table(solo)
    play_first_boxes(server.tables[first], {0})
    server.storage.store(server.tables[first])
    third = server.open_table(solo)["id"]
    assert set(server.tables) == {second, third} and not (server.storage.table_dir / f"{first}.json").exists()
    assert (server.storage.games / f"{first}-1" / "games.jsonl").is_file()


# ---- over a real WebSocket ------------------------------------------------------------------------------

class Client:
    def __init__(self, url: str, table: str, tokens=()):
        self.ws = websockets.connect(url.replace("http", "ws") + f"/ws/{table}", open_timeout=WAIT,
                                     max_size=1 << 20).__enter__()
        self.state = self.recv()
        if tokens:
            self.send({"type": "hello", "tokens": list(tokens)})
            self.state = self.until(lambda m: m["type"] == "state" and any(s["you"] for s in m["seats"]))

    def send(self, msg) -> None:
        self.ws.send(msg if isinstance(msg, str) else json.dumps(msg))

    def recv(self) -> dict:
        return json.loads(self.ws.recv(timeout=WAIT))

    def until(self, test) -> dict:
        for _ in range(1000):
            m = self.recv()
            if m["type"] == "state":
                self.state = m
            if test(m):
                return m
        raise AssertionError("no such message")

    def error(self, msg) -> str:
        self.send(msg)
        return self.until(lambda m: m["type"] == "error")["message"]

    def close(self) -> None:
        self.ws.close()


def test_the_protocol_answers_bad_frames_with_errors_and_survives_a_kill(tmp_path):
    data = tmp_path / "data"
    with serving(data) as srv:
        code, bad = srv.post("/api/tables", {"rules": "yacht", "seats": [{"kind": "cpu", "cpu": "external:sh"}]})
        assert code == 400 and "unknown CPU" in bad["error"]
        code, made = srv.post("/api/tables", {"rules": "yacht", "pace": 0, "seats": [
            {"kind": "person", "name": "Ann"}, {"kind": "person", "name": "Bob"}]})
        assert code == 200
        tid, tokens = made["id"], list(made["tokens"].values())
        c = Client(srv.url, tid, tokens)
        assert "not valid JSON" in c.error("{nope")
        assert "JSON object" in c.error("[1]")
        assert "unknown message type" in c.error({"type": "eval", "code": "1"})
        assert "tokens" in c.error({"type": "hello", "tokens": "x"})
        seat = c.state["turn"]
        version = c.state["version"]
        c.send({"type": "roll", "seat": seat})
        c.until(lambda m: m["type"] == "state" and m["version"] > version)
        c.send({"type": "roll", "seat": seat, "hold": [0, 1]})
        s = c.until(lambda m: m["type"] == "state" and m["rolls_left"] == 1)
        dice = s["dice"]
        spectator = Client(srv.url, tid)
        assert "token" in spectator.error({"type": "score", "seat": seat, "box": "chance"})
        assert all("token" not in x for x in spectator.state["seats"])
        spectator.close()
        c.send("x" * (MAX_FRAME * 4))                        # a frame over the limit closes that connection
        with pytest.raises(ConnectionClosed) as closed:
            c.until(lambda m: False)
        assert closed.value.rcvd.code == 1009
        srv.kill9()
    with serving(data) as srv:
        c = Client(srv.url, tid, tokens)
        assert c.state["dice"] == dice and c.state["rolls_left"] == 1 and c.state["turn"] == seat
        flood = [c.error({"type": "undo", "seat": seat}) for _ in range(3)]
        assert all("undo" in m for m in flood)
        for _ in range(60):
            c.send({"type": "shout"})
        assert "too many messages" in c.until(lambda m: m["type"] == "error" and "too many" in m["message"])["message"]
        c.close()
        assert "Traceback" not in srv.output()


def test_a_cpu_takes_a_left_seat_after_the_wait_and_a_tournament_folder_is_shown(tmp_path):
    from tournaments.config import parse_config
    from tournaments.run import run_tournament
    folder = tmp_path / "cup"
    run_tournament(parse_config({"entrants": ["random", "greedy"], "seats": 2, "games": 1}), out=folder)
    config = tmp_path / "serve.yaml"
    config.write_text(f"tournaments: [{folder}]\nmax_tables: 5\n")
    with serving(tmp_path / "data", config) as srv:
        shown = srv.get("/api/watch/0")
        assert shown["games_played"] == shown["games_planned"] == 2
        assert {x["agent"] for x in shown["standings"]} == {"random", "greedy"} and len(shown["games"]) == 2
        code, made = srv.post("/api/tables", {"rules": "yacht", "pace": 0, "replace_after": 0.5,
                                              "replace_cpu": "strong",
                                              "seats": [{"kind": "person", "name": "Ann"},
                                                        {"kind": "person", "name": "Bob"}]})
        assert code == 200
        ann = Client(srv.url, made["id"], [made["tokens"]["0"]])
        bob = Client(srv.url, made["id"], [made["tokens"]["1"]])
        ann.until(lambda m: m["type"] == "state" and m["seats"][1]["online"])
        bob.close()
        ann.until(lambda m: m["type"] == "state" and m["seats"][1]["cpu"])
        assert ann.state["preparing"] in (None, 1)
        assert ann.state["seats"][1]["name"] == "Bob"
        back = Client(srv.url, made["id"], [made["tokens"]["0"], made["tokens"]["1"]])   # Bob's token: no moves
        assert "A CPU plays seat 2" in back.error({"type": "undo", "seat": 1})
        back.close()
        if ann.state["turn"] == 0:                           # Ann moves; then the CPU plays Bob's turn
            ann.send({"type": "roll", "seat": 0})
            ann.until(lambda m: m["type"] == "state" and m["phase"] == "decide")
            ann.send({"type": "score", "seat": 0, "box": "chance"})
        ann.until(lambda m: m["type"] == "state" and m["turn"] == 0 and any(e["seat"] == 1 and "box" in e
                                                                           for e in m["log"]))
        for _ in range(5):
            assert srv.post("/api/tables", {"rules": "yacht", "seats": [{"kind": "person"}]})[0] in (200, 400)
        refused = srv.post("/api/tables", {"rules": "yacht", "seats": [{"kind": "person"}]})
        assert refused[0] == 400 and "as many tables" in refused[1]["error"]
        ann.close()


def test_serve_on_a_port_in_use_says_so_in_one_line(tmp_path, capsys):
    import socket

    from yacht_arena.cli import main
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["serve", "--port", str(port), "--data", str(tmp_path / "data")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"yacht serve: error: cannot listen on 127.0.0.1:{port}") and err.count("\n") == 1
    assert not (tmp_path / "data").exists()


def test_a_solver_cpu_that_would_keep_a_table_solving_for_minutes_is_refused_until_solved(tmp_path, monkeypatch):
    from tests.mini_rules import MINI
    from yacht_arena.web import cpus
    from yacht_env.solver import cache, solution_for
    monkeypatch.setenv("YACHT_CACHE_DIR", str(tmp_path / "cache"))
    maxi = load("maxi")
    for spec in ("strong", "strong?strength=0.5"):
        why = cpus.cannot_play(spec, maxi, 2)
        assert "3.6 GB" in why and "yacht solve --rules maxi" in why, why
    assert cpus.cannot_play("greedy", maxi, 2) is None
    (tmp_path / "mini.yaml").write_text(MINI)
    mini = load(str(tmp_path / "mini.yaml"))
    assert cpus.cannot_play("strong", mini, 2) is None                  # a small solve: the first game does it
    monkeypatch.setattr(cache, "LONG_SOLVE_BYTES", 0)                  # as if it were large
    assert "yacht solve" in cpus.cannot_play("strong", mini, 2)
    solution_for(mini, progress=False)                                  # the operator solves it beforehand
    assert cpus.cannot_play("strong", mini, 2) is None
    server = Server(tmp_path / "data")
    with pytest.raises(TableError, match=r"seat 2 \(Strong\) cannot play these rules: it would first solve"):
        server.open_table({"rules": "maxi", "seats": [{"kind": "person", "name": "Ann"}, {"kind": "cpu",
                                                                                         "cpu": "strong"}]})
