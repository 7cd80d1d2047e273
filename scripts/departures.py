"""Where a learned table model plays its teacher's move, split by whether the teacher departs there from a
contrast agent (for a clone of `strong?goal=win`: its play for first place, where it differs from `strong`).

    python scripts/departures.py models/bc-goalwin4-deep.pt                  # 1,000 fresh 4-seat games
    python scripts/departures.py models/bc-goalwin4.pt --games 2000 --seed 7 --json

The teacher plays game k (dice seed `game_seed(seed, k)`) at seat k % seats against `--opponents` at the
other seats, as `yacht train` records a table clone's games (`agents.training.imitate.record_teacher`); at
each of its decisions the model, the teacher and the contrast are asked for a move. Moves are compared by
what they do (the dice a hold keeps, the box a score fills), so two hold patterns keeping the same dice agree.
"""
import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agents.registry import make_agent
from agents.training.evaluate import play_table
from agents.training.imitate import keeps_of
from yacht_env.core.actions import num_holds
from yacht_env.core.dice_source import game_seeds
from yacht_env.rules import load


class Asker:
    """The teacher at its seat, asking the model and the contrast at each of its decisions."""

    def __init__(self, teacher, model, contrast):
        self.agents = (teacher, model, contrast)
        self.moves: list[tuple] = []

    def prepare(self, rules, num_players) -> None:
        for a in self.agents:
            if hasattr(a, "prepare"):
                a.prepare(rules, num_players)

    def start(self, state, rows) -> None:
        for a in self.agents:
            if hasattr(a, "start"):
                a.start(state, rows)

    def close(self) -> None:
        for a in self.agents:
            if hasattr(a, "close"):
                a.close()

    def act_batch(self, view) -> np.ndarray:
        taught, *others = (np.asarray(a.act_batch(view)) for a in self.agents)
        self.moves.append((*(keeps_of(view, m) for m in (taught, *others)), taught < num_holds(view.rules)))
        return taught


def count(model: str, teacher: str, contrast: str, opponents: str, seats: int, games: int, seed: int,
          rules: str = "yacht") -> dict:
    """The shares of the teacher's decisions (in `games` games) where the model plays the teacher's move:
    all, where the teacher departs from the contrast and where it does not, holds and boxes."""
    asker = Asker(*(make_agent(s) for s in (teacher, f"learned:{model}", contrast)))
    try:
        play_table(asker, load(rules), seats, [opponents], game_seeds(seed, last=np.arange(games)), "departures.py")
    finally:
        asker.close()
    t, m, c, hold = (np.concatenate(a) for a in zip(*asker.moves))
    departs, same = t != c, m == t

    def share(where) -> float | None:
        return float(same[where].mean()) if where.any() else None
    return {"model": model, "teacher": teacher, "contrast": contrast, "opponents": opponents, "seats": seats,
            "games": games, "seed": seed, "decisions": int(len(t)), "departures": float(departs.mean()),
            "agrees": share(np.ones_like(same)), "agrees_where_departing": share(departs),
            "agrees_elsewhere": share(~departs),
            "plays_contrast_where_departing": float((m == c)[departs].mean()) if departs.any() else None,
            "agrees_on_holds": share(hold), "agrees_on_boxes": share(~hold)}


def _pct(x) -> str:
    return "-" if x is None else f"{100 * x:.2f}%"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("model", help="a model file of `yacht train` trained at a table")
    p.add_argument("--teacher", default="strong?goal=win", help="the teacher (default strong?goal=win)")
    p.add_argument("--contrast", default="strong", help="the agent the teacher departs from (default strong)")
    p.add_argument("--opponents", default="strong", help="every other seat (default strong)")
    p.add_argument("--seats", type=int, default=4, help="seats at the table (default 4)")
    p.add_argument("--games", type=int, default=1000, help="games (default 1000)")
    p.add_argument("--seed", type=int, default=987654, help="dice seed (default 987654)")
    p.add_argument("--json", action="store_true", help="one JSON document on stdout")
    args = p.parse_args(argv)
    if not 1 <= args.games <= 1_000_000:
        p.error(f"--games must be 1 to 1000000, got {args.games}")
    try:
        doc = count(args.model, args.teacher, args.contrast, args.opponents, args.seats, args.games, args.seed)
    except (ValueError, OSError) as e:   # a bad model, agent spec or rule set: one line
        p.error(" ".join(str(e).split())[:300])
    if args.json:
        print(json.dumps(doc, indent=2))
        return 0
    print(f"{doc['model']} against {doc['teacher']} over {doc['decisions']:,} decisions of {doc['games']:,} games "
          f"({doc['seats']} seats, {doc['opponents']} elsewhere, seed {doc['seed']}):")
    print(f"  the teacher departs from {doc['contrast']} in {_pct(doc['departures'])} of its decisions")
    print(f"  the model plays the teacher's move: {_pct(doc['agrees'])} of all; {_pct(doc['agrees_elsewhere'])} "
          f"where the teacher plays as {doc['contrast']}; {_pct(doc['agrees_where_departing'])} where it departs "
          f"(there it plays {doc['contrast']}'s move {_pct(doc['plays_contrast_where_departing'])})")
    print(f"  holds {_pct(doc['agrees_on_holds'])}, boxes {_pct(doc['agrees_on_boxes'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
