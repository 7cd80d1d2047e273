"""Game records: one finished game as plain data, one JSON line of a games log.

Every list has one entry per seat (a seat's sheet is its team's; `sheet_of` says which, teammates share
it): `totals`, `places` (1 = best, ties share), `sheets` (box scores, columns x boxes, -1 = open),
`upper_bonus`, `extra_bonus`, `faults` (None, or {"error", "move": index in the log}); `log` holds every
roll `{"seat", "hold", "dice"}` and every scoring `{"seat", "box", "column", "points", "bonus"}`.
"""

import json

MAX_RECORD_BYTES = 8 << 20   # one game record's JSON line; 8 seats x 3 columns with its move log is ~100 KB


def record_lines(f, bad, limit: int = MAX_RECORD_BYTES, unterminated: bool = False, raw: bool = False):
    """The game records of a games log (a binary file open for reading, one JSON record a line), in file
    order: yields (line number, byte offset of the line, record). The one parser of games logs
    (`tournaments.gamelog.log.read` opens the file), for the tournament store and the analysis alike.

    Blank lines are skipped; a last line without its newline is torn (a run killed while writing it: that
    game was not finished) and ends the log -- unless `unterminated` and it holds valid JSON (a file written
    by hand or by a JSON dump, whose last line has no newline; the store cuts such a tail before it appends,
    so it reads them as torn). `bad(number, problem)` is called for a line longer than
    `limit` bytes (problem "too long") or that is not valid JSON ("not JSON"), and must raise. What a
    record must hold is the caller's to check; so is a key seen twice (`first_of_each_key`). raw=True: yield
    (line number, byte offset, record, the line's bytes as read, newline included)."""
    number = offset = 0
    while True:
        line = f.readline(limit + 1)
        if not line:
            return
        number += 1
        at, offset = offset, offset + len(line)
        if len(line) > limit:
            bad(number, "too long")
        if not line.strip():
            continue
        complete = line.endswith(b"\n")
        if not complete and not unterminated:
            return
        try:
            rec = json.loads(line)
        except (ValueError, RecursionError):
            if not complete:
                return
            bad(number, "not JSON")
        yield (number, at, rec, line) if raw else (number, at, rec)


def first_of_each_key(lines):
    """The (number, offset, record) lines of `record_lines` whose record is the first with its key (a
    record with no string key always counts): a game stored twice counts once."""
    seen: set[str] = set()
    for line in lines:
        key = line[2].get("key") if isinstance(line[2], dict) else None
        if isinstance(key, str):
            if key in seen:
                continue
            seen.add(key)
        yield line


def game_record(key: str, table: int, deal: int, rotation: int, seed: int, agents, sheet_of, totals, places, sheets,
                upper_bonus, extra_bonus, faults, log) -> dict:
    """The record of a finished game (see the module docstring)."""
    return {"key": key, "table": table, "deal": deal, "rotation": rotation, "seed": seed, "agents": list(agents),
            "sheet_of": sheet_of, "totals": totals, "places": places, "sheets": sheets, "upper_bonus": upper_bonus,
            "extra_bonus": extra_bonus, "faults": faults, "log": log}


def record_of_game(game, faults, key: str, table: int, deal: int, rotation: int, seed: int, agents) -> dict:
    """The record of `game` (a `yacht_env.core.game.Game` played to its end) with the given place in a
    schedule and names per seat; faults: per seat None or {error, move}. Places by `placements`."""
    sheet_of = [game.sheet_of(s) for s in range(game.num_players)]
    return game_record(key, table, deal, rotation, seed, agents, sheet_of, [int(t) for t in game.totals()],
                       placements(game, [f is not None for f in faults]),
                       [game.sheets[s].scores.tolist() for s in sheet_of],
                       [int(game.sheets[s].upper_bonus.sum()) for s in sheet_of],
                       [int(game.sheets[s].extra_bonus.sum()) for s in sheet_of], faults, game.log)


def placements(game, faulted: list[bool]) -> list[int]:
    """Place per seat of a finished `Game` (1 = best, ties share). A sheet with a faulted seat ranks below
    all others."""
    ranks = game.sheet_ranks()
    bad = {game.sheet_of(s) for s, f in enumerate(faulted) if f}
    good = [i for i in range(game.num_sheets) if i not in bad]
    place = {i: 1 + sum(1 for j in good if ranks[j] < ranks[i]) for i in good}
    place.update({i: len(good) + 1 for i in bad})
    return [place[game.sheet_of(s)] for s in range(game.num_players)]


def record_line(record: dict) -> bytes:
    """A record as the games log holds it: compact JSON, UTF-8, one line (records are trees: no cycle check)."""
    return (json.dumps(record, separators=(",", ":"), check_circular=False) + "\n").encode()
