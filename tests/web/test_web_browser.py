"""The web tables in a real browser: the distribution's headless Chromium, driven by Selenium, plays by clicking.

A whole game against `strong` checked against the stored record; two people joined by the invite link from
two browser profiles, with undo and a reload that keeps the seat; a phone-sized touch screen. Skipped with
the reason when no Chromium is installed (`.ci/run` installs it as root).
"""
import json
import time

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from tests.browser import MISSING, chrome

from yacht_arena.web.child import serving

pytestmark = pytest.mark.slow
WAIT = 300.0            # seconds for one step (the first strong CPU solves its tables on a cold cache)
GAME = 600.0            # seconds for a whole game


@pytest.fixture
def browsers(tmp_path):
    made = []

    def make(size=(1280, 900), mobile=False):
        driver = chrome(tmp_path / f"profile-{len(made)}", size, mobile)
        if driver is None:
            pytest.skip(MISSING)
        made.append(driver)
        return driver
    yield make
    for d in made:
        d.quit()


def wait(driver, test, timeout=WAIT, what="the page"):
    """Poll `test(driver)` until it is true (bounded); its value."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = test(driver)
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}; page says: {driver.find_element('id', 'turn').text!r} "
                         f"{driver.find_element('id', 'message').text!r}")


def state(driver) -> dict | None:
    return driver.execute_script("return typeof state === 'undefined' ? null : state")


def my_turn(driver) -> bool:
    return bool(driver.execute_script("return typeof myTurn === 'function' && myTurn()"))


def click(driver, css):
    """Click an element, found afresh if a redraw (a state, or the dice landing) replaced it in between."""
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


def dice_shown(driver) -> list[tuple[str, str]]:
    """(aria-pressed, text) of each die, read at once (the page redraws the dice when a roll has settled)."""
    return [tuple(x) for x in driver.execute_script(
        "return [...document.querySelectorAll('#dice .die')]"
        ".map(e => [e.getAttribute('aria-pressed'), e.textContent])")]


def roll(driver):
    """Click Roll once it is enabled (after a roll it waits a moment, so the dice are seen)."""
    wait(driver, lambda d: d.execute_script("return !document.getElementById('roll').disabled"), what="Roll")
    click(driver, "#roll")


def take_turn(driver, hold_first: bool = False) -> tuple[str, int]:
    """Play one turn by clicking: roll, maybe hold a die and roll again, pick the best box, confirm it."""
    moves = state(driver)["moves"]
    roll(driver)
    wait(driver, lambda d: state(d)["moves"] > moves and state(d)["phase"] == "decide"
         and d.execute_script("return performance.now() >= settled + 30"), what="the roll to land")
    if hold_first:
        click(driver, "#dice .die")
        assert dice_shown(driver)[0] == ("true", "Held")                  # the dice are drawn afresh
        kept = state(driver)["dice"][0]
        moves = state(driver)["moves"]
        roll(driver)
        wait(driver, lambda d: state(d)["moves"] > moves, what="the second roll")
        held = [i for i, (pressed, _) in enumerate(dice_shown(driver)) if pressed == "true"]
        assert [state(driver)["dice"][i] for i in held] == [kept]     # the die kept stays Held where it lands
    s = state(driver)
    key = max(s["preview"], key=lambda k: (s["preview"][k], k))
    box = f'#sheet button.preview[data-box="{key}"]'
    click(driver, box)
    assert driver.execute_script("return document.querySelector(arguments[0]).classList.contains('picked')", box)
    faded = driver.execute_script("return document.querySelectorAll('#dice .die.faded').length")
    assert faded == s["counting"][key].count(False)
    moves = s["moves"]
    click(driver, "#confirm")
    wait(driver, lambda d: state(d)["moves"] > moves, what="the score")
    # a CPU next waits for the person to play on (or undo): Play on, so the game goes at the CPU's pace
    driver.execute_script("const b = document.getElementById('done'); if (!b.hidden && !b.disabled) b.click()")
    return key.split("@")[0], s["preview"][key]


def open_table(driver, url, seats, pace="0.25"):
    """Fill the lobby: seats as ("person", name) or ("cpu", menu id); returns the table id."""
    driver.get(url + "/")
    wait(driver, lambda d: d.find_elements("css selector", "#seats li"), what="the lobby")
    driver.execute_script("document.getElementById('seats').replaceChildren()")
    for kind, value in seats:
        driver.execute_script("addSeat(arguments[0], arguments[1])", kind, value if kind == "person" else "")
        if kind == "cpu":
            driver.execute_script("const s = document.querySelectorAll('#seats select'); "
                                  "s[s.length - 1].value = arguments[0]", value)
    driver.execute_script("document.getElementById('pace').value = arguments[0]", pace)
    click(driver, "#open-table")
    wait(driver, lambda d: "/t/" in d.current_url and state(d), what="the table")
    return driver.current_url.rsplit("/", 1)[1]


def stored_record(data, folder) -> dict:
    (line,) = (data / "games" / folder / "games.jsonl").read_text().splitlines()
    return json.loads(line)


def test_a_whole_game_against_strong_by_clicking_is_the_stored_record(tmp_path, browsers):
    data = tmp_path / "data"
    with serving(data) as srv:
        driver = browsers()
        table = open_table(driver, srv.url, [("person", "Ann"), ("cpu", "strong")])
        played = []
        deadline = time.monotonic() + GAME
        while time.monotonic() < deadline:
            s = wait(driver, lambda d: (my_turn(d) and state(d)["phase"] == "roll") or state(d).get("result"),
                     what="Ann's turn or the end")
            if s is not True and state(driver).get("result"):
                break
            played.append(take_turn(driver, hold_first=not played))
        s = state(driver)
        assert s["result"] and len(played) == 13
        wait(driver, lambda d: d.find_element("id", "analysis-link").is_displayed(), what="the stored game")
        rec = stored_record(data, f"{table}-1")
        assert rec["agents"] == ["Ann", "Strong"] and rec["totals"] == s["result"]["totals"]
        assert [(e["box"], e["points"]) for e in rec["log"] if "box" in e and e["seat"] == 0] == played
        shown = driver.find_element("id", "standings").text
        assert f"Ann: {rec['totals'][0]}" in shown and f"Strong: {rec['totals'][1]}" in shown
        click(driver, "#analysis-link")
        wait(driver, lambda d: len(d.find_elements("css selector", "#board-seats tbody tr")) == 2, what="the analysis")
        rows = [r.text for r in driver.find_elements("css selector", "#board-seats tbody tr")]
        assert rows[1].startswith("Strong") and "100.0%" in rows[1]
        assert len(driver.find_elements("css selector", "#board-moves li")) == len(rec["log"])
        driver.find_element("tag name", "body").send_keys("\ue012")          # left arrow: one move back
        assert driver.find_element("id", "board-pos").text.strip() == f"{len(rec['log']) - 1} / {len(rec['log'])}"


def test_two_people_joined_by_the_invite_link_with_undo_and_a_reload(tmp_path, browsers):
    data = tmp_path / "data"
    with serving(data) as srv:
        ann, bob = browsers(), browsers()
        table = open_table(ann, srv.url, [("person", "Ann"), ("person", "")])
        wait(ann, lambda d: d.find_element("id", "invite").is_displayed(), what="the invite button")
        click(ann, "#invite")
        link = wait(ann, lambda d: d.find_element("id", "copied").text, what="the invite link").split(": ", 1)[1]
        assert link.startswith(f"{srv.url}/t/{table}?invite=")
        bob.get(link)
        wait(bob, lambda d: d.find_element("id", "sit").is_displayed(), what="the seat form")
        bob.find_element("id", "sit-name").send_keys("Bob")
        click(bob, "#sit-down")
        wait(bob, lambda d: state(d) and any(x["you"] for x in state(d)["seats"]), what="Bob's seat")
        wait(ann, lambda d: not state(d)["free"], what="the table to fill")
        undone = reloaded = False
        deadline = time.monotonic() + GAME
        while not state(ann).get("result") and time.monotonic() < deadline:
            who = ann if my_turn(ann) else bob if my_turn(bob) else None
            if who is None:
                time.sleep(0.05)
                continue
            if not undone:
                box, _ = take_turn(who)
                dice = state(who)["log"][-2]["dice"]             # the roll the box was scored with
                wait(who, lambda d: not d.find_element("id", "undo").get_property("disabled"), what="Undo")
                click(who, "#undo")
                wait(who, lambda d: state(d)["phase"] == "decide" and my_turn(d), what="the undone turn")
                assert state(who)["dice"] == dice and f"{box}@0" in state(who)["preview"]
                undone = True
            elif not reloaded and who is bob:
                bob.refresh()
                wait(bob, lambda d: state(d) and my_turn(d), what="Bob's seat after the reload")
                reloaded = True
            take_turn(who)
        assert undone and reloaded
        final = state(ann)["result"]
        wait(bob, lambda d: state(d).get("result"), what="Bob's page to end")
        rec = stored_record(data, f"{table}-1")
        assert rec["agents"] == ["Ann", "Bob"] and rec["totals"] == final["totals"]
        assert state(bob)["result"]["totals"] == final["totals"]


def test_a_phone_sized_touch_screen_fits_and_holds_dice(tmp_path, browsers):
    data = tmp_path / "data"
    with serving(data) as srv:
        phone = browsers(size=(360, 740), mobile=True)
        open_table(phone, srv.url, [("person", "Ann")])
        assert phone.execute_script("return window.innerWidth") == 360
        roll(phone)
        wait(phone, lambda d: state(d)["phase"] == "decide", what="the roll")
        click(phone, "#dice .die[data-index=\"4\"]")
        assert dice_shown(phone)[4][0] == "true"
        assert phone.execute_script("return document.documentElement.scrollWidth") <= 360
        right = phone.execute_script("return Math.max(...[...document.querySelectorAll('#dice .die, #roll')]"
                                     ".map(e => e.getBoundingClientRect().right))")
        assert right <= 360
        s = state(phone)                                     # finish the turn, then the game, by tapping
        key = max(s["preview"], key=lambda k: (s["preview"][k], k))
        click(phone, f'#sheet button.preview[data-box="{key}"]')
        moves = state(phone)["moves"]
        click(phone, f'#sheet button.preview[data-box="{key}"]')   # a second tap on the box scores it
        wait(phone, lambda d: state(d)["moves"] > moves, what="the score")
        while not state(phone).get("result"):
            take_turn(phone)
        total = state(phone)["result"]["totals"][0]
        best = wait(phone, lambda d: "on this server" in d.find_element("id", "best").text and
                    d.find_element("id", "best").text, what="the best scores")
        assert f"Best on this device under yacht: {total}" in best and best.endswith(f"on this server: {total}")
        assert phone.execute_script("return JSON.parse(localStorage.getItem(arguments[0])).score",
                                    f"yacht.best.{s['rules']['hash']}") == total


def test_pass_and_play_with_the_keyboard(tmp_path, browsers):
    data = tmp_path / "data"
    with serving(data) as srv:
        driver = browsers()
        open_table(driver, srv.url, [("person", "Ann"), ("person", "Bob")])
        body = driver.find_element("tag name", "body")
        for _ in range(2):                                   # one turn each, both from this device
            s = wait(driver, lambda d: my_turn(d) and state(d)["phase"] == "roll" and state(d), what="a turn")
            name = s["seats"][s["turn"]]["name"]
            assert driver.find_element("id", "turn").text == f"{name}'s turn (pass the device)"
            wait(driver, lambda d: d.execute_script("return !document.getElementById('roll').disabled"), what="Roll")
            body.send_keys("r")
            wait(driver, lambda d: state(d)["phase"] == "decide", what="the roll")
            body.send_keys("2")
            assert dice_shown(driver)[1][0] == "true"
            body.send_keys("2")
            assert dice_shown(driver)[1][0] == "false"
            moves = state(driver)["moves"]
            click(driver, '#sheet button.preview[data-box="chance@0"]')
            body.send_keys("\ue007")                          # Enter scores the picked box
            wait(driver, lambda d, m=moves: state(d)["moves"] > m, what="the score")
            body.send_keys("u")                              # U takes it back: the same dice
            wait(driver, lambda d, m=moves: state(d)["phase"] == "decide" and state(d)["moves"] == m, what="undo")
            click(driver, '#sheet button.preview[data-box="chance@0"]')
            body.send_keys("\ue007")
            wait(driver, lambda d, m=moves, n=name: state(d)["moves"] > m and
                 state(d)["seats"][state(d)["turn"]]["name"] != n, what="the next person")
        chance = [e for e in state(driver)["log"] if e.get("box") == "chance"]
        assert sorted(e["seat"] for e in chance) == [0, 1]


def test_a_tournament_folder_is_watched_and_a_table_is_watched_by_its_view_link(tmp_path, browsers):
    from tournaments.config import parse_config
    from tournaments.run import run_tournament
    folder = tmp_path / "cup"
    run_tournament(parse_config({"entrants": ["random", "greedy"], "seats": 2, "games": 1}), out=folder)
    config = tmp_path / "serve.yaml"
    config.write_text(f"tournaments: [{folder}]\n")
    with serving(tmp_path / "data", config) as srv:
        driver = browsers()
        driver.get(srv.url + "/")
        link = wait(driver, lambda d: d.find_elements("css selector", "#tournaments a"), what="the tournament link")[0]
        link.click()
        rows = wait(driver, lambda d: d.find_elements("css selector", "#watch-standings tbody tr"), what="standings")
        assert sorted(r.text.split()[1] for r in rows) == ["greedy", "random"]
        assert driver.find_element("id", "watch-progress").text == "2 of 2 games played"
        driver.find_elements("css selector", "#watch-games li a")[0].click()      # the game on the analysis board
        rows = wait(driver, lambda d: d.find_elements("css selector", "#board-seats tbody tr"), what="the analysis")
        assert sorted(r.text.split()[0] for r in rows) == ["greedy", "random"]
        assert len(driver.find_elements("css selector", "#board-moves li")) > 2 * 13
        code, made = srv.post("/api/tables", {"rules": "yacht", "seats": [{"kind": "person", "name": "Ann"}]})
        viewer = browsers()
        viewer.get(f"{srv.url}/t/{made['id']}")                 # the view link: no seat, no controls
        s = wait(viewer, state, what="the table")
        assert not any(x["you"] for x in s["seats"]) and "invite" not in s
        assert viewer.find_element("id", "turn").text == "Ann's turn"
        assert viewer.find_element("id", "roll").get_property("disabled") and code == 200
