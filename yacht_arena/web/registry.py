"""The tables `yacht serve` holds: opening one from the lobby's form (every field checked, CPU seats only from
the menu) and when each was last used."""
import time

from .cpus import FALLBACK, cannot_play
from .daily import today
from .settings import Menu
from .tables import MAX_SEATS, Seat, Table, TableError, check_name, parse_knobs

FORM = {"rules", "set", "seats", "pace", "replace_after", "replace_cpu", "undo_wait", "public", "daily"}


class Registry:
    """Open tables by id, when a message last came to each (monotonic seconds), and the client address each
    was opened from (tables restored after a restart, and the arena's pool tables, have none)."""

    def __init__(self, menu: Menu):
        self.menu = menu
        self.tables: dict[str, Table] = {}
        self.touched: dict[str, float] = {}
        self.opened_from: dict[str, str] = {}

    def __len__(self) -> int:
        return len(self.tables)

    def get(self, table_id: str) -> Table | None:
        return self.tables.get(table_id)

    def add(self, table: Table, address: str | None = None) -> None:
        self.tables[table.id] = table
        self.touch(table.id)
        if address is not None:
            self.opened_from[table.id] = address

    def opened_by(self, address: str) -> list[Table]:
        """The open tables opened from client address `address`."""
        return [self.tables[t] for t, a in self.opened_from.items() if a == address]

    def touch(self, table_id: str) -> None:
        self.touched[table_id] = time.monotonic()

    def all(self) -> list[Table]:
        """The open tables (a copy: safe to walk while tables open and close)."""
        return list(self.tables.values())

    def remove(self, table_id: str) -> None:
        del self.tables[table_id]
        self.touched.pop(table_id, None)
        self.opened_from.pop(table_id, None)

    def create(self, doc) -> Table:
        """A new table from the lobby's form; TableError naming what does not fit."""
        if not isinstance(doc, dict):
            raise TableError("expected a JSON object")
        unknown = set(doc) - FORM
        if unknown:
            raise TableError(f"unknown field {min(unknown)[:30]!r}")
        for flag_name in ("public", "daily"):
            if not isinstance(doc.get(flag_name, False), bool):
                raise TableError(f"{flag_name} must be true or false")
        if doc.get("daily") and doc.get("set"):
            raise TableError("The daily deal is played under a preset's own rules: no rule knobs.")
        seats_in = doc.get("seats")
        if not isinstance(seats_in, list) or not 1 <= len(seats_in) <= MAX_SEATS:
            raise TableError(f"seats must be a list of 1 to {MAX_SEATS} seats")
        seats = []
        for i, s in enumerate(seats_in):
            if not isinstance(s, dict) or s.get("kind") not in ("person", "cpu"):
                raise TableError(f"seat {i + 1}: expected {{kind: person|cpu, ...}}")
            if s["kind"] == "person":
                name = s.get("name") or ""
                seats.append(Seat(check_name(name) if name else ""))
            else:
                spec, label = self.menu.spec(s.get("cpu"))
                seats.append(Seat("", spec, label=label))
        for i, s in enumerate(seats):
            if s.cpu:
                same = sum(1 for o in seats if o.label == s.label)
                s.name = s.label if same == 1 else f"{s.label} {i + 1}"
        menu = self.menu.entries
        replace_spec, replace_label = self.menu.spec(doc.get("replace_cpu", "normal" if "normal" in menu
                                                             else next(iter(menu))))
        table = Table.create(doc.get("rules", "yacht"), parse_knobs(doc.get("set", [])), seats,
                             doc.get("pace", 0.6), doc.get("replace_after"), replace_spec, doc.get("undo_wait", 3.0),
                             daily=today() if doc.get("daily") else "")
        table.public = doc.get("public", False)
        if "replace_cpu" not in doc and cannot_play(replace_spec, table.rules, len(seats)):
            table.replace_spec = replace_label = FALLBACK     # the default CPU cannot play these rules (six dice)
        check_seats(table, replace_label)
        return table


def check_seats(table: Table, replace_label: str) -> None:
    """Every CPU seat (and the CPU that takes over a left person's seat) can play the table's rules; else one
    TableError naming the first seat that cannot."""
    reasons: dict[str, str | None] = {}
    for i, s in enumerate(table.seats):
        if s.cpu:
            why = reasons.setdefault(s.spec, cannot_play(s.spec, table.rules, len(table.seats)))
            if why:
                raise TableError(f"seat {i + 1} ({s.label}) cannot play these rules: {why}")
    if table.replace_after is not None:
        spec = table.replace_spec
        why = reasons.setdefault(spec, cannot_play(spec, table.rules, len(table.seats)))
        if why:
            raise TableError(f"the CPU that takes over a left seat ({replace_label}) cannot play these rules: {why}")
