"""`yacht verify DIR|FILE`: every roll of stored games replayed from each game's seed.

Reads what `yacht analyze` reads (a tournament folder, an `evaluate --out` folder, the web tables' games
under DATA/games/ID-N, or a games.jsonl with --rules/--set) and says for each game whether every roll shows
the dice its seed gives, with the seed's published hash (the web tables show it before the first roll).
Exit 0 when every roll of every game matches, 1 when one does not.
"""
from tournaments.verify import check_dice, commitment

from .analyze import add_games_source, games_from_args
from .options import CommandError, emit_json


def add_parser(sub):
    p = sub.add_parser("verify", help="check that every roll of stored games is the dice their seeds give",
                       description=__doc__.split("\n\n")[1].replace("\n", " "))
    add_games_source(p)
    p.add_argument("--game", default=None, metavar="KEY", help="only this game (a key such as t0-d0-r0)")
    p.add_argument("--json", action="store_true", help="print one JSON document on stdout (same exit status)")


def verdicts(records, rules) -> list[dict]:
    """Per record `{"game", "seed", "commitment", "matches", "problem"}`: `problem` is None when every roll
    shows the dice its seed gives, else the sentence naming the first that does not."""
    out = []
    for record in records:
        problem = check_dice(record, rules)
        out.append({"game": record.get("key", "game"), "seed": str(record["seed"]),
                    "commitment": commitment(record["seed"]), "matches": problem is None, "problem": problem})
    return out


def run(args) -> int:
    games = games_from_args(args)
    records = [r for r in games.records if args.game is None or r.get("key") == args.game]
    if not records:
        raise CommandError(f"no game {args.game!r} in {games.path}" if args.game else f"no games in {games.path}")
    found = verdicts(records, games.rules)
    good = sum(v["matches"] for v in found)
    if args.json:
        emit_json({"path": str(games.path), "rules": games.rules_block, "games": found,
                   "matching": good, "total": len(found), "all_match": good == len(found)})
    else:
        for v in found:
            if v["matches"]:
                print(f"{v['game']}: every roll matches seed {v['seed']} (hash {v['commitment']})")
            else:
                print(f"{v['game']}: MISMATCH: {v['problem']}")
        print(f"{good} of {len(found)} games: every roll matches its seed")
    return 0 if good == len(found) else 1
