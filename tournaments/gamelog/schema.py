"""The record schema: what every line of a games log must hold, and the one check of it.

A record (`records.game_record`) names its game (`key`, `table`, `deal`, `rotation`, `seed`), who sat
where (`agents`, `sheet_of`) and what happened (`totals`, `places`, `sheets`, bonuses, `faults`, the move
`log`). `check_record` checks a record against a `Schema` -- the rules, the number of seats and the
config hash of its folder -- down to every box score against the move log; a tournament's store adds
the schedule's check by overriding `Schema.seating_problem` (`tournaments.store.Expected`).
"""
RECORD_KEYS = ("key", "table", "deal", "rotation", "seed", "agents", "sheet_of", "totals", "places", "sheets",
               "upper_bonus", "extra_bonus", "faults", "log")


class Schema:
    """What the records of one games log are checked against: `rules` (a RuleSet), `seats` per game and
    the `config_hash` records carry (None: records carry none). `box_points`: per box, every score it can
    hold (plain or joker points)."""

    def __init__(self, rules, seats: int, config_hash: str | None = None):
        self.rules, self.seats, self.config_hash = rules, seats, config_hash
        t = rules.tables
        self.box_points = [frozenset(t.score[b].tolist()) | frozenset(t.joker_score[b].tolist())
                           for b in range(t.n_boxes)]

    def seating_problem(self, rec) -> str | None:
        """What is wrong with who a record seats, or None: here `agents` must be `seats` distinct names."""
        agents = rec["agents"]
        if not (isinstance(agents, list) and len(agents) == self.seats and all(isinstance(a, str) for a in agents)
                and len(set(agents)) == len(agents)):
            return f"agents must be {self.seats} distinct names"
        return None


def is_whole(x) -> bool:
    """x is a whole number (an int, not a bool)."""
    return isinstance(x, int) and not isinstance(x, bool)


def _wholes(x, n: int, lo: int, hi: int | None = None) -> bool:
    """x is a list of n whole numbers in lo..hi."""
    return (isinstance(x, list) and len(x) == n and all(is_whole(v) and v >= lo and (hi is None or v <= hi)
                                                         for v in x))


def check_record(rec, schema: Schema) -> str | None:
    """What is wrong with a record for the games log `schema` describes, or None when it is a game of it.

    Checked: the keys a report reads; the config hash (when the record carries it); the seating
    (`Schema.seating_problem`: for a tournament, the game key is scheduled and table, deal, rotation,
    seed and seats are that job's); per seat its sheet index, total, place, bonuses and fault have the
    right type and range; each sheet has the rules' columns x boxes, with points each box can hold; every
    total is its sheet plus its bonuses; the scores agree with the move log (`_log_problem`) and the places
    with the totals (`_places_problem`)."""
    config_hash, rules, allowed = schema.config_hash, schema.rules, schema.box_points
    if not isinstance(rec, dict):
        return f"not a game record (a JSON {type(rec).__name__})"
    missing = [k for k in RECORD_KEYS if k not in rec]
    if missing:
        return f"not a game record (no {missing[0]!r})"
    if rec.get("config_hash", config_hash) != config_hash:   # stores written before records carried it
        return (f"written for another tournament (config hash {str(rec['config_hash'])[:40]!r}, this folder's is "
                f"{config_hash})")
    problem = schema.seating_problem(rec)
    if problem:
        return problem
    n = schema.seats
    sheets_n = rules.teams or n
    if rec["sheet_of"] != [s % sheets_n for s in range(n)]:
        return f"sheet_of must be {[s % sheets_n for s in range(n)]}"
    if not _wholes(rec["places"], n, 1, n):
        return f"places must be {n} places from 1 to {n}"
    top = rules.upper_bonus * rules.columns
    if not _wholes(rec["upper_bonus"], n, 0, top) or any(b % max(rules.upper_bonus, 1) for b in rec["upper_bonus"]):
        return f"upper_bonus must be {n} multiples of {rules.upper_bonus} up to {rules.upper_bonus * rules.columns}"
    extra = rules.extra_yacht_bonus
    if not _wholes(rec["extra_bonus"], n, 0, extra * rules.columns * len(rules.boxes)) or \
            any(b % max(extra, 1) for b in rec["extra_bonus"]):
        return f"extra_bonus must be {n} multiples of {extra}"
    faults = rec["faults"]
    if not isinstance(faults, list) or len(faults) != n or not all(
            f is None or (isinstance(f, dict) and isinstance(f.get("error"), str) and is_whole(f.get("move"))
                          and f["move"] >= 0) for f in faults):
        return f"faults must be {n} entries, each null or {{error: text, move: number}}"
    if not isinstance(rec["log"], list):
        return "log must be a list of moves"
    sheets = rec["sheets"]
    if not isinstance(sheets, list) or len(sheets) != n:
        return f"sheets must be one sheet per seat ({n})"
    for s, sheet in enumerate(sheets):
        if not isinstance(sheet, list) or len(sheet) != rules.columns or not all(
                isinstance(col, list) and len(col) == len(allowed) and all(
                    is_whole(p) and p in ok for p, ok in zip(col, allowed)) for col in sheet):
            return (f"sheets[{s}] must be {rules.columns} column(s) of {len(allowed)} box scores, each one "
                    f"the box can hold under rules {rules.name!r}")
    totals = rec["totals"]
    if not _wholes(totals, n, 0):
        return f"totals must be {n} whole numbers"
    for s in range(n):
        expect = sum(map(sum, sheets[s])) + rec["upper_bonus"][s] + rec["extra_bonus"][s]
        if totals[s] != expect:
            return f"totals[{s}] is {str(totals[s])[:40]}, but its sheet and bonuses add up to {expect}"
    return _log_problem(rec, rules, n, sheets_n) or _places_problem(rec, rules, n, sheets_n)


def _log_problem(rec, rules, n: int, sheets_n: int) -> str | None:
    """What is wrong with a record's scores against its move log, or None (also when the log is empty: a
    record without one). Every scoring move names a seat of the table and a box and column of the rules,
    scores each box of each sheet exactly once, with the points its sheet holds there; each sheet's total is
    what its moves gained (points and bonuses); a fault's move is within the log."""
    log = rec["log"]
    if not log:
        return None
    index = _box_index(rules)
    sheets, sheet_of, cols = rec["sheets"], rec["sheet_of"], rules.columns
    scored = [set() for _ in range(sheets_n)]
    gained = [0] * sheets_n
    if not all(type(m) is dict for m in log):
        k = next(k for k, m in enumerate(log) if type(m) is not dict)
        return f"log[{k}] is not a move"
    seats = {m.get("seat") if type(m.get("seat")) is int else -1 for m in log}
    if not seats <= _SEATS[n]:
        k, seat = next((k, m.get("seat")) for k, m in enumerate(log)
                       if type(m.get("seat")) is not int or not 0 <= m["seat"] < n)
        return f"log[{k}]: seat must be 0 to {n - 1}, got {str(seat)[:40]}"
    for k, m in ((k, m) for k, m in enumerate(log) if "box" in m):
        b, col, points, bonus = index.get(m["box"]) if isinstance(m["box"], str) else None, m.get("column"), \
            m.get("points"), m.get("bonus")
        if b is None or type(col) is not int or not 0 <= col < cols or not is_whole(points) or not is_whole(bonus):
            return f"log[{k}]: a scoring move needs a box of the rules, a column 0 to {cols - 1}, points and bonus"
        sheet = sheet_of[m["seat"]]
        if (col, b) in scored[sheet]:
            return f"log[{k}]: box {rules.boxes[b]!r} of sheet {sheet} (column {col}) is scored twice"
        scored[sheet].add((col, b))
        if sheets[sheet][col][b] != points:
            return (f"log[{k}] scores {points} in {rules.boxes[b]!r} (sheet {sheet}, column {col}), but the sheet "
                    f"holds {sheets[sheet][col][b]}")
        gained[sheet] += points + bonus
    for sheet in range(sheets_n):
        if len(scored[sheet]) != cols * len(rules.boxes):
            return f"the log scores {len(scored[sheet])} of the {cols * len(rules.boxes)} boxes of sheet {sheet}"
    for s in range(n):
        if rec["totals"][s] != gained[sheet_of[s]]:
            return f"totals[{s}] is {rec['totals'][s]}, but the moves of the log gained {gained[sheet_of[s]]}"
    for s, f in enumerate(rec["faults"]):
        if f is not None and f["move"] > len(log):
            return f"faults[{s}]: move {f['move']} is past the log's {len(log)} moves"
    return None


_BOX_INDEX: dict = {}
_SEATS = [frozenset(range(n)) for n in range(9)]     # the seats of a table of n


def _box_index(rules) -> dict:
    """{box name: index} of a rule set (kept per set of box names)."""
    key = tuple(rules.boxes)
    if key not in _BOX_INDEX:
        _BOX_INDEX[key] = {b: i for i, b in enumerate(key)}
    return _BOX_INDEX[key]


def _places_problem(rec, rules, n: int, sheets_n: int) -> str | None:
    """What is wrong with a record's places given its totals and faults, or None (see `records.
    placements`): teammates share a place and a sheet total; a sheet with a faulted seat is placed below
    every other; among the others a higher total is a better place, equal totals share one unless the rules
    break ties by a roll-off, and every place is 1 + the number of sheets placed better."""
    places, totals, sheet_of = rec["places"], rec["totals"], rec["sheet_of"]
    place, total, bad = {}, {}, set()
    for s in range(n):
        k = sheet_of[s]
        if place.setdefault(k, places[s]) != places[s] or total.setdefault(k, totals[s]) != totals[s]:
            return f"seats {sheet_of.index(k)} and {s} share a sheet but not its place and total"
        if rec["faults"][s] is not None:
            bad.add(k)
    good = [k for k in range(sheets_n) if k not in bad and k in place]
    for k in bad:
        if place[k] != len(good) + 1:
            return f"places: a sheet with a faulted seat is placed {place[k]}, expected {len(good) + 1} (last)"
    for i in good:
        if place[i] != 1 + sum(1 for j in good if place[j] < place[i]):
            return f"places {places} are not a ranking (1 = best, ties share)"
        for j in good:
            if total[i] > total[j] and place[i] >= place[j]:
                return f"places {places} contradict totals {totals}: a higher total has a worse place"
            if total[i] == total[j] and place[i] != place[j] and rules.tiebreak != "sudden_death":
                return f"places {places} contradict totals {totals}: equal totals share a place under these rules"
    return None

