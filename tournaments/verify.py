"""Dice anyone can check: every roll of a stored game replayed from the game's seed.

The dice of every path (tournaments, `yacht play`, the web tables) are counter-based by (game seed, sheet,
turn, roll, die), so a record's `seed` and its log of holds say which dice each roll must show. `check_dice`
replays the log on a fresh `Game` and names the first roll that differs; the web tables publish a hash of
the seed before a game's first roll (`commitment`) and the seed when it ends, so a player can check that the
dice were fixed before anyone moved and that a CPU saw no other dice than they did.
"""
import hashlib

from yacht_env.core.game import Game, IllegalMove
from yacht_env.rules import RuleSet


def commitment(seed: int) -> str:
    """The published hash of a game's dice seed (SHA-256 of "yacht dice seed S", hexadecimal)."""
    return hashlib.sha256(f"yacht dice seed {int(seed)}".encode()).hexdigest()


def check_dice(record: dict, rules: RuleSet) -> str | None:
    """None when every roll of `record` shows the dice its seed gives; else a sentence naming the first that
    does not (or the move the replay could not play)."""
    log, n = record["log"], len(record["agents"])
    if not log:
        return None
    seed = int(record["seed"])
    game = Game(rules, n, seed=seed)
    if game.current_seat != log[0]["seat"]:            # a rematch: its first turn was passed on, not rolled off
        game = Game(rules, n, seed=seed, first_seat=log[0]["seat"])
    for i, entry in enumerate(log):
        who = record["agents"][entry["seat"]]
        try:
            if "dice" in entry:
                game.roll(entry["hold"])
                if list(game.dice) != list(entry["dice"]):
                    return (f"move {i + 1}: {who} rolled {' '.join(map(str, entry['dice']))}, but seed {seed} gives "
                            f"{' '.join(map(str, game.dice))}")
            else:
                game.score(entry["box"], entry["column"])
        except IllegalMove as e:
            return f"move {i + 1}: {who}'s move cannot be replayed ({e})"
    return None


__all__ = ["check_dice", "commitment"]
