"""Game records: one finished game as plain data, the form tournament stores and `yacht evaluate --out` write
and `yacht analyze` reads.

Every list has one entry per seat (a seat's sheet is its team's; `sheet_of` says which, teammates share
it): `totals`, `places` (1 = best, ties share), `sheets` (box scores, columns x boxes, -1 = open),
`upper_bonus`, `extra_bonus`, `faults` (None, or {"error", "move": index in the log}); `log` holds every
roll `{"seat", "hold", "dice"}` and every scoring `{"seat", "box", "column", "points", "bonus"}`.
"""

MAX_RECORD_BYTES = 8 << 20   # one game record's JSON line; 8 seats x 3 columns with its move log is ~100 KB


def game_record(key: str, table: int, deal: int, rotation: int, seed: int, agents, sheet_of, totals, places, sheets,
                upper_bonus, extra_bonus, faults, log) -> dict:
    """The record of a finished game (see the module docstring)."""
    return {"key": key, "table": table, "deal": deal, "rotation": rotation, "seed": seed, "agents": list(agents),
            "sheet_of": sheet_of, "totals": totals, "places": places, "sheets": sheets, "upper_bonus": upper_bonus,
            "extra_bonus": extra_bonus, "faults": faults, "log": log}
