"""Scandinavian Yatzy (`--rules yatzy`) at the web tables: the analysis board analyses a stored yatzy game
(its 15 boxes, the solver's verdicts, the dial placement under yatzy's own curve, the dice check), and a
yatzy table and its board work on a phone (360×740) in headless Chromium with axe-core. Both play with the
boxes filled in order (yatzy-solver's +forced, `--set forced_order=true`): the same fifteen boxes and kinds,
solved in a second, where the free-order preset's solve takes minutes."""
import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from agents.base import play_game
from agents.dial import DialAgent
from agents.strong import StrongAgent
from tests.browser import MISSING, chrome
from tests.web.test_web_access import controls_too_small, enter, play, serious, wait
from tournaments.gamelog import store_table_game, table_meta, table_record
from tournaments.verify import check_dice
from yacht_arena.web.board import game_analysis, game_dice
from yacht_arena.web.child import serving
from yacht_env.core.game import Game
from yacht_env.rules import load

YATZY = load("yatzy", forced_order=True)
SETS = {"forced_order": True}


@pytest.mark.slow
def test_the_board_analyses_a_yatzy_game(tmp_path):
    seed = 4242
    strong = StrongAgent()
    game = play_game(Game(YATZY, 2, seed=seed), [strong, DialAgent(0.5, strong)])
    names = ["Ann", "Bob"]
    store_table_game(tmp_path / "yz-1", table_meta("yz", 1, "yatzy", SETS, YATZY, names, ["human", "human"], 7, seed),
                     table_record(game, names, seed))
    doc = game_analysis(tmp_path, "yz-1")
    assert doc["layout"] == {"boxes": list(YATZY.boxes), "columns": 1, "dice": 5} and len(YATZY.boxes) == 15
    scored = [d["played"].split()[1] for d in doc["decisions"] if d["played"].startswith("score ")]
    assert len(scored) == 2 * 15 and set(scored) == set(YATZY.boxes)
    ann, bob = doc["seats"]
    assert ann["loss"] == 0.0 and ann["level"]["strength"] == 1.0                 # strong plays yatzy exactly
    assert bob["loss"] > 0 and bob["level"]["low"] <= 0.5 <= bob["level"]["high"]
    assert check_dice(doc["record"], YATZY) is None and game_dice(tmp_path, "yz-1")["problem"] is None


@pytest.mark.slow
def test_a_yatzy_table_and_its_board_on_a_phone(tmp_path):
    driver = chrome(tmp_path / "profile", (360, 740), True)
    if driver is None:
        pytest.skip(MISSING)
    try:
        with serving(tmp_path / "data") as srv:
            code, made = srv.post("/api/tables", {"rules": "yatzy", "set": ["forced_order=true"], "pace": 0, "seats": [
                {"kind": "person", "name": "Ann"}, {"kind": "person", "name": "Bob"}]})
            assert code == 200, made
            srv.tables = {"yatzy": made}
            enter(driver, srv, "yatzy")                              # this device holds both seats
            rows = wait(lambda: driver.execute_script(
                "return [...document.querySelectorAll('#sheet tbody th')].map((th) => th.textContent)"),
                what="the sheet")
            for box in ("One pair", "Two pairs", "Small straight", "Large straight", "Yatzy"):
                assert any(r.startswith(box) for r in rows), (box, rows)
            play(driver, 1)                                          # a roll: previews on the sheet to tap
            assert serious(driver) == []
            assert driver.execute_script("return document.documentElement.scrollWidth") <= 360
            assert controls_too_small(driver) == []
            play(driver, 2 * 15)
            stored = wait(lambda: driver.execute_script("return state.result && state.result.stored"),
                          timeout=60, what="the stored game")
            driver.get(f"{srv.url}/game/{stored}")
            wait(lambda: driver.find_elements("css selector", "#board-moves li"), timeout=300, what="the analysis")
            assert len(driver.find_elements("css selector", "#board-moves li")) >= 2 * 15 * 2
            assert serious(driver) == []
            assert driver.execute_script("return document.documentElement.scrollWidth") <= 360
            assert controls_too_small(driver) == []
    finally:
        driver.quit()
