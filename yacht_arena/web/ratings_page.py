"""The rating list of `yacht serve` (`/ratings`, `/ratings.json`): every name that played a stored table game
of two seats or more -- people, remote bots, CPU seats -- rated by the Plackett-Luce fit the reports use
(`tournaments.ratings.plackett_luce`, Elo scale, 95% bootstrap intervals over games).

`fit_games(games)` is the whole fit of a `games/` folder, read afresh; `Ratings` keeps the records it read
(a stored game's folder never changes once written) and fits again at most every `every` seconds, in a
worker thread, when new games arrived, so the list follows the games without a fit per request. Both give
the same list for the same stored games.
"""
import asyncio
import html
import time
from pathlib import Path

from starlette.responses import HTMLResponse, JSONResponse
from starlette.routing import Route

from tournaments.gamelog import GAMES, read
from tournaments.ratings import plackett_luce

from yacht_env.config import ConfigError

from .board import FOLDER
from .storage import log

SEED = 0


class Damaged(Exception):
    """A stored game's log the list leaves out."""


def folder_records(folder: Path) -> list[dict]:
    """The seats' names and places of the records of one stored web game's folder (kept for every game, so
    only what the fit reads); none when its log is missing, damaged or not a file (the server's log says so)."""
    def bad(number, problem):
        raise Damaged(f"{folder / GAMES}: line {number}: {problem}")
    try:
        return [{"agents": rec["agents"], "places": rec["places"]}
                for _, _, rec in read(folder / GAMES, bad, missing_ok=True) if placed(rec)]
    except (Damaged, OSError, ConfigError) as e:
        log(f"ratings: {' '.join(str(e).split())[:300]}; that game is left out")
        return []


def placed(rec) -> bool:
    """Whether a record names its seats' agents and places (a hand-edited log may not)."""
    agents, places = (rec.get("agents"), rec.get("places")) if isinstance(rec, dict) else (None, None)
    return isinstance(agents, list) and isinstance(places, list) and len(agents) == len(places) and \
        all(isinstance(a, str) for a in agents) and all(isinstance(p, int) and not isinstance(p, bool)
                                                        for p in places)


def fit(records_by_folder: dict[str, list[dict]]) -> dict:
    """The rating list of the games of several seats in these folders: games numbered in folder-name order
    (each its own deal for the bootstrap), names ranked by rating."""
    records, played = [], {}
    for i, name in enumerate(sorted(records_by_folder)):
        for r in records_by_folder[name]:
            if len(r["agents"]) < 2:
                continue
            records.append({**r, "table": i, "deal": 0, "rotation": 0})
            for a in r["agents"]:
                played[a] = played.get(a, 0) + 1
    fitted = plackett_luce(records, sorted(played), seed=SEED) if records else None
    rows = [{"name": n, "rating": round(v["rating"], 1), "ci95": [round(x, 1) for x in v["ci95"]],
             "games": played[n]} for n, v in (fitted["ratings"].items() if fitted else ())]
    rows.sort(key=lambda r: (-r["rating"], r["name"]))
    return {"games": len(records), "ratings": rows}


def fit_games(games: Path) -> dict:
    """The rating list of every stored game under `games/`, read afresh (the offline fit)."""
    return fit({p.name: folder_records(p) for p in sorted(Path(games).iterdir())
                if p.is_dir() and FOLDER.fullmatch(p.name)})


class Ratings:
    """The live rating list: records cached per folder, refitted at most every `every` seconds."""

    def __init__(self, games: Path, every: float):
        self.games, self.every = Path(games), every
        self.records: dict[str, list[dict]] = {}
        self.result = {"games": 0, "ratings": []}
        self.fitted_at = None
        self.lock = asyncio.Lock()

    def _refresh(self) -> dict | None:
        new = False
        for p in sorted(self.games.iterdir()):
            if p.name not in self.records and p.is_dir() and FOLDER.fullmatch(p.name):
                recs = folder_records(p)
                if recs:                   # a folder still being written is read at the next refit
                    self.records[p.name] = recs
                    new = True
        return fit(self.records) if new or self.fitted_at is None else None

    async def current(self) -> dict:
        async with self.lock:
            now = time.monotonic()
            if self.fitted_at is None or now - self.fitted_at >= self.every:
                got = await asyncio.to_thread(self._refresh)
                self.fitted_at = time.monotonic()
                if got is not None:
                    self.result = got
        return self.result

    def routes(self, headers: dict) -> list:
        async def as_json(request):
            return JSONResponse(await self.current())

        async def page(request):
            return HTMLResponse(render(await self.current()), headers=headers)
        return [Route("/ratings.json", as_json), Route("/ratings", page)]


def render(result: dict) -> str:
    """The rating list as a page."""
    rows = "\n".join(
        f"<tr><td>{i}</td><th scope=\"row\">{html.escape(r['name'])}</th><td>{r['rating']:.0f}</td>"
        f"<td>{r['ci95'][0]:.0f} to {r['ci95'][1]:.0f}</td><td>{r['games']}</td></tr>"
        for i, r in enumerate(result["ratings"], 1))
    games = f"{result['games']} stored game" + ("" if result["games"] == 1 else "s")
    body = (f"<table><caption>Ratings from {games} of two or more seats</caption>"
            "<thead><tr><th scope=\"col\">Rank</th><th scope=\"col\">Name</th><th scope=\"col\">Rating</th>"
            "<th scope=\"col\">95% interval</th><th scope=\"col\">Games</th></tr></thead>"
            f"<tbody>{rows}</tbody></table>") if result["ratings"] else "<p>No games of two or more seats yet.</p>"
    return ("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            "<title>Ratings · Yacht</title><link rel=\"stylesheet\" href=\"/static/style.css\"></head>"
            "<body><main><h1>Ratings</h1>"
            "<p>People, remote bots and CPU players, rated by a Plackett–Luce fit of every stored game's places "
            "(Elo scale: 400 points are 10 to 1 odds; the average is 1500). <a href=\"/\">Back to the lobby</a></p>"
            f"{body}</main></body></html>")
