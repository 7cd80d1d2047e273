"""Game records for the analysis tests, shaped as `tournaments.play.play_job` stores them, and a reference
legality check that replays a record through `yacht_env.Game` with scripted dice."""
import json
from collections import Counter

from agents.base import play_game
from agents.registry import make_agent
from yacht_env.core.dice_source import ScriptedDice, SeededDice, game_seed
from yacht_env.core.game import Game, IllegalMove


def record_of(game: Game, names, key: str) -> dict:
    """The store record of a finished game (the fields `play_job` writes)."""
    n = game.num_players
    return {"key": key, "table": 0, "deal": 0, "rotation": 0, "seed": game.seed, "agents": list(names),
            "sheet_of": [game.sheet_of(s) for s in range(n)], "totals": [int(t) for t in game.totals()],
            "places": [int(game.sheet_ranks()[game.sheet_of(s)]) for s in range(n)],
            "sheets": [game.sheets[game.sheet_of(s)].scores.tolist() for s in range(n)],
            "upper_bonus": [int(game.sheets[game.sheet_of(s)].upper_bonus.sum()) for s in range(n)],
            "extra_bonus": [int(game.sheets[game.sheet_of(s)].extra_bonus.sum()) for s in range(n)],
            "faults": [None] * n, "log": [dict(e) for e in game.log]}


def play_records(rules, specs, games: int, seed: int = 0) -> list[dict]:
    """`games` games of the agents `specs` (one seat each), as records keyed g0, g1, ..."""
    agents = [make_agent(s) for s in specs]
    out = []
    for i in range(games):
        g = play_game(Game(rules, num_players=len(specs), seed=game_seed(seed, i)), agents)
        out.append(record_of(g, specs, f"g{i}"))
    return out


class FirstRollThen(SeededDice):
    """Seeded dice, except that the first roll of the game shows `first`."""

    def __init__(self, seed: int, first):
        super().__init__(seed)
        self.first = list(first)

    def draw(self, sheet, turn, roll, n):
        if (sheet, turn, roll) == (0, 0, 0):
            return list(self.first)
        return super().draw(sheet, turn, roll, n)


def write_games(folder, records, meta: dict | None = None, meta_name: str = "evaluate.json"):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "games.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    if meta is not None:
        (folder / meta_name).write_text(json.dumps(meta))
    return folder


def legal_by_game(record: dict, rules) -> bool:
    """Whether `record` replays through `Game` move for move: the same dice, points, bonuses, totals."""
    log = record["log"]
    try:
        n = len(record["agents"])
        game = Game(rules, num_players=n, dice=ScriptedDice([]), first_seat=log[0]["seat"] if log else 0)
        for e in log:
            if game.is_over or e["seat"] != game.current_seat:
                return False
            if "dice" in e:
                held = Counter(game.dice[k] for k in range(5) if e["hold"] >> k & 1) if game.dice else Counter()
                drawn = Counter(e["dice"]) - held
                if sum(drawn.values()) != 5 - sum(held.values()) or not isinstance(e["hold"], int):
                    return False
                game.dice_source = ScriptedDice(list(drawn.elements()))
                game.roll(e["hold"])
                if list(game.dice) != e["dice"]:
                    return False
            else:
                gained = game.score(e["box"], e["column"])
                last = game.log[-1]
                if (last["points"], last["bonus"]) != (e["points"], e["bonus"]) or gained != e["points"] + e["bonus"]:
                    return False
        if not game.is_over:
            return False
        return record["totals"] == game.totals()
    except (IllegalMove, ValueError, TypeError, KeyError, IndexError):
        return False
