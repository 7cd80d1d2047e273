"""Maxi Yatzy (`--rules maxi`: six dice, 20 boxes) at a web table on a phone (360×740) in headless Chromium
with axe-core: six dice fit the width with targets a thumb can hit, the number keys 1-6 hold them, holding
every die says to score, and a whole game against the Greedy CPU is played to its stored record. The lobby
offers, for these rules, only the CPUs that can play them, and the analysis board says the rules must be solved
on the server first (the exact solve holds 3.6 GB for about ten minutes)."""
import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.support.ui import Select

from tests.browser import MISSING, chrome
from tests.web.test_web_access import controls_too_small, enter, play, serious, wait
from yacht_arena.web.child import serving


@pytest.mark.slow
def test_a_maxi_table_with_six_dice_on_a_phone(tmp_path):
    driver = chrome(tmp_path / "profile", (360, 740), True)
    if driver is None:
        pytest.skip(MISSING)
    try:
        with serving(tmp_path / "data") as srv:
            driver.get(srv.url + "/")
            wait(lambda: driver.find_elements("css selector", "#seats select"), what="the lobby")
            Select(driver.find_element("id", "rules")).select_by_value("maxi")
            cpu = Select(driver.find_element("css selector", "#seats select"))
            offered = {o.get_attribute("value"): (o.is_enabled(), o.text) for o in cpu.options}
            assert offered["greedy"] == (True, "Greedy") and cpu.first_selected_option.text == "Greedy"
            for key in ("easy", "normal", "strong", "dial"):            # they need the exact solver's five dice
                assert offered[key][0] is False and offered[key][1].endswith("(cannot play maxi)"), offered
            Select(driver.find_element("id", "rules")).select_by_value("yacht")
            assert cpu.options[0].is_enabled() and cpu.options[0].text == "Easy"
            code, made = srv.post("/api/tables", {"rules": "maxi", "pace": 0, "seats": [
                {"kind": "person", "name": "Ann"}, {"kind": "cpu", "cpu": "greedy"}]})
            assert code == 200, made
            srv.tables = {"maxi": made}
            enter(driver, srv, "maxi")                               # this device holds Ann's seat
            rows = wait(lambda: driver.execute_script(
                "return [...document.querySelectorAll('#sheet tbody th')].map((th) => th.textContent)"),
                what="the sheet")
            for box in ("Three pairs", "Five of a kind", "Full straight", "Castle", "Tower", "Maxi yatzy"):
                assert any(r.startswith(box) for r in rows), (box, rows)
            assert len(driver.find_elements("css selector", "#dice .die")) == 6      # blank before the roll
            driver.execute_script("move({type: 'roll', seat: state.turn, hold: []})")
            wait(lambda: driver.execute_script("return state.phase === 'decide' && state.dice.length === 6"),
                 what="six dice rolled")
            wait(lambda: driver.execute_script("return !document.getElementById('roll').disabled"), what="Roll")
            keys = ActionChains(driver)
            for k in "123456":
                keys.send_keys(k)
            keys.perform()
            assert wait(lambda: driver.execute_script("return held.size") == 6, what="six dice held")
            ActionChains(driver).send_keys("r").perform()
            wait(lambda: driver.find_element("id", "message").text.startswith("You are holding every die"),
                 what="the ready-to-score message")
            assert serious(driver) == []
            assert driver.execute_script("return document.documentElement.scrollWidth") <= 360
            assert controls_too_small(driver) == []
            dice = driver.find_elements("css selector", "#dice .die")
            assert len({d.rect["y"] for d in dice}) == 1                               # one row of six
            driver.save_screenshot(str(tmp_path / "maxi-phone.png"))
            play(driver, 20)                                          # Greedy plays its own 20
            stored = wait(lambda: driver.execute_script("return state.result && state.result.stored"),
                          timeout=60, what="the stored game")
            assert stored
            driver.get(f"{srv.url}/game/{stored}")                    # its analysis needs maxi solved first
            wait(lambda: "cannot be analysed here yet" in driver.find_element("id", "board-title").text,
                 what="the analysis board's refusal")
            assert "yacht solve --rules maxi" in driver.find_element("id", "board-title").text
    finally:
        driver.quit()
