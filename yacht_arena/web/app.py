"""The ASGI app of `yacht serve`: the lobby, live tables over WebSockets, the analysis board, watched tournaments.

A thin shell (see docs/ARCHITECTURE.md): the endpoints hand every request and message to the `Server`
(`server.py`), which holds the tables; the browser only draws what the server says.
"""
import asyncio
import contextlib
import json
from importlib.resources import files
from pathlib import Path

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from yacht_env.config import ConfigError
from yacht_env.rules import presets

from .connections import RATE, Conn
from .server import Server
from .settings import ServeConfig
from .tables import MAX_SEATS, TableError

STATIC = files("yacht_arena.web") / "static"
MAX_BODY = 8192                  # bytes of a request body (opening a table)


# ---- HTTP and WebSocket endpoints --------------------------------------------------------------------

def create_app(data, config: ServeConfig | None = None) -> Starlette:
    """The app serving tables kept in the folder `data`."""
    server = Server(Path(data), config)

    async def page(request: Request) -> Response:
        return FileResponse(str(STATIC / "index.html"), headers=SECURITY)

    async def menu(request: Request) -> Response:
        return JSONResponse({"rules": presets(), "cpus": server.menu.to_json(), "max_seats": MAX_SEATS,
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

    async def best(request: Request) -> Response:
        got = server.best(request.query_params.get("rules", "")[:64], request.query_params.get("name", "")[:64])
        return JSONResponse({"best": got})

    analysing = asyncio.Semaphore(1)            # one analysis at a time: a flood of requests queues, not piles up

    async def analysis(request: Request) -> Response:
        from .board import game_analysis
        folder = request.path_params["folder"]
        try:
            async with analysing:
                return JSONResponse(await asyncio.to_thread(game_analysis, server.storage.games, folder))
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
        try:
            return JSONResponse(await asyncio.to_thread(tournament_view, folder))
        except (ConfigError, OSError) as e:
            return JSONResponse({"error": str(e)[:300]}, 404)

    async def socket(ws: WebSocket) -> None:
        table = server.registry.get(ws.path_params["table"])
        await ws.accept()
        if table is None or not server.connections.room(table.id):
            why = "no such table" if table is None else "the server is full; try again later"
            await ws.send_text(json.dumps({"type": "error", "message": why, "fatal": True}))
            await ws.close(code=4404 if table is None else 1013)
            return
        conn = Conn(ws)
        server.connections.add(table.id, conn)
        try:
            await conn.send(table.state(set(), server.connections.connected(table.id)))
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
            server.connections.remove(table.id, conn)
            server.left(table, conn)
            await server.connections.broadcast(table)

    @contextlib.asynccontextmanager
    async def lifespan(app):
        server.start()
        yield
        await server.close()

    routes = [Route("/", page), Route("/t/{table}", page), Route("/game/{folder}", page),
              Route("/watch/{index}", page), Route("/watch/{index}/{key}", page),
              Route("/api/menu", menu), Route("/api/tables", open_table, methods=["POST"]),
              Route("/api/best", best), Route("/api/games/{folder}", analysis), Route("/api/watch/{index}", watch),
              Route("/api/watch/{index}/{key}", watched_game),
              WebSocketRoute("/ws/{table}", socket),
              Mount("/static", StaticFiles(directory=str(STATIC)), name="static")]
    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.server = server
    return app


SECURITY = {"Content-Security-Policy": "default-src 'self'; connect-src 'self'; img-src 'self' data:; "
                                       "style-src 'self'; script-src 'self'; frame-ancestors 'none'",
            "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer"}
