"""`bench.py soak`: the web tables under faults, on loopback (`yacht serve` in a child process, killed and restarted).

--tables tables at once (default 200), each one simulated person (thinking --think seconds on average
before a move) against one CPU at pace 0, playing --games games (default 2); beside them --idle idle sockets
(default 300), --slow WebSocket clients that never read (default 100), --half-open HTTP requests that never
finish (default 50), a cross-site page's requests and a flood of bad frames; the server is killed with
SIGKILL and restarted --kills times (default 5) at random moments (--seed). Bounded by --seconds (default 600).

With --flood N it first opens N idle sockets at once (never closed by the client) and checks that visitors
still get the lobby's menu and a table while they are held (--files sets the server's open-file limit, e.g.
1024, a common default).

Afterwards it checks, and prints: every game a person saw finish is in the store exactly once (and no
store folder holds more than one record); after every restart each table continued where its person last
saw it (the same moves and the same dice, or later); no cross-site request was accepted; the people's move
round trips (p50, p99, max: the goal is p99 <= 50 ms on 2 cores) and the server's peak resident memory.
Exit 1 when a check fails.

The clients and the server share the machine's cores: the figures are a ceiling on what the server costs.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import socket
import tempfile
import time
from pathlib import Path

from .loopback import percentile, person_move, rss_mb


# Every bench subcommand builds its own parser here, one option a line, as the CLI's commands do (the loopback
# benchmarks' options read alike, but each default and help text is that benchmark's own).
def add_parser(sub):
    p = sub.add_parser("soak", help="web tables under faults: slow, idle, half-open and cross-site clients, kill -9",
                       description=__doc__)
    p.add_argument("--tables", type=int, default=200, help="tables at once, one person and one CPU each (200)")
    p.add_argument("--games", type=int, default=2, help="games per table (default 2)")
    p.add_argument("--idle", type=int, default=300, help="idle TCP sockets held (default 300)")
    p.add_argument("--slow", type=int, default=100, help="WebSocket clients that never read (default 100)")
    p.add_argument("--half-open", type=int, default=50, help="HTTP requests that never finish (default 50)")
    p.add_argument("--kills", type=int, default=5, help="kill -9 and restarts (default 5)")
    p.add_argument("--think", type=float, default=1.0, help="a person's mean seconds before a move (default 1; 0 "
                                                            "makes it a throughput test)")
    p.add_argument("--cpu", default="easy", help="the CPU of every table, a menu id (default easy)")
    p.add_argument("--seconds", type=float, default=600.0, help="bound on the whole soak (default 600)")
    p.add_argument("--seed", type=int, default=0, help="seed of the kill moments and the clients (default 0)")
    p.add_argument("--flood", type=int, default=0, help="first open this many idle sockets at once and see that "
                                                        "visitors still get in (default 0: no flood phase)")
    p.add_argument("--files", type=int, default=None, help="the server's open-file limit (default: inherited)")
    return p




class Soak:
    """The shared state of one soak: the running server, the figures and what went wrong."""

    def __init__(self, args, data: Path):
        self.args, self.data = args, data
        self.config = None                       # the serve config (every simulated person is 127.0.0.1)
        self.rng = random.Random(args.seed)
        self.srv = None
        self.deadline = time.monotonic() + args.seconds
        self.stop = asyncio.Event()
        self.killed = asyncio.Event()             # the kills are done: the people may stop after their games
        self.rtts: list[float] = []
        self.problems: list[str] = []
        self.finished: set[str] = set()          # store folders of the games people saw finish
        self.kills = self.restarts = self.cross_site = self.peak = 0

    @property
    def url(self) -> str:
        return self.srv.url

    def over(self) -> bool:
        return self.stop.is_set() or time.monotonic() > self.deadline

    def more(self, played: int) -> bool:
        """Whether a person who finished `played` games plays another (until --games and the last kill)."""
        return (played < self.args.games or not self.killed.is_set()) and not self.over()


async def person(soak: Soak, table: str, token: str, rng: random.Random) -> None:
    """One person: roll once, score the best box and play on (no wait for an undo), --games games; reconnects
    after a kill; checks that the table after a restart is where it last saw it."""
    from websockets.asyncio.client import connect
    from websockets.exceptions import WebSocketException
    last, played = None, 0
    while soak.more(played):
        try:
            async with connect(soak.url.replace("http", "ws") + f"/ws/{table}", max_size=1 << 20,
                               open_timeout=10) as ws:
                await ws.send(json.dumps({"type": "hello", "tokens": [token]}))
                fresh, sent, done = True, None, None
                while soak.more(played):
                    try:
                        msg = json.loads(await asyncio.wait_for(ws.recv(), 1))
                    except TimeoutError:
                        continue                  # the game is over and the last kill not yet done

                    if msg["type"] != "state" or not any(s["you"] for s in msg["seats"]):
                        continue
                    if fresh and last is not None and (msg["game"], msg["moves"]) < (last["game"], last["moves"]):
                        soak.problems.append(f"table {table}: back at game {msg['game']} move {msg['moves']} after "
                                             f"a restart; its person saw move {last['moves']} of game {last['game']}")
                    if fresh and last is not None and (msg["game"], msg["moves"]) == (last["game"], last["moves"]) \
                            and msg["dice"] != last["dice"]:
                        soak.problems.append(f"table {table}: other dice after a restart")
                    fresh = False
                    if sent is not None and (msg["moves"], msg["game"]) != (last["moves"], last["game"]):
                        soak.rtts.append(time.perf_counter() - sent)
                        sent = None
                    last = msg
                    if msg.get("result"):
                        if msg["result"].get("stored"):
                            soak.finished.add(msg["result"]["stored"])
                        played = len({f for f in soak.finished if f.startswith(table + "-")})
                        if soak.more(played) and sent is None and msg["result"].get("stored"):
                            await ws.send(json.dumps({"type": "rematch"}))
                            sent = time.perf_counter()
                        continue
                    me = next(i for i, s in enumerate(msg["seats"]) if s["you"])
                    if msg.get("undo") == me and msg["turn"] != me and done != (msg["game"], msg["moves"]):
                        done = (msg["game"], msg["moves"])   # plays on, as the page's "Play on" button does:
                        await ws.send(json.dumps({"type": "done", "seat": me}))   # the CPU need not wait
                    if msg["turn"] != me or sent is not None:
                        continue
                    move = person_move(msg, me)
                    if soak.args.think:
                        await asyncio.sleep(soak.args.think * rng.uniform(0.5, 1.5))
                        msg = await newest(ws, msg)
                        if msg["turn"] != me or msg.get("result"):
                            last = msg
                            continue
                    await ws.send(json.dumps(move))
                    sent = time.perf_counter()
        except (OSError, TimeoutError, WebSocketException, json.JSONDecodeError):
            await asyncio.sleep(0.2)              # the server is being killed or restarted


async def newest(ws, state: dict) -> dict:
    """The newest state among what arrived while the person thought (or `state`)."""
    while True:
        try:
            msg = json.loads(await asyncio.wait_for(ws.recv(), 0.001))
        except TimeoutError:
            return state
        if msg["type"] == "state" and (msg["game"], msg["version"]) > (state["game"], state["version"]):
            state = msg


async def hold_sockets(soak: Soak, n: int, partial: bytes) -> None:
    """`n` sockets that send `partial` (nothing, or half a request) and wait; reopened when the server closes them."""
    async def one():
        while not soak.over():
            try:
                host, port = soak.url.removeprefix("http://").split(":")
                reader, writer = await asyncio.wait_for(asyncio.open_connection(host, int(port)), 10)
                writer.write(partial)
                await asyncio.wait_for(reader.read(), 60)       # until the server closes it
                writer.close()
            except (OSError, TimeoutError):
                await asyncio.sleep(0.5)
    await asyncio.gather(*(one() for _ in range(n)))


async def slow_readers(soak: Soak, n: int, tables: list) -> None:
    """`n` WebSocket clients that say hello to a table and then never read (a tiny receive buffer)."""
    async def one(i):
        table = tables[i % len(tables)][0]
        while not soak.over():
            try:
                host, port = soak.url.removeprefix("http://").split(":")
                sock = socket.socket()
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 2048)
                sock.setblocking(False)
                await asyncio.wait_for(asyncio.get_running_loop().sock_connect(sock, (host, int(port))), 10)
                reader, writer = await asyncio.open_connection(sock=sock)
                writer.write(f"GET /ws/{table} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
                             f"Connection: Upgrade\r\nSec-WebSocket-Key: c29ha3NvYWtzb2Frc29haw==\r\n"
                             f"Sec-WebSocket-Version: 13\r\n\r\n".encode())
                while not soak.over() and not reader.at_eof():     # never reads: waits for the server to drop it
                    await asyncio.sleep(1)
                writer.close()
            except (OSError, TimeoutError):
                await asyncio.sleep(0.5)
    await asyncio.gather(*(one(i) for i in range(n)))


async def cross_site(soak: Soak) -> None:
    """Another site's page: a table opened by a cross-origin POST every 0.2 s; never accepted."""
    body = json.dumps({"rules": "yacht", "seats": [{"kind": "person", "name": "X"}]})
    while not soak.over():
        try:
            host, port = soak.url.removeprefix("http://").split(":")
            reader, writer = await asyncio.wait_for(asyncio.open_connection(host, int(port)), 10)
            writer.write(f"POST /api/tables HTTP/1.1\r\nHost: {host}:{port}\r\nOrigin: http://evil.example\r\n"
                         f"Content-Type: text/plain\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n"
                         f"{body}".encode())
            answer = await asyncio.wait_for(reader.read(), 10)
            writer.close()
            soak.cross_site += 1
            if answer.startswith(b"HTTP/1.1 200"):
                soak.problems.append("a cross-site request opened a table")
        except (OSError, TimeoutError):
            pass
        await asyncio.sleep(0.2)


async def bad_frames(soak: Soak, tables: list) -> None:
    """A flood of bad frames at one table: malformed JSON, binary frames, unknown types, frames over the limit."""
    from websockets.asyncio.client import connect
    from websockets.exceptions import WebSocketException
    junk = ["{nope", "[1]", json.dumps({"type": "eval"}), b"\x00\xff", "x" * 5000, json.dumps({"type": "roll"})]
    while not soak.over():
        try:
            async with connect(soak.url.replace("http", "ws") + f"/ws/{tables[0][0]}", open_timeout=10) as ws:
                for i in range(10_000):
                    if soak.over():
                        return
                    await ws.send(junk[i % len(junk)])
                    await asyncio.sleep(0.01)
        except (OSError, TimeoutError, WebSocketException):
            await asyncio.sleep(0.2)


async def killer(soak: Soak) -> None:
    """kill -9 and restart the server at random moments, --kills times (the people play on meanwhile)."""
    from yacht_arena.web.child import Served
    while soak.kills < soak.args.kills and not soak.over():
        await asyncio.sleep(soak.rng.uniform(0.5, 3.0))
        port = soak.srv.port
        soak.srv.kill9()
        soak.kills += 1
        soak.srv.stop()
        soak.srv = await asyncio.to_thread(Served, soak.data, soak.config, port, soak.args.files)
        soak.restarts += 1
    soak.killed.set()


async def memory(soak: Soak) -> None:
    while not soak.over():
        soak.peak = max(soak.peak, rss_mb(soak.srv.proc.pid))
        await asyncio.sleep(0.25)


def stored(data: Path) -> dict[str, int]:
    """Store folder -> how many game records it holds."""
    return {f.parent.name: sum(1 for line in f.read_text().splitlines() if line.strip())
            for f in (data / "games").glob("*/games.jsonl")}


async def flood(soak: Soak, n: int) -> None:
    """Open `n` idle sockets at once, then ten visitors ask for the menu and open a table while they are held."""
    host, port = soak.url.removeprefix("http://").split(":")
    held, refused = [], 0
    loop = asyncio.get_running_loop()
    for _ in range(n):
        sock = socket.socket()
        sock.setblocking(False)
        try:
            await asyncio.wait_for(loop.sock_connect(sock, (host, int(port))), 10)
            held.append(sock)
        except (OSError, TimeoutError):
            refused += 1
            sock.close()
    served = 0
    for i in range(10):
        try:
            await asyncio.to_thread(soak.srv.get, "/api/menu")
            code, _ = await asyncio.to_thread(soak.srv.post, "/api/tables", {"rules": "yacht", "seats": [
                {"kind": "person", "name": f"V{i}"}]})
            served += code == 200
        except OSError:
            pass
    open_now = sum(1 for s in held if s.fileno() >= 0 and _open(s))
    for s in held:
        s.close()
    print(f"flood: {n} idle sockets opened at once ({refused} refused by the kernel), {open_now} still open when "
          f"the visitors came; {served} of 10 visitors served (the menu and a new table); server's open-file "
          f"limit {soak.args.files or 'inherited'}")
    if served < 10:
        soak.problems.append(f"the flood locked {10 - served} of 10 visitors out")


def _open(sock: socket.socket) -> bool:
    """Whether the server has not closed this socket (nothing to read, no end of stream)."""
    try:
        return sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) != b""
    except BlockingIOError:
        return True
    except OSError:
        return False


async def soak_run(soak: Soak) -> None:
    args = soak.args
    if args.flood:
        await flood(soak, args.flood)
    tables = []
    for i in range(args.tables):
        code, doc = soak.srv.post("/api/tables", {"rules": "yacht", "pace": 0, "seats": [
            {"kind": "person", "name": f"P{i}"}, {"kind": "cpu", "cpu": args.cpu}]})
        if code != 200:
            raise RuntimeError(doc)
        tables.append((doc["id"], doc["tokens"]["0"]))
    people = asyncio.ensure_future(asyncio.gather(*(person(soak, t, tok, random.Random(args.seed * 7919 + i))
                                                    for i, (t, tok) in enumerate(tables))))
    noise = [asyncio.ensure_future(c) for c in (
        hold_sockets(soak, args.idle, b""), hold_sockets(soak, args.half_open, b"GET /api/menu HTTP/1.1\r\nHost: x"),
        slow_readers(soak, args.slow, tables), cross_site(soak), bad_frames(soak, tables), memory(soak))]
    kills = asyncio.ensure_future(killer(soak))
    await people
    await kills
    soak.stop.set()
    await asyncio.gather(*noise, return_exceptions=True)


def run(args) -> int:
    from yacht_arena.web.child import Served, one_address_config
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data"
        soak = Soak(args, data)
        soak.config = one_address_config(tmp)

        async def main():
            soak.srv = await asyncio.to_thread(Served, data, soak.config, None, args.files)
            try:
                await soak_run(soak)
            finally:
                soak.srv.stop()
        t = time.perf_counter()
        asyncio.run(main())
        wall = time.perf_counter() - t
        records = stored(data)
        doubled = sorted(f for f, n in records.items() if n != 1)
        lost = sorted(soak.finished - set(records))
        extra = sorted(set(records) - soak.finished)
        out = soak.srv.output() if soak.srv else ""
        if doubled:
            soak.problems.append(f"{len(doubled)} store folders hold other than one record: {doubled[:3]}")
        if lost:
            soak.problems.append(f"{len(lost)} finished games are not in the store: {lost[:3]}")
        if "Traceback" in out:
            soak.problems.append("the server's output holds a traceback")
        print(f"soak: {args.tables} tables (one person thinking {args.think:g} s, one {args.cpu} CPU, {args.games} "
              f"games each), {args.idle} "
              f"idle sockets, {args.slow} slow readers, {args.half_open} half-open requests, cross-site requests "
              f"({soak.cross_site} sent), a bad-frame flood; {soak.kills} kill -9 and restarts; {wall:.1f} s")
        print(f"games finished: {len(soak.finished)} (store: {len(records)} folders, {sum(records.values())} "
              f"records; lost {len(lost)}, doubled {len(doubled)}, finished after the last look {len(extra)})")
        print(f"people's move round trip: p50 {percentile(soak.rtts, 0.5) * 1000:.1f} ms, p99 "
              f"{percentile(soak.rtts, 0.99) * 1000:.1f} ms, max {max(soak.rtts, default=0) * 1000:.1f} ms "
              f"over {len(soak.rtts)} moves (goal: p99 <= 50 ms)")
        print(f"server peak resident memory: {soak.peak:.0f} MB; cores: {os.cpu_count()} shared with the clients")
        for p in soak.problems:
            print(f"PROBLEM: {p}")
        print("soak: ok" if not soak.problems else f"soak: {len(soak.problems)} problems")
        return 1 if soak.problems else 0
