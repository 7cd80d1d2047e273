"""The rating list page (`/ratings`) in headless Chromium at desktop (1280x800) and phone (360x740) sizes: its
rows shown, nothing wider than the screen, its link reached by keyboard, and axe-core (tests/web/vendor, when
the checkout has it) finding nothing serious. Skipped with the reason when no Chromium is installed."""
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

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
