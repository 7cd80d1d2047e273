#!/usr/bin/env python3
"""A complete external Yacht bot in plain Python (no project imports): JSON lines on stdin/stdout.

Run it in a game:  yacht evaluate "external:python scripts/example_bot.py" --games 20
Protocol: docs/external_bots.md. Strategy: keep the most common face (the higher one on ties)
and re-roll the rest while rolls remain, unless some box already pays 25 or more; then score
the box that pays the most now (the harness sends those points as "preview").
"""
import json
import sys
from collections import Counter


def choose(msg: dict) -> int:
    legal, names = msg["legal"], msg["legal_names"]
    best_box = max(msg["preview"].items(), key=lambda kv: kv[1])    # (box, points)
    if msg["rolls_left"] > 0 and best_box[1] < 25:
        dice = msg["dice"]                                          # sorted
        face, count = max(Counter(dice).items(), key=lambda fc: (fc[1], fc[0]))
        if count < len(dice):                                       # five dice, or six under dice: 6
            hold = sum(1 << i for i, d in enumerate(dice) if d == face)
            if hold in legal:
                return hold
    wanted = "score " + best_box[0]
    return legal[names.index(wanted)]


def main() -> None:
    for line in sys.stdin:
        msg = json.loads(line)
        if msg["type"] == "hello":
            print(f"example bot: seat {msg['seat']} of {msg['num_players']}, rules {msg['rules']['name']}",
                  file=sys.stderr)
        elif msg["type"] == "decide":
            print(json.dumps({"action": choose(msg)}), flush=True)
        elif msg["type"] == "bye":
            break


if __name__ == "__main__":
    main()
