"""The rating list page (`/ratings`) in headless Chromium at desktop (1280x800) and phone (360x740) sizes: its
rows shown, nothing wider than the screen, its link reached by keyboard, and axe-core (tests/web/vendor, when
the checkout has it) finding nothing serious. Skipped with the reason when no Chromium is installed."""
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from tests import waiting
from tests.browser import MISSING, chrome
from yacht_arena.cli import main
from yacht_arena.web.child import ROOT, serving

pytestmark = pytest.mark.slow
AXE = Path(__file__).parent / "vendor" / "axe.min.js"


def test_the_rating_list_reads_on_a_desktop_and_a_phone_and_by_keyboard(tmp_path, capsys):
    data = tmp_path / "data"
    assert main(["serve", "--data", str(data), "--add-bot", "Dicey"]) == 0
    token = capsys.readouterr().out.strip()
    config = tmp_path / "serve.yaml"
    config.write_text("ratings_every: 0\n")
    with serving(data, config) as srv:
        subprocess.run([sys.executable, str(ROOT / "scripts" / "remote_bot.py"), "--url", srv.url, "--token", token,
                        "--play", "1", "--against", "easy"], check=True, capture_output=True, timeout=240)
        for size, mobile in (((1280, 800), False), ((360, 740), True)):
            driver = chrome(tmp_path / f"profile-{size[0]}", size, mobile)
            if driver is None:
                pytest.skip(MISSING)
            try:
                driver.get(srv.url + "/ratings")
                rows = [r.text for r in driver.find_elements("css selector", "tbody tr")]
                assert len(rows) == 2 and any("Dicey" in r for r in rows) and any("Easy" in r for r in rows)
                assert driver.execute_script("return document.documentElement.scrollWidth <= window.innerWidth")
                driver.find_element("css selector", "body").send_keys("\t")
                assert driver.switch_to.active_element.text == "Back to the lobby"
                if AXE.is_file():
                    driver.execute_script(AXE.read_text())
                    found = driver.execute_async_script(
                        "const done = arguments[arguments.length - 1];"
                        "axe.run(document, {resultTypes: ['violations']}).then(r => done(r.violations.map(v => "
                        "v.id + ' (' + v.impact + ')')), e => done([String(e)]))")
                    assert [v for v in found if "serious" in v or "critical" in v] == []
                driver.save_screenshot(str(tmp_path / f"ratings-{size[0]}.png"))
            finally:
                driver.quit()


def until(check, what: str):
    """`check()`'s first true value, polled every 0.1 s (`tests.waiting.until`, bounded)."""
    got = waiting.until(check, step=0.1)
    if not got:
        raise AssertionError(f"timed out waiting for {what}")
    return got


def test_a_person_sits_with_a_connected_bot_from_the_lobby(tmp_path, capsys):
    from selenium.webdriver.support.ui import Select

    data = tmp_path / "data"
    assert main(["serve", "--data", str(data), "--add-bot", "Dicey"]) == 0
    token = capsys.readouterr().out.strip()
    with serving(data) as srv:
        bot = subprocess.Popen([sys.executable, str(ROOT / "scripts" / "remote_bot.py"), "--url", srv.url,
                                "--token", token], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        driver = chrome(tmp_path / "profile", (1280, 800))
        try:
            if driver is None:
                pytest.skip(MISSING)
            until(lambda: any(b["online"] for b in srv.get("/api/bots")["bots"]), "the bot to connect")
            driver.get(srv.url + "/")
            until(lambda: driver.find_elements("css selector", "#seats li select option[value='bot:Dicey']"),
                  "the lobby to offer the bot")
            select = Select(driver.find_element("css selector", "#seats li select"))   # the lobby's CPU seat
            assert "Dicey (remote bot)" in [o.text for o in select.options]
            select.select_by_value("bot:Dicey")
            name = driver.find_element("css selector", "#seats li input")                 # and its person seat
            name.clear()
            name.send_keys("Ann")
            driver.find_element("id", "open-table").click()
            def seats_held():              # the first state comes before the page's hello names its seats
                state = driver.execute_script("return typeof state === 'undefined' ? null : state") or {}
                seats = state.get("seats") or []
                return seats if any(s.get("you") for s in seats) else None
            seats = until(seats_held, "the table to open with the person's seat held")
            names = {s["name"]: s for s in seats}
            assert names["Dicey"]["label"] == "Remote bot" and names["Dicey"]["online"] and not names["Dicey"]["you"]
            assert names["Ann"]["you"]
        finally:
            if driver is not None:
                driver.quit()
            bot.kill()
            bot.communicate(timeout=30)
