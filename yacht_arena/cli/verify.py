"""`yacht verify DIR|FILE`: every roll of stored games replayed from each game's seed.

Reads what `yacht analyze` reads (a tournament folder, an `evaluate --out` folder, the web tables' games
under DATA/games/ID-N, or a games.jsonl with --rules/--set) and says for each game whether every roll shows
the dice its seed gives, with the seed's published hash (the web tables show it before the first roll).
Exit 0 when every roll of every game matches, 1 when one does not.
"""
from tournaments.verify import check_dice, commitment

from .analyze import add_games_source, games_from_args
from .options import CommandError


def add_parser(sub):
    p = sub.add_parser("verify", help="check that every roll of stored games is the dice their seeds give",
                       description=__doc__.split("\n\n")[1].replace("\n", " "))
    add_games_source(p)
    p.add_argument("--game", default=None, metavar="KEY", help="only this game (a key such as t0-d0-r0)")


def run(args) -> int:
    games = games_from_args(args)
    records = [r for r in games.records if args.game is None or r.get("key") == args.game]
    if not records:
        raise CommandError(f"no game {args.game!r} in {games.path}" if args.game else f"no games in {games.path}")
    bad = 0
    for record in records:
        problem = check_dice(record, games.rules)
        name = record.get("key", "game")
        if problem is None:
            print(f"{name}: every roll matches seed {record['seed']} (hash {commitment(record['seed'])})")
        else:
            bad += 1
            print(f"{name}: MISMATCH: {problem}")
    print(f"{len(records) - bad} of {len(records)} games: every roll matches its seed")
    return 1 if bad else 0
