"""What a player notices in the first minute at a web table, tried in headless Chromium (issue 40's list):
a double click, a double tap or a held R rolls once and a resent move is refused; holding every die means
ready to score; messages in player language; the undo window before a CPU moves; "New best!" stays; a CPU
that took over a seat sets no best score; a taken-over seat is marked and reclaimed; names, "(you)" and the
standings' numbering; spectators and latecomers are told; an unknown table and a lost connection say so.

One server and one browser for the whole module; each table is opened through the API and entered with its
seat tokens, so a test takes a few seconds.
"""
import json
import time

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
websockets = pytest.importorskip("websockets.sync.client")

from tests.browser import MISSING, chrome  # noqa: E402

from yacht_arena.web.child import serving  # noqa: E402
from yacht_arena.web.tables import Seat, Table, TableError  # noqa: E402

WAIT = 20.0


@pytest.fixture(scope="module")
def srv(tmp_path_factory):
    with serving(tmp_path_factory.mktemp("web") / "data") as served:
        yield served


@pytest.fixture(scope="module")
def driver(tmp_path_factory):
    d = chrome(tmp_path_factory.mktemp("profile"), (1280, 800))
    if d is None:
        pytest.skip(MISSING)
    yield d
    d.quit()


def wait(driver, test, timeout=WAIT, what="the page"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = test(driver)
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}; page says: {text(driver, 'turn')!r} "
                         f"{text(driver, 'message')!r}")


def text(driver, id_) -> str:
    return driver.execute_script("const e = document.getElementById(arguments[0]); return e ? e.textContent : ''", id_)


def state(driver) -> dict | None:
    return driver.execute_script("return typeof state === 'undefined' ? null : state")


def enabled(driver, id_) -> bool:
    return driver.execute_script("const e = document.getElementById(arguments[0]); "
                                 "return !e.disabled && !e.hidden", id_)


def sit(driver, srv, seats, tokens=None, **options) -> dict:
    """Open a table through the API and enter it in the browser holding `tokens` (default: the named people's)."""
    code, made = srv.post("/api/tables", {"rules": "yacht", "pace": 0, "seats": seats, **options})
    assert code == 200, made
    held = list(made["tokens"].values()) if tokens is None else tokens
    driver.get(srv.url + "/")
    driver.execute_script("localStorage.setItem(arguments[0], arguments[1])", f"yacht.seats.{made['id']}",
                          json.dumps(held))
    driver.get(f"{srv.url}/t/{made['id']}")
    wait(driver, lambda d: state(d) and state(d)["table"] == made["id"], what="the table")
    return made


def person(name=""):
    return {"kind": "person", "name": name}


def cpu(level="easy"):
    return {"kind": "cpu", "cpu": level}


def heads(driver) -> list[str]:
    return driver.execute_script("return [...document.querySelectorAll('#sheet thead th')].map(e => e.textContent)")


def click(driver, css):
    """Click an element, found afresh if a redraw replaced it between finding and clicking."""
    from selenium.common.exceptions import StaleElementReferenceException   # selenium is optional (tests.browser)
    for _ in range(5):
        try:
            found = driver.find_element("css selector", css)
            # to the middle of the screen, as a player scrolls it there: not under the phone's sticky dice bar
            driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", found)
            found.click()
            return
        except StaleElementReferenceException:
            continue
    raise AssertionError(f"{css} kept being redrawn")


def roll_now(driver):
    moves = state(driver)["moves"]
    click(driver, "#roll")
    wait(driver, lambda d: state(d)["moves"] > moves and d.execute_script("return performance.now() >= settled + 30"),
         what="the roll to land")


class Client:
    """A second player over a plain WebSocket."""

    def __init__(self, srv, table, tokens):
        self.ws = websockets.connect(srv.url.replace("http", "ws") + f"/ws/{table}", open_timeout=WAIT)
        self.state = None
        self.ws.send(json.dumps({"type": "hello", "tokens": tokens}))

    def until(self, test):
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            msg = json.loads(self.ws.recv(timeout=WAIT))
            if msg["type"] == "state":
                self.state = msg
            if test(msg):
                return msg
        raise AssertionError("no such message")

    def close(self):
        self.ws.close()


def test_a_double_click_a_held_r_key_and_a_resent_move_roll_once(driver, srv):
    from selenium.webdriver.common.action_chains import ActionChains
    sit(driver, srv, [person("Ann")])
    ActionChains(driver).double_click(driver.find_element("id", "roll")).perform()
    wait(driver, lambda d: state(d)["moves"] >= 1 and enabled(d, "roll"), what="the roll to settle")
    assert state(driver)["moves"] == 1
    driver.execute_script("for (let i = 0; i < 6; i++) document.dispatchEvent(new KeyboardEvent('keydown', "
                          "{key: 'r', repeat: i > 0, bubbles: true}))")
    wait(driver, lambda d: state(d)["moves"] >= 2 and enabled(d, "roll"), what="the second roll to settle")
    assert state(driver)["moves"] == 2
    # the same move sent twice (a network resend): the server plays it once and says why it refused the other
    driver.execute_script("const m = JSON.stringify({type: 'roll', seat: 0, hold: [], seq: state.seq}); "
                          "ws.send(m); ws.send(m)")
    wait(driver, lambda d: "already made" in text(d, "message"), what="the refusal")
    assert state(driver)["moves"] == 3 and state(driver)["rolls_left"] == 0


def test_holding_all_five_means_ready_to_score_and_messages_are_for_players(driver, srv):
    sit(driver, srv, [person("Ann")])
    roll_now(driver)
    wait(driver, lambda d: enabled(d, "roll"), what="Roll")
    for i in range(5):
        click(driver, f'#dice [data-index="{i}"]')
    click(driver, "#roll")
    assert text(driver, "message") == "You are holding every die: you are ready to score. Pick a box."
    assert state(driver)["moves"] == 1
    said = []

    def refused(msg):
        driver.execute_script("document.getElementById('message').textContent = ''; "
                              "ws.send(JSON.stringify(arguments[0]))", msg)
        said.append(wait(driver, lambda d: text(d, "message"), what="the refusal"))

    refused({"type": "roll", "seat": 0, "hold": [0, 1, 2, 3, 4]})
    driver.execute_script("move({type: 'score', seat: 0, box: 'yacht', column: 0})")
    wait(driver, lambda d: state(d)["phase"] == "roll", what="the score")
    refused({"type": "score", "seat": 0, "box": "chance", "column": 0})
    roll_now(driver)
    refused({"type": "score", "seat": 0, "box": "yacht", "column": 0})
    refused({"type": "score", "seat": 0, "box": "three_of_a_kind", "column": 2})
    assert said[:3] == ["You are holding every die: you are ready to score. Pick a box.", "Roll the dice first.",
                        "Yacht is already filled: pick an open box."]
    for m in said:
        assert "_" not in m and "pattern" not in m and "legal boxes" not in m and m[0].isupper()


def test_undo_against_a_cpu_lasts_until_the_person_plays_on(driver, srv):
    sit(driver, srv, [person("Ann"), cpu("easy")], undo_wait=30)
    roll_now(driver)
    wait(driver, lambda d: d.find_elements("css selector", '#sheet button.preview[data-box="chance@0"]'))
    click(driver, '#sheet button.preview[data-box="chance@0"]')
    click(driver, "#confirm")
    wait(driver, lambda d: enabled(d, "undo"), what="Undo after scoring")
    assert state(driver)["turn"] == 1 and enabled(driver, "done")     # the CPU's turn, and it waits
    click(driver, "#undo")
    wait(driver, lambda d: state(d)["turn"] == 0 and state(d)["phase"] == "decide", what="the undone turn")
    click(driver, '#sheet button.preview[data-box="chance@0"]')
    click(driver, "#confirm")
    wait(driver, lambda d: enabled(d, "done"), what="Play on")
    started = time.monotonic()
    click(driver, "#done")                         # Play on: the CPU need not wait 30 s
    wait(driver, lambda d: state(d)["turn"] == 0 and any(e["seat"] == 1 and "box" in e for e in state(d)["log"]),
         what="the CPU's turn")
    assert time.monotonic() - started < 25 and not enabled(driver, "undo")


def play_out(driver):
    """Play a solo game to its end from the page: roll once, score the first box offered."""
    while not state(driver).get("result"):
        s = wait(driver, lambda d: not d.execute_script("return busy") and state(d), what="an answer")
        if s.get("result"):
            break
        if s["phase"] == "roll":
            driver.execute_script("move({type: 'roll', seat: 0, hold: []})")
        else:
            box, col = min(s["preview"]).split("@")
            driver.execute_script("move({type: 'score', seat: 0, box: arguments[0], column: Number(arguments[1])})",
                                  box, col)
        wait(driver, lambda d, q=s["seq"]: state(d)["seq"] > q, what="the move")


def test_new_best_stays_and_the_standings_are_numbered_once(driver, srv):
    made = sit(driver, srv, [person("Ann")])
    rules = state(driver)["rules"]["hash"]
    driver.execute_script("localStorage.setItem(arguments[0], JSON.stringify({score: 1, table: 'x', game: 1}))",
                          f"yacht.best.{rules}")
    play_out(driver)
    wait(driver, lambda d: "on this server" in text(d, "best"), what="the server's best")
    assert text(driver, "best").startswith("New best on this device under yacht! (was 1)")
    total = state(driver)["result"]["totals"][0]
    shown = driver.execute_script("return [...document.querySelectorAll('#standings li')]"
                                  ".map(e => [e.textContent, getComputedStyle(e).listStyleType])")
    assert shown == [[f"1. Ann: {total}", "none"]]
    assert srv.get(f"/api/best?rules={rules}&name=Ann")["best"]["score"] == total and made


def test_a_cpu_that_took_over_sets_no_best_and_the_seat_is_marked_and_reclaimed(driver, srv, tmp_path):
    made = sit(driver, srv, [person("Ann"), person("Bob")], replace_after=0.5, replace_cpu="easy", undo_wait=0)
    driver.execute_script("localStorage.setItem(arguments[0], JSON.stringify([arguments[1]]))",
                          f"yacht.seats.{made['id']}", made["tokens"]["0"])
    driver.refresh()
    wait(driver, lambda d: state(d) and state(d)["seats"][0]["you"], what="Ann's seat")
    bob = Client(srv, made["id"], [made["tokens"]["1"]])
    bob.until(lambda m: m["type"] == "state" and m["seats"][0]["online"])
    # Ann's phone sleeps: its connection drops and the page does not reconnect until it wakes
    driver.execute_script("ws.fatal = true; ws.close()")
    seen = bob.until(lambda m: m["type"] == "state" and m["seats"][0]["taken"])
    assert seen["seats"][0]["cpu"] and seen["seats"][0]["name"] == "Ann"
    driver.execute_script("ws.fatal = false; connect()")              # it wakes: the seat comes back
    back = bob.until(lambda m: m["type"] == "state" and not m["seats"][0]["cpu"])
    assert not back["seats"][0]["taken"]
    wait(driver, lambda d: "(you)" in heads(d)[1], what="Ann's column")
    bob.close()
    shown = wait(driver, lambda d: "(CPU playing)" in heads(d)[2] and heads(d), what="Bob's mark")
    assert shown[1] == "Ann (you)" and shown[2] == "Bob (CPU playing)"
    # a solo game the CPU finished for Ann: no best score for her, and her record says a CPU played
    made = sit(driver, srv, [person("Cy")], replace_after=0.5, replace_cpu="easy")
    rules = state(driver)["rules"]["hash"]
    driver.get(srv.url + "/")                                          # Cy leaves; a CPU plays the game out
    wait(driver, lambda d: (srv.data / "games" / f"{made['id']}-1" / "games.jsonl").is_file(), timeout=60,
         what="the stored game")
    record = json.loads((srv.data / "games" / f"{made['id']}-1" / "games.jsonl").read_text())
    assert record["agents"] == ["Cy + CPU"]
    assert srv.get(f"/api/best?rules={rules}&name=Cy")["best"] is None
    driver.get(f"{srv.url}/t/{made['id']}")
    wait(driver, lambda d: "does not count" in text(d, "best"), what="the best-score note")


def test_names_spectators_and_latecomers_are_told(driver, srv):
    driver.get(srv.url + "/")
    driver.execute_script("localStorage.clear()")
    driver.get(srv.url + "/")
    wait(driver, lambda d: d.find_elements("css selector", "#seats input"), what="the lobby")
    assert driver.find_element("css selector", "#seats input").get_attribute("value") not in ("", "You")
    code, made = srv.post("/api/tables", {"rules": "yacht", "seats": [person("Ann"), person("")]})
    driver.get(f"{srv.url}/t/{made['id']}")
    wait(driver, lambda d: state(d), what="the view link")
    assert text(driver, "role") == "You are watching this table."
    bob = Client(srv, made["id"], [])
    bob.ws.send(json.dumps({"type": "sit", "invite": made["invite"], "name": "Bob"}))
    bob.until(lambda m: m["type"] == "seated")
    driver.get(f"{srv.url}/t/{made['id']}?invite={made['invite']}")      # a latecomer: the table is full
    wait(driver, lambda d: "taken" in text(d, "role"), what="the latecomer's note")
    assert text(driver, "role") == "Every seat was taken before you arrived: you are watching this table."
    assert not driver.find_element("id", "sit").is_displayed()
    bob.close()


def test_an_unknown_table_disables_the_controls_and_offers_the_lobby(driver, srv):
    driver.get(srv.url + "/")
    driver.get_log("browser")
    driver.get(srv.url + "/t/no-such-table")
    wait(driver, lambda d: d.find_element("id", "gone").is_displayed(), what="the way back")
    assert text(driver, "turn") == "This table is not here"
    assert all(driver.find_element("id", b).get_property("disabled") for b in ("roll", "confirm", "undo"))
    body = driver.find_element("tag name", "body")
    body.send_keys("r")
    body.send_keys("u")
    driver.execute_script("document.getElementById('undo').click()")
    errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    assert errors == []
    driver.find_element("css selector", "#gone a").click()
    wait(driver, lambda d: d.find_element("id", "lobby").is_displayed(), what="the lobby")


def test_a_click_while_disconnected_says_so_and_reconnects(driver, srv):
    sit(driver, srv, [person("Ann")])
    wait(driver, lambda d: enabled(d, "roll"), what="Roll")
    driver.execute_script("ws.onclose = null; ws.close()")           # the page has not noticed yet
    wait(driver, lambda d: d.execute_script("return ws.readyState") == 3, what="the socket to close")
    click(driver, "#roll")
    assert text(driver, "message").startswith(("Not connected, so that did not reach the table", "Connected again"))
    wait(driver, lambda d: text(d, "message") == "Connected again: play on." and enabled(d, "roll"),
         what="the reconnect")
    roll_now(driver)
    assert state(driver)["moves"] == 1


def test_a_rematch_after_everyone_left_gives_the_seats_back_to_their_people():
    table = Table.create("yacht", {}, [Seat("Ann"), Seat("Bob")], pace=0)
    for seat in (0, 1):
        table.replace(seat, "easy", "CPU")
    while not table.game.is_over:                              # the CPUs play the game out for both
        table.cpu_move(None)
        table.cpu_move(int(table.game.legal_mask().nonzero()[0][-1]))
    assert table.helped == {0, 1} and table.entrants() == ["Ann + CPU", "Bob + CPU"] and table.best_offer is None
    table.stored.append(table.game_folder)
    seq = table.seq
    table.handle({0}, {"type": "rematch", "seq": seq})
    assert [(s.cpu, s.taken) for s in table.seats] == [(False, False), (False, False)] and not table.helped
    with pytest.raises(TableError, match="already made"):      # a second Rematch click is stale
        table.handle({0}, {"type": "rematch", "seq": seq})
    assert table.number == 2


def test_the_lobby_sets_the_rules_lists_the_table_and_the_host_starts_with_cpus(driver, srv):
    driver.get(srv.url + "/")
    wait(driver, lambda d: d.find_elements("css selector", "#seats li"), what="the lobby")
    driver.execute_script("document.getElementById('seats').replaceChildren(); addSeat('person', 'Ann'); "
                          "addSeat('person', '')")
    driver.find_element("id", "extra-bonus").click()                       # on by default: switched off
    driver.execute_script("document.getElementById('rolls').value = '2'")
    driver.find_element("id", "public").click()
    driver.find_element("id", "open-table").click()
    s = wait(driver, lambda d: "/t/" in d.current_url and state(d), what="the table")
    assert s["rules"]["set"] == {"extra_yacht_bonus": False, "rolls_per_turn": 2} and s["free"]
    listed = srv.get("/api/open")["tables"]
    assert [(t["id"], [x["name"] for x in t["seats"]]) for t in listed if t["id"] == s["table"]] == \
        [(s["table"], ["Ann", ""])]
    wait(driver, lambda d: d.find_element("id", "start-now").is_displayed(), what="Start now")
    driver.execute_script("document.getElementById('fill-cpu').value = 'easy'")
    click(driver, "#fill")
    s = wait(driver, lambda d: not state(d)["free"] and state(d), what="the CPU in the free seat")
    assert s["seats"][1]["cpu"] and s["seats"][1]["name"] == "Easy" and text(driver, "turn") == "Your turn"
    assert driver.title == "Your turn · Yacht"
    assert all(t["id"] != s["table"] for t in srv.get("/api/open")["tables"])   # full: no longer listed
    click(driver, "#react-buttons button")
    wait(driver, lambda d: text(d, "reaction-log") == "Ann: Good game!", what="the reaction")
    click(driver, "#react-buttons button")       # at once again: one at a time
    wait(driver, lambda d: text(d, "message") == "One reaction at a time: wait a moment.", what="the refusal")


def test_a_rematch_asks_the_other_people_here_and_starts_when_they_agree():
    table = Table.create("yacht", {}, [Seat("Ann"), Seat("Bob"), Seat("", "easy", label="Easy")], pace=0)
    while not table.game.is_over:                                  # everyone plays their first box
        seat = table.game.current_seat
        if table.seats[seat].cpu:
            table.cpu_move(None)
            table.cpu_move(int(table.game.legal_mask().nonzero()[0][-1]))
            continue
        table.handle({0, 1}, {"type": "roll", "seat": seat})
        table.handle({0, 1}, {"type": "score", "seat": seat, "box": table.game.legal_boxes()[0]})
    table.stored.append(table.game_folder)
    table.handle({0}, {"type": "rematch", "seq": table.seq}, here={0, 1})
    assert table.number == 1 and table.state({1})["rematch"] == [0]           # Bob is asked
    table.handle({0}, {"type": "rematch", "seq": table.seq}, here={0, 1})    # asking again changes nothing
    assert table.number == 1
    table.handle({1}, {"type": "rematch", "seq": table.seq}, here={0, 1})    # Bob agrees: the next game
    assert table.number == 2 and table.state({0})["rematch"] == []
    play = table.game
    while not play.is_over:
        seat = play.current_seat
        if table.seats[seat].cpu:
            table.cpu_move(None)
            table.cpu_move(int(play.legal_mask().nonzero()[0][-1]))
        else:
            table.handle({0, 1}, {"type": "roll", "seat": seat})
            table.handle({0, 1}, {"type": "score", "seat": seat, "box": play.legal_boxes()[0]})
    table.stored.append(table.game_folder)
    table.handle({0}, {"type": "rematch"}, here={0})                          # Bob has left: Ann alone decides
    assert table.number == 3


def test_rematch_in_the_browser_waits_for_the_other_person(driver, srv):
    made = sit(driver, srv, [person("Ann"), person("Bob")])
    driver.execute_script("localStorage.setItem(arguments[0], JSON.stringify([arguments[1]]))",
                          f"yacht.seats.{made['id']}", made["tokens"]["0"])
    driver.refresh()
    wait(driver, lambda d: state(d) and state(d)["seats"][0]["you"] and not state(d)["seats"][1]["you"], what="Ann")
    bob = Client(srv, made["id"], [made["tokens"]["1"]])
    bob.until(lambda m: m["type"] == "state" and m["seats"][1]["you"])
    while not (bob.state.get("result") and bob.state["result"]["stored"]):
        s = bob.state
        if s["turn"] == 1:
            bob.ws.send(json.dumps({"type": "roll", "seat": 1, "seq": s["seq"]} if s["phase"] == "roll" else
                                   {"type": "score", "seat": 1, "box": min(s["preview"]).split("@")[0],
                                    "seq": s["seq"]}))
        elif s["turn"] == 0:
            wait(driver, lambda d, q=s["seq"]: d.execute_script("return state.seq === arguments[0] && !busy", q),
                 what="Ann's page to catch up")
            driver.execute_script("move(state.phase === 'roll' ? {type: 'roll', seat: 0, hold: []} : "
                                  "{type: 'score', seat: 0, box: Object.keys(state.preview).sort()[0].split('@')[0], "
                                  "column: 0})")
        bob.until(lambda m, q=s["seq"]: m["type"] == "state"
                  and (m["seq"] > q or bool(m.get("result") and m["result"]["stored"])))
    wait(driver, lambda d: d.find_element("id", "rematch").is_displayed(), what="Rematch")
    click(driver, "#rematch")
    asked = bob.until(lambda m: m["type"] == "state" and m["rematch"] == [0])
    assert asked["game"] == 1
    wait(driver, lambda d: text(d, "rematch") == "Rematch: waiting for Bob", what="Ann waiting")
    bob.ws.send(json.dumps({"type": "rematch", "seq": asked["seq"]}))
    wait(driver, lambda d: state(d)["game"] == 2 and not state(d).get("result"), what="the rematch")
    bob.close()


def test_the_daily_deal_gives_everyone_the_same_dice_and_ranks_them_with_the_cpus(driver, srv):
    driver.get(srv.url + "/")
    wait(driver, lambda d: d.find_elements("css selector", "#seats li"), what="the lobby")
    driver.execute_script("document.getElementById('seats').replaceChildren(); addSeat('person', 'Dee')")
    click(driver, "#play-daily")
    s = wait(driver, lambda d: "/t/" in d.current_url and state(d), what="the deal")
    assert s["daily"] and s["rules"]["set"] == {} and len(s["seats"]) == 1
    code, other = srv.post("/api/tables", {"rules": "yacht", "daily": True, "seats": [person("Eve")]})
    assert code == 200
    eve = Client(srv, other["id"], list(other["tokens"].values()))
    eve.until(lambda m: m["type"] == "state")
    assert eve.state["commitment"] == s["commitment"]                   # the same seed: the same dice
    play_out(driver)
    wait(driver, lambda d: d.find_element("id", "daily-rank").is_displayed(), what="the ranking link")
    click(driver, "#daily-rank")
    rows = wait(driver, lambda d: d.execute_script(
        "return [...document.querySelectorAll('#daily-table tbody tr')].map(r => r.cells[1].textContent)"),
        timeout=60, what="the ranking")
    assert sorted(rows) == ["Dee", "Easy (CPU)", "Normal (CPU)", "Strong (CPU)"] and rows[0] == "Strong (CPU)"
    eve.close()
    code, refused = srv.post("/api/tables", {"rules": "yacht", "daily": True, "seats": [person("A"), person("B")]})
    assert code == 400 and refused["error"] == "The daily deal is played alone: one seat."
    code, refused = srv.post("/api/tables", {"rules": "yacht", "daily": True, "set": ["rolls_per_turn=2"],
                                             "seats": [person("A")]})
    assert code == 400 and "preset's own rules" in refused["error"]
