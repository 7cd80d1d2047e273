"""The pages on a phone and for everyone, measured in headless Chromium: axe-core 4 (tests/web/vendor) finds no
serious or critical violation on the lobby, a table at 2 and 8 seats, the analysis board, the daily deal's
ranking and the tournament view, at 1280×800 and 360×740 (and the table in the dark scheme); at 360 and 390 px
no page is wider than the screen, every control is at least 44×44 CSS px, and the box names and the dice bar
stay in view while the sheet scrolls; at 1280×800 the Total row is above the fold; the keyboard focus
survives redraws; others' moves reach the live region; the dice tumble unless reduced motion is asked for;
the tournament view is paged and compressed.

One server, one desktop and one phone browser for the module.
"""
import json
import time
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from tests.browser import MISSING, chrome

from tournaments.verify import commitment
from yacht_arena.web.child import serving

AXE = Path(__file__).parent / "vendor" / "axe.min.js"
WAIT = 30.0
PEOPLE = ["Ann", "Bob", "Cy", "Di"]


def wait(test, timeout=WAIT, what="the page"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = test()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """A server watching a small tournament, with a finished solo game stored; {name: path} of the pages."""
    from tournaments.config import parse_config
    from tournaments.run import run_tournament
    root = tmp_path_factory.mktemp("access")
    run_tournament(parse_config({"entrants": ["random", "greedy"], "seats": 2, "games": 60}), out=root / "cup")
    (root / "serve.yaml").write_text(f"tournaments: [{root / 'cup'}]\n")
    with serving(root / "data", root / "serve.yaml") as srv:
        srv.tables = {}
        for name, seats in (("2", [{"kind": "person", "name": "Ann"}, {"kind": "cpu", "cpu": "easy"}]),
                            ("8", [{"kind": "person", "name": n} for n in PEOPLE]
                             + [{"kind": "cpu", "cpu": "easy"}] * 4),
                            ("solo", [{"kind": "person", "name": "Ann"}])):
            code, made = srv.post("/api/tables", {"rules": "yacht", "pace": 0, "seats": seats})
            assert code == 200, made
            srv.tables[name] = made
        yield srv


def browser(tmp_path_factory, size, mobile):
    d = chrome(tmp_path_factory.mktemp("profile"), size, mobile)
    if d is None:
        pytest.skip(MISSING)
    return d


@pytest.fixture(scope="module")
def desk(tmp_path_factory):
    d = browser(tmp_path_factory, (1280, 800), False)
    yield d
    d.quit()


@pytest.fixture(scope="module")
def phone(tmp_path_factory):
    d = browser(tmp_path_factory, (360, 740), True)
    yield d
    d.quit()


def enter(driver, site, name):
    made = site.tables[name]
    driver.get(site.url + "/")
    driver.execute_script("localStorage.setItem(arguments[0], arguments[1])", f"yacht.seats.{made['id']}",
                          json.dumps(list(made["tokens"].values())))
    driver.get(f"{site.url}/t/{made['id']}")
    wait(lambda: driver.execute_script("return !!(state && state.table === arguments[0])", made["id"]),
         what="the table")
    return made


def play(driver, turns):
    """The seats the page holds play `turns` scorings (roll once, the first box offered)."""
    for _ in range(turns):
        s = wait(lambda: driver.execute_script("return !busy && state && (state.result || myTurn()) ? state : null"),
                 what="a turn")
        if s.get("result"):
            return
        if s["phase"] == "roll":
            made(driver, s["seq"], "the roll", "move({type: 'roll', seat: state.turn, hold: []})")
            s = driver.execute_script("return state")
        box, col = min(s["preview"]).split("@")
        made(driver, s["seq"], "the score", "move({type: 'score', seat: state.turn, box: arguments[0], "
             "column: Number(arguments[1])})", box, col)


def made(driver, seq, what, script, *args):
    """Run the move `script` on the state numbered `seq` and wait until the table has moved on from it. As a
    person clicks again, the move is made again when the page is not waiting for an answer and the table has
    not moved (a move the page could not send while its connection was re-opened, on a loaded machine); the
    server refuses a repeat of a move it played (its `seq` is stale)."""
    def moved():
        if driver.execute_script("return state.seq") > seq:
            return True
        if not driver.execute_script("return busy"):
            driver.execute_script(script, *args)
        return False
    driver.execute_script(script, *args)
    wait(moved, what=what)


@pytest.fixture(scope="module")
def board(site, desk):
    """The solo game played out and stored: its analysis board's path."""
    made = enter(desk, site, "solo")
    play(desk, 13)
    wait(lambda: desk.execute_script("return !!(state.result && state.result.stored)"), what="the stored game")
    return f"/game/{made['id']}-1"


def load(driver, site, page, board):
    """Open a page by name and wait until it is drawn."""
    if page in ("2", "8"):
        enter(driver, site, page)
        wait(lambda: driver.execute_script("return document.querySelectorAll('#sheet tbody tr').length > 0"))
    elif page == "lobby":
        driver.get(site.url + "/")
        wait(lambda: driver.find_elements("css selector", "#seats li"))
    elif page == "board":
        driver.get(site.url + board)
        wait(lambda: driver.find_elements("css selector", "#board-moves li"), timeout=120, what="the analysis")
    elif page == "daily":
        driver.get(site.url + "/daily?rules=yacht")
        wait(lambda: driver.find_elements("css selector", "#daily-table tbody tr"), timeout=60, what="the ranking")
    else:
        driver.get(site.url + "/watch/0")
        wait(lambda: driver.find_elements("css selector", "#watch-games li"))


def serious(driver) -> list[str]:
    """axe-core's violations of impact serious or critical on the page, one line each."""
    if not driver.execute_script("return typeof axe !== 'undefined'"):
        driver.execute_script(AXE.read_text())
    found = driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "axe.run(document, {resultTypes: ['violations']}).then(r => done(r.violations.map(v => "
        "({id: v.id, impact: v.impact, nodes: v.nodes.map(n => n.target.join(' ')).slice(0, 4)}))), "
        "e => done(String(e)))")
    assert isinstance(found, list), found
    return [f"{v['id']} ({v['impact']}): {v['nodes']}" for v in found if v["impact"] in ("serious", "critical")]


PAGES = ("lobby", "2", "8", "board", "daily", "watch")


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_axe_finds_nothing_serious_on_any_page(site, board, desk, phone, size):
    driver = desk if size == "desktop" else phone
    found = {}
    for page in PAGES:
        load(driver, site, page, board)
        found[page] = serious(driver)
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia",
                           {"features": [{"name": "prefers-color-scheme", "value": "dark"}]})
    try:
        load(driver, site, "8", board)
        found["8, dark"] = serious(driver)
    finally:
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})
    assert {k: v for k, v in found.items() if v} == {}


def controls_too_small(driver) -> list[str]:
    return driver.execute_script("""
        const out = [];
        for (const e of document.querySelectorAll('button, select, input, textarea, summary, a.button, .games a')) {
          // a checkbox is tapped through its label, which is the target
          const r = (e.type === 'checkbox' && e.closest('label') ? e.closest('label') : e).getBoundingClientRect();
          if (!r.width || !r.height || getComputedStyle(e).visibility === 'hidden') continue;
          if (r.width < 44 || r.height < 44) out.push(`${e.id || e.className || e.tagName} ${r.width}x${r.height}`);
        }
        return out;""")


@pytest.mark.parametrize("width", [360, 390])
def test_phone_pages_fit_the_screen_with_big_enough_targets(site, board, phone, tmp_path, width):
    driver = phone if width == 360 else browser_at(tmp_path, (width, 740))
    try:
        wide, small = {}, {}
        for page in PAGES:
            load(driver, site, page, board)
            if page == "8":
                play(driver, 1)                   # previews on the sheet: the boxes to tap
            assert driver.execute_script("return window.innerWidth") == width
            over = driver.execute_script("return document.documentElement.scrollWidth")
            if over > width:
                wide[page] = over
            if controls_too_small(driver):
                small[page] = controls_too_small(driver)
        assert wide == {} and small == {}
    finally:
        if driver is not phone:
            driver.quit()


def browser_at(folder, size):
    d = chrome(folder / "profile", size, True)
    if d is None:
        pytest.skip(MISSING)
    return d


def test_the_box_names_and_the_dice_bar_stay_in_view_on_a_phone_at_eight_seats(site, board, phone):
    load(phone, site, "8", board)
    play(phone, 1)
    wait(lambda: phone.execute_script("return !busy && myTurn() && state.phase === 'roll'"), what="a turn")
    phone.execute_script("move({type: 'roll', seat: state.turn, hold: []})")
    wait(lambda: phone.execute_script("return state.phase === 'decide' && !busy"), what="the roll")
    assert phone.find_element("id", "sheet-hint").is_displayed()            # columns cut off: the page says so
    phone.execute_script("window.scrollTo(0, document.documentElement.scrollHeight)")
    phone.execute_script("const w = document.querySelector('.sheet-wrap'); w.scrollLeft = w.scrollWidth")
    seen = phone.execute_script("""
        const r = (q) => document.querySelector(q).getBoundingClientRect();
        const wrap = r('#table .sheet-wrap'), total = r('#sheet tr.total th');
        return {roll: [r('#roll').top, r('#roll').bottom], dice: r('#dice').top, confirm: r('#confirm').bottom,
                scrolled: window.scrollY, boxLeft: total.left, wrapLeft: wrap.left, totalTop: total.top,
                height: window.innerHeight};""")
    assert seen["scrolled"] > 300                                             # the page did scroll
    assert 0 <= seen["dice"] and seen["roll"][1] <= seen["height"] and seen["confirm"] <= seen["height"]
    assert seen["boxLeft"] >= seen["wrapLeft"] - 1 and 0 <= seen["totalTop"] <= seen["height"]


def test_the_focus_survives_redraws_and_others_moves_are_announced(site, board, desk):
    load(desk, site, "2", board)
    wait(lambda: desk.execute_script("return myTurn() && !busy && state.phase === 'roll'"), what="Ann's turn")
    assert desk.execute_script("return document.querySelector('#sheet tr.total').getBoundingClientRect().bottom "
                               "<= innerHeight")                            # the Total row above the fold
    desk.find_element("id", "roll").send_keys("\ue007")                        # Enter on the focused Roll button
    wait(lambda: desk.execute_script("return state.phase === 'decide' && !document.getElementById('roll').disabled"),
         what="the roll")
    assert desk.execute_script("return document.activeElement.id") == "roll"
    desk.execute_script("document.querySelector('#dice [data-index=\"2\"]').focus()")
    desk.switch_to.active_element.send_keys(" ")                              # Space holds the focused die
    assert desk.execute_script("return [document.activeElement.dataset.index, held.has(2)]") == ["2", True]
    key = desk.execute_script("return Object.keys(state.preview).sort()[0]")
    desk.execute_script("move({type: 'score', seat: 0, box: arguments[0].split('@')[0], column: 0})", key)
    said = wait(lambda: desk.execute_script("const t = document.getElementById('announce').textContent;"
                                            "return /^Easy (rolled|scored)/.test(t) && t"), what="the CPU's move")
    assert said.startswith("Easy")
    assert desk.execute_script("return document.getElementById('announce').getAttribute('aria-live')") == "polite"
    assert desk.find_elements("css selector", "#table h1") and desk.find_element("id", "turn").tag_name == "h2"


def test_the_tournament_view_is_paged_and_compressed(site):
    import gzip
    import urllib.request
    req = urllib.request.Request(site.url + "/api/watch/0", headers={"Accept-Encoding": "gzip"})
    with urllib.request.urlopen(req, timeout=30) as r:
        assert r.headers["Content-Encoding"] == "gzip"
        first = json.loads(gzip.decompress(r.read()))
    total = first["games_played"]
    assert first["games_listed"] == total > 100 and first["page"] == 0
    assert len(first["games"]) == first["per_page"] == 50
    assert "log" not in first["games"][0]
    end = (total - 1) // 50
    last = site.get(f"/api/watch/0?page={end}")
    assert len(last["games"]) == total - 50 * end
    assert not {g["key"] for g in last["games"]} & {g["key"] for g in first["games"]}
    assert site.get("/api/watch/0?page=999")["page"] == end and site.get("/api/watch/0?page=-1")["page"] == 0


def test_the_dice_hash_is_shown_before_the_first_roll_and_the_board_checks_every_roll(site, board, desk):
    load(desk, site, "8", board)
    hashed = desk.execute_script("return state.commitment")
    assert len(hashed) == 64 and hashed in desk.find_element("id", "commitment").text
    load(desk, site, "board", board)
    desk.find_element("id", "check-dice").click()
    said = wait(lambda: desk.find_element("id", "dice-verdict").text.startswith("Every roll matches seed")
                and desk.find_element("id", "dice-verdict").text, what="the dice check")
    record = site.get("/api/games/" + board.rsplit("/", 1)[1])["record"]
    assert said.startswith(f"Every roll matches seed {record['seed']}, whose hash {commitment(record['seed'])[:16]}")


def test_the_dice_tumble_unless_reduced_motion_is_asked_for(site, board, desk):
    names = {}
    for reduce in (False, True):
        desk.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [
            {"name": "prefers-reduced-motion", "value": "reduce" if reduce else "no-preference"}]})
        try:
            load(desk, site, "2", board)
            play(desk, 1)
            wait(lambda: desk.execute_script("return myTurn() && !busy && state.phase === 'roll'"), what="a turn")
            desk.execute_script("move({type: 'roll', seat: state.turn, hold: []})")
            wait(lambda: desk.execute_script("return state.phase === 'decide' && !busy"), what="the roll")
            names[reduce] = desk.execute_script("return getComputedStyle(document.querySelector("
                                                "'#dice.rolling .die:not(.held)')).animationName")
        finally:
            desk.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})
    assert names == {False: "tumble", True: "none"}


def test_the_board_and_the_result_place_the_person_on_the_dial_and_the_lobby_offers_their_level(site, board, desk):
    folder = board.rsplit("/", 1)[1]
    level = site.get("/api/games/" + folder)["seats"][0]["level"]
    kept = wait(lambda: desk.execute_script("return localStorage.getItem('yacht.levels')"), what="the kept level")
    assert json.loads(kept)[-1] == {"game": folder, "rules": "yacht", "strength": level["strength"]}
    load(desk, site, "lobby", board)
    offered = desk.execute_script("return [...document.querySelectorAll('#seats select option')]"
                                  ".filter((o) => o.value === 'mine').map((o) => o.textContent)")
    assert offered == [f"A CPU at your level ({level['strength']:.2f})"]
    desk.execute_script("document.querySelector('#seats select').value = 'mine'")
    desk.find_element("id", "open-table").click()                 # the dial at that strength takes the seat
    seated = wait(lambda: desk.execute_script("return state && state.seats.length === 2 && state.seats[1].name"),
                  what="the table at your level")
    assert seated == f"Dial {round(level['strength'], 2):g}" if level["strength"] < 1 else "Strong"
    load(desk, site, "board", board)
    said = desk.find_element("id", "board-level-list").text
    assert said.startswith(f"Ann played like strength {level['strength']:.2f} (likely {level['low']:.2f} to ")
    assert "Strong" in desk.find_element("id", "board-level-help").text
