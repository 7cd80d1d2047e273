"""One client address may hold at most `max_tables_per_address` open tables (the serve config's key): the
next is refused with a message for players, and its finished tables nobody watches close to make room. The
loopback tests come from 127.0.0.1, the address the server sees."""
import json
import re
import urllib.error
import urllib.request

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from tests.web.test_web_tables import Client, play_first_boxes
from yacht_arena.web.child import serving
from yacht_arena.web.server import Server
from yacht_arena.web.settings import Limits, ServeConfig
from yacht_env.config import ConfigError

SOLO = {"rules": "yacht", "pace": 0, "seats": [{"kind": "person", "name": "Ann"}]}
REFUSED = "tables open here (counted by your network address)"


def test_an_address_holds_at_most_its_tables_and_finished_ones_make_room(tmp_path):
    server = Server(tmp_path, ServeConfig(limits=Limits(tables=10, tables_per_address=2)))
    first, second = (server.open_table(SOLO, "127.0.0.1")["id"] for _ in range(2))
    with pytest.raises(ValueError, match=r"You have 2 tables open here \(counted by your network address\)"):
        server.open_table(SOLO, "127.0.0.1")
    other = server.open_table(SOLO, "192.0.2.7")["id"]        # another address, and the server's own tables,
    pool = server.open_table(SOLO)["id"]                       # are not counted against it
    assert len(server.tables) == 4
    play_first_boxes(server.tables[first], {0})
    server.storage.store(server.tables[first])
    third = server.open_table(SOLO, "127.0.0.1")["id"]          # the finished table closed to make room
    assert set(server.tables) == {second, other, pool, third}
    assert not (server.storage.table_dir / f"{first}.json").exists()
    assert (server.storage.games / f"{first}-1" / "games.jsonl").is_file()
    with pytest.raises(ValueError, match=re.escape(REFUSED)):              # unfinished tables stay, and still count
        server.open_table(SOLO, "127.0.0.1")
    assert Server(tmp_path, ServeConfig(limits=Limits(tables=10, tables_per_address=1))).open_table(
        SOLO, "127.0.0.1")                                     # restored tables were opened by nobody we know


@pytest.mark.parametrize("value", [0, -1, 100_001, 2.5, True, "5", None, [3]])
def test_a_bad_limit_is_refused_naming_the_key(tmp_path, value):
    path = tmp_path / "serve.yaml"
    path.write_text(f"max_tables_per_address: {json.dumps(value)}\n")
    with pytest.raises(ConfigError, match=r"serve.yaml.*max_tables_per_address.*whole number from 1"):
        ServeConfig.read(path)


def open_from(srv, forwarded: str | None = None) -> tuple[int, dict]:
    headers = {"Content-Type": "application/json", **({"X-Forwarded-For": forwarded} if forwarded else {})}
    req = urllib.request.Request(srv.url + "/api/tables", data=json.dumps(SOLO).encode(), method="POST",
                                 headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def test_over_http_the_next_table_is_refused_and_a_finished_game_frees_its_slot(tmp_path):
    config = tmp_path / "serve.yaml"
    config.write_text("max_tables_per_address: 2\n")
    with serving(tmp_path / "data", config) as srv:
        made = [open_from(srv) for _ in range(2)]
        assert [code for code, _ in made] == [200, 200]
        code, refused = open_from(srv)
        assert code == 400 and REFUSED in refused["error"] and "Finish or leave one" in refused["error"]
        # a proxy on this machine names the client (uvicorn trusts X-Forwarded-For from loopback only)
        assert open_from(srv, "198.51.100.4")[0] == 200
        ann = Client(srv.url, made[0][1]["id"], [made[0][1]["tokens"]["0"]])
        for _ in range(13):
            ann.send({"type": "roll", "seat": 0})
            ann.until(lambda m: m["type"] == "state" and m["phase"] == "decide")
            ann.send({"type": "score", "seat": 0, "box": next(iter(ann.state["preview"])).split("@")[0]})
            ann.until(lambda m: m["type"] == "state" and (m["phase"] != "decide" or "result" in m))
        assert ann.state["result"]["stored"] == f"{made[0][1]['id']}-1"      # stored before it is shown
        ann.close()
        code, again = open_from(srv)                           # the finished game, stored, made room
        assert code == 200, again
        assert open_from(srv)[0] == 400
