"""What the analysis board and the tournament view show: plain data read from the store.

`game_analysis` is `yacht analyze`'s and `yacht show`'s analysis of one stored web game (accuracy, points
lost, ?!/?/?? marks, the best move at every decision) with the record, so the page can replay it move by
move; every person's seat also has its `level`, the game placed on the strength dial
(`agents.placement.placement`: the strength, its 95% interval, and the named levels' strengths).
`tournament_view` is a tournament folder's standings (`tournaments.stats.standings`) and its games,
read afresh on every call, so a running tournament's standings follow its store.
"""
import copy
import re
from functools import lru_cache
from pathlib import Path

from agents.analysis import MARKS, analyze_game
from agents.placement import placement
from tournaments.gamelog import GAMES, read_games, table_specs
from tournaments.stats import standings
from tournaments.store import Store
from tournaments.verify import check_dice, commitment

from .cpus import long_solve

FOLDER = re.compile(r"[A-Za-z0-9_-]{1,40}-[0-9]{1,9}")
PER_PAGE = 50            # games a page of the tournament view lists
STANDINGS_PER_PAGE = 50  # standings rows (entrants) a page of the tournament view lists


def game_analysis(games: Path, folder: str) -> dict:
    """The stored web game in `games/folder` with its move analysis; LookupError when there is none."""
    if not isinstance(folder, str) or not FOLDER.fullmatch(folder) or not (games / folder / GAMES).is_file():
        raise LookupError(f"no stored game {str(folder)[:40]!r}")
    return copy.deepcopy(_analysis(games / folder, None))


def game_dice(games: Path, folder: str) -> dict:
    """Whether every roll of the stored web game in `games/folder` is the dice its seed gives:
    {"seed" (as text), "commitment", "problem": None or what differs}; LookupError when there is no such game."""
    if not isinstance(folder, str) or not FOLDER.fullmatch(folder) or not (games / folder / "games.jsonl").is_file():
        raise LookupError(f"no stored game {str(folder)[:40]!r}")
    stored = read_games(games / folder)
    record = stored.records[0]
    return {"seed": str(record["seed"]), "commitment": commitment(record["seed"]),
            "problem": check_dice(record, stored.rules)}


def tournament_game(folder: Path, key: str) -> dict:
    """Game `key` of a tournament folder with its move analysis; LookupError when there is none."""
    if not isinstance(key, str) or not KEY.fullmatch(key) or not (folder / GAMES).is_file():
        raise LookupError(f"no game {str(key)[:40]!r}")
    return copy.deepcopy(_analysis(folder, key))


CACHED = 64
KEY = re.compile(r"t[0-9]{1,9}-d[0-9]{1,9}-r[0-9]{1,9}")


@lru_cache(maxsize=CACHED)
def _analysis(folder: Path, key: str | None) -> dict:
    """A stored game never changes, so the last `CACHED` analyses are kept (a running tournament only adds
    games). key None: the folder's one game."""
    stored = read_games(folder)
    record = stored.records[0] if key is None else next((r for r in stored.records if r.get("key") == key), None)
    if record is None:
        raise LookupError(f"no game {key!r} in {folder.name}")
    why = long_solve(stored.rules)
    if why:
        raise LookupError(f"this game cannot be analysed here yet: {why}")
    result = analyze_game(record, stored.rules)
    for d in result["decisions"]:
        d["mark"] = MARKS[d["class"]]
    specs = table_specs(folder, record) if key is None else []
    for seat, spec in zip(result["seats"], specs):
        if spec == "human" and not seat["forfeit"] and seat["decisions"]:
            seat["level"] = placement(stored.rules, seat["loss"], seat["decisions"])
    return {"folder": folder.name, "record": record, **result,
            "layout": {"boxes": list(stored.rules.boxes), "columns": stored.rules.columns,
                       "dice": stored.rules.dice}}


def tournament_view(folder: Path, page: int = 0, standings_page: int = 0) -> dict:
    """A tournament folder (running or finished): page `standings_page` of its standings
    (`STANDINGS_PER_PAGE` rows a page, in rank order, with the agent spec of each entrant listed) and page
    `page` of its games (`PER_PAGE` a page, in schedule order; no move logs: a game's moves come with its
    analysis board). Pages past either end are the nearest page, so the answer is bounded for any size of
    tournament."""
    store = Store(folder)
    config = store.config()
    records = sorted(store.records().values(), key=lambda r: (r["table"], r["deal"], r["rotation"]))
    page = _page(page, len(records), PER_PAGE)
    ranked = standings(records, list(config.entrants))
    standings_page = _page(standings_page, len(ranked), STANDINGS_PER_PAGE)
    shown = ranked[standings_page * STANDINGS_PER_PAGE:(standings_page + 1) * STANDINGS_PER_PAGE]
    return {"name": config.name, "rules": config.rules_block,
            "entrants": {x["agent"]: config.entrants[x["agent"]] for x in shown},
            "games_played": len(records), "games_planned": config.total_games,
            "standings": shown, "standings_page": standings_page, "standings_per_page": STANDINGS_PER_PAGE,
            "standings_listed": len(ranked),
            "page": page, "per_page": PER_PAGE, "games_listed": len(records),
            "games": [{"key": r["key"], "agents": r["agents"], "totals": r["totals"], "places": r["places"]}
                      for r in records[page * PER_PAGE:(page + 1) * PER_PAGE]]}


def _page(page: int, items: int, per_page: int) -> int:
    """`page` moved into 0 .. the last page of `items` at `per_page` a page (one page when there are none)."""
    return min(max(0, page), max(1, -(-items // per_page)) - 1)
