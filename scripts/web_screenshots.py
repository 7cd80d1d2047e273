"""The screenshots of docs/web.md, taken in headless Chromium from a fresh `yacht serve`:

    python scripts/web_screenshots.py [OUT_DIR]      # default docs/

web-table-desktop.png (1280×800, two seats), web-table-phone.png (360×740, eight seats), web-table-dark.png
(the phone in the dark scheme) and web-analysis-board.png (a finished solo game on the board). The games are
played by the page's own messages, a few moves in, so the sheets have numbers on them.
"""
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests import waiting  # noqa: E402
from tests.browser import chrome  # noqa: E402

from yacht_arena.web.child import serving  # noqa: E402


def until(test, timeout=waiting.PATIENCE):
    """`tests.waiting.until`, stopping the script when the page never gets there."""
    value = waiting.until(test, timeout, 0.05)
    if not value:
        raise RuntimeError("the page did not get there")
    return value


def enter(driver, srv, seats, **options) -> dict:
    code, made = srv.post("/api/tables", {"rules": "yacht", "pace": 0, "seats": seats, **options})
    if code != 200:
        raise RuntimeError(made)
    driver.get(srv.url + "/")
    driver.execute_script("localStorage.setItem(arguments[0], arguments[1])", f"yacht.seats.{made['id']}",
                          json.dumps(list(made["tokens"].values())))
    driver.get(f"{srv.url}/t/{made['id']}")
    until(lambda: driver.execute_script("return typeof state !== 'undefined' && state !== null"))
    return made


def play(driver, turns: int, last_roll: bool = True) -> None:
    """The seats this page holds play `turns` turns (roll, hold the most common face, roll, best box)."""
    done = 0
    while done < turns:
        s = until(lambda: driver.execute_script("return !busy && state && (state.result || myTurn()) ? state : null"))
        if s.get("result"):
            return
        if s["phase"] == "roll":
            driver.execute_script("move({type: 'roll', seat: state.turn, hold: []})")
        elif s["rolls_left"] == 2:
            face = max(set(s["dice"]), key=s["dice"].count)
            hold = [i for i, f in enumerate(s["dice"]) if f == face]
            driver.execute_script("move({type: 'roll', seat: state.turn, hold: arguments[0]})", hold)
        else:
            if done == turns - 1 and last_roll:
                return
            key = max(s["preview"], key=lambda k: s["preview"][k])
            box, col = key.split("@")
            driver.execute_script("move({type: 'score', seat: state.turn, box: arguments[0], "
                                  "column: Number(arguments[1])})", box, col)
            done += 1
        until(lambda q=s["seq"]: driver.execute_script("return state.seq") > q)


def main(out: Path) -> None:
    with tempfile.TemporaryDirectory() as tmp, serving(Path(tmp) / "data") as srv:
        desk = chrome(Path(tmp) / "desk", (1280, 800))
        try:
            enter(desk, srv, [{"kind": "person", "name": "Ann"}, {"kind": "cpu", "cpu": "normal"}])
            play(desk, 5)
            time.sleep(0.6)
            desk.find_element("css selector", "#dice .die").click()
            desk.save_screenshot(str(out / "web-table-desktop.png"))
            made = enter(desk, srv, [{"kind": "person", "name": "Ann"}])
            play(desk, 13, last_roll=False)
            until(lambda: desk.execute_script("return !!(state.result && state.result.stored)"))
            desk.get(f"{srv.url}/game/{made['id']}-1")
            until(lambda: desk.find_elements("css selector", "#board-moves li"))
            desk.execute_script("document.querySelectorAll('#board-moves li button')[9].click()")
            desk.save_screenshot(str(out / "web-analysis-board.png"))
        finally:
            desk.quit()
        phone = chrome(Path(tmp) / "phone", (360, 740), mobile=True)
        try:
            names = ["Ann", "Bob", "Cy", "Di"]
            seats = [{"kind": "person", "name": n} for n in names] + [{"kind": "cpu", "cpu": c} for c in
                                                                       ("easy", "normal", "strong", "easy")]
            enter(phone, srv, seats)
            play(phone, 8)
            time.sleep(0.6)
            phone.save_screenshot(str(out / "web-table-phone.png"))
            phone.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme",
                                                                               "value": "dark"}]})
            phone.execute_script("window.scrollTo(0, 400)")
            time.sleep(0.3)
            phone.save_screenshot(str(out / "web-table-dark.png"))
        finally:
            phone.quit()


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs")
