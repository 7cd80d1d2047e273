"""A small remote bot for `yacht serve`'s arena (docs/external_bots.md, "Remote bots"): the standard library
plus `websockets`.

    yacht serve --add-bot "Dice Bot"           # the operator: prints the bot's token once
    python scripts/remote_bot.py --url http://127.0.0.1:8000 --token TOKEN
    python scripts/remote_bot.py --url ... --token ... --play 10 --against strong   # open 10 games, then stop

It connects to `/api/bot` with its token, waits for games (people choose it in the lobby; the bot pool pairs
it with other bots), and answers every `move` event with a table protocol move: the first roll of a turn,
then the box scoring most, re-rolling (holding its most common face) while no box scores `GOOD` points.
`--play N` also opens N games against a CPU of the lobby's menu one after another, and exits when they are
done: 0 when no message of the bot was refused and it had no fault, else 1; a summary line in JSON on stdout.
`--garbage`, `--stall` and `--quit-after K` make it misbehave on purpose (to try the server's faults).
"""
import argparse
import asyncio
import json
import os
import sys
import urllib.error
import urllib.request
from collections import Counter

import websockets

try:                                             # websockets 13+
    from websockets.asyncio.client import connect

    def dial(url, token):
        return connect(url, additional_headers={"Authorization": f"Bearer {token}"}, max_size=1 << 20)
except ImportError:                              # websockets 12
    from websockets import connect

    def dial(url, token):
        return connect(url, extra_headers={"Authorization": f"Bearer {token}"}, max_size=1 << 20)

GOOD = 20


def choose(state: dict) -> dict:
    """The move for a `move` event's table state: {"type": "roll", "hold": [...]} or {"type": "score", ...}."""
    if state["phase"] == "roll":
        return {"type": "roll", "hold": []}
    preview = state["preview"]                   # "box@column" -> points, for every box open to this seat
    key = max(preview, key=lambda k: (preview[k], k))
    if preview[key] < GOOD and state["rolls_left"] > 0:
        dice = state["dice"]
        face = Counter(dice).most_common(1)[0][0]
        hold = [i for i, d in enumerate(dice) if d == face]
        if len(hold) < len(dice):
            return {"type": "roll", "hold": hold}
    box, _, column = key.partition("@")
    return {"type": "score", "box": box, "column": int(column)}


def open_table(url: str, doc: dict) -> dict:
    req = urllib.request.Request(url + "/api/tables", data=json.dumps(doc).encode(), method="POST",
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return json.loads(r.read())
    except urllib.error.HTTPError as e:
        raise SystemExit(f"remote_bot: the server refused the table: {e.read()[:300].decode(errors='replace')}") \
            from None


async def play(args) -> dict:
    ws_url = args.url.replace("http", "ws", 1).rstrip("/") + "/api/bot"
    tally = {"games": 0, "moves": 0, "errors": 0, "faults": 0, "messages": []}
    async with dial(ws_url, args.token) as ws:
        welcome = json.loads(await ws.recv())
        if welcome.get("type") != "welcome":
            raise SystemExit(f"remote_bot: {welcome.get('message', welcome)}")
        name = welcome["bot"]
        todo = args.play

        async def next_game():
            nonlocal todo
            if todo > 0:
                todo -= 1
                seats = [{"kind": "cpu", "cpu": f"bot:{name}"}, {"kind": "cpu", "cpu": args.against}]
                await asyncio.to_thread(open_table, args.url, {"rules": args.rules, "pace": 0, "seats": seats})
        await next_game()
        async for raw in ws:
            event = json.loads(raw)
            kind = event.get("type")
            if kind == "move":
                tally["moves"] += 1
                if args.quit_after and tally["moves"] >= args.quit_after:
                    break
                if args.stall:
                    continue
                if args.garbage:
                    await ws.send("{not json")
                    await ws.send(json.dumps({"type": "score", "table": event["table"], "seat": event["seat"],
                                              "box": "no such box"}))
                    continue
                move = choose(event["state"])
                await ws.send(json.dumps({**move, "table": event["table"], "seat": event["seat"]}))
            elif kind == "gameFinish":
                tally["games"] += 1
                if args.play and tally["games"] >= args.play:
                    break
                await next_game()
            elif kind in ("error", "fault"):
                tally["errors" if kind == "error" else "faults"] += 1
                tally["messages"].append(str(event.get("message"))[:200])
                if event.get("fatal"):
                    break
                if kind == "fault" and args.play:
                    tally["games"] += 1
                    if tally["games"] >= args.play:
                        break
                    await next_game()
    tally["messages"] = tally["messages"][:5]
    return tally


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--url", default="http://127.0.0.1:8000", help="the server (default: http://127.0.0.1:8000)")
    p.add_argument("--token", default=os.environ.get("YACHT_BOT_TOKEN"),
                   help="the bot's token (default: $YACHT_BOT_TOKEN)")
    p.add_argument("--play", type=int, default=0, metavar="N", help="open N games against --against, then exit")
    p.add_argument("--against", default="strong", help="the lobby menu id of the CPU to play (default: strong)")
    p.add_argument("--rules", default="yacht")
    p.add_argument("--garbage", action="store_true", help="answer every move with garbage")
    p.add_argument("--stall", action="store_true", help="never answer")
    p.add_argument("--quit-after", type=int, default=0, metavar="K", help="disconnect when asked for move K")
    args = p.parse_args(argv)
    if not args.token:
        p.error("give --token or set YACHT_BOT_TOKEN (the operator prints one with yacht serve --add-bot NAME)")
    try:
        tally = asyncio.run(play(args))
    except (OSError, websockets.exceptions.WebSocketException) as e:
        raise SystemExit(f"remote_bot: {args.url}: {' '.join(str(e).split())[:300]}") from None
    print(json.dumps(tally), flush=True)
    return 0 if tally["errors"] == 0 and tally["faults"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
