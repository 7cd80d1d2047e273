"""The ASGI app of `yacht serve`: the lobby, live tables over WebSockets, the analysis board, watched tournaments.

A thin shell (see docs/ARCHITECTURE.md): the endpoints hand every request and message to the `Server`
(`server.py`), which holds the tables; the browser only draws what the server says.
"""
import asyncio
import contextlib
import json
import re
from importlib.resources import files
from pathlib import Path

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket

from yacht_env.config import ConfigError
from yacht_env.rules import presets

from .board import game_analysis, game_dice, tournament_game, tournament_view
from .bots import Arena
from .connections import RATE, Conn, receive
from .cpus import Unplayable
from .daily import ranking, today
from .guard import SiteGuard
from .listener import quiet_accept_errors
from .ratings_page import Ratings
from .server import Server
from .settings import ServeConfig
from .tables import MAX_SEATS, REACTIONS, TableError

STATIC = files("yacht_arena.web") / "static"
MAX_BODY = 8192                  # bytes of a request body (opening a table)
OPEN_LISTED = 50                 # public tables with a free seat the lobby lists
DAY = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


# ---- HTTP and WebSocket endpoints --------------------------------------------------------------------

class BodyRefused(Exception):
    """A request body too large or too slow: (status, message)."""


async def read_body(request: Request, limit: int, timeout: float) -> bytes:
    """The request's body, refused (BodyRefused) as soon as it passes `limit` bytes or takes `timeout` seconds
    (a declared Content-Length over the limit is refused before any of the body is read)."""
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > limit):
        raise BodyRefused(413, f"at most {limit} bytes")
    body = bytearray()

    async def read() -> None:
        async for chunk in request.stream():
            body.extend(chunk)
            if len(body) > limit:
                raise BodyRefused(413, f"at most {limit} bytes")
    try:
        await asyncio.wait_for(read(), timeout)
    except asyncio.TimeoutError:
        raise BodyRefused(408, f"the request took more than {timeout:g} seconds") from None
    return bytes(body)


def create_app(data, config: ServeConfig | None = None, loopback: bool = False) -> Starlette:
    """The app serving tables kept in the folder `data`; `loopback`: the server listens on a loopback address
    only (requests naming another host are refused, see `guard`)."""
    server = Server(Path(data), config)
    limits = server.config.limits
    arena = Arena(server, server.config.arena)              # remote bots (bots.py)
    ratings = Ratings(server.storage.games, server.config.arena.ratings_every)

    async def page(request: Request) -> Response:
        return FileResponse(str(STATIC / "index.html"), headers=SECURITY)

    unplayable = Unplayable(server.menu.entries)    # preset -> {menu id: why its CPU cannot play it}, as solved now
    finding = asyncio.Lock()

    async def menu(request: Request) -> Response:
        async with finding:
            unable = await asyncio.to_thread(unplayable, presets())
        return JSONResponse({"rules": presets(), "cpus": server.menu.to_json() + arena.menu(), "unable": unable,
                             "max_seats": MAX_SEATS, "reactions": list(REACTIONS),
                             "tournaments": [str(p.name) for p in server.config.tournaments]})

    async def open_table(request: Request) -> Response:
        try:
            body = await read_body(request, MAX_BODY, limits.request_timeout)
        except BodyRefused as e:
            status, why = e.args
            return JSONResponse({"error": why}, status, headers={"Connection": "close"})
        try:
            doc = json.loads(body)
            return JSONResponse(arena.open_table(doc, request.client.host if request.client else ""))
        except (ValueError, RecursionError) as e:
            msg = str(e) if isinstance(e, TableError) else "not valid JSON"
            return JSONResponse({"error": msg}, 400)

    async def open_tables(request: Request) -> Response:
        listed = [x for x in (t.listing() for t in server.registry.all()) if x is not None]
        return JSONResponse({"tables": listed[:OPEN_LISTED]})

    async def daily(request: Request) -> Response:
        rules = request.query_params.get("rules", "yacht")
        day = request.query_params.get("day", today())
        if rules not in presets() or not DAY.fullmatch(day):
            return JSONResponse({"error": "no such deal: rules must be a preset and day YYYY-MM-DD"}, 404)
        async with analysing:
            return JSONResponse(await asyncio.to_thread(ranking, server.storage.games, day, rules))

    async def best(request: Request) -> Response:
        got = server.best(request.query_params.get("rules", "")[:64], request.query_params.get("name", "")[:64])
        return JSONResponse({"best": got})

    analysing = asyncio.Semaphore(1)            # one analysis at a time: a flood of requests queues, not piles up

    async def analysis(request: Request) -> Response:
        folder = request.path_params["folder"]
        try:
            async with analysing:
                return JSONResponse(await asyncio.to_thread(game_analysis, server.storage.games, folder))
        except LookupError as e:
            return JSONResponse({"error": str(e)}, 404)

    async def dice(request: Request) -> Response:
        try:
            async with analysing:
                return JSONResponse(await asyncio.to_thread(game_dice, server.storage.games,
                                                            request.path_params["folder"]))
        except LookupError as e:
            return JSONResponse({"error": str(e)}, 404)

    async def watched_game(request: Request) -> Response:
        try:
            folder = server.config.tournaments[int(request.path_params["index"])]
            async with analysing:
                return JSONResponse(await asyncio.to_thread(tournament_game, folder, request.path_params["key"]))
        except (ValueError, IndexError, LookupError) as e:
            return JSONResponse({"error": str(e)[:200] if isinstance(e, LookupError) else "no such tournament"}, 404)
        except (ConfigError, OSError) as e:
            return JSONResponse({"error": str(e)[:300]}, 404)

    async def watch(request: Request) -> Response:
        try:
            i = int(request.path_params["index"])
            folder = server.config.tournaments[i]
        except (ValueError, IndexError):
            return JSONResponse({"error": "no such tournament"}, 404)
        page, places = (request.query_params.get(k, "0") for k in ("page", "standings"))
        page, places = (int(p) if p.isdigit() and len(p) < 9 else 0 for p in (page, places))
        try:
            return JSONResponse(await asyncio.to_thread(tournament_view, folder, page, places))
        except (ConfigError, OSError) as e:
            return JSONResponse({"error": str(e)[:300]}, 404)

    async def socket(ws: WebSocket) -> None:
        table = server.registry.get(ws.path_params["table"])
        await ws.accept()
        if table is None or not server.connections.room(table.id):
            why = "no such table" if table is None else "the server is full; try again later"
            async def refuse() -> None:
                await ws.send_text(json.dumps({"type": "error", "message": why, "fatal": True}))
                await ws.close(code=4404 if table is None else 1013)
            with contextlib.suppress(Exception):    # a client that does not read is not waited on
                await asyncio.wait_for(refuse(), limits.send_timeout)
            return
        conn = Conn(ws, limits.queue, limits.send_timeout)
        server.connections.add(table.id, conn)

        async def pace() -> bool:
            if conn.allow():
                return True
            conn.send({"type": "error", "message": f"too many messages (at most {RATE:g} a second)"})
            return False

        try:
            conn.send(table.state(set(), server.connections.connected(table.id)))
            await receive(ws, conn, pace, lambda raw: server.message(table, conn, raw))
        finally:
            server.connections.remove(table.id, conn)
            server.left(table, conn)
            server.connections.broadcast(table)

    @contextlib.asynccontextmanager
    async def lifespan(app):
        quiet_accept_errors(asyncio.get_running_loop())
        server.start()
        arena.start()
        yield
        await arena.close()
        await server.close()

    routes = [Route("/", page), Route("/t/{table}", page), Route("/game/{folder}", page),
              Route("/watch/{index}", page), Route("/watch/{index}/{key}", page),
              Route("/api/menu", menu), Route("/api/tables", open_table, methods=["POST"]),
              Route("/api/best", best),
              Route("/api/open", open_tables), Route("/api/daily", daily), Route("/daily", page),
              Route("/api/games/{folder}/dice", dice),
              Route("/api/games/{folder}", analysis), Route("/api/watch/{index}", watch),
              Route("/api/watch/{index}/{key}", watched_game),
              WebSocketRoute("/ws/{table}", socket), *arena.routes(), *ratings.routes(SECURITY),
              Mount("/static", StaticFiles(directory=str(STATIC)), name="static")]
    app = Starlette(routes=routes, lifespan=lifespan,
                    middleware=[Middleware(SiteGuard, origins=server.config.origins, loopback=loopback),
                                Middleware(GZipMiddleware, minimum_size=1000)])   # JSON and static files compressed
    app.state.server = server
    app.state.arena = arena
    return app


SECURITY = {"Content-Security-Policy": "default-src 'self'; connect-src 'self'; img-src 'self' data:; "
                                       "style-src 'self'; script-src 'self'; frame-ancestors 'none'",
            "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer"}
