"""Saved rolls at a web table, in headless Chromium with axe-core: the lobby's select passes `saved_rolls` to
the table; against the Greedy CPU (which never re-rolls, so saves the cap every turn) Ann scores her first
roll, saves two rolls, and in her next turn rolls five times by keyboard; the table says the rolls left with the
saved ones, each sheet's saved rolls by its name, and keeps the Roll button on while saved rolls remain. At
desktop (1280x800) and phone (360x740) sizes."""
import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

from tests.browser import MISSING, chrome
from tests.web.test_web_access import controls_too_small, serious, wait
from yacht_arena.web.child import serving


def js(driver, script, *args):
    return driver.execute_script("return " + script, *args)


def my_turn(driver, phase):
    wait(lambda: js(driver, "!busy && myTurn() && state.phase === arguments[0]", phase), what=f"Ann to {phase}",
         timeout=60)


def key_roll(driver):
    """Roll with the R key once the Roll button is on; returns the state's seq after the roll."""
    seq = js(driver, "state.seq")
    wait(lambda: not driver.find_element("id", "roll").get_attribute("disabled"), what="the Roll button")
    ActionChains(driver).send_keys("r").perform()
    wait(lambda: js(driver, "state.seq") > seq, what="the roll")


def key_score(driver):
    """Score the first box offered by keyboard: Enter on its button picks it, Enter on Score scores it."""
    seq = js(driver, "state.seq")
    box = wait(lambda: driver.find_elements("css selector", "#sheet button.preview:not([disabled])"),
               what="a box to score")[0]
    box.send_keys(Keys.ENTER)
    wait(lambda: not driver.find_element("id", "confirm").get_attribute("disabled"), what="the Score button")
    driver.find_element("id", "confirm").send_keys(Keys.ENTER)
    wait(lambda: js(driver, "state.seq") > seq, what="the score")


def rolls_said(driver) -> str:
    return driver.find_element("id", "rolls-left").text


def saved_by_sheet(driver) -> list[str]:
    return js(driver, "[...document.querySelectorAll('#sheet thead th .saved')].map((e) => e.textContent)")


def test_a_table_with_saved_rolls_against_greedy(tmp_path):
    desk = chrome(tmp_path / "desk", (1280, 800))
    if desk is None:
        pytest.skip(MISSING)
    phone = None
    try:
        with serving(tmp_path / "data") as srv:
            desk.get(srv.url + "/")
            wait(lambda: desk.find_elements("css selector", "#seats select"), what="the lobby")
            Select(desk.find_element("id", "rules")).select_by_value("yatzy")
            saved = Select(desk.find_element("id", "saved"))
            assert [o.text for o in saved.options] == ["as the rules say (none)", "up to 1", "up to 2", "up to 3",
                                                       "no limit"]
            saved.select_by_value("2")
            Select(desk.find_element("css selector", "#seats select")).select_by_value("greedy")
            Select(desk.find_element("id", "pace")).select_by_value("0.25")
            desk.find_element("css selector", "#seats input").clear()
            desk.find_element("css selector", "#seats input").send_keys("Ann")
            assert serious(desk) == []
            desk.find_element("id", "open-table").send_keys(Keys.ENTER)
            wait(lambda: js(desk, "!!state && state.rules.saved_rolls === 2"), what="the table with saved rolls")
            assert js(desk, "state.rules.name") == "yatzy"

            # turn 1: Ann scores her first roll and saves two rolls
            my_turn(desk, "roll")
            assert rolls_said(desk) == "Rolls left 3" and saved_by_sheet(desk) == ["0 saved", "0 saved"]
            key_roll(desk)
            key_score(desk)

            # turn 2, after Greedy's (it saved two as well): five rolls, the Roll button on for each
            my_turn(desk, "roll")
            assert js(desk, "state.sheets.map((s) => s.saved)") == [2, 2]
            assert saved_by_sheet(desk) == ["2 saved", "2 saved"]
            assert rolls_said(desk) == "Rolls left 5 (2 saved)"
            for n in range(5):
                key_roll(desk)
                left = 4 - n
                assert js(desk, "state.rolls_left") == left
                saved = min(2, left)
                assert rolls_said(desk) == f"Rolls left {left}" + (f" ({saved} saved)" if saved else "")
                if n == 3:
                    wait(lambda: not desk.find_element("id", "roll").get_attribute("disabled"), what="Roll on")
                    assert desk.find_element("id", "roll").text == "Roll (1 left)"
                    assert serious(desk) == []
                    desk.save_screenshot(str(tmp_path / "saved-rolls-desktop.png"))
            assert desk.find_element("id", "roll").get_attribute("disabled")
            ActionChains(desk).send_keys("r").perform()                 # no roll left: nothing happens
            assert js(desk, "state.rolls_left") == 0
            rolls = js(desk, "state.log.filter((m) => m.seat === 0 && 'hold' in m).length")
            assert rolls == 6                                            # one in turn 1, five in turn 2
            key_score(desk)
            my_turn(desk, "roll")
            assert js(desk, "state.sheets[0].saved") == 0 and rolls_said(desk) == "Rolls left 3"

            # the same table on a phone
            table = js(desk, "state.table")
            phone = chrome(tmp_path / "phone", (360, 740), True)
            phone.get(srv.url + "/")
            tokens = js(desk, "localStorage.getItem(arguments[0])", f"yacht.seats.{table}")
            phone.execute_script("localStorage.setItem(arguments[0], arguments[1])", f"yacht.seats.{table}", tokens)
            phone.get(f"{srv.url}/t/{table}")
            my_turn(phone, "roll")
            key_roll(phone)
            assert rolls_said(phone) == "Rolls left 2" and saved_by_sheet(phone) == ["0 saved", "2 saved"]
            assert serious(phone) == []
            assert js(phone, "document.documentElement.scrollWidth") <= 360
            assert controls_too_small(phone) == []
            phone.save_screenshot(str(tmp_path / "saved-rolls-phone.png"))
    finally:
        desk.quit()
        if phone is not None:
            phone.quit()
