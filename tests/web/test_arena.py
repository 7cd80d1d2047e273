"""The arena of `yacht serve`: remote bots with tokens over `/api/bot` (scripts/remote_bot.py), through a real
server on loopback -- whole games against `strong` without a protocol error, the rating list equal to the
offline fit of the stored games, and the bots that send garbage, stall, disconnect or bring a wrong or revoked
token. Waits are bounded loops that end when the server has acted."""
import json
import subprocess
import sys
import time
import urllib.request

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
pytest.importorskip("websockets.sync.client")
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from tests import waiting
from tests.planted import plant
from tournaments.gamelog import GAMES, read
from tournaments.ratings import plackett_luce
from yacht_arena.cli import main
from yacht_arena.web.bots import ArenaConfig, BotTokens
from yacht_arena.web.child import ROOT, serving
from yacht_arena.web.ratings_page import fit_games, render
from yacht_arena.web.tables import BOT_LABEL, Seat, Table
from yacht_env.config import ConfigError

BOT = str(ROOT / "scripts" / "remote_bot.py")


def add_bot(data, name, capsys) -> str:
    capsys.readouterr()
    assert main(["serve", "--data", str(data), "--add-bot", name]) == 0
    out = capsys.readouterr()
    token = out.out.strip()
    assert len(token) >= 32 and token not in out.err
    return token


def run_bot(srv, token, *extra, timeout=240) -> tuple[int, dict]:
    proc = subprocess.run([sys.executable, BOT, "--url", srv.url, "--token", token, *extra],
                          capture_output=True, text=True, timeout=timeout, cwd=ROOT)
    last = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else ""
    return proc.returncode, json.loads(last) if last.startswith("{") else {"stderr": proc.stderr[-500:]}


def wait_for(check, what: str, seconds: float = 60.0):
    """`check()`'s first true value (tests.waiting.until), or an AssertionError naming what did not happen."""
    got = waiting.until(check, seconds, step=0.1)
    if not got:
        raise AssertionError(f"the server did not {what}")
    return got


def stored(data) -> list:
    return sorted(p for p in (data / "games").iterdir() if (p / GAMES).is_file())


def offline_fit(data) -> list:
    """The Plackett-Luce fit `tournaments.ratings` makes of every stored game of two seats or more, each game
    its own deal in folder-name order: rows as /ratings.json gives them."""
    records, played = [], {}
    for i, folder in enumerate(stored(data)):
        for _, _, r in read(folder / GAMES, None):
            if len(r["agents"]) > 1:
                records.append({**r, "table": i, "deal": 0})
                for a in r["agents"]:
                    played[a] = played.get(a, 0) + 1
    fit = plackett_luce(records, sorted(played), seed=0)["ratings"]
    rows = [{"name": n, "rating": round(v["rating"], 1), "ci95": [round(x, 1) for x in v["ci95"]], "games": played[n]}
            for n, v in fit.items()]
    return sorted(rows, key=lambda r: (-r["rating"], r["name"]))


@pytest.fixture
def config(tmp_path):
    def make(**keys):
        path = tmp_path / "serve.yaml"
        path.write_text("".join(f"{k}: {json.dumps(v)}\n" for k, v in {"ratings_every": 0, **keys}.items()))
        return path
    return make


def test_a_remote_bot_plays_whole_games_against_strong_and_the_ratings_are_the_offline_fit(tmp_path, config,
                                                                                          capsys):
    data = tmp_path / "data"
    token = add_bot(data, "Dicey", capsys)
    assert token not in (data / "bots.json").read_text()                  # only its hash is kept
    with serving(data, config()) as srv:
        code, tally = run_bot(srv, token, "--play", "3")
        assert (code, tally["games"], tally["errors"], tally["faults"]) == (0, 3, 0, 0), tally
        assert tally["moves"] >= 3 * 13 * 2                                 # a roll and a score a turn at least
        folders = stored(data)
        assert len(folders) == 3
        for folder in folders:
            meta = json.loads((folder / "tournament.json").read_text())
            assert list(meta["config"]["entrants"]) == ["Dicey", "Strong"]
            assert meta["config"]["entrants"]["Dicey"] == "remote:Dicey"        # a bot, never a person
        ratings = srv.get("/ratings.json")
        assert ratings["games"] == 3 and ratings["ratings"] == offline_fit(data)
        assert {r["name"] for r in ratings["ratings"]} == {"Dicey", "Strong"}
        idle = [{"name": "Dicey", "online": False, "games": 0, "faults": 0, "pool_today": 0}]
        wait_for(lambda: srv.get("/api/bots")["bots"] == idle, "see the bot leave")
        with urllib.request.urlopen(srv.url + "/ratings", timeout=60) as r:
            page = r.read().decode()
        assert "<th scope=\"row\">Dicey</th>" in page and "Content-Security-Policy" in r.headers
        assert token not in srv.output()


def test_connected_bots_are_on_the_lobby_menu_and_hold_at_most_their_games(tmp_path, config, capsys):
    data = tmp_path / "data"
    token = add_bot(data, "Dicey", capsys)
    with serving(data, config(bot_games=1)) as srv:
        assert not any(c["id"].startswith("bot:") for c in srv.get("/api/menu")["cpus"])
        with connect(srv.url.replace("http", "ws") + "/api/bot",
                     additional_headers={"Authorization": f"Bearer {token}"}) as ws:
            assert json.loads(ws.recv(timeout=30))["type"] == "welcome"
            menu = srv.get("/api/menu")["cpus"]
            assert {"id": "bot:Dicey", "label": "Dicey (remote bot)"} in menu
            seats = [{"kind": "person", "name": "Ann"}, {"kind": "cpu", "cpu": "bot:Dicey"}]
            status, made = srv.post("/api/tables", {"rules": "yacht", "pace": 0, "seats": seats})
            assert status == 200 and set(made["tokens"]) == {"0"}               # the bot's seat token stays hidden
            start = json.loads(ws.recv(timeout=30))
            assert start["type"] == "gameStart" and start["table"] == made["id"] and start["seat"] == 1
            status, refused = srv.post("/api/tables", {"rules": "yacht", "pace": 0, "seats": seats})
            assert status == 400 and "as many games as it may" in refused["error"]
            assert not any(c["id"] == "bot:Dicey" for c in srv.get("/api/menu")["cpus"])
        status, refused = srv.post("/api/tables", {"rules": "yacht", "pace": 0, "seats": seats})
        assert status == 400 and "not connected" in refused["error"]
        status, refused = srv.post("/api/tables", {"rules": "yacht", "seats": [{"kind": "person", "name": " dicey "}]})
        assert status == 400 and "a remote bot's name" in refused["error"]
        status, made = srv.post("/api/tables", {"rules": "yacht", "seats": [{"kind": "person", "name": "Ann"},
                                                                            {"kind": "person"}]})
        assert status == 200
        with connect(srv.url.replace("http", "ws") + f"/ws/{made['id']}") as ws:     # nor by the invite link
            ws.send(json.dumps({"type": "sit", "invite": made["invite"], "name": "DICEY"}))
            assert "a remote bot's name" in until(ws, "error")["message"]


@pytest.mark.parametrize("misbehaviour, limits, why", [
    (["--garbage"], {"bot_move_seconds": 60}, "a move the table refused"),
    (["--stall"], {"bot_move_seconds": 0.5}, "no move within 0.5 seconds"),
    (["--quit-after", "3"], {"bot_move_seconds": 60, "bot_grace_seconds": 0.5},
     "disconnected for more than 0.5 seconds")])
def test_a_bot_that_fails_is_a_fault_and_the_fallback_finishes_the_game(tmp_path, config, capsys, misbehaviour,
                                                                        limits, why):
    data = tmp_path / "data"
    token = add_bot(data, "Rogue", capsys)
    with serving(data, config(**limits)) as srv:
        code, tally = run_bot(srv, token, "--play", "1", *misbehaviour)
        assert code == (0 if "--quit-after" in misbehaviour else 1), tally
        if "--quit-after" not in misbehaviour:
            assert tally["faults"] == 1 and why in tally["messages"][-1]
        if "--garbage" in misbehaviour:
            assert any("not valid JSON" in m for m in tally["messages"])
        bots = wait_for(lambda: [b for b in srv.get("/api/bots")["bots"] if b["faults"]], "count the fault")
        assert bots == [{"name": "Rogue", "online": False, "games": 0, "faults": 1, "pool_today": 0}]
        (folder,) = wait_for(lambda: stored(data), "store the game the fallback finished")
        meta = json.loads((folder / "tournament.json").read_text())
        # the fallback played some of the bot's moves: the record names the seat "NAME + CPU", so neither the
        # rating list nor the best scores credit the bot with the fallback's play
        assert list(meta["config"]["entrants"]) == ["Rogue + CPU", "Strong"]
        table = json.loads(next((data / "tables").glob("*.json")).read_text())
        assert any(why in n and "plays this seat now" in n for n in table["notes"])
        assert f"(bot Rogue) failed: {why}" in srv.output()


def test_the_bot_pool_plays_bots_against_each_other_up_to_their_daily_cap(tmp_path, config, capsys):
    data = tmp_path / "data"
    tokens = [add_bot(data, name, capsys) for name in ("Ada", "Bea")]
    with serving(data, config(bot_pool=True, bot_pool_daily=2, bot_games=1)) as srv:
        bots = [subprocess.Popen([sys.executable, BOT, "--url", srv.url, "--token", t], cwd=ROOT,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE) for t in tokens]
        try:
            played = waiting.until(lambda: len(stored(data)) == 2 and
                                   all(b["games"] == 0 for b in srv.get("/api/bots")["bots"]), 300, step=0.2)
            if not played:                  # say what the server and the bots did: a slow host or a stuck seat
                for b in bots:
                    b.kill()
                raise AssertionError(f"the pool did not play two games: {len(stored(data))} stored, "
                                     f"bots {srv.get('/api/bots')['bots']}\nserver: {srv.output()[-3000:]}\n"
                                     + "\n".join(f"bot: {b.communicate(timeout=30)[1][-1000:]!r}" for b in bots))
            assert [(b["name"], b["pool_today"], b["faults"]) for b in srv.get("/api/bots")["bots"]] == \
                [("Ada", 2, 0), ("Bea", 2, 0)]
            ratings = srv.get("/ratings.json")
            assert ratings["games"] == 2 and {r["name"] for r in ratings["ratings"]} == {"Ada", "Bea"}
        finally:
            for b in bots:
                b.kill()
                b.communicate(timeout=30)
        assert len(stored(data)) == 2


def bot_socket(srv, token):
    return connect(srv.url.replace("http", "ws") + "/api/bot", additional_headers={"Authorization": f"Bearer {token}"})


def until(ws, kind: str) -> dict:
    for _ in range(100):
        event = json.loads(ws.recv(timeout=60))
        if event["type"] == kind:
            return event
    raise AssertionError(f"no {kind} event")


def come_back(srv, table: str, hello: str, rematch: bool = False) -> dict:
    """The person of `hello` (a hello frame with their seat token) opens table `table`'s socket and leaves again:
    the first state they see, or with `rematch` the first state of game 2 after asking for a rematch."""
    with connect(srv.url.replace("http", "ws") + f"/ws/{table}") as ws:
        ws.send(hello)
        state = until(ws, "state")
        if not rematch:
            return state
        ws.send(json.dumps({"type": "rematch"}))
        for _ in range(200):
            state = until(ws, "state")
            if state["game"] == 2:
                return state
    raise AssertionError("the rematch's game did not start")


def test_a_bot_comes_back_to_its_games_and_a_restart_keeps_its_grace(tmp_path, config, capsys):
    data = tmp_path / "data"
    token = add_bot(data, "Dicey", capsys)
    seats = [{"kind": "cpu", "cpu": "bot:Dicey"}, {"kind": "cpu", "cpu": "strong"}]
    with serving(data, config(bot_grace_seconds=600)) as srv:
        with bot_socket(srv, token) as ws:
            until(ws, "welcome")
            status, made = srv.post("/api/tables", {"rules": "yacht", "pace": 0, "seats": seats})
            assert status == 200
            first = until(ws, "move")
        with bot_socket(srv, token) as ws:                                 # back within the grace
            assert until(ws, "gameStart")["table"] == made["id"]
            again = until(ws, "move")
            assert again["state"]["version"] == first["state"]["version"]
            ws.send(json.dumps({"type": "roll", "table": made["id"], "seat": again["seat"], "hold": []}))
            assert again["state"]["phase"] == "roll"
            after = until(ws, "move")["state"]
            assert after["version"] > again["state"]["version"] and after["phase"] == "decide"
    with serving(data, config(bot_grace_seconds=0.5)) as srv:               # restarted: the same grace, short
        (folder,) = wait_for(lambda: stored(data), "forfeit the game after the grace")
        entrants = json.loads((folder / "tournament.json").read_text())["config"]["entrants"]
        assert list(entrants) == ["Dicey + CPU", "Strong"]             # the fallback finished the forfeited game
        assert "(bot Dicey) failed: disconnected for more than 0.5 seconds: a forfeit" in srv.output()


def test_wrong_and_revoked_tokens_are_refused(tmp_path, config, capsys):
    data = tmp_path / "data"
    token = add_bot(data, "Gone", capsys)
    with serving(data, config()) as srv:
        for bad in ("not-a-token", token[:-1], ""):
            code, tally = run_bot(srv, bad or "x", timeout=60)
            assert code != 0 and "Authorization: Bearer" in tally.get("stderr", "")
        assert main(["serve", "--data", str(data), "--revoke-bot", "Gone"]) == 0
        code, tally = run_bot(srv, token, timeout=60)
        assert code != 0 and "Authorization: Bearer" in tally.get("stderr", "")
        assert main(["serve", "--data", str(data), "--revoke-bot", "Gone"]) == 2
        assert token not in srv.output()


def test_tokens_and_the_arena_config_are_checked(tmp_path, capsys):
    tokens = BotTokens(tmp_path)
    a = tokens.add("Bot A")
    assert tokens.check(a) == "Bot A" and tokens.check(a + "x") is None and tokens.check("") is None
    b = tokens.add("Bot A")                                                # a new token replaces the old
    assert tokens.check(a) is None and tokens.check(b) == "Bot A"
    assert not any(tokens.add("Bot B").startswith("-") for _ in range(300))   # 1 in 64 would, drawn plainly
    assert main(["serve", "--data", str(tmp_path), "--add-bot", "!!"]) == 2
    assert "letter or digit" in capsys.readouterr().err
    (tmp_path / "bots.json").write_text("{\"bots\": [1]}")
    assert main(["serve", "--data", str(tmp_path), "--add-bot", "Bot B"]) == 2
    assert "bots.json" in capsys.readouterr().err
    assert tokens.check(b) is None                                       # a damaged file admits nobody
    for key, value in (("bot_move_seconds", 0), ("bot_games", 0), ("bot_pool", "yes"), ("ratings_every", -1)):
        with pytest.raises(ConfigError, match=key):
            ArenaConfig.read("serve.yaml", {key: value})


@pytest.mark.parametrize("kind", ["fifo", "folder", "device", "symlink", "damaged", "nonsense"])
def test_the_rating_list_leaves_out_a_planted_or_damaged_games_log(tmp_path, capsys, kind, victim):
    games = tmp_path / "games"
    good = games / "aa-1"
    good.mkdir(parents=True)
    (good / GAMES).write_text(json.dumps({"agents": ["<b>Ann</b>", "Bob"], "places": [1, 2]}) + "\n")
    bad = games / "bb-1"
    bad.mkdir()
    if kind == "damaged":
        (bad / GAMES).write_text("{not json\n")
    elif kind == "nonsense":
        (bad / GAMES).write_text(json.dumps({"agents": "Eve", "places": [1, True]}) + "\n")
    else:
        plant(bad / GAMES, kind, victim)
    got = fit_games(games)
    assert got["games"] == 1 and [r["name"] for r in got["ratings"]] == ["<b>Ann</b>", "Bob"]
    page = render(got)
    assert "&lt;b&gt;Ann&lt;/b&gt;" in page and "<b>Ann" not in page
    if kind not in ("nonsense", "folder"):
        assert "bb-1" in capsys.readouterr().err


def test_hostile_frames_from_a_bot_are_refused_one_by_one_and_cost_no_fault(tmp_path, config, capsys):
    data = tmp_path / "data"
    token = add_bot(data, "Noisy", capsys)
    other = add_bot(data, "Other", capsys)
    seats = [{"kind": "cpu", "cpu": "bot:Other"}, {"kind": "cpu", "cpu": "easy"}]
    with serving(data, config(bot_rate=1000)) as srv:
        with bot_socket(srv, other) as theirs, bot_socket(srv, token) as ws:
            until(theirs, "welcome")
            until(ws, "welcome")
            status, made = srv.post("/api/tables", {"rules": "yacht", "pace": 0, "seats": seats})
            assert status == 200
            hostile = ["null", "[]", "\"roll\"", "{not json", "[" * 2000 + "]" * 2000, json.dumps({"type": "sit"}),
                       json.dumps({"type": "hello", "tokens": []}), json.dumps({"type": "undo"}),
                       json.dumps({"type": "roll", "table": made["id"], "seat": True}),
                       json.dumps({"type": "roll", "table": made["id"], "seat": 0, "hold": []}),   # Other's seat
                       json.dumps({"type": "score", "table": ["x"], "seat": 0}),
                       json.dumps({"type": "roll", "table": "x" * 3000, "seat": 0})]
            for frame in hostile:
                ws.send(frame)
                assert until(ws, "error")["message"]
            ws.send(b"\x00binary")
            assert until(ws, "error")["message"] == "send JSON text frames"
            for _ in range(200):                                       # a flood waits its turn; nothing is lost
                ws.send("[]")
            for _ in range(200):
                until(ws, "error")
            assert until(theirs, "gameStart")["table"] == made["id"]
            ws.send("x" * 5000)                                        # over the frame limit: the socket closes
            with pytest.raises(ConnectionClosed) as closed:
                until(ws, "error")
            assert closed.value.rcvd.code == 1009
        bots = {b["name"]: b for b in srv.get("/api/bots")["bots"]}
        assert bots["Noisy"]["faults"] == 0 and bots["Other"]["faults"] == 0
        assert "Traceback" not in srv.output()


def test_a_bot_seat_the_fallback_took_stays_the_bots_seat_played_by_the_cpu_after_a_rematch():
    """After a fault the fallback plays the bot's seat for the rest of the table: a rematch keeps the CPU there
    (the bot lost its seat at this table; it is not a person's seat with the bot's name), the seat stays marked
    as the bot's, and its games are stored as "NAME + CPU". A person's seat a CPU took goes back to them."""
    table = Table.create("yacht", {}, [Seat("Ann"), Seat("Rogue", label=BOT_LABEL)], pace=0)
    assert table.seats[1].remote
    table.replace(1, "greedy", "Greedy")                 # as `Arena.fault` does
    table.replace(0, "greedy", "CPU")                    # Ann left; the server's replacement CPU plays for her
    for _ in range(2):                                   # the rematch, and the same table loaded from its file
        table.start(first_seat=1)
        ann, rogue = table.seats
        assert (ann.spec, ann.label, ann.taken) == (None, "", False)
        assert (rogue.name, rogue.spec, rogue.label, rogue.taken, rogue.remote) == ("Rogue", "greedy", "Greedy", True,
                                                                                   False)
        assert rogue.bot and not ann.bot
        assert table.to_json()["seats"][1]["bot"] is True and "bot" not in table.to_json()["seats"][0]
        table.cpu_move(None)
        assert table.entrants() == ["Ann", "Rogue + CPU"] and table.state(set())["seats"][1]["taken"]
        table = Table.from_json(json.loads(json.dumps(table.to_json())))


def test_the_cpus_wait_for_a_persons_undo_but_not_for_a_bots():
    """After a person scores, the CPUs wait `undo_wait` seconds (the person may still undo); after a remote
    bot scores they move on at once, so a bot's game against CPUs is not 13 waits long."""
    for name, label, waits in (("Ann", "", True), ("Dicey", BOT_LABEL, False)):
        table = Table.create("yacht", {}, [Seat(name, label=label), Seat("Strong", spec="strong", label="Strong")],
                             pace=0, undo_wait=30)
        table.start(first_seat=0)
        table.handle({0}, {"type": "roll", "seat": 0, "hold": []})
        box = sorted(table.game.preview())[0][1]
        table.handle({0}, {"type": "score", "seat": 0, "box": box})
        assert table.game.current_seat == 1 and table.game.can_undo
        assert (table.cpu_hold(time.monotonic()) > 20) is waits, name


def test_a_rematch_after_a_bots_fault_keeps_the_fallback_at_its_seat(tmp_path, config, capsys):
    """Through the server: a stalling bot faults, the fallback finishes its game (Ann's seat too: she left and
    the table replaces her), Ann comes back and asks for a rematch; the new game gives Ann her seat back and
    keeps the CPU at the bot's seat, which is not a person's seat with the bot's name."""
    data = tmp_path / "data"
    token = add_bot(data, "Rogue", capsys)
    with serving(data, config(bot_move_seconds=0.3)) as srv:
        with bot_socket(srv, token) as bot:
            assert json.loads(bot.recv(timeout=30))["type"] == "welcome"
            seats = [{"kind": "person", "name": "Ann"}, {"kind": "cpu", "cpu": "bot:Rogue"}]
            status, made = srv.post("/api/tables", {"rules": "yacht", "pace": 0, "replace_after": 0.1, "seats": seats})
            assert status == 200, made
            hello = json.dumps({"type": "hello", "tokens": [made["tokens"]["0"]]})
            come_back(srv, made["id"], hello)
            assert "no move within 0.3 seconds" in until(bot, "fault")["message"]
        (first,) = wait_for(lambda: stored(data), "store the game the CPUs finished", seconds=120)
        assert list(json.loads((first / "tournament.json").read_text())["config"]["entrants"]) == [
            "Ann + CPU", "Rogue + CPU"]
        ann, rogue = come_back(srv, made["id"], hello, rematch=True)["seats"]
        assert (ann["name"], ann["cpu"], ann["taken"]) == ("Ann", False, False)
        assert (rogue["name"], rogue["cpu"], rogue["taken"]) == ("Rogue", True, True)
        table = json.loads(next((data / "tables").glob("*.json")).read_text())
        assert table["seats"][1]["bot"] is True and table["seats"][1]["spec"] is not None


def test_a_bot_sits_again_at_a_rematch_and_plays_the_new_game(tmp_path, config, capsys):
    """The bot's seat is its bot's for the table's life: after a game the bot played through, Ann's rematch
    starts a new game in which the bot hears `gameStart` and is asked to move again (no CPU takes its seat
    after `replace_after`), and both games are stored as the bot's."""
    data = tmp_path / "data"
    token = add_bot(data, "Dicey", capsys)
    with serving(data, config()) as srv, bot_socket(srv, token) as bot:
        assert until(bot, "welcome")["bot"] == "Dicey"
        seats = [{"kind": "person", "name": "Ann"}, {"kind": "cpu", "cpu": "bot:Dicey"}]
        status, made = srv.post("/api/tables", {"rules": "yacht", "pace": 0, "replace_after": 0.1, "seats": seats})
        assert status == 200, made
        hello = json.dumps({"type": "hello", "tokens": [made["tokens"]["0"]]})

        def play_game(number: int) -> None:
            """Answer the bot's moves (roll once, then score the first box offered) until its game ends."""
            assert until(bot, "gameStart")["game"] == number
            for _ in range(200):
                event = json.loads(bot.recv(timeout=60))
                if event["type"] == "gameFinish":
                    assert event["game"] == number
                    return
                if event["type"] != "move":
                    continue
                state, base = event["state"], {"table": made["id"], "seat": event["seat"]}
                if state["phase"] == "roll":
                    bot.send(json.dumps({**base, "type": "roll", "hold": []}))
                else:
                    box, _, column = sorted(state["preview"])[0].partition("@")
                    bot.send(json.dumps({**base, "type": "score", "box": box, "column": int(column)}))
            raise AssertionError("the bot's game did not end")

        come_back(srv, made["id"], hello)
        play_game(1)                                     # Ann left: the table's CPU plays her seat
        rogue = come_back(srv, made["id"], hello, rematch=True)["seats"][1]
        assert (rogue["name"], rogue["cpu"], rogue["online"]) == ("Dicey", False, True)
        play_game(2)
        folders = wait_for(lambda: len(stored(data)) == 2 and stored(data), "store both games")
        for folder in folders:
            entrants = json.loads((folder / "tournament.json").read_text())["config"]["entrants"]
            assert entrants["Dicey"] == "remote:Dicey"
        assert srv.get("/api/bots")["bots"][0]["faults"] == 0
        assert "Traceback" not in srv.output()


def test_a_person_may_undo_before_the_bot_after_them_is_asked(tmp_path, config, capsys):
    """After Ann scores, the bot that moves next is not asked (nor may it move) while she may still undo: she
    undoes and her turn is hers again; after her next score she plays on, and the bot is asked at once."""
    data = tmp_path / "data"
    token = add_bot(data, "Dicey", capsys)
    with serving(data, config()) as srv, bot_socket(srv, token) as bot:
        until(bot, "welcome")
        seats = [{"kind": "person", "name": "Ann"}, {"kind": "cpu", "cpu": "bot:Dicey"}]
        status, made = srv.post("/api/tables", {"rules": "yacht", "pace": 0, "undo_wait": 30, "seats": seats})
        assert status == 200, made
        with connect(srv.url.replace("http", "ws") + f"/ws/{made['id']}") as ann:
            ann.send(json.dumps({"type": "hello", "tokens": [made["tokens"]["0"]]}))

            def state_where(check) -> dict:
                for _ in range(300):
                    event = json.loads(ann.recv(timeout=60))
                    if event["type"] == "state" and check(event):
                        return event
                raise AssertionError("the table did not get there")

            first = state_where(lambda s: s["turn"] is not None)
            if first["turn"] == 1:                        # the bot begins: it rolls once and scores a box
                for _ in range(2):
                    move = until(bot, "move")
                    state, base = move["state"], {"table": made["id"], "seat": 1}
                    if state["phase"] == "roll":
                        bot.send(json.dumps({**base, "type": "roll", "hold": []}))
                    else:
                        box, _, column = sorted(state["preview"])[0].partition("@")
                        bot.send(json.dumps({**base, "type": "score", "box": box, "column": int(column)}))
            state_where(lambda s: s["turn"] == 0 and s["phase"] == "roll")
            ann.send(json.dumps({"type": "roll", "seat": 0, "hold": []}))
            state = state_where(lambda s: s["turn"] == 0 and s["phase"] == "decide")
            box, _, column = sorted(state["preview"])[0].partition("@")
            ann.send(json.dumps({"type": "score", "seat": 0, "box": box, "column": int(column)}))
            scored = state_where(lambda s: s["turn"] == 1)
            bot.send(json.dumps({"type": "roll", "table": made["id"], "seat": 1, "hold": []}))   # too early
            assert "may still undo" in until(bot, "error")["message"]
            with pytest.raises(TimeoutError):             # not asked (nor told anything) while Ann may undo
                bot.recv(timeout=1.5)
            ann.send(json.dumps({"type": "undo", "seat": 0}))
            back = state_where(lambda s: s["turn"] == 0)
            assert back["moves"] == scored["moves"] - 1 and back["dice"] == state["dice"]
            ann.send(json.dumps({"type": "score", "seat": 0, "box": box, "column": int(column)}))
            state_where(lambda s: s["turn"] == 1)
            ann.send(json.dumps({"type": "done", "seat": 0}))
            assert until(bot, "move")["state"]["turn"] == 1
        assert srv.get("/api/bots")["bots"][0]["faults"] == 0
