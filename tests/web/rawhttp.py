"""Raw sockets for the server's tests: HTTP requests sent byte by byte as a slow or hostile client would, and a
WebSocket client that can stop reading (the handshake and masked text frames written by hand)."""
import base64
import json
import os
import socket
import struct

WAIT = 30.0                       # seconds a raw client waits for the server


def connect(url: str, rcvbuf: int | None = None, wait: bool = True) -> socket.socket:
    """A TCP connection to the server; `wait=False`: the connection is started, not waited for."""
    host, port = url.removeprefix("http://").split(":")
    sock = socket.socket()
    if rcvbuf:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    if not wait:
        sock.setblocking(False)
        sock.connect_ex((host, int(port)))
        return sock
    sock.settimeout(WAIT)
    sock.connect((host, int(port)))
    return sock


def closed_by_server(sock: socket.socket) -> bytes | None:
    """What the server sent before it closed the socket (bounded by WAIT); None when it kept it open."""
    got = b""
    try:
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                return got
            got += chunk
    except ConnectionResetError:
        return got
    except TimeoutError:
        return None


def request(url: str, method: str, path: str, body: bytes = b"", headers: dict | None = None) -> tuple[int, bytes]:
    """(status, body) of one request on a fresh connection."""
    host = url.removeprefix("http://")
    head = {"Host": host, "Content-Length": str(len(body)), "Connection": "close", **(headers or {})}
    sock = connect(url)
    with sock:
        sock.sendall(f"{method} {path} HTTP/1.1\r\n".encode() +
                     b"".join(f"{k}: {v}\r\n".encode() for k, v in head.items()) + b"\r\n" + body)
        answer = closed_by_server(sock) or b""
    status = int(answer.split(b" ", 2)[1]) if answer.startswith(b"HTTP/1.1 ") else 0
    return status, answer.partition(b"\r\n\r\n")[2]


def ws_handshake(url: str, path: str, origin: str | None = None, rcvbuf: int | None = None,
                 host: str | None = None) -> tuple[socket.socket, int]:
    """A WebSocket handshake on a raw socket: (the socket, the HTTP status: 101 when accepted)."""
    sock = connect(url, rcvbuf)
    key = base64.b64encode(os.urandom(16)).decode()
    lines = [f"GET {path} HTTP/1.1", f"Host: {host or url.removeprefix('http://')}", "Upgrade: websocket",
             "Connection: Upgrade", f"Sec-WebSocket-Key: {key}", "Sec-WebSocket-Version: 13"]
    if origin is not None:
        lines.append(f"Origin: {origin}")
    sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = sock.recv(1)
        if not chunk:
            break
        head += chunk
    status = int(head.split(b" ", 2)[1]) if head.startswith(b"HTTP/1.1 ") else 0
    return sock, status


def send_text(sock: socket.socket, doc) -> None:
    """One masked text frame (as a client must send it)."""
    data = (doc if isinstance(doc, str) else json.dumps(doc)).encode()
    mask = os.urandom(4)
    n = len(data)
    head = bytes([0x81]) + (bytes([0x80 | n]) if n < 126 else bytes([0x80 | 126]) + struct.pack("!H", n))
    sock.sendall(head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))
