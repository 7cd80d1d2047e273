"""The ASGI app of `yacht serve`: the lobby, live tables over WebSockets, the analysis board, watched tournaments.

A thin shell (see ARCHITECTURE.md): it holds `Table`s, hands every message to its table, asks agents for
the CPU seats' moves (in a worker thread, at the pace the table set), and stores finished games. The
browser only draws what the server says. Everything a client sends is checked and bounded: frame size
(`MAX_FRAME`), message rate (`RATE` per second per connection), tables (`Limits.tables`), connections
(`Limits.connections`, and `PER_TABLE` per table); a bad message gets `{"type": "error"}` back and
changes nothing. CPU agents come only from the server's menu (`Menu`): the levels, the strength dial,
and what the operator's config lists; a client names a menu entry, never a spec to run.
"""
import asyncio
import contextlib
import json
import re
import sys
import time
from dataclasses import dataclass, field
from importlib.resources import files
from pathlib import Path

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from agents.base import View
from agents.registry import AgentSpecError, make_agent
from yacht_env.config import ConfigError, flag, mapping, read_yaml, text, whole
from yacht_env.rules import presets

from .daily import ranking, today
from .tables import (
    MAX_SEATS,
    REACTIONS,
    Seat,
    Table,
    TableError,
    check_name,
    parse_knobs,
    store_game,
)

STATIC = files("yacht_arena.web") / "static"
MAX_FRAME = 4096                 # bytes of one client message
MAX_BODY = 8192                  # bytes of a request body (opening a table)
RATE = 20.0                      # messages per second per connection, with bursts of BURST
BURST = 40.0
PER_TABLE = 32                   # connections to one table
OPEN_LISTED = 50                 # public tables with a free seat the lobby lists
DAY = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
IDLE = 3600.0                    # seconds without a message after which a table nobody watches may be closed
LEVELS = (("easy", "Easy", "easy"), ("normal", "Normal", "normal"), ("strong", "Strong", "strong"),
          ("strong-win", "Strong, playing to win", "strong?goal=win"))


@dataclass
class Limits:
    tables: int = 1000
    connections: int = 4000


@dataclass
class Menu:
    """The CPU players a table may seat: id -> (label, spec). `dial` adds strong?strength=S."""
    entries: dict = field(default_factory=dict)

    @classmethod
    def of(cls, extra: dict | None = None, allow_external: bool = False) -> "Menu":
        """The levels the agent registry accepts (so `strong?goal=win` appears once it exists), then the
        operator's entries (learned models; external bots only with `allow_external`)."""
        entries = {}
        for key, label, spec in LEVELS:
            if accepted(spec):
                entries[key] = (label, spec)
        for label, spec in (extra or {}).items():
            if spec.split("?")[0].split(":")[0] == "external" and not allow_external:
                raise ConfigError("serve config", f"cpus.{label}", "an external bot needs allow_external: true")
            if spec.split("?")[0].split(":")[0] == "human":
                raise ConfigError("serve config", f"cpus.{label}", "people sit down themselves; list CPU specs")
            try:
                make_agent(spec).close()
            except AgentSpecError as e:
                raise ConfigError("serve config", f"cpus.{label}", str(e)) from None
            entries[f"op-{len(entries)}"] = (label, spec)
        return cls(entries)

    def spec(self, choice) -> tuple[str, str]:
        """(spec, label) of a client's CPU choice: a menu id, or {"dial": S} with S in [0, 1]."""
        if isinstance(choice, str) and choice in self.entries:
            label, spec = self.entries[choice]
            return spec, label
        if isinstance(choice, dict) and set(choice) == {"dial"}:
            s = choice["dial"]
            if isinstance(s, bool) or not isinstance(s, (int, float)) or not 0 <= s <= 1:
                raise TableError("the strength dial takes a number from 0 to 1")
            s = round(float(s), 2)
            return (f"strong?strength={s:g}", f"Dial {s:g}") if s < 1 else ("strong", "Strong")
        raise TableError(f"unknown CPU {str(choice)[:40]!r}; choose one of {', '.join(self.entries)} or the dial")

    def to_json(self) -> list:
        return [{"id": k, "label": label} for k, (label, _) in self.entries.items()]


def accepted(spec: str) -> bool:
    """Whether the agent registry builds `spec` (without playing it)."""
    try:
        make_agent(spec).close()
    except (AgentSpecError, ValueError):
        return False
    return True


@dataclass
class ServeConfig:
    """`yacht serve --config FILE`: cpus (label -> spec), allow_external, tournaments (folders to show),
    max_tables, max_connections."""
    cpus: dict = field(default_factory=dict)
    allow_external: bool = False
    tournaments: list = field(default_factory=list)
    limits: Limits = field(default_factory=Limits)

    @classmethod
    def read(cls, path) -> "ServeConfig":
        src = str(path)
        doc = mapping(src, "top level", read_yaml(path, "serve config") or {},
                      ("cpus", "allow_external", "tournaments", "max_tables", "max_connections"))
        cpus = {text(src, f"cpus.{k}", k, 40): text(src, f"cpus.{k}", v, 1000)
                for k, v in mapping(src, "cpus", doc.get("cpus") or {}).items()}
        folders = doc.get("tournaments") or []
        if not isinstance(folders, list):
            raise ConfigError(src, "tournaments", "must be a list of tournament folders")
        base = Path(path).parent
        return cls(cpus, flag(src, "allow_external", doc.get("allow_external", False)),
                   [base / text(src, "tournaments", f, 1000) for f in folders],
                   Limits(whole(src, "max_tables", doc.get("max_tables", 1000), 1, 100_000),
                          whole(src, "max_connections", doc.get("max_connections", 4000), 1, 100_000)))


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
        text = doc if isinstance(doc, str) else json.dumps(doc, separators=(",", ":"))
        with contextlib.suppress(Exception):       # a client gone mid-send is dropped by its own loop
            await self.ws.send_text(text)


class Server:
    """The tables, their connections and CPU drivers, and the data folder they live in."""

    def __init__(self, data: Path, config: ServeConfig | None = None):
        self.config = config or ServeConfig()
        self.data = Path(data)
        self.table_dir, self.games = self.data / "tables", self.data / "games"
        self.table_dir.mkdir(parents=True, exist_ok=True)
        self.games.mkdir(parents=True, exist_ok=True)
        self.menu = Menu.of(self.config.cpus, self.config.allow_external)
        self.tables: dict[str, Table] = {}
        self.conns: dict[str, set[Conn]] = {}
        self.agents: dict[tuple, object] = {}
        self.drivers: dict[str, asyncio.Task] = {}
        self.waits: dict[tuple, asyncio.Task] = {}
        self.connections = 0
        self.touched: dict[str, float] = {}       # table id -> when a message last came (monotonic)
        self.warm: set[int] = set()               # ids of the agents that have made their first move
        self._load()

    # ---- disk ------------------------------------------------------------------------------------
    def _load(self) -> None:
        """Every table of the data folder, each game replayed to where it was; a finished game the kill
        caught before its table file said it was stored is stored now."""
        for path in sorted(self.table_dir.glob("*.json")):
            try:
                table = Table.load(path)
            except Exception as e:  # noqa: BLE001 - one damaged table file must not keep the others down
                print(f"yacht serve: warning: {path}: not loaded ({' '.join(str(e).split())[:200]})", file=sys.stderr)
                continue
            self.tables[table.id] = table
            self.touched[table.id] = time.monotonic()
            if table.game.is_over and table.game_folder not in table.stored:
                self._store(table)

    def _store(self, table: Table) -> None:
        table.stored.append(store_game(table, self.games))
        table.changed(full=True)
        table.flush(self.table_dir)
        if table.solo:
            self._offer_best(table)

    def _offer_best(self, table: Table) -> None:
        from yacht_arena.cli.play import BestScores
        offer = table.best_offer                  # None when a CPU played any of the person's moves
        if offer is not None:
            key, score, name = offer
            BestScores(self.data).offer(key, score, table.rules.name, name)

    def best(self, rules_hash: str, name: str) -> dict | None:
        from yacht_arena.cli.play import BestScores
        return BestScores(self.data).get(f"{rules_hash}:{name}")

    # ---- opening tables --------------------------------------------------------------------------
    def open_table(self, doc) -> dict:
        """Open a table from the lobby's form; {id, invite, tokens: seat -> token of the creator's seats}."""
        if len(self.tables) >= self.config.limits.tables:
            self.close_idle()
        if len(self.tables) >= self.config.limits.tables:
            raise TableError("the server holds as many tables as it may; try again later")
        if not isinstance(doc, dict):
            raise TableError("expected a JSON object")
        unknown = set(doc) - {"rules", "set", "seats", "pace", "replace_after", "replace_cpu", "undo_wait", "public",
                              "daily"}
        if unknown:
            raise TableError(f"unknown field {min(unknown)[:30]!r}")
        for flag_name in ("public", "daily"):
            if not isinstance(doc.get(flag_name, False), bool):
                raise TableError(f"{flag_name} must be true or false")
        if doc.get("daily") and doc.get("set"):
            raise TableError("The daily deal is played under a preset's own rules: no rule knobs.")
        seats_in = doc.get("seats")
        if not isinstance(seats_in, list) or not 1 <= len(seats_in) <= MAX_SEATS:
            raise TableError(f"seats must be a list of 1 to {MAX_SEATS} seats")
        seats = []
        for i, s in enumerate(seats_in):
            if not isinstance(s, dict) or s.get("kind") not in ("person", "cpu"):
                raise TableError(f"seat {i + 1}: expected {{kind: person|cpu, ...}}")
            if s["kind"] == "person":
                name = s.get("name") or ""
                seats.append(Seat(check_name(name) if name else ""))
            else:
                spec, label = self.menu.spec(s.get("cpu"))
                seats.append(Seat("", spec, label=label))
        for i, s in enumerate(seats):
            if s.cpu:
                same = sum(1 for o in seats if o.label == s.label)
                s.name = s.label if same == 1 else f"{s.label} {i + 1}"
        replace_spec, _ = self.menu.spec(doc.get("replace_cpu", "normal" if "normal" in self.menu.entries
                                                  else next(iter(self.menu.entries))))
        table = Table.create(doc.get("rules", "yacht"), parse_knobs(doc.get("set", [])), seats,
                             doc.get("pace", 0.6), doc.get("replace_after"), replace_spec, doc.get("undo_wait", 3.0),
                             daily=today() if doc.get("daily") else "")
        table.public = doc.get("public", False)
        self.tables[table.id] = table
        self.touched[table.id] = time.monotonic()
        table.flush(self.table_dir)
        return {"id": table.id, "invite": table.invite,
                "tokens": {i: s.token for i, s in enumerate(table.seats) if not s.cpu and s.name}}

    def close_idle(self) -> None:
        """Make room: close the tables nobody is connected to whose game is over and stored, then those idle
        for `IDLE` seconds, oldest first (their files go; their stored games stay)."""
        now = time.monotonic()
        quiet = [t for t in self.tables.values() if not self.conns.get(t.id) and t.id not in self.drivers_busy()]
        done = [t for t in quiet if t.game.is_over and t.game_folder in t.stored]
        idle = sorted((t for t in quiet if now - self.touched.get(t.id, now) > IDLE and t not in done),
                      key=lambda t: self.touched.get(t.id, now))
        for t in done + idle:
            if len(self.tables) < self.config.limits.tables:
                break
            del self.tables[t.id]
            self.conns.pop(t.id, None)
            self.touched.pop(t.id, None)
            for key in [k for k in self.agents if k[0] == t.id]:
                agent = self.agents.pop(key)
                self.warm.discard(id(agent))
                agent.close()
            for suffix in (".json", ".log"):
                (self.table_dir / f"{t.id}{suffix}").unlink(missing_ok=True)

    def drivers_busy(self) -> set[str]:
        return {k for k, task in self.drivers.items() if not task.done()}

    # ---- live play -------------------------------------------------------------------------------
    def connected(self, table_id: str) -> dict[int, int]:
        out: dict[int, int] = {}
        for c in self.conns.get(table_id, ()):
            for s in c.held:
                out[s] = out.get(s, 0) + 1
        return out

    async def broadcast(self, table: Table) -> None:
        """The table's state to every connection: each seat holder its own, the spectators one shared text."""
        online = self.connected(table.id)
        watching = None
        for c in list(self.conns.get(table.id, ())):
            if c.held:
                await c.send(table.state(c.held, online))
                continue
            if watching is None:
                watching = json.dumps(table.state(set(), online), separators=(",", ":"))
            await c.send(watching)

    async def message(self, table: Table, conn: Conn, raw: str) -> None:
        """One client message: a change broadcast to the table, or an error back to the sender."""
        reply_id = None
        self.touched[table.id] = time.monotonic()
        try:
            if len(raw) > MAX_FRAME:
                raise TableError(f"a message may be at most {MAX_FRAME} bytes")
            try:
                msg = json.loads(raw)
            except (ValueError, RecursionError):
                raise TableError("not valid JSON") from None
            if not isinstance(msg, dict):
                raise TableError("a message is a JSON object with a type")
            reply_id = msg.get("id") if isinstance(msg.get("id"), int) else None
            kind = msg.get("type")
            if kind == "hello":
                tokens = msg.get("tokens", [])
                if not isinstance(tokens, list) or len(tokens) > MAX_SEATS or \
                        not all(isinstance(t, str) and len(t) <= 64 for t in tokens):
                    raise TableError(f"tokens must be a list of at most {MAX_SEATS} seat tokens")
                before = conn.held
                conn.held = table.seats_of(tokens)
                self._returned(table, conn.held - before)
                await self.broadcast(table)
                return
            if kind == "fill":                    # the host starts now: free seats to a CPU of the menu
                spec, label = self.menu.spec(msg.get("cpu"))
                table.fill(conn.held, spec, label)
                table.flush(self.table_dir)
            elif kind == "sit":
                seat = table.sit(msg.get("invite"), msg.get("name"))
                conn.held = conn.held | {seat}
                table.flush(self.table_dir)
                await conn.send({"type": "seated", "seat": seat, "token": table.seats[seat].token, "id": reply_id})
            else:
                table.handle(conn.held, msg, here=set(self.connected(table.id)))
                table.flush(self.table_dir)
                if kind == "rematch":             # seats a CPU took over are people's again: wait for the absent
                    self.left(table, None)
            await self.changed(table)
        except TableError as e:
            await conn.send({"type": "error", "message": str(e), "id": reply_id})

    async def changed(self, table: Table) -> None:
        """After a change: store a finished game, tell everyone, let the CPU seats move."""
        if table.game.is_over and table.game_folder not in table.stored:
            await asyncio.to_thread(self._store, table)
        await self.broadcast(table)
        self.drive(table)

    def drive(self, table: Table) -> None:
        task = self.drivers.get(table.id)
        if task is None or task.done():
            self.drivers[table.id] = asyncio.create_task(self._drive(table))

    async def _agent(self, table: Table, seat: int):
        key = (table.id, table.number, seat, table.seats[seat].spec)
        agent = self.agents.get(key)
        if agent is None:
            game = table.game

            def build():
                a = make_agent(table.seats[seat].spec)
                a.reset(game.rules, seat, game.num_players, seed=(game.seed * 8 + seat) & 0xFFFFFFFF)
                return a
            table.preparing = seat                # the table says so while the agent loads or solves the rules
            await self.broadcast(table)
            for old in [k for k in self.agents if k[0] == table.id and k[1] != table.number]:
                gone = self.agents.pop(old)
                self.warm.discard(id(gone))
                gone.close()
            try:
                agent = self.agents[key] = await asyncio.to_thread(build)
            finally:
                table.preparing = None
        return agent

    async def _drive(self, table: Table) -> None:
        """Play the CPU seats whose turn it is, one move per `pace` seconds."""
        while True:
            game = table.game
            if game.is_over or table.free_seat() is not None or not table.seats[game.current_seat].cpu:
                return
            if table.pace:
                await asyncio.sleep(table.pace)
            game, version = table.game, table.seen
            if game.is_over or not table.seats[game.current_seat].cpu:
                continue
            hold = table.cpu_hold(time.monotonic())     # a person who just scored may still undo
            if hold > 0:
                await asyncio.sleep(min(hold, 0.1))
                continue
            seat = game.current_seat
            agent = await self._agent(table, seat)
            if table.seen != version or table.game is not game:
                continue
            if game.phase == "roll":
                table.cpu_move(None)
            else:
                view = View.of(game)
                # the built-in agents answer in bounded time (a fraction of a millisecond once their tables are
                # loaded and their kernels compiled, which their first move may do: that one goes to a worker
                # thread): asked inline; any other agent (a learned model, an external bot) in a worker thread
                if getattr(agent, "trusted", False) and id(agent) in self.warm:
                    action = agent.act(view)
                else:
                    action = await asyncio.to_thread(agent.act, view)
                    self.warm.add(id(agent))
                if table.seen != version or table.game is not game:
                    continue
                table.cpu_move(action)
            table.flush(self.table_dir)
            if game.is_over:
                await asyncio.to_thread(self._store, table)
            await self.broadcast(table)

    def _returned(self, table: Table, seats: set[int]) -> None:
        for s in seats:
            task = self.waits.pop((table.id, s), None)
            if task is not None:
                task.cancel()

    def left(self, table: Table, conn: Conn | None) -> None:
        """A connection closed (None: a new game began): a person seat nobody holds now waits `replace_after`
        for its person."""
        if table.replace_after is None:
            return
        online = self.connected(table.id)
        for s in (conn.held if conn is not None else range(len(table.seats))):
            if online.get(s, 0) == 0 and not table.seats[s].cpu and table.seats[s].name \
                    and (table.id, s) not in self.waits:
                self.waits[(table.id, s)] = asyncio.create_task(self._replace_later(table, s))

    async def _replace_later(self, table: Table, seat: int) -> None:
        await asyncio.sleep(table.replace_after)
        self.waits.pop((table.id, seat), None)
        if self.connected(table.id).get(seat, 0) or table.seats[seat].cpu or table.game.is_over:
            return
        table.replace(seat, table.replace_spec, "CPU")
        table.flush(self.table_dir)
        await self.changed(table)

    async def close(self) -> None:
        for task in [*self.drivers.values(), *self.waits.values()]:
            task.cancel()
        for agent in self.agents.values():
            agent.close()
        self.agents.clear()


# ---- HTTP and WebSocket endpoints --------------------------------------------------------------------

def create_app(data, config: ServeConfig | None = None) -> Starlette:
    """The app serving tables kept in the folder `data`."""
    server = Server(Path(data), config)

    async def page(request: Request) -> Response:
        return FileResponse(str(STATIC / "index.html"), headers=SECURITY)

    async def menu(request: Request) -> Response:
        return JSONResponse({"rules": presets(), "cpus": server.menu.to_json(), "max_seats": MAX_SEATS,
                             "reactions": list(REACTIONS),
                             "tournaments": [str(p.name) for p in server.config.tournaments]})

    async def open_table(request: Request) -> Response:
        body = await request.body()
        if len(body) > MAX_BODY:
            return JSONResponse({"error": f"at most {MAX_BODY} bytes"}, 413)
        try:
            doc = json.loads(body)
            return JSONResponse(server.open_table(doc))
        except (ValueError, RecursionError) as e:
            msg = str(e) if isinstance(e, TableError) else "not valid JSON"
            return JSONResponse({"error": msg}, 400)

    async def open_tables(request: Request) -> Response:
        listed = [x for x in (t.listing() for t in list(server.tables.values())) if x is not None]
        return JSONResponse({"tables": listed[:OPEN_LISTED]})

    async def daily(request: Request) -> Response:
        rules = request.query_params.get("rules", "yacht")
        day = request.query_params.get("day", today())
        if rules not in presets() or not DAY.fullmatch(day):
            return JSONResponse({"error": "no such deal: rules must be a preset and day YYYY-MM-DD"}, 404)
        async with analysing:
            return JSONResponse(await asyncio.to_thread(ranking, server.games, day, rules))

    async def best(request: Request) -> Response:
        got = server.best(request.query_params.get("rules", "")[:64], request.query_params.get("name", "")[:64])
        return JSONResponse({"best": got})

    analysing = asyncio.Semaphore(1)            # one analysis at a time: a flood of requests queues, not piles up

    async def analysis(request: Request) -> Response:
        from .board import game_analysis
        folder = request.path_params["folder"]
        try:
            async with analysing:
                return JSONResponse(await asyncio.to_thread(game_analysis, server.games, folder))
        except LookupError as e:
            return JSONResponse({"error": str(e)}, 404)

    async def dice(request: Request) -> Response:
        from .board import game_dice
        try:
            async with analysing:
                return JSONResponse(await asyncio.to_thread(game_dice, server.games, request.path_params["folder"]))
        except LookupError as e:
            return JSONResponse({"error": str(e)}, 404)

    async def watched_game(request: Request) -> Response:
        from .board import tournament_game
        try:
            folder = server.config.tournaments[int(request.path_params["index"])]
            async with analysing:
                return JSONResponse(await asyncio.to_thread(tournament_game, folder, request.path_params["key"]))
        except (ValueError, IndexError, LookupError) as e:
            return JSONResponse({"error": str(e)[:200] if isinstance(e, LookupError) else "no such tournament"}, 404)
        except (ConfigError, OSError) as e:
            return JSONResponse({"error": str(e)[:300]}, 404)

    async def watch(request: Request) -> Response:
        from .board import tournament_view
        try:
            i = int(request.path_params["index"])
            folder = server.config.tournaments[i]
        except (ValueError, IndexError):
            return JSONResponse({"error": "no such tournament"}, 404)
        page = request.query_params.get("page", "0")
        page = int(page) if page.isdigit() and len(page) < 9 else 0
        try:
            return JSONResponse(await asyncio.to_thread(tournament_view, folder, page))
        except (ConfigError, OSError) as e:
            return JSONResponse({"error": str(e)[:300]}, 404)

    async def socket(ws: WebSocket) -> None:
        table = server.tables.get(ws.path_params["table"])
        await ws.accept()
        if table is None or server.connections >= server.config.limits.connections \
                or len(server.conns.get(table.id, ())) >= PER_TABLE:
            why = "no such table" if table is None else "the server is full; try again later"
            await ws.send_text(json.dumps({"type": "error", "message": why, "fatal": True}))
            await ws.close(code=4404 if table is None else 1013)
            return
        conn = Conn(ws)
        server.connections += 1
        server.conns.setdefault(table.id, set()).add(conn)
        try:
            await conn.send(table.state(set(), server.connected(table.id)))
            while True:
                msg = await ws.receive()
                if msg["type"] == "websocket.disconnect":
                    break
                if not conn.allow():
                    await conn.send({"type": "error", "message": f"too many messages (at most {RATE:g} a second)"})
                    continue
                raw = msg.get("text")
                if raw is None:
                    await conn.send({"type": "error", "message": "send JSON text frames"})
                    continue
                await server.message(table, conn, raw)
        except WebSocketDisconnect:
            pass
        finally:
            server.connections -= 1
            server.conns[table.id].discard(conn)
            server.left(table, conn)
            await server.broadcast(table)

    @contextlib.asynccontextmanager
    async def lifespan(app):
        for table in server.tables.values():
            server.drive(table)
        yield
        await server.close()

    routes = [Route("/", page), Route("/t/{table}", page), Route("/game/{folder}", page),
              Route("/watch/{index}", page), Route("/watch/{index}/{key}", page),
              Route("/api/menu", menu), Route("/api/tables", open_table, methods=["POST"]),
              Route("/api/best", best),
              Route("/api/open", open_tables), Route("/api/daily", daily), Route("/daily", page),
              Route("/api/games/{folder}/dice", dice),
              Route("/api/games/{folder}", analysis), Route("/api/watch/{index}", watch),
              Route("/api/watch/{index}/{key}", watched_game),
              WebSocketRoute("/ws/{table}", socket),
              Mount("/static", StaticFiles(directory=str(STATIC)), name="static")]
    app = Starlette(routes=routes, lifespan=lifespan,
                    middleware=[Middleware(GZipMiddleware, minimum_size=1000)])   # JSON and static files compressed
    app.state.server = server
    return app


SECURITY = {"Content-Security-Policy": "default-src 'self'; connect-src 'self'; img-src 'self' data:; "
                                       "style-src 'self'; script-src 'self'; frame-ancestors 'none'",
            "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer"}
