"""`yacht serve`: the web tables (lobby, live tables with CPU seats, invite links, spectators, the analysis
board, watched tournaments) in one process, on http://127.0.0.1:8000/ by default. Needs the `[web]` extra.

Tables and finished games live in `--data` (default: `$YACHT_DATA_DIR/web`, as `yacht play` keeps its
files): `tables/ID.json` per table, `games/ID-N/` per finished game in the tournament store's format
(`yacht analyze`, `show` and `report` read them). `--config FILE` lists the CPU players the lobby
offers beyond the levels (learned models; external bots only with `allow_external: true`), tournament
folders to show, the server's limits and timeouts, and the origins of a proxy (docs/web.md).

Remote bots (docs/external_bots.md, "Remote bots"): `--add-bot NAME` prints a new token for a bot once
(the folder keeps its hash in `bots.json`) and exits; `--revoke-bot NAME` ends it.

One server per data folder: `DATA/serve.lock` names the one that holds it, and a second start on the same
folder is one line (exit 2); so is a `--data` that is a file, a dangling link, a device or a FIFO. The soft
open-file limit is raised to the hard one, and the sockets the server holds are derived from it.
"""
import os
import socket
import sys
from pathlib import Path

import uvicorn

from yacht_env.safe_file import FileRefused

from .options import CommandError
from .play import data_dir


def add_parser(sub):
    p = sub.add_parser("serve", help="web tables for people and CPU players (open the printed URL)",
                       description="Serve the web tables: open a table, add CPU players, send an invite link, "
                                   "watch, and look at every finished game on the analysis board.")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1, this machine "
                                                        "only; 0.0.0.0 lets other machines in)")
    p.add_argument("--port", type=int, default=8000, help="port (default: 8000)")
    p.add_argument("--data", default=None, metavar="DIR",
                   help="folder of tables and finished games (default: web/ in yacht play's data folder, "
                        "$YACHT_DATA_DIR or ~/.local/share/yacht-arena)")
    p.add_argument("--config", default=None, metavar="FILE", help="serve config (YAML): cpus, allow_external, "
                                                                   "tournaments, max_tables, max_connections, "
                                                                   "send_timeout, request_timeout, origins")
    bots = p.add_mutually_exclusive_group()
    bots.add_argument("--add-bot", default=None, metavar="NAME",
                      help="issue a token for the remote bot NAME (printed once; the data folder keeps only its "
                           "hash; a new one replaces the old) and exit")
    bots.add_argument("--revoke-bot", default=None, metavar="NAME", help="end the remote bot NAME's token and exit")


LOOPBACK = ("127.0.0.1", "localhost", "::1")


def run(args) -> int:
    # the web extra (starlette, uvicorn): loaded only to serve
    from yacht_arena.web.app import create_app
    from yacht_arena.web.listener import file_budget, uvicorn_settings
    from yacht_arena.web.settings import ServeConfig
    from yacht_arena.web.storage import check_data, hold_data
    data = Path(args.data) if args.data else data_dir() / "web"
    if args.add_bot is not None or args.revoke_bot is not None:
        return bot_tokens(data, args)
    if not 0 <= args.port <= 65535:
        raise CommandError(f"--port must be 0..65535, got {args.port}")
    try:                                     # a port in use is one line, not a server's error log
        family = socket.AF_INET6 if ":" in args.host else socket.AF_INET
        with socket.socket(family) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind((args.host, args.port))
    except OSError as e:
        raise CommandError(f"cannot listen on {args.host}:{args.port} ({e.strerror or e}); "
                           f"pick another --port or --host") from None
    config = ServeConfig.read(args.config) if args.config else ServeConfig()
    try:
        check_data(data)
        lock = hold_data(data)                   # held until the process ends
    except FileRefused as e:
        raise CommandError(f"--data: {' '.join(str(e).split())}") from None
    files, sockets = file_budget()
    limits = config.limits
    if limits.connections > sockets * 3 // 4:   # a quarter of the sockets stays for pages and requests
        limits.connections = max(1, sockets * 3 // 4)
        print(f"yacht serve: the open-file limit ({files}) allows {limits.connections} live connections; "
              f"raise it to hold more (docs/web.md, \"Limits\")", file=sys.stderr)
    app = create_app(data, config, loopback=args.host in LOOPBACK)
    if args.host not in LOOPBACK:
        print(f"yacht serve: listening on {args.host}: other machines can reach these tables", file=sys.stderr)
    host = f"[{args.host}]" if ":" in args.host else args.host
    print(f"yacht serve: open http://{host}:{args.port}/  (tables in {data}; Ctrl-C stops)", flush=True)
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning",
                **uvicorn_settings(files, sockets, limits.request_timeout))
    os.close(lock)
    return 0


def bot_tokens(data: Path, args) -> int:
    """`--add-bot NAME` / `--revoke-bot NAME`: the remote bots' tokens of the data folder (yacht_arena.web.bots)."""
    # the web extra: loaded only to serve or manage its data folder
    from yacht_arena.web.bots import BotTokens
    from yacht_arena.web.storage import check_data
    from yacht_arena.web.tables import TableError
    from yacht_env.config import ConfigError
    try:
        check_data(data)
        tokens = BotTokens(data)
        if args.revoke_bot is not None:
            if not tokens.revoke(args.revoke_bot):
                raise CommandError(f"--revoke-bot: no bot named {args.revoke_bot[:40]!r} in {data}")
            print(f"yacht serve: {args.revoke_bot}'s token is revoked (a bot connected with it stays until it "
                  f"disconnects or the server restarts)")
            return 0
        token = tokens.add(args.add_bot)
    except (FileRefused, ConfigError) as e:
        raise CommandError(" ".join(str(e).split())) from None
    except TableError as e:
        raise CommandError(f"--add-bot: {e}") from None
    print(f"yacht serve: the token of remote bot {' '.join(args.add_bot.split())} (shown once; keep it secret):",
          file=sys.stderr)
    print(token, flush=True)
    return 0
