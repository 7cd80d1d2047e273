"""The page in Japanese: with the browser's language set to `ja` the lobby and a table render the message
catalogue's Japanese (static/messages.js), no English sentence is left on them, a server refusal the catalogue
knows is shown in Japanese, the switch goes back to English, and axe-core still finds nothing serious or
critical. Every message id the page uses has its Japanese entry. One server and one Japanese browser."""
import json
import re
from html import unescape
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from tests.browser import MISSING, chrome
from tests.web.test_web_access import serious, wait

from yacht_arena.web.child import serving

STATIC = Path(__file__).resolve().parents[2] / "yacht_arena" / "web" / "static"

# visible text with two English words and no Japanese: a text that did not go through the catalogue
ENGLISH = """
  const out = [];
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walk.nextNode()) {
    const n = walk.currentNode, e = n.parentElement, text = n.nodeValue.trim();
    if (!text || !e.getClientRects().length || e.closest('[hidden], option[lang]')) continue;
    if (/[A-Za-z]{2,}[ ,:]+[A-Za-z]{2,}/.test(text) && !/[\\u3040-\\u30ff\\u4e00-\\u9fff]/.test(text)) out.push(text);
  }
  for (const e of document.querySelectorAll('[aria-label], [placeholder]:not(textarea)')) {
    if (!e.getClientRects().length) continue;
    for (const a of ['aria-label', 'placeholder']) {
      const v = e.getAttribute(a);
      const english = v && /[A-Za-z]{2,} [A-Za-z]{2,}/.test(v) && !/[\\u3040-\\u30ff\\u4e00-\\u9fff]/.test(v);
      if (english) out.push(a + ': ' + v);
    }
  }
  return out;
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    root = tmp_path_factory.mktemp("i18n")
    with serving(root / "data") as srv:
        code, made = srv.post("/api/tables", {"rules": "yacht", "pace": 0, "seats": [
            {"kind": "person", "name": "Ann"}, {"kind": "cpu", "cpu": "easy"}]})
        assert code == 200, made
        srv.made = made
        yield srv


@pytest.fixture(scope="module")
def ja(tmp_path_factory):
    d = chrome(tmp_path_factory.mktemp("profile"), (1280, 800), lang="ja")
    if d is None:
        pytest.skip(MISSING)
    yield d
    d.quit()


def lobby(driver, site):
    driver.get(site.url + "/")
    wait(lambda: driver.find_elements("css selector", "#seats li"))


def test_the_lobby_is_japanese_from_the_browsers_language(site, ja):
    lobby(ja, site)
    assert ja.execute_script("return navigator.language").startswith("ja")
    assert ja.execute_script("return document.documentElement.lang") == "ja"
    assert ja.find_element("id", "open-table").text == "テーブルを開く"
    assert ja.find_element("css selector", "#seats li .kind").text == "人"
    said = ja.execute_script("return document.querySelector('#seats select').getAttribute('aria-label')")
    assert said == "CPUのレベル"
    assert ja.execute_script(ENGLISH) == []
    assert serious(ja) == []
    # the language switch in the header reads in its own colours, not the header's white on white
    ink, ground = ja.execute_script("const s = getComputedStyle(document.getElementById('lang'));"
                                    "return [s.color, s.backgroundColor]")
    assert ink != ground and ground != "rgba(0, 0, 0, 0)"


def test_a_table_is_japanese_and_a_known_refusal_too(site, ja):
    made = site.made
    lobby(ja, site)
    ja.execute_script("localStorage.setItem(arguments[0], arguments[1])", f"yacht.seats.{made['id']}",
                      json.dumps(list(made["tokens"].values())))
    ja.get(f"{site.url}/t/{made['id']}")
    wait(lambda: ja.execute_script("return !!state && document.querySelectorAll('#sheet tbody tr').length > 0"),
         what="the table")
    wait(lambda: ja.execute_script("return myTurn() && !busy && state.phase === 'roll'"), what="Ann's turn")
    assert ja.find_element("id", "roll").text == "振る" and ja.find_element("id", "turn").text == "あなたの番"
    heads = [e.text for e in ja.find_elements("css selector", "#sheet tbody th")]
    assert heads[:2] == ["1の目", "2の目"] and heads[-1] == "合計"
    assert ja.execute_script(ENGLISH) == []
    assert serious(ja) == []
    ja.execute_script("send({type: 'score', seat: state.turn, box: 'ones', column: 0, seq: state.seq})")
    wait(lambda: ja.find_element("id", "message").text == "まずサイコロを振ってください。", what="the refusal")


def test_the_switch_chooses_english_on_this_device(site, ja):
    lobby(ja, site)
    try:
        ja.execute_script("const s = document.getElementById('lang'); s.value = 'en';"
                          "s.dispatchEvent(new Event('change'))")
        wait(lambda: ja.execute_script("return document.readyState === 'complete' && document.documentElement.lang"
                                       " === 'en' && document.querySelectorAll('#seats li').length > 0"),
             what="the English lobby")
        assert ja.find_element("id", "open-table").text == "Open the table"
        assert "More rules" in ja.execute_script(ENGLISH)            # the check sees English where it is
    finally:
        ja.execute_script("localStorage.removeItem('yacht.lang')")


def test_every_message_id_the_page_uses_has_its_japanese_entry():
    catalogue = STATIC.joinpath("messages.js").read_text()
    japanese = set(re.findall(r'"((?:[^"\\]|\\.)+)": "', catalogue))
    used = set(re.findall(r'\bt\("((?:[^"\\]|\\.)*)"', STATIC.joinpath("app.js").read_text()))
    html = STATIC.joinpath("index.html").read_text()
    body = re.sub(r"<(script|title)[^>]*>.*?</\1>|<option[^>]*lang=[^>]*>.*?</option>", "", html, flags=re.S)
    texts = {" ".join(x.split()) for x in re.findall(r">([^<]+)<", body)}
    texts |= {" ".join(x.split()) for x in re.findall(r'(?:aria-label|title)="([^"]+)"', body)}
    texts = {unescape(x) for x in texts}
    texts = {x for x in texts if re.search("[A-Za-z]{2,}", x) and x not in ("English",)}
    assert used and texts
    assert sorted(used - japanese) == [] and sorted(texts - japanese) == []
