"""`yacht serve` against slow, stalled, idle and half-open clients, bodies too large while they stream, and more
idle sockets than the process has files: a real server on loopback, raw sockets, bounded waits."""
import json
import time

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
pytest.importorskip("websockets.sync.client")

from tests.web.rawhttp import closed_by_server, connect, request, send_text, ws_handshake
from tests.web.test_web_tables import Client
from yacht_arena.web.app import MAX_BODY
from yacht_arena.web.child import serving

TWO = {"rules": "yacht", "pace": 0, "seats": [{"kind": "person", "name": "Ann"}, {"kind": "person", "name": "Bob"}]}


@pytest.fixture
def quick(tmp_path):
    """A serve config with one-second timeouts (the waits below end when the server acts, not on a clock)."""
    path = tmp_path / "serve.yaml"
    path.write_text("request_timeout: 1\nsend_timeout: 1\n")
    return path


def test_idle_and_half_sent_requests_are_closed_and_visitors_still_served(tmp_path, quick):
    with serving(tmp_path / "data", quick) as srv:
        idle = connect(srv.url)                                              # sends nothing at all
        half_head = connect(srv.url)
        half_head.sendall(b"GET /api/menu HTTP/1.1\r\nHost: x\r\n")         # a head that never ends
        half_body = connect(srv.url)
        half_body.sendall(f"POST /api/tables HTTP/1.1\r\nHost: {srv.url[7:]}\r\nContent-Type: application/json\r\n"
                          f"Content-Length: 100\r\n\r\n{{\"rules\"".encode())  # a body that stops
        kept = connect(srv.url)
        kept.sendall(f"GET /api/menu HTTP/1.1\r\nHost: {srv.url[7:]}\r\n\r\nGET /api/me".encode())  # then half
        assert srv.get("/api/menu")["max_seats"] == 8                       # a visitor meanwhile
        assert closed_by_server(idle) == b""
        assert closed_by_server(half_head) == b""
        answer = closed_by_server(half_body)
        assert answer is not None and answer.startswith(b"HTTP/1.1 408")
        answer = closed_by_server(kept)
        assert answer is not None and answer.count(b"HTTP/1.1 200") == 1
        for s in (idle, half_head, half_body, kept):
            s.close()
        assert "Traceback" not in srv.output()


def test_request_bodies_are_refused_while_they_stream(tmp_path, quick):
    with serving(tmp_path / "data", quick) as srv:
        json_head = {"Content-Type": "application/json"}
        status, body = request(srv.url, "POST", "/api/tables", headers={**json_head, "Content-Length": "1000000000"})
        assert status == 413 and str(MAX_BODY) in json.loads(body)["error"]      # declared: refused unread
        sock = connect(srv.url)                                              # chunked: refused once past the bound
        sock.sendall(f"POST /api/tables HTTP/1.1\r\nHost: {srv.url[7:]}\r\nContent-Type: application/json\r\n"
                     f"Transfer-Encoding: chunked\r\n\r\n".encode())
        for _ in range(3):                                                   # 12 KB of an endless body
            sock.sendall(b"1000\r\n" + b" " * 4096 + b"\r\n")
        answer = closed_by_server(sock)
        assert answer is not None and answer.startswith(b"HTTP/1.1 413")
        sock.close()
        status, _ = request(srv.url, "POST", "/api/tables", json.dumps(TWO).encode(), json_head)
        assert status == 200


def test_more_idle_sockets_than_files_lock_no_visitor_out(tmp_path, quick):
    with serving(tmp_path / "data", quick, files=160) as srv:
        hoard = [connect(srv.url, wait=False) for _ in range(400)]           # far over the file limit
        try:
            assert srv.get("/api/menu")["max_seats"] == 8
            code, made = srv.post("/api/tables", TWO)
            assert code == 200
            ann = Client(srv.url, made["id"], [made["tokens"]["0"]])
            assert ann.state["seats"][0]["you"]
            ann.close()
        finally:
            for s in hoard:
                s.close()
        out = srv.output()
        assert "allows" in out and "live connections" in out and "Too many open files" not in out
        assert "Traceback" not in out


def test_a_reader_that_falls_behind_is_dropped_and_its_seat_comes_back(tmp_path, quick):
    eight = {"rules": "yacht", "pace": 0, "seats": [{"kind": "person", "name": f"P{i}"} for i in range(8)]}
    with serving(tmp_path / "data", quick) as srv:
        code, made = srv.post("/api/tables", eight)
        tid, tokens = made["id"], made["tokens"]
        bob, status = ws_handshake(srv.url, f"/ws/{tid}", rcvbuf=2048)      # seat 1 says hello, then stops reading
        assert status == 101
        send_text(bob, {"type": "hello", "tokens": [tokens["1"]]})
        ann = Client(srv.url, tid, [tokens["0"]])
        for sent in range(4000):                 # every hello is a broadcast to the stalled reader too
            ann.send({"type": "hello", "tokens": [tokens["0"]], "id": sent})
            m = ann.until(lambda m: m["type"] in ("state", "error"))        # Ann is answered all along
            if m["type"] == "state" and not m["seats"][1]["online"]:
                break
            time.sleep(0.04)                     # within Ann's message rate
        else:
            raise AssertionError("the stalled reader was never dropped")
        bob.close()
        back = Client(srv.url, tid, [tokens["1"]])                          # the same token, the same seat
        assert back.state["seats"][1]["you"] and back.state["seats"][1]["online"]
        for c in (back, ann):
            c.close()
        assert "Traceback" not in srv.output()


def test_an_accept_without_a_file_left_is_one_line(capsys):
    """When accepting finds no file left (asyncio's report of a failed accept), the server says so in one line
    on stderr, at most every 10 seconds, with no traceback; any other report reaches the loop's default
    handler."""
    import asyncio
    import errno

    from yacht_arena.web.listener import quiet_accept_errors
    loop = asyncio.new_event_loop()
    try:
        other = []
        loop.default_exception_handler = other.append
        quiet_accept_errors(loop)
        full = {"message": "socket.accept() out of system resource", "exception": OSError(errno.EMFILE, "full")}
        for _ in range(3):
            loop.call_exception_handler(full)
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "no file left to accept a connection" in err and "Traceback" not in err
        crash = {"message": "Task exception was never retrieved", "exception": RuntimeError("boom")}
        loop.call_exception_handler(crash)
        loop.call_exception_handler({"message": "socket.accept() failed", "exception": OSError(errno.EBADF, "x")})
        assert [c["message"] for c in other] == ["Task exception was never retrieved", "socket.accept() failed"]
        assert capsys.readouterr().err == ""
    finally:
        loop.close()
