"""The lobby's "A CPU at your level" is per rule set: the mean strength of this device's last games under the
rules picked in the lobby (kept in browser storage per rule set), offered only when there is one."""
import json

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from tests.browser import MISSING, chrome
from tests.web.test_web_access import wait
from yacht_arena.web.child import serving

KEPT = [{"game": "old-1", "strength": 0.1},                        # kept before levels were per rule set
        {"game": "a-1", "rules": "yacht", "strength": 0.6}, {"game": "b-1", "rules": "yatzy", "strength": 0.3},
        {"game": "c-1", "rules": "yacht", "strength": 0.7}]


def offered(driver) -> list[str]:
    return driver.execute_script("return [...document.querySelectorAll('#seats select option')]"
                                 ".filter((o) => o.value === 'mine').map((o) => o.textContent)")


def pick_rules(driver, name: str) -> None:
    driver.execute_script("const r = document.getElementById('rules'); r.value = arguments[0];"
                          "r.dispatchEvent(new Event('change'))", name)


def test_the_lobby_offers_your_level_under_the_rules_you_pick(tmp_path):
    driver = chrome(tmp_path / "profile", (1280, 800))
    if driver is None:
        pytest.skip(MISSING)
    try:
        with serving(tmp_path / "data") as srv:
            driver.get(srv.url + "/")
            driver.execute_script("localStorage.setItem('yacht.levels', arguments[0])", json.dumps(KEPT))
            driver.get(srv.url + "/")
            wait(lambda: driver.find_elements("css selector", "#seats select"), what="the lobby")
            assert offered(driver) == ["A CPU at your level (0.65)"]          # yacht's two games, not the others
            pick_rules(driver, "yatzy")
            assert offered(driver) == ["A CPU at your level (0.30)"]
            driver.execute_script("document.querySelector('#seats select').value = 'mine'")
            pick_rules(driver, "classic")                                      # no game under classic: no offer,
            assert offered(driver) == []                                       # and the seat is Normal again
            assert driver.execute_script("return document.querySelector('#seats select').value") == "normal"
            pick_rules(driver, "yatzy")
            driver.execute_script("document.querySelector('#seats select').value = 'mine'")
            driver.find_element("id", "open-table").click()
            seated = wait(lambda: driver.execute_script(
                "return state && state.seats.length === 2 && [state.rules.name, state.seats[1].name]"),
                what="the table at your level")
            assert seated == ["yatzy", "Dial 0.3"]

            # a game's placements are kept under its rules: the last 5 of each rule set
            for i in range(7):
                driver.execute_script("keepLevels(arguments[0], 'yacht', [0.5])", f"g{i}-1")
            kept = json.loads(driver.execute_script("return localStorage.getItem('yacht.levels')"))
            assert [k["game"] for k in kept] == ["b-1", "g2-1", "g3-1", "g4-1", "g5-1", "g6-1"]
            assert driver.execute_script("return [myLevel('yacht'), myLevel('yatzy'), myLevel('classic')]") == \
                [0.5, 0.3, None]
    finally:
        driver.quit()
