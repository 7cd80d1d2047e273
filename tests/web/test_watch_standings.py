"""The tournament view's standings are paged like its games (`STANDINGS_PER_PAGE` entrants a page), so a
tournament of many entrants answers a bounded page: over HTTP, and in headless Chromium at 1280×800 and
360×740 by keyboard, with axe-core finding nothing serious and no page wider than the phone."""
import gzip
import json
import urllib.request

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from tests.browser import MISSING, chrome
from tests.web.test_web_access import controls_too_small, serious, wait
from yacht_arena.web.board import STANDINGS_PER_PAGE
from yacht_arena.web.child import serving

ENTRANTS = 130          # three pages of standings: 50, 50, 30


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """A server watching a one-round Swiss tournament of `ENTRANTS` entrants (65 games)."""
    from tournaments.config import parse_config
    from tournaments.run import run_tournament
    root = tmp_path_factory.mktemp("standings")
    entrants = [{"name": f"Entrant {i:03d}", "agent": "random" if i % 2 else "greedy"} for i in range(ENTRANTS)]
    with pytest.MonkeyPatch.context() as mp:       # the view reads the store, not the report (a minute's fit)
        mp.setattr("tournaments.run.render", lambda *args, **kwargs: {})
        run_tournament(parse_config({"entrants": entrants, "seats": 2, "games": 1, "format": "swiss",
                                     "rounds": 1}), out=root / "big", progress=False, analysis=False)
    (root / "serve.yaml").write_text(f"tournaments: [{root / 'big'}]\n")
    with serving(root / "data", root / "serve.yaml") as srv:
        yield srv


def test_the_standings_come_a_page_at_a_time(site):
    req = urllib.request.Request(site.url + "/api/watch/0", headers={"Accept-Encoding": "gzip"})
    with urllib.request.urlopen(req, timeout=30) as r:
        raw = r.read()
    first = json.loads(gzip.decompress(raw))
    assert len(raw) < 100_000
    assert (first["standings_page"], first["standings_per_page"], first["standings_listed"]) == \
        (0, STANDINGS_PER_PAGE, ENTRANTS)
    assert len(first["standings"]) == STANDINGS_PER_PAGE
    assert list(first["entrants"]) == [x["agent"] for x in first["standings"]]     # the specs of the rows shown
    pages = [site.get(f"/api/watch/0?standings={p}")["standings"] for p in range(3)]
    assert [len(p) for p in pages] == [50, 50, 30]
    rows = [x for p in pages for x in p]
    assert sorted(x["agent"] for x in rows) == sorted(f"Entrant {i:03d}" for i in range(ENTRANTS))
    ranks = [x["rank"] for x in rows]
    assert ranks == sorted(ranks) and ranks[0] == 1
    assert site.get("/api/watch/0?standings=999")["standings_page"] == 2
    assert site.get("/api/watch/0?standings=-1")["standings_page"] == 0
    both = site.get("/api/watch/0?standings=1&page=1")                # the two pagers are independent
    assert (both["standings_page"], both["page"]) == (1, 1) and both["standings"] == pages[1]


@pytest.mark.parametrize("size, mobile", [((1280, 800), False), ((360, 740), True)])
def test_the_standings_pager_works_by_keyboard_and_passes_axe(site, tmp_path, size, mobile):
    from selenium.webdriver.common.keys import Keys
    driver = chrome(tmp_path / "profile", size, mobile)
    if driver is None:
        pytest.skip(MISSING)
    try:
        driver.get(site.url + "/watch/0")

        def rows():
            return driver.execute_script(
                "return [...document.querySelectorAll('#watch-standings tbody tr')].map(r => r.cells[1].textContent)")
        first = wait(lambda: rows(), what="the standings")
        assert len(first) == STANDINGS_PER_PAGE
        assert driver.find_element("id", "places-page").text == f"Places 1 to 50 of {ENTRANTS}"
        assert driver.find_element("id", "places-prev").get_property("disabled")
        assert serious(driver) == []
        if mobile:
            assert driver.execute_script("return document.documentElement.scrollWidth") <= size[0]
            assert controls_too_small(driver) == []
        seen = list(first)
        for shown in ("Places 51 to 100", "Places 101 to 130"):
            driver.execute_script("document.getElementById('places-next').focus()")
            driver.switch_to.active_element.send_keys(Keys.ENTER)
            wait(lambda s=shown: driver.find_element("id", "places-page").text.startswith(s), what=shown)
            seen += rows()
        assert sorted(seen) == sorted(f"Entrant {i:03d}" for i in range(ENTRANTS))
        assert driver.find_element("id", "places-next").get_property("disabled")
        # the pressed button went disabled at the last page: the focus went to its twin, not to the page
        assert driver.execute_script("return document.activeElement.id") == "places-prev"
        assert serious(driver) == []
        if mobile:
            assert driver.execute_script("return document.documentElement.scrollWidth") <= size[0]
    finally:
        driver.quit()
