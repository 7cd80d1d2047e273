"""`bench.py web`: the web tables under load, on loopback (`yacht serve` in a child process).

- **tables**: --tables tables at once (default 200), each one simulated person (a WebSocket client) against
  one `strong` CPU at the table's --pace (default 0.25 s a move, the lobby's "Fast"). The person thinks
  --think seconds on average before each move (uniform over 0.5x to 1.5x; 0 makes it a throughput test).
  Every person move (a roll, a score) is timed from its send to the state that shows it: the round
  trip's p50, p99 and max over every move of --games games per table, bounded by --seconds. The goals:
  p50 <= 5 ms, p99 <= 50 ms on 2 cores.
- **idle**: --idle WebSocket connections held open at once (default 1000; spectators of the tables above):
  the server's resident memory (VmRSS) with them; the goal is <= 300 MB.
- **page**: the whole front end's size (goal <= 200 KB) and, in headless Chromium when there is one,
  a table page's first contentful paint and the moment its first state is drawn (goal <= 300 ms).

The client and the server share the machine's cores: the figures are a ceiling on what the server costs.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import statistics
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from .loopback import percentile, person_move, rss_mb


# Every bench subcommand builds its own parser here, one option a line, as the CLI's commands do (the loopback
# benchmarks' options read alike, but each default and help text is that benchmark's own).
def add_parser(sub):
    p = sub.add_parser("web", help="web tables: move round trips, idle connections' memory, page size and paint",
                       description=__doc__)
    p.add_argument("--tables", type=int, default=200, help="tables at once, one person and one strong each (200)")
    p.add_argument("--games", type=int, default=1, help="games per table (default 1: 26 person moves each)")
    p.add_argument("--seconds", type=float, default=300.0, help="bound on the tables phase (default 300)")
    p.add_argument("--think", type=float, default=1.0, help="a person's mean seconds before a move (default 1)")
    p.add_argument("--pace", type=float, default=0.25, help="the CPU's seconds a move (default 0.25)")
    p.add_argument("--idle", type=int, default=1000, help="idle connections held (default 1000)")
    p.add_argument("--no-browser", action="store_true", help="skip the page paint measurement")
    return p



def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")



async def person(url: str, table: str, token: str, games: int, deadline: float, rtts: list, think: float,
                 rng: random.Random) -> int:
    """One simulated person: roll once, score the best-paying box, `games` games; every move's round trip."""
    from websockets.asyncio.client import connect
    async with connect(url.replace("http", "ws") + f"/ws/{table}", max_size=1 << 20) as ws:
        await ws.send(json.dumps({"type": "hello", "tokens": [token]}))
        played, pending = 0, None
        while time.monotonic() < deadline:
            if pending is None:
                msg = json.loads(await asyncio.wait_for(ws.recv(), 60))
                if msg["type"] == "error":
                    raise RuntimeError(msg["message"])
                if msg["type"] != "state" or not any(s["you"] for s in msg["seats"]):
                    continue
                pending = msg
            state, pending = pending, None
            if state.get("result"):
                played += 1
                if played >= games:
                    return played
                await ws.send(json.dumps({"type": "rematch"}))
                continue
            me = next(i for i, s in enumerate(state["seats"]) if s["you"])
            if state["turn"] != me:
                continue
            move = person_move(state, me)
            if think:
                await asyncio.sleep(think * rng.uniform(0.5, 1.5))
                while pending is None:                       # what arrived while thinking (spectators come and go)
                    try:
                        msg = json.loads(await asyncio.wait_for(ws.recv(), 0.001))
                    except TimeoutError:
                        break
                    if msg["type"] == "state" and msg["version"] > state["version"]:
                        state = msg
            sent = time.perf_counter()
            await ws.send(json.dumps(move))
            while pending is None:
                reply = json.loads(await asyncio.wait_for(ws.recv(), 60))
                if reply["type"] == "error":
                    raise RuntimeError(reply["message"])
                if reply["type"] == "state" and (reply["moves"] > state["moves"] or reply["game"] != state["game"]):
                    rtts.append(time.perf_counter() - sent)
                    pending = reply
        return played


async def tables_phase(srv, n: int, games: int, seconds: float, think: float = 0.0,
                       pace: float = 0.0) -> tuple[list, list, int]:
    made = []
    for i in range(n):
        # undo_wait 0: the CPU moves as soon as the person scored (the figures are the server's, not the undo window)
        code, doc = srv.post("/api/tables", {"rules": "yacht", "pace": pace, "undo_wait": 0, "seats": [
            {"kind": "person", "name": f"P{i}"}, {"kind": "cpu", "cpu": "strong"}]})
        if code != 200:
            raise RuntimeError(doc)
        made.append((doc["id"], doc["tokens"]["0"]))
    rtts: list = []
    deadline = time.monotonic() + seconds
    played = await asyncio.gather(*(person(srv.url, t, tok, games, deadline, rtts, think, random.Random(i))
                                    for i, (t, tok) in enumerate(made)))
    return made, rtts, sum(played)


async def idle_phase(srv, made, n: int) -> tuple[float, float]:
    from websockets.asyncio.client import connect
    before = rss_mb(srv.proc.pid)
    conns = []
    try:
        for i in range(n):
            table = made[i % len(made)][0]
            ws = await connect(srv.url.replace("http", "ws") + f"/ws/{table}", max_size=1 << 20)
            await ws.recv()
            conns.append(ws)
        await asyncio.sleep(2)
        return before, rss_mb(srv.proc.pid)
    finally:
        await asyncio.gather(*(c.close() for c in conns), return_exceptions=True)


def read_records(data: Path) -> list[dict]:
    return [json.loads(line) for f in (data / "games").glob("*/games.jsonl") for line in f.read_text().splitlines()]


def page_phase(srv, made, browser: bool) -> dict:
    from yacht_arena.web.app import STATIC
    sizes = {p.name: len(p.read_bytes()) for p in STATIC.iterdir() if p.is_file()}
    out = {"front end bytes": sum(sizes.values()), "files": sizes}
    t = time.perf_counter()
    with urllib.request.urlopen(srv.url + "/", timeout=30) as r:
        r.read()
    out["GET / ms"] = (time.perf_counter() - t) * 1000
    if not browser:
        return out
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests"))
    from browser import chrome
    with tempfile.TemporaryDirectory() as profile:
        driver = chrome(profile)
        if driver is None:
            out["browser"] = "no headless Chromium here"
            return out
        try:
            fcp, drawn = [], []
            for table, token in made[:5]:
                driver.get(f"{srv.url}/t/{table}#seat={token}")
                for _ in range(200):
                    got = driver.execute_script(
                        "const p = performance.getEntriesByName('first-contentful-paint')[0];"
                        "const d = performance.getEntriesByName('table-drawn')[0];"
                        "return p && d ? [p.startTime, d.startTime] : null")
                    if got:
                        break
                    time.sleep(0.05)
                fcp.append(got[0])
                drawn.append(got[1])
            out["first contentful paint ms (median of 5)"] = statistics.median(fcp)
            out["table drawn ms (median of 5)"] = statistics.median(drawn)
        finally:
            driver.quit()
    return out


def run(args):
    from yacht_arena.web.child import one_address_config, serving

    with tempfile.TemporaryDirectory() as tmp, serving(Path(tmp) / "data", one_address_config(tmp)) as srv:
        # warm-up: one table's strong CPU solves or loads the rules' tables once
        made, _, _ = asyncio.run(tables_phase(srv, 1, 1, 600))
        t, cpu = time.perf_counter(), cpu_seconds(srv.proc.pid)
        made, rtts, games = asyncio.run(tables_phase(srv, args.tables, args.games, args.seconds, args.think,
                                                     args.pace))
        wall, cpu = time.perf_counter() - t, cpu_seconds(srv.proc.pid) - cpu
        print(f"tables: {args.tables} at once, one person (WebSocket client, thinking {args.think:g} s on average) "
              f"and one strong (pace {args.pace:g} s) each, {games} games finished in {wall:.1f} s; "
              f"{len(rtts)} person moves timed")
        if rtts:
            ms = [x * 1000 for x in rtts]
            print("| person move round trip | ms |")
            print("|---|---:|")
            print(f"| p50 | {percentile(ms, 0.50):.2f} |")
            print(f"| p99 | {percentile(ms, 0.99):.2f} |")
            print(f"| max | {max(ms):.2f} |")
            moves = sum(len(r["log"]) for r in read_records(Path(tmp) / "data"))
            print(f"server CPU: {cpu:.1f} s for {moves} moves (people's and CPUs'): "
                  f"{cpu / max(moves, 1) * 1000:.3f} ms "
                  f"a move, {cpu / wall * 100:.0f}% of one core; load average now {os.getloadavg()[0]:.1f}")
        before, after = asyncio.run(idle_phase(srv, made, args.idle))
        print(f"idle: server VmRSS {before:.0f} MB before, {after:.0f} MB with {args.idle} idle connections open "
              f"({(after - before) * 1024 / max(args.idle, 1):.1f} KB each)")
        page = page_phase(srv, made, not args.no_browser)
        print("page: " + json.dumps(page, default=lambda x: round(x, 1)))
    return 0
