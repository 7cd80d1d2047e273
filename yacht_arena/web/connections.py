"""The WebSocket connections of `yacht serve`: each client's message budget and sending, and who is connected
to which table (each seat holder gets its own state, the spectators one shared text)."""
import contextlib
import json
import time

from starlette.websockets import WebSocket

from .tables import Table

MAX_FRAME = 4096                 # bytes of one client message
RATE = 20.0                      # messages per second per connection, with bursts of BURST
BURST = 40.0
PER_TABLE = 32                   # connections to one table


def compact(doc: dict) -> str:
    return json.dumps(doc, separators=(",", ":"))


class Conn:
    """One WebSocket client: the seats it holds at its table and its message budget."""

    def __init__(self, ws: WebSocket):
        self.ws, self.held = ws, set()
        self.tokens, self.stamp = BURST, time.monotonic()

    def allow(self) -> bool:
        now = time.monotonic()
        self.tokens = min(BURST, self.tokens + (now - self.stamp) * RATE)
        self.stamp = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True

    async def send(self, doc: dict | str) -> None:
        """Send a message (a dict, or its JSON text already made)."""
        text = doc if isinstance(doc, str) else compact(doc)
        with contextlib.suppress(Exception):       # a client gone mid-send is dropped by its own loop
            await self.ws.send_text(text)


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

    def watched(self, table_id: str) -> bool:
        return bool(self.by_table.get(table_id))

    def forget(self, table_id: str) -> None:
        self.by_table.pop(table_id, None)

    def connected(self, table_id: str) -> dict[int, int]:
        """seat -> how many connections hold it."""
        out: dict[int, int] = {}
        for c in self.by_table.get(table_id, ()):
            for s in c.held:
                out[s] = out.get(s, 0) + 1
        return out

    async def broadcast(self, table: Table) -> None:
        """The table's state to every connection: each seat holder its own, the spectators one shared text."""
        online = self.connected(table.id)
        watching = None
        for c in list(self.by_table.get(table.id, ())):
            if c.held:
                await c.send(table.state(c.held, online))
                continue
            if watching is None:
                watching = compact(table.state(set(), online))
            await c.send(watching)
