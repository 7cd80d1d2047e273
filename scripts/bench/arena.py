"""`bench.py arena`: a remote bot (`/api/bot`, scripts/remote_bot.py's play) against `strong` through
`yacht serve` on loopback, the server in a child process.

--games games (default 100), --parallel at once (the bot's game cap), the tables at pace 0. Every roll of the
bot is timed from its send to the server's next `move` event for the same table (the bot is to decide again
at once after a roll, so nothing but the server and loopback sits in between): the server's added time per
bot move, p50 and p99 (goal: p50 <= 2 ms). Protocol errors and faults are counted (goal: 0). The bot's
message budget is raised (`bot_rate`) so the figure is the server's, not the people's rate limit.

The client and the server share the machine's cores: the figures are a ceiling on what the server costs.
"""

from __future__ import annotations

import asyncio
import json
import os
import tempfile
import time
from pathlib import Path

from .loopback import percentile


# Every bench subcommand builds its own parser here, one option a line, as the CLI's commands do (the loopback
# benchmarks' options read alike, but each default and help text is that benchmark's own).
def add_parser(sub):
    p = sub.add_parser("arena", help="a remote bot against strong through the server: added time per bot move",
                       description=__doc__)
    p.add_argument("--games", type=int, default=100, help="games to play (default 100)")
    p.add_argument("--parallel", type=int, default=4, help="games at once (default 4)")
    p.add_argument("--seconds", type=float, default=600.0, help="bound on the run (default 600)")
    return p



async def play(srv, token: str, games: int, parallel: int, seconds: float) -> dict:
    from remote_bot import choose, dial, open_table

    ws_url = srv.url.replace("http", "ws", 1) + "/api/bot"
    out = {"games": 0, "errors": 0, "faults": 0, "rolls": []}
    sent: dict[str, float] = {}                   # table -> when the bot sent a roll there
    async with dial(ws_url, token) as ws:
        welcome = json.loads(await ws.recv())
        name, opened = welcome["bot"], 0

        async def another():
            nonlocal opened
            opened += 1
            seats = [{"kind": "cpu", "cpu": f"bot:{name}"}, {"kind": "cpu", "cpu": "strong"}]
            await asyncio.to_thread(open_table, srv.url, {"rules": "yacht", "pace": 0, "seats": seats})
        for _ in range(min(parallel, games)):
            await another()
        deadline = time.monotonic() + seconds
        while out["games"] < games and time.monotonic() < deadline:
            event = json.loads(await asyncio.wait_for(ws.recv(), max(1.0, deadline - time.monotonic())))
            kind, table = event.get("type"), event.get("table")
            if kind == "move":
                at = sent.pop(table, None)
                if at is not None:
                    out["rolls"].append(time.perf_counter() - at)
                move = choose(event["state"])
                if move["type"] == "roll" and event["state"]["phase"] != "roll":
                    sent[table] = time.perf_counter()
                await ws.send(json.dumps({**move, "table": table, "seat": event["seat"]}))
            elif kind in ("gameFinish", "fault"):
                out["games"] += 1
                out["faults"] += kind == "fault"
                if opened < games:
                    await another()
            elif kind == "error":
                out["errors"] += 1
    return out


def run(args):
    from yacht_arena.web.bots import BotTokens
    from yacht_arena.web.child import serving

    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data"
        data.mkdir()
        token = BotTokens(data).add("Bench bot")
        config = Path(tmp) / "serve.yaml"
        config.write_text(f"bot_games: {args.parallel}\nbot_rate: 100000\nratings_every: 3600\n")
        with serving(data, config) as srv:
            asyncio.run(play(srv, token, 1, 1, 600))          # warm-up: strong loads its tables once
            t = time.perf_counter()
            got = asyncio.run(play(srv, token, args.games, args.parallel, args.seconds))
            wall = time.perf_counter() - t
    ms = [x * 1000 for x in got["rolls"]]
    print(f"arena: {got['games']} games of a remote bot against strong ({args.parallel} at once, pace 0) in "
          f"{wall:.1f} s; protocol errors {got['errors']}, faults {got['faults']}; {len(ms)} bot re-rolls timed; "
          f"load average now {os.getloadavg()[0]:.1f}")
    if ms:
        print("| server's added time per bot move | ms |")
        print("|---|---:|")
        print(f"| p50 | {percentile(ms, 0.50):.2f} |")
        print(f"| p99 | {percentile(ms, 0.99):.2f} |")
        print(f"| max | {max(ms):.2f} |")
    return 0 if got["errors"] == 0 and got["faults"] == 0 and got["games"] >= args.games else 1
