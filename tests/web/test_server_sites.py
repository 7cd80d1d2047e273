"""`yacht serve` against other sites' pages: state-changing requests and WebSocket handshakes from another
origin, other content types, and a foreign Host (DNS rebinding), on a real server on loopback."""
import json

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from tests.web.rawhttp import request, ws_handshake
from yacht_arena.web.child import serving
from yacht_arena.web.guard import host_name, refusal

SOLO = json.dumps({"rules": "yacht", "pace": 0, "seats": [{"kind": "person", "name": "Ann"}]}).encode()
JSON = {"Content-Type": "application/json"}


def test_other_sites_cannot_open_tables_or_join_them(tmp_path):
    with serving(tmp_path / "data") as srv:
        own = srv.url
        for headers, status in [
            ({**JSON, "Origin": "http://evil.example"}, 403),
            ({**JSON, "Origin": "null"}, 403),                                   # a sandboxed frame
            ({**JSON, "Origin": own.replace("127.0.0.1", "localhost")}, 403),   # another origin of this machine
            ({"Content-Type": "text/plain", "Origin": own}, 415),               # what a form may send
            ({"Content-Type": "application/x-www-form-urlencoded"}, 415),
            ({"Content-Type": "multipart/form-data; boundary=x"}, 415),
            ({}, 415),
            ({**JSON, "Origin": own}, 200),                                      # the lobby's own request
            ({"Content-Type": "application/json; charset=utf-8"}, 200),          # a program (no Origin)
        ]:
            got, body = request(own, "POST", "/api/tables", SOLO, headers)
            assert got == status, (headers, got, body)
        assert len(list((tmp_path / "data" / "tables").glob("*.json"))) == 2
        tid = json.loads(body)["id"]
        for origin, status in [("http://evil.example", 403), ("null", 403), (own, 101), (None, 101)]:
            sock, got = ws_handshake(own, f"/ws/{tid}", origin=origin)
            assert got == status, (origin, got)
            sock.close()
        for host in ("evil.example", f"evil.example:{srv.port}", "127.0.0.1.evil.example"):   # DNS rebinding
            got, _ = request(own, "GET", "/api/menu", headers={"Host": host})
            assert got == 403
            sock, got = ws_handshake(own, f"/ws/{tid}", origin=f"http://{host}", host=host)
            assert got == 403
            sock.close()
        assert request(own, "GET", "/api/menu", headers={"Host": f"localhost:{srv.port}"})[0] == 200
        assert "Traceback" not in srv.output()


def test_an_operator_behind_a_proxy_lists_its_origins(tmp_path):
    config = tmp_path / "serve.yaml"
    config.write_text("origins: ['https://Yacht.example.org/']\n")
    with serving(tmp_path / "data", config) as srv:
        proxied = {**JSON, "Host": "yacht.example.org"}
        for origin, status in [("https://yacht.example.org", 200), ("http://yacht.example.org", 403)]:
            assert request(srv.url, "POST", "/api/tables", SOLO, {**proxied, "Origin": origin})[0] == status
        assert request(srv.url, "POST", "/api/tables", SOLO, {**JSON, "Origin": srv.url})[0] == 403   # the list only
    bad = tmp_path / "bad.yaml"
    bad.write_text("origins: ['yacht.example.org/path']\n")
    from yacht_arena.cli import main
    assert main(["serve", "--port", "0", "--data", str(tmp_path / "d2"), "--config", str(bad)]) == 2


@pytest.mark.parametrize("host, name", [("127.0.0.1:80", "127.0.0.1"), ("[::1]:8000", "::1"), ("::1", "::1"),
                                        ("LocalHost", "localhost"), ("a.b:1:2", "a.b:1:2")])
def test_host_names(host, name):
    assert host_name(host) == name


def test_a_safe_method_passes_and_a_websocket_without_origin_is_a_program():
    scope = {"type": "http", "method": "GET", "headers": [(b"host", b"127.0.0.1:1")], "scheme": "http"}
    assert refusal(scope, frozenset(), True) is None
    scope = {"type": "websocket", "headers": [(b"host", b"127.0.0.1:1")], "scheme": "ws"}
    assert refusal(scope, frozenset(), True) is None
    scope["headers"].append((b"origin", b"http://127.0.0.1:1"))
    assert refusal(scope, frozenset(), True) is None
