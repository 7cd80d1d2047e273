"""report.html: one self-contained page; in a real headless Chromium (when one is installed) its images load
and clicking a header re-sorts a table; without a browser the same structure is checked by parsing."""
import base64
import struct
from html.parser import HTMLParser

import pytest
from tests.browser import chrome
from tests.fake_agents import FACTORY

from tournaments.config import parse_config
from tournaments.run import run_tournament


class Page(HTMLParser):
    """Tables (header texts, rows of (text, data-sort)), images and every URL-bearing attribute."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tables, self.images, self.urls, self.scripts = [], [], [], []
        self._cell = self._row = None
        self._in_script = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.urls += [v for k, v in attrs if k in ("src", "href") and v]
        if tag == "table":
            self.tables.append({"sortable": "sortable" in (a.get("class") or ""), "head": [], "rows": []})
        elif tag == "tr":
            self._row = []
        elif tag in ("th", "td"):
            self._cell = [tag, "", a.get("data-sort")]
        elif tag == "img":
            self.images.append(a)
            if self._cell is not None:
                self._cell[1] += a.get("alt", "")
        elif tag == "script":
            self._in_script = True
            self.scripts.append(a)

    def handle_data(self, data):
        if self._cell is not None:
            self._cell[1] += data
        if self._in_script:
            self.scripts[-1]["text"] = self.scripts[-1].get("text", "") + data

    def handle_endtag(self, tag):
        if tag in ("th", "td") and self._cell is not None:
            self._row.append(self._cell)
            self._cell = None
        elif tag == "tr" and self._row is not None:
            table = self.tables[-1]
            if self._row and self._row[0][0] == "th":
                table["head"] = [c[1].strip() for c in self._row]
            else:
                table["rows"].append([(c[1].strip(), c[2]) for c in self._row])
            self._row = None
        elif tag == "script":
            self._in_script = False


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def sort_key(cell):
    """The page script's order: data-sort, else the text; numbers first, by value, then text."""
    text, sort = cell
    k = sort if sort is not None else text
    try:
        return (0, float(k), "")
    except ValueError:
        return (1, 0.0, k)


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    out = tmp_path_factory.mktemp("html")
    cfg = parse_config({"entrants": ["random", {"name": "zed", "agent": "best"}, "first", "upper"], "games": 3})
    res = run_tournament(cfg, out=out, progress=False, factory=FACTORY)
    return out / "report.html", res


def check_structure(path, res) -> Page:
    page = Page()
    page.feed(path.read_text(encoding="utf-8"))
    assert all(u.startswith(("data:image/png;base64,", "#")) for u in page.urls), "nothing outside the file"
    assert [s for s in page.scripts if "src" in s] == [] and "addEventListener" in page.scripts[0]["text"]
    assert len(page.images) == len(res["agents"]) + 1
    for img in page.images:
        width, height = png_size(base64.b64decode(img["src"].split(",", 1)[1], validate=True))
        assert width > 100 and height > 100 and img["alt"]
    sortable = [t for t in page.tables if t["sortable"]]
    assert len(sortable) >= 8
    for t in page.tables:
        assert t["head"] and all(len(row) == len(t["head"]) for row in t["rows"])
    standings = sortable[0]
    assert standings["head"][:2] == ["rank", "agent"]
    assert [row[1][0] for row in standings["rows"]] == [x["agent"] for x in res["standings"]]
    for t in sortable:                    # figures (counts, rates, W-D-L, intervals) sort by a number
        for row in t["rows"]:
            for text, sort in row:
                if text and (text[0].isdigit() or text[0] in "-["):
                    assert sort_key((text, sort))[0] == 0, (t["head"], text, sort)
    return page


def test_html_report_structure(report):
    path, res = report
    page = check_structure(path, res)
    scores = next(t for t in page.tables if t["head"][:2] == ["agent", "games"])
    means = [float(row[3][1]) for row in scores["rows"]]
    assert means == [res["agents"][row[0][0]]["mean"] for row in scores["rows"]]


def column(driver, table, col):
    return driver.execute_script(
        "return Array.from(arguments[0].tBodies[0].rows).map(r => r.cells[arguments[1]].textContent.trim())",
        table, col)


@pytest.mark.slow
def test_html_report_in_a_browser(report, tmp_path, monkeypatch):
    path, res = report
    monkeypatch.setenv("SE_AVOID_STATS", "true")
    driver = chrome(tmp_path / "profile")
    if driver is None:
        # no browser here: the same structure, and the order a click gives, from the parsed page
        page = check_structure(path, res)
        standings = [t for t in page.tables if t["sortable"]][0]
        agents = sorted((row[1] for row in standings["rows"]), key=sort_key)
        assert [a for a, _ in agents] == sorted(x["agent"] for x in res["standings"])
        return
    from selenium.webdriver.common.by import By
    try:
        driver.get(path.resolve().as_uri())
        images = driver.execute_script("return Array.from(document.images).map(i => [i.complete, i.naturalWidth])")
        assert len(images) == len(res["agents"]) + 1 and all(done and width > 100 for done, width in images)
        table = driver.find_elements(By.CSS_SELECTOR, "table.sortable")[0]
        heads = table.find_elements(By.CSS_SELECTOR, "thead th")
        names = [h.text for h in heads]
        agent, mean = names.index("agent"), names.index("mean score")
        ranked = [x["agent"] for x in res["standings"]]
        assert column(driver, table, agent) == ranked
        heads[agent].click()
        assert column(driver, table, agent) == sorted(ranked) != ranked
        assert heads[agent].get_attribute("aria-sort") == "ascending"
        heads[mean].click()
        means = [float(x) for x in column(driver, table, mean)]
        assert means == sorted(means)
        heads[mean].click()
        assert [float(x) for x in column(driver, table, mean)] == sorted(means, reverse=True)
        assert heads[mean].get_attribute("aria-sort") == "descending"
        heads[names.index("rank")].click()
        assert column(driver, table, agent) == ranked
    finally:
        driver.quit()
