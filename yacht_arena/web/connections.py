"""The WebSocket connections of `yacht serve`: each client's message budget, its outgoing queue, and who is
connected to which table (each seat holder gets its own state, the spectators one shared text).

Sending never waits on a client: a message goes on the connection's queue (at most `Limits.queue` messages)
and the connection's own writer sends it, each send within `Limits.send_timeout` seconds. A client whose
queue is full or whose send times out has fallen behind: it is dropped (its socket aborted, so a stalled
reader holds no file either); its seats keep their tokens, and the same client may come back with them."""
import asyncio
import contextlib
import json
import time

from starlette.websockets import WebSocket, WebSocketDisconnect

from .tables import Table, TableError

MAX_FRAME = 4096                 # bytes of one client message


def read_message(raw: str) -> dict:
    """A client's text frame as a JSON object; TableError when it is over MAX_FRAME bytes, not JSON (or nested
    past the parser's depth) or not an object."""
    if len(raw) > MAX_FRAME:
        raise TableError(f"a message may be at most {MAX_FRAME} bytes")
    try:
        msg = json.loads(raw)
    except (ValueError, RecursionError):
        raise TableError("not valid JSON") from None
    if not isinstance(msg, dict):
        raise TableError("a message is a JSON object with a type")
    return msg


async def receive(ws: WebSocket, conn: "Conn", pace, handle) -> None:
    """Read a client's messages until it leaves: each first through `await pace()` (False: the message is
    dropped, `pace` having answered it; a table's people are refused over their rate, a bot is made to wait),
    then a text frame to `await handle(raw)` and any other frame answered that JSON text is wanted."""
    try:
        while True:
            await asyncio.sleep(0)              # the writers send before the next message is read
            msg = await ws.receive()
            if msg["type"] == "websocket.disconnect":
                return
            if not await pace():
                continue
            raw = msg.get("text")
            if raw is None:
                conn.send({"type": "error", "message": "send JSON text frames"})
                continue
            await handle(raw)
    except WebSocketDisconnect:
        pass


RATE = 20.0                      # messages per second per connection, with bursts of BURST
BURST = 40.0
PER_TABLE = 32                   # connections to one table
ABORT = "yacht.abort"            # the scope extension (`listener.GuardedWebSocket`) that aborts the socket


def compact(doc: dict) -> str:
    return json.dumps(doc, separators=(",", ":"))


class Conn:
    """One WebSocket client: the seats it holds at its table, its message budget and its outgoing queue."""

    def __init__(self, ws: WebSocket, queue: int = 32, send_timeout: float = 10.0):
        self.ws, self.held = ws, set()
        self.tokens, self.stamp = BURST, time.monotonic()
        self.queue: asyncio.Queue[str] = asyncio.Queue(queue)
        self.send_timeout = send_timeout
        self.dropped = False
        self.writer = asyncio.create_task(self._write())

    def allow(self) -> bool:
        now = time.monotonic()
        self.tokens = min(BURST, self.tokens + (now - self.stamp) * RATE)
        self.stamp = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True

    def send(self, doc: dict | str) -> None:
        """Queue a message (a dict, or its JSON text already made); never waits. A full queue drops the client."""
        if self.dropped:
            return
        try:
            self.queue.put_nowait(doc if isinstance(doc, str) else compact(doc))
        except asyncio.QueueFull:
            self.drop()

    async def _write(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            text = await self.queue.get()
            late = loop.call_later(self.send_timeout, self.drop)    # a send still waiting then drops the client
            try:
                await self.ws.send_text(text)
            except Exception:  # noqa: BLE001 - a send that fails: the client is gone
                self.drop()
                return
            finally:
                late.cancel()

    def drop(self) -> None:
        """End a client that fell behind: abort its socket (the reader loop then sees it leave)."""
        if self.dropped:
            return
        self.dropped = True
        abort = self.ws.scope.get("extensions", {}).get(ABORT)
        if abort is not None:
            abort()
        else:                                       # a server without the abort extension: a close frame
            asyncio.get_running_loop().create_task(self._close())
        if self.writer is not asyncio.current_task():
            self.writer.cancel()

    async def _close(self) -> None:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.ws.close(1013), self.send_timeout)

    def close(self) -> None:
        """The client left: stop its writer."""
        self.dropped = True
        self.writer.cancel()


class Connections:
    """The connections of every table, and their count against the server's limits."""

    def __init__(self, limit: int):
        self.limit = limit
        self.by_table: dict[str, set[Conn]] = {}
        self.count = 0

    def room(self, table_id: str) -> bool:
        return self.count < self.limit and len(self.by_table.get(table_id, ())) < PER_TABLE

    def add(self, table_id: str, conn: Conn) -> None:
        self.count += 1
        self.by_table.setdefault(table_id, set()).add(conn)

    def remove(self, table_id: str, conn: Conn) -> None:
        self.count -= 1
        self.by_table[table_id].discard(conn)
        conn.close()

    def watched(self, table_id: str) -> bool:
        return bool(self.by_table.get(table_id))

    def forget(self, table_id: str) -> None:
        self.by_table.pop(table_id, None)

    def connected(self, table_id: str) -> dict[int, int]:
        """seat -> how many connections hold it."""
        out: dict[int, int] = {}
        for c in self.by_table.get(table_id, ()):
            if not c.dropped:
                for s in c.held:
                    out[s] = out.get(s, 0) + 1
        return out

    def broadcast(self, table: Table) -> None:
        """The table's state to every connection (queued: never waits on one): each seat holder its own, the
        spectators one shared text."""
        online = self.connected(table.id)
        watching = None
        for c in list(self.by_table.get(table.id, ())):
            if c.held:
                c.send(table.state(c.held, online))
                continue
            if watching is None:
                watching = compact(table.state(set(), online))
            c.send(watching)

    def notice(self, table: Table, text: str) -> None:
        """News for everyone at the table (`{"type": "notice", "message": text}`), beside the state's notes."""
        message = compact({"type": "notice", "message": text})
        for c in list(self.by_table.get(table.id, ())):
            c.send(message)
