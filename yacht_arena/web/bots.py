"""The arena of `yacht serve`: remote bots play people and each other over one WebSocket each (`/api/bot`),
in the spirit of the lichess bot API (docs/external_bots.md, "Remote bots").

- Tokens: the operator issues one per bot (`yacht serve --add-bot NAME` prints it once); the data folder
  keeps only its SHA-256 (`bots.json`), never the token, and `--revoke-bot NAME` ends it. A bot sends its
  token as `Authorization: Bearer TOKEN` on the WebSocket handshake.
- Seats: a bot sits at a table as a person seat named after it (label `BOT_LABEL`), held by a `Seated` that
  the server's connections treat as any other client of the table, so the bot hears what a seat holder
  hears and moves with the table protocol's own `roll` and `score` messages (each naming its `table`).
  Its games are stored with the seat's agent spec `remote:NAME` (`Seat.record_spec`), never "human". The
  seat is the bot's for the table's life: at a rematch the bot sits again (`Arena.rematched`). After a
  person scores, the bot moving next is asked only once they play on, undo or run out of the table's
  `undo_wait`, as a CPU waits (`Table.cpu_hold`); its own scores hold nobody (a bot cannot undo).
- Faults: a bot has `move_seconds` for each decision. A late move, or a move the table refuses while the
  bot was asked to move, is a fault: logged, kept in the table's notes, and the table's fallback player
  (`cpus.fallback`, as for a CPU that fails) takes the seat for the rest of the table (the games after a
  rematch too: the seat stays the bot's, `Seat.bot`, played by the CPU and stored as "NAME + CPU"). A bot that
  disconnects has `grace_seconds` to come back to its games; after that each is a forfeit, played on by
  the fallback the same way.
- Limits: a bot holds at most `games` unfinished games at once; its messages go through a budget of `rate`
  a second (people's, `connections.RATE`, unless the operator says otherwise), queued rather than refused
  (the clock of the move keeps running while a message waits).
- Pool (`bot_pool: true`): connected bots with room play each other continuously, each at most
  `pool_daily` pool games a UTC day.
"""
import asyncio
import contextlib
import datetime
import hashlib
import json
import random
import secrets
import time
from dataclasses import dataclass
from pathlib import Path

from starlette.responses import JSONResponse
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket

from yacht_env.config import ConfigError, flag, number, slug, whole
from yacht_env.safe_file import NoSuchFile, read_text, write_atomic

from .connections import RATE, Conn, read_message, receive
from .cpus import fallback
from .storage import log
from .tables import BOT_LABEL, Table, TableError, check_name

TOKENS = "bots.json"               # in the data folder: bot name -> SHA-256 of its token
MAX_TOKENS_BYTES = 1 << 20
PREFIX = "bot:"                    # a lobby menu id naming a connected bot
BOT_MESSAGES = ("roll", "score")
POOL_EVERY = 1.0                   # seconds between the pool's looks for idle bots
HOLD_LOOK = 0.1                    # seconds between a held bot's looks at a person's undo time (as a CPU's)


@dataclass
class ArenaConfig:
    """The arena's part of the serve config: bot_move_seconds, bot_grace_seconds, bot_games, bot_pool,
    bot_pool_daily, bot_rate (messages a second), ratings_every (seconds between refits of the rating list
    at most)."""
    move_seconds: float = 10.0
    grace_seconds: float = 60.0
    games: int = 4
    pool: bool = False
    pool_daily: int = 200
    ratings_every: float = 10.0
    rate: float = RATE

    KEYS = ("bot_move_seconds", "bot_grace_seconds", "bot_games", "bot_pool", "bot_pool_daily", "ratings_every",
            "bot_rate")

    @classmethod
    def read(cls, src: str, doc: dict) -> "ArenaConfig":
        d = cls()
        return cls(number(src, "bot_move_seconds", doc.get("bot_move_seconds", d.move_seconds), 0.05, 3600),
                   number(src, "bot_grace_seconds", doc.get("bot_grace_seconds", d.grace_seconds), 0, 86400),
                   whole(src, "bot_games", doc.get("bot_games", d.games), 1, 1000),
                   flag(src, "bot_pool", doc.get("bot_pool", d.pool)),
                   whole(src, "bot_pool_daily", doc.get("bot_pool_daily", d.pool_daily), 0, 1_000_000),
                   number(src, "ratings_every", doc.get("ratings_every", d.ratings_every), 0, 86400),
                   number(src, "bot_rate", doc.get("bot_rate", d.rate), 1, 100_000))


def today() -> str:
    return datetime.datetime.now(datetime.timezone.utc).date().isoformat()


# ---- tokens ----------------------------------------------------------------------------------------------

def digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()


class BotTokens:
    """The bots' tokens of a data folder, kept hashed in `bots.json` ({"bots": {name: {"sha256": hex}}}).
    The file is read again whenever it changed, so a token added or revoked while the server runs counts at
    the bot's next connection."""

    def __init__(self, data: Path):
        self.path = Path(data) / TOKENS
        self._stamp, self._by_hash = None, {}

    def _read(self) -> dict:
        try:
            doc = json.loads(read_text(self.path, MAX_TOKENS_BYTES, "bot tokens"))
        except NoSuchFile:
            return {}
        except (ValueError, RecursionError):
            raise ConfigError(str(self.path), "top level", "damaged JSON; remove it and add the bots again") from None
        bots = doc.get("bots") if isinstance(doc, dict) else None
        if not isinstance(bots, dict) or not all(isinstance(v, dict) and isinstance(v.get("sha256"), str)
                                                 for v in bots.values()):
            raise ConfigError(str(self.path), "bots", "expected {name: {sha256: hex}}")
        return bots

    def _write(self, bots: dict) -> None:
        write_atomic(self.path, json.dumps({"bots": bots}, indent=2, sort_keys=True) + "\n", "bot tokens")

    def add(self, name: str) -> str:
        """A new token for bot `name` (replacing its old one); only its hash is kept. TableError for a bad name.
        A token never starts with "-", so `--token TOKEN` is never read as an option by a bot's command line."""
        name = check_name(name)
        bots = self._read()
        token = "-"
        while token.startswith("-"):
            token = secrets.token_urlsafe(24)
        bots[name] = {"sha256": digest(token)}
        self._write(bots)
        return token

    def revoke(self, name: str) -> bool:
        """End bot `name`'s token; False when it has none."""
        bots = self._read()
        if bots.pop(name, None) is None:
            return False
        self._write(bots)
        return True

    def names(self) -> list[str]:
        """The bots that hold a token (none when the file is damaged: the server's log says why)."""
        self.check("-")
        return sorted(self._by_hash.values())

    def check(self, token: str) -> str | None:
        """The name of the bot whose token this is, or None."""
        try:
            stamp = self.path.stat().st_mtime_ns
        except OSError:
            stamp = None
        if stamp != self._stamp:
            try:
                bots = self._read() if stamp is not None else {}
            except ConfigError as e:
                log(f"bot tokens not read: {' '.join(str(e).split())[:300]}")
                bots = {}
            self._stamp, self._by_hash = stamp, {v["sha256"]: k for k, v in bots.items()}
        if not token or len(token) > 200:
            return None
        wanted = digest(token)
        for h, name in self._by_hash.items():
            if secrets.compare_digest(h, wanted):
                return name
        return None


# ---- bots at tables --------------------------------------------------------------------------------------

class Seated:
    """A bot's seat at one table, registered with the table's connections as a client holding that seat:
    what the table sends it becomes the bot's events."""

    def __init__(self, arena: "Arena", bot: str, table: Table, seat: int):
        self.arena, self.bot, self.table, self.seat = arena, bot, table, seat
        self.held = {seat}
        self.dropped = False
        self.asked: int | None = None         # the state version the bot was asked to move in
        self.timer: asyncio.TimerHandle | None = None
        self.hold: asyncio.TimerHandle | None = None     # looks again once a person before it may no longer undo
        self.grace: asyncio.Task | None = None
        self.started = False

    def send(self, doc) -> None:
        if isinstance(doc, str):
            doc = json.loads(doc)
        self.arena.event(self, doc)

    def drop(self) -> None:
        pass

    def close(self) -> None:
        self.dropped = True
        self.stop_clock()
        if self.hold is not None:
            self.hold.cancel()
        if self.grace is not None:
            self.grace.cancel()

    def look_again(self, seconds: float) -> None:
        """Hear the table's state again in `seconds` (once: a look already due stands)."""
        if self.hold is None:
            self.hold = asyncio.get_running_loop().call_later(seconds, self._look)

    def _look(self) -> None:
        self.hold = None
        if not self.dropped:
            self.send(self.table.state(self.held, self.arena.server.connections.connected(self.table.id)))

    def stop_clock(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None


class Arena:
    """The connected bots, their seats, the pool and the bots' faults."""

    def __init__(self, server, config: ArenaConfig | None = None):
        self.server, self.config = server, config or ArenaConfig()
        self.tokens = BotTokens(server.storage.data)
        self.links: dict[str, Conn] = {}               # bot name -> its WebSocket client
        self.seated: dict[tuple[str, int], Seated] = {}
        self.faults: dict[str, int] = {}
        self.pool_days: dict[tuple[str, str], int] = {}
        self.pool_task: asyncio.Task | None = None
        server.reserved = lambda: frozenset(slug(n) for n in self.tokens.names())   # people joining by invite
        server.seat_bots = self.rematched

    # ---- what the lobby sees ----
    def menu(self) -> list[dict]:
        """The connected bots with room for a game, as lobby CPU menu entries."""
        return [{"id": PREFIX + name, "label": f"{name} ({BOT_LABEL.lower()})"}
                for name in sorted(self.links) if self.playing(name) < self.config.games]

    def playing(self, name: str) -> int:
        return sum(1 for s in self.seated.values() if s.bot == name)

    def status(self) -> list[dict]:
        names = sorted(set(self.tokens.names()) | set(self.links) | set(self.faults)
                       | {s.bot for s in self.seated.values()})
        day = today()
        return [{"name": n, "online": n in self.links, "games": self.playing(n), "faults": self.faults.get(n, 0),
                 "pool_today": self.pool_days.get((n, day), 0)} for n in names]

    # ---- opening tables with bots ----
    def open_table(self, doc, address: str | None = None) -> dict:
        """The lobby's form with bots among its CPU choices (`bot:NAME`): the table opened with a person seat
        per bot, each taken by its bot (`address`: the client's, as `Server.open_table` counts it; None for
        the pool's). TableError when a bot is not connected or has no room, or a person seat takes a bot's
        name (the rating list rates by name)."""
        bots = {}
        if isinstance(doc, dict) and isinstance(doc.get("seats"), list):
            seats, taken = [], {slug(n) for n in self.tokens.names()}
            for i, s in enumerate(doc["seats"]):
                if isinstance(s, dict) and s.get("kind") == "person" and isinstance(s.get("name"), str) and \
                        slug(" ".join(s["name"].split())) in taken:
                    raise TableError(f"seat {i + 1}: {s['name'][:20]} is a remote bot's name; choose another")
                choice = s.get("cpu") if isinstance(s, dict) and s.get("kind") == "cpu" else None
                if isinstance(choice, str) and choice.startswith(PREFIX):
                    name = choice[len(PREFIX):]
                    if name not in self.links:
                        raise TableError(f"seat {i + 1}: the bot {name[:20]!r} is not connected")
                    if self.playing(name) + sum(1 for b in bots.values() if b == name) >= self.config.games:
                        raise TableError(f"seat {i + 1}: {name} is playing as many games as it may")
                    bots[i] = name
                    s = {"kind": "person", "name": name}
                seats.append(s)
            doc = {**doc, "seats": seats}
        made = self.server.open_table(doc, address)
        if bots:
            table = self.server.tables[made["id"]]
            for i in bots:
                table.seats[i].label, table.seats[i].bot = BOT_LABEL, True
            table.changed(full=True)
            self.server.storage.create(table)
            made["tokens"] = {k: v for k, v in made["tokens"].items() if k not in bots}
            for i, name in bots.items():
                self.sit(table, i, name)
            self.server.cpus.drive(table)
        return made

    def sit(self, table: Table, seat: int, name: str) -> Seated:
        s = Seated(self, name, table, seat)
        self.seated[(table.id, seat)] = s
        self.server.connections.add(table.id, s)
        s.send(table.state(s.held, self.server.connections.connected(table.id)))
        return s

    def rematched(self, table: Table) -> None:
        """A rematch began at `table`: each seat a remote bot holds is its bot's again and the bot hears of the
        new game as of any (`gameStart`, then `move`); a bot not connected now has `grace_seconds` to come, as
        after a disconnect. (A seat the fallback took after a fault stays the CPU's: it is not `remote`.)"""
        for i, s in enumerate(table.seats):
            if s.remote and (table.id, i) not in self.seated:
                seated = self.sit(table, i, s.name)
                if s.name not in self.links:
                    seated.grace = asyncio.create_task(self._forfeit_later(seated))

    def start(self) -> None:
        """Seats of bots at the tables the server loaded: each waits for its bot as after a disconnect."""
        for table in self.server.tables.values():
            if table.game.is_over:
                continue
            for i, s in enumerate(table.seats):
                if s.remote:
                    seated = Seated(self, s.name, table, i)
                    self.seated[(table.id, i)] = seated
                    self.server.connections.add(table.id, seated)
                    seated.grace = asyncio.create_task(self._forfeit_later(seated))
        if self.config.pool:
            self.pool_task = asyncio.create_task(self._pool())

    # ---- events from the table to the bot ----
    def event(self, seated: Seated, doc: dict) -> None:
        kind = doc.get("type")
        table, link = seated.table, self.links.get(seated.bot)
        if kind == "notice":
            if link is not None:
                link.send({"type": "notice", "table": table.id, "message": doc.get("message")})
            return
        if kind == "error":
            if link is not None:
                link.send({**doc, "table": table.id})
            if seated.timer is not None:     # refused while asked to move
                self.fault(seated, f"a move the table refused ({str(doc.get('message'))[:120]})")
            return
        if kind != "state":
            return
        if link is None:
            return
        if not seated.started:
            seated.started = True
            link.send({"type": "gameStart", "table": table.id, "seat": seated.seat, "game": doc["game"],
                       "move_seconds": self.config.move_seconds})
        if doc.get("result") is not None:
            link.send({"type": "gameFinish", "table": table.id, "seat": seated.seat, "game": doc["game"],
                       "result": doc["result"]})
            self.leave(seated)
            return
        if doc["turn"] == seated.seat and not doc["free"]:
            if seated.asked != doc["version"]:
                if table.cpu_hold(time.monotonic()) > 0:   # the person who just scored may still undo: the bot
                    seated.look_again(HOLD_LOOK)           # is asked once they play on, undo or run out of time
                    return
                seated.asked = doc["version"]
                seated.stop_clock()
                seated.timer = asyncio.get_running_loop().call_later(self.config.move_seconds, self._late, seated)
                link.send({"type": "move", "table": table.id, "seat": seated.seat, "state": doc})
        else:
            seated.stop_clock()

    def _late(self, seated: Seated) -> None:
        seated.timer = None
        if not seated.dropped:
            self.fault(seated, f"no move within {self.config.move_seconds:g} seconds")

    def fault(self, seated: Seated, why: str) -> None:
        """The bot failed at its seat: log it, note it at the table, and the fallback plays the seat on."""
        table, seat = seated.table, seated.seat
        self.faults[seated.bot] = self.faults.get(seated.bot, 0) + 1
        self.leave(seated)
        log(f"table {table.id}: seat {seat + 1} (bot {seated.bot}) failed: {why}")
        link = self.links.get(seated.bot)
        if link is not None:
            link.send({"type": "fault", "table": table.id, "seat": seat, "message": why})
        if table.game.is_over or table.seats[seat].cpu:
            return
        spec = fallback(table, "")
        snap = table.snapshot()
        if spec is None:
            table.note(f"{seated.bot} (bot) could not play on ({why}), and no CPU can play these rules")
        else:
            table.replace(seat, spec, spec.split("?")[0].capitalize())
            table.note(f"{seated.bot} (bot) could not play on ({why}); {table.seats[seat].label} plays this seat now")
        try:
            self.server.storage.save(table, snap)
        except TableError:
            return
        self.server.connections.notice(table, table.notes[-1])
        asyncio.get_running_loop().create_task(self.server.changed(table))

    def leave(self, seated: Seated) -> None:
        key = (seated.table.id, seated.seat)
        if self.seated.get(key) is seated:
            del self.seated[key]
            self.server.connections.remove(seated.table.id, seated)

    # ---- the bot's socket ----
    def connected(self, name: str, link: Conn) -> None:
        old = self.links.get(name)
        if old is not None:
            old.send({"type": "error", "message": "the same bot connected again; this connection ends",
                      "fatal": True})
            old.drop()
        self.links[name] = link
        link.send({"type": "welcome", "bot": name, "move_seconds": self.config.move_seconds,
                   "games": self.config.games, "grace_seconds": self.config.grace_seconds})
        for s in list(self.seated.values()):
            if s.bot == name:
                if s.grace is not None:
                    s.grace.cancel()
                    s.grace = None
                s.asked, s.started = None, False
                s.send(s.table.state(s.held, self.server.connections.connected(s.table.id)))

    def disconnected(self, name: str, link: Conn) -> None:
        if self.links.get(name) is not link:
            return
        del self.links[name]
        for s in list(self.seated.values()):
            if s.bot == name:
                s.stop_clock()
                s.asked = None
                s.grace = asyncio.create_task(self._forfeit_later(s))

    async def _forfeit_later(self, seated: Seated) -> None:
        await asyncio.sleep(self.config.grace_seconds)
        seated.grace = None
        if seated.bot not in self.links and not seated.dropped:
            self.fault(seated, f"disconnected for more than {self.config.grace_seconds:g} seconds: a forfeit")

    async def from_bot(self, name: str, link: Conn, raw: str) -> None:
        """One message from a bot: a table protocol move for a table where it sits."""
        try:
            msg = read_message(raw)
            if msg.get("type") not in BOT_MESSAGES:
                raise TableError("a bot sends {\"type\": \"roll\" or \"score\", \"table\": ID, \"seat\": S, ...}")
            table_id, seat = msg.get("table"), msg.get("seat")
            seated = self.seated.get((table_id, seat)) if isinstance(table_id, str) and \
                isinstance(seat, int) and not isinstance(seat, bool) else None
            if seated is None or seated.bot != name:
                raise TableError("you hold no such seat (a finished game, or a seat the fallback took over)")
            if seated.table.cpu_hold(time.monotonic()) > 0:
                raise TableError("wait for your move event: the person before you may still undo their score")
        except TableError as e:
            link.send({"type": "error", "message": str(e)})
            return
        await self.server.message(seated.table, seated, raw)

    async def socket(self, ws: WebSocket) -> None:
        """`/api/bot`: one bot's connection (see the module's text)."""
        auth = ws.headers.get("authorization", "")
        scheme, _, token = auth.partition(" ")
        name = self.tokens.check(token.strip()) if scheme.lower() == "bearer" else None
        await ws.accept()
        limits = self.server.config.limits
        if name is None:
            with contextlib.suppress(Exception):
                async with asyncio.timeout(limits.send_timeout):
                    await ws.send_text(json.dumps({"type": "error", "fatal": True,
                                                   "message": "send a bot token as Authorization: Bearer TOKEN "
                                                              "(the operator issues one with yacht serve --add-bot)"}))
                    await ws.close(code=4401)
            return
        if not self.server.connections.room(""):
            with contextlib.suppress(Exception):
                async with asyncio.timeout(limits.send_timeout):
                    await ws.close(code=1013)
            return
        link = Conn(ws, limits.queue, limits.send_timeout)
        self.connected(name, link)
        rate = self.config.rate
        budget, stamp = 2 * rate, time.monotonic()           # a burst of two seconds' messages

        async def pace() -> bool:
            nonlocal budget, stamp
            now = time.monotonic()
            budget, stamp = min(2 * rate, budget + (now - stamp) * rate), now
            if budget < 1:                       # over the budget: the bot waits, its clock runs
                await asyncio.sleep((1 - budget) / rate)
                budget, stamp = 1.0, time.monotonic()
            budget -= 1
            return True

        try:
            await receive(ws, link, pace, lambda raw: self.from_bot(name, link, raw))
        finally:
            link.close()
            self.disconnected(name, link)

    # ---- the pool ----
    async def _pool(self) -> None:
        rng = random.Random()
        while True:
            await asyncio.sleep(POOL_EVERY)
            day = today()
            free = [n for n in sorted(self.links) if self.playing(n) < self.config.games
                    and self.pool_days.get((n, day), 0) < self.config.pool_daily]
            rng.shuffle(free)
            for a, b in zip(free[::2], free[1::2]):
                try:
                    self.open_table({"rules": "yacht", "pace": 0, "seats": [{"kind": "cpu", "cpu": PREFIX + a},
                                                                            {"kind": "cpu", "cpu": PREFIX + b}]})
                except TableError as e:
                    log(f"bot pool: {a} v {b} not opened ({e})")
                    continue
                except Exception as e:  # noqa: BLE001 - the pool outlives any one table: logged, tried again
                    log(f"bot pool: {a} v {b} failed to open ({type(e).__name__}: {str(e)[:200]})")
                    continue
                for n in (a, b):
                    self.pool_days[(n, day)] = self.pool_days.get((n, day), 0) + 1
            for key in [k for k in self.pool_days if k[1] != day]:
                del self.pool_days[key]

    async def close(self) -> None:
        if self.pool_task is not None:
            self.pool_task.cancel()
        for s in list(self.seated.values()):
            s.close()

    def routes(self) -> list:
        async def bots(request):
            return JSONResponse({"bots": self.status()})
        return [WebSocketRoute("/api/bot", self.socket), Route("/api/bots", bots)]
