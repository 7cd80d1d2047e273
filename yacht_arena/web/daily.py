"""The daily deal: one shared deal a day per rule set, played alone by anyone, ranked by skill, not luck.

Everyone who plays the deal of a day gets the same dice (the table's seed is `tables.daily_seed(day,
rules)`), and so do the CPU levels, played here on the same dice. The ranking orders the entries by the
points each lost against `strong`'s choices on those dice (the analysis board's figure), so a lucky deal
lifts everyone alike; the totals are shown beside it. Entries are the stored solo games whose folder says
which day's deal they played (`evaluate.json`'s `web.daily`); a game a CPU finished for its person is left out.
"""
import datetime
from functools import lru_cache
from pathlib import Path

from agents.analysis import analyze_game
from agents.registry import make_agent
from tournaments.gamelog import daily_folders, read_games, table_record
from yacht_env.core.dice_source import game_seeds
from yacht_env.core.game import Game
from yacht_env.core.view import View
from yacht_env.rules import load, rules_hash

from .tables import daily_seed

LEVELS = (("Easy", "easy"), ("Normal", "normal"), ("Strong", "strong"))
MAX_ENTRIES = 200               # people listed on a day's page


def today() -> str:
    """The day of the deal now (UTC)."""
    return datetime.datetime.now(datetime.timezone.utc).date().isoformat()


def deal_seed(day: str, rules_name: str) -> int:
    """The game seed of the day's deal (the seed the stored games carry)."""
    config = daily_seed(day, rules_hash(load(rules_name)))
    return int(game_seeds(config, 0, last=[0])[0])


def ranking(games: Path, day: str, rules_name: str) -> dict:
    """The day's deal under preset `rules_name`: the people who played it and the CPU levels on the same
    dice, best first by points lost against strong."""
    people = []
    for folder in daily_folders(games, day, rules_name):
        entry = _entry(folder)
        if entry is not None and not entry["name"].endswith("+ CPU"):
            people.append(entry)
    rows = [*people[:MAX_ENTRIES], *_levels(day, rules_name)]
    rows.sort(key=lambda r: (r["loss"], -r["total"], r["name"]))
    return {"day": day, "rules": rules_name, "entries": rows}


@lru_cache(maxsize=256)
def _entry(folder: Path) -> dict | None:
    """A stored daily game's line (a stored game never changes, so it is worked out once)."""
    stored = read_games(folder)
    if not stored.records:
        return None
    record = stored.records[0]
    seat = analyze_game(record, stored.rules)["seats"][0]
    return {"name": record["agents"][0], "cpu": False, "total": record["totals"][0], "loss": seat["loss"],
            "accuracy": seat["accuracy"], "game": folder.name}


@lru_cache(maxsize=16)
def _levels(day: str, rules_name: str) -> tuple:
    """The CPU levels played on the day's dice, analysed as the people's games are."""
    rules = load(rules_name)
    seed = deal_seed(day, rules_name)
    out = []
    for label, spec in LEVELS:
        game = Game(rules, 1, seed=seed)
        agent = make_agent(spec)
        try:
            agent.reset(rules, 0, 1, seed=seed & 0xFFFFFFFF)
            while not game.is_over:
                if game.phase == "roll":
                    game.roll()
                else:
                    game.apply(agent.act(View.of(game)))
        finally:
            agent.close()
        record = table_record(game, [label], seed)
        seat = analyze_game(record, rules)["seats"][0]
        out.append({"name": label, "cpu": True, "total": record["totals"][0], "loss": seat["loss"],
                    "accuracy": seat["accuracy"], "game": None})
    return tuple(out)


__all__ = ["deal_seed", "ranking", "today"]
