"""What `yacht serve` adds to uvicorn's sockets (uvicorn's own settings are passed in `uvicorn_settings`).

uvicorn closes a keep-alive connection `timeout_keep_alive` seconds after a response, but not one that never
finishes a request head (a fresh connection that sends nothing, or half a request), and with
`limit_concurrency` it still accepts every connection, answering 503 only once a request arrives: idle
sockets pile up until the process runs out of files and nobody gets in. So:

- `GuardedHttp` closes a connection that has no complete request head `request_timeout` seconds after it
  opened or after its last response, and keeps the open sockets under the process's file budget: at the
  budget, a new connection pushes out the oldest connection still waiting for its request head (so idle
  sockets cannot lock a visitor out), or is closed at once when every socket is busy;
- `GuardedWebSocket` lets the app abort its socket (`connections.ABORT`), so a client that stopped reading
  is dropped without waiting for its buffers to drain;
- `file_budget` raises the soft open-file limit to the hard one (at most `MAX_FILES`) and says how many
  sockets the server may hold; the rest (`reserve`) is for table files, the store and bots' pipes;
- `quiet_accept_errors` turns the event loop's report of an accept that found no file left (it then waits a
  second before accepting again) into one line on stderr, not a traceback.
"""
import contextlib
import errno
import resource
import socket
import sys

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.websockets.auto import AutoWebSocketsProtocol

from .connections import ABORT, MAX_FRAME

MAX_FILES = 1 << 16              # the soft open-file limit is raised up to this (never above the hard limit)
MAX_HEAD = 16 * 1024             # bytes of a request line and headers
SEND_BUFFER = 64 * 1024          # bytes of the kernel's send buffer of one WebSocket


def backlog(files: int) -> int:
    """The listen queue, which is also how many connections the event loop accepts at once before any of
    them is counted: kept within the files held back from sockets."""
    return max(16, min(2048, files // 16))


def reserve(files: int) -> int:
    """Files kept back from sockets: one accept batch (`backlog`), table files, the store, best scores,
    external bots' pipes."""
    return backlog(files) + max(32, files // 10)


def file_budget() -> tuple[int, int]:
    """(the soft open-file limit, raised to the hard limit up to MAX_FILES when it can be; the sockets it allows).
    """
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = MAX_FILES if hard == resource.RLIM_INFINITY else min(hard, MAX_FILES)
    if soft != resource.RLIM_INFINITY and soft < want:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
            soft = want
        except (ValueError, OSError):
            pass
    files = MAX_FILES if soft == resource.RLIM_INFINITY else soft
    return files, max(8, files - reserve(files))


OUT_OF_FILES = (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM)
OUT_OF_FILES_EVERY = 10.0        # seconds between two lines saying so


def quiet_accept_errors(loop) -> None:
    """Make `loop` say in one line (at most every OUT_OF_FILES_EVERY seconds) when accepting a connection found
    no file left, where asyncio would log a traceback; the loop accepts again a second later by itself. Every
    other report goes to the loop's default handler."""
    said = [None]

    def handler(loop, context) -> None:
        e = context.get("exception")
        if isinstance(e, OSError) and e.errno in OUT_OF_FILES and "accept" in context.get("message", ""):
            now = loop.time()
            if said[0] is None or now - said[0] >= OUT_OF_FILES_EVERY:
                said[0] = now
                print("yacht serve: no file left to accept a connection; new connections wait a second "
                      "(raise the open-file limit: docs/web.md, \"Limits\")", file=sys.stderr, flush=True)
            return
        loop.default_exception_handler(context)

    loop.set_exception_handler(handler)


class GuardedHttp(H11Protocol):
    """uvicorn's h11 protocol with a request-head timeout and a socket cap (class attributes, see `protocols`:
    `sockets`, `request_timeout`, and `idle`, the connections waiting for a request head, oldest first)."""

    sockets = 1024
    files = MAX_FILES
    request_timeout = 10.0
    idle: dict = {}

    def connection_made(self, transport) -> None:
        super().connection_made(transport)
        self.since = self.loop.time()
        if self._crowded(transport) and not self._make_room():
            transport.abort()
            return
        self.idle[self] = None
        self._timer = self.loop.call_later(self.request_timeout, self._check)

    def _crowded(self, transport) -> bool:
        """Over the socket cap, or the new socket's file number within four accept batches (and a margin) of the
        open-file limit. File numbers are handed out lowest first, so the newest one counts every file the
        process holds, sockets or not (modules, the store, bots' pipes). The event loop accepts a batch
        (`backlog`) at a time and calls `connection_made` two loop turns later, so up to three more batches
        can come in before this check sees them: the margin lets them in without running out."""
        sock = transport.get_extra_info("socket")
        fd = sock.fileno() if sock is not None else -1
        return len(self.connections) > self.sockets or fd >= self.files - 4 * backlog(self.files) - 8

    def waiting(self) -> bool:
        """Whether the connection has no request in progress (none yet, or the last one answered)."""
        return self.cycle is None or (self.cycle.response_complete and self.conn.their_state is not h11.SEND_BODY)

    def _make_room(self) -> bool:
        """Close the oldest connection waiting for its request head; False when there is none."""
        while self.idle:
            oldest = next(iter(self.idle))
            del self.idle[oldest]
            if not oldest.transport.is_closing():
                oldest.transport.abort()
                return True
        return False

    def handle_events(self) -> None:
        super().handle_events()
        if not self.waiting():
            self.idle.pop(self, None)             # a request head came: busy until its response

    def _check(self) -> None:
        if self.transport.is_closing():
            return
        if self.waiting() and self.loop.time() - self.since >= self.request_timeout:
            self.transport.abort()
            return
        self._timer = self.loop.call_later(self.request_timeout, self._check)

    def on_response_complete(self) -> None:
        self.since = self.loop.time()
        self.idle.pop(self, None)
        self.idle[self] = None                    # waiting again, the newest
        super().on_response_complete()

    def connection_lost(self, exc) -> None:
        self._forget()
        super().connection_lost(exc)

    def handle_websocket_upgrade(self, event) -> None:
        self._forget()
        super().handle_websocket_upgrade(event)

    def _forget(self) -> None:
        self.idle.pop(self, None)
        timer = getattr(self, "_timer", None)
        if timer is not None:
            timer.cancel()


class GuardedWebSocket(AutoWebSocketsProtocol):
    """uvicorn's WebSocket protocol, with `scope["extensions"][ABORT]` aborting the socket and the kernel's send
    buffer of the socket capped at `SEND_BUFFER` (what one slow reader can hold there, beside its queue)."""

    def connection_made(self, transport) -> None:
        sock = transport.get_extra_info("socket")
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SEND_BUFFER)
        super().connection_made(transport)

    async def run_asgi(self) -> None:
        self.scope.setdefault("extensions", {})[ABORT] = self.transport.abort
        await super().run_asgi()


def protocols(sockets: int, request_timeout: float, files: int = MAX_FILES) -> tuple[type, type]:
    """(the HTTP protocol class, the WebSocket protocol class) for uvicorn's `http` and `ws` settings."""
    http = type("Http", (GuardedHttp,), {"sockets": sockets, "files": files, "request_timeout": request_timeout,
                                         "idle": {}})
    return http, GuardedWebSocket


def uvicorn_settings(files: int, sockets: int, request_timeout: float) -> dict:
    """uvicorn.run's keyword arguments for these limits. uvicorn's `limit_concurrency` is left unset: it counts
    idle sockets too and then answers the next visitor 503, where `GuardedHttp` makes room instead."""
    http, ws = protocols(sockets, request_timeout, files)
    return {"http": http, "ws": ws, "ws_max_size": MAX_FRAME, "ws_max_queue": 16, "ws_ping_interval": 20.0,
            "ws_ping_timeout": 20.0, "ws_per_message_deflate": False, "timeout_keep_alive": 5,
            "backlog": backlog(files), "h11_max_incomplete_event_size": MAX_HEAD,
            "timeout_graceful_shutdown": 2}


__all__ = ["GuardedHttp", "GuardedWebSocket", "file_budget", "protocols", "uvicorn_settings"]
