"""The fault gate of the commands that measure agents (`evaluate`, `tournament`, `match`, `levels`).

An entrant that faulted (an external bot's timeout, crash, garbage or illegal move; any agent's forfeit in
a tournament) plays the rest of the game, or the move, with a fallback, so its figures are partly the
fallback's. The gate counts, per entrant, the games in which it faulted at least once against the games it
played, and a command ends with status FAULT_EXIT (after writing everything it writes) when an entrant's
share of faulted games is above `--max-fault-rate`; without the option, when an entrant faulted in every
one of its games. Whenever any entrant faulted, the first line of the command's text says so
(`headline`), and `--json` carries the gate as `fault_gate` (`gate`).
"""
import argparse

FAULT_EXIT = 3
FAULT_EXIT_HELP = (f"exit status {FAULT_EXIT} (after the usual output) when an entrant faulted in more than "
                   "--max-fault-rate of its games; 2 is a usage or input error")


def rate_arg(text: str) -> float:
    """A `--max-fault-rate` value: a number from 0 to 1."""
    try:
        value = float(text)
    except ValueError:
        value = None
    if value is None or not 0 <= value <= 1:       # NaN fails both comparisons
        raise argparse.ArgumentTypeError(f"must be a number from 0 to 1, got {text!r}")
    return value


def add_fault_option(parser) -> None:
    parser.add_argument("--max-fault-rate", type=rate_arg, default=None, metavar="R",
                        help="the largest share of its games (0 to 1) in which an entrant may fault (an external "
                             "bot's timeout, crash, garbage or illegal move; a forfeit) before the command exits "
                             f"with status {FAULT_EXIT}; 0: any fault fails. Default: an entrant that faulted in "
                             "every one of its games fails")


def fails(faulted: int, games: int, max_rate: float | None) -> bool:
    """Whether `faulted` games out of `games` are above the gate (None: only a fault in every game)."""
    if games <= 0 or faulted <= 0:
        return False
    return faulted >= games if max_rate is None else faulted > max_rate * games


def gate(counts: dict[str, dict], max_rate: float | None) -> dict:
    """The gate as data. counts: entrant -> {"games": played, "faulted": games with a fault, and optionally
    "kinds": {kind: count}}. Returns {"max_fault_rate", "entrants": {name: {games, faulted, rate, failed,
    kinds?}} (entrants that faulted only), "failed": [names], "exit": status}."""
    entrants = {}
    for name, c in counts.items():
        if c["faulted"]:
            entrants[name] = {**c, "rate": c["faulted"] / c["games"] if c["games"] else None,
                              "failed": fails(c["faulted"], c["games"], max_rate)}
    failed = [n for n, e in entrants.items() if e["failed"]]
    return {"max_fault_rate": max_rate, "entrants": entrants, "failed": failed,
            "exit": FAULT_EXIT if failed else 0}


def headline(g: dict) -> str | None:
    """The first line of a command's text when anyone faulted, else None: who faulted in how many games,
    which of them are above the gate, and the exit status it gives."""
    if not g["entrants"]:
        return None
    parts = []
    for name, e in g["entrants"].items():
        kinds = e.get("kinds")
        what = f" ({', '.join(f'{n} {k}' for k, n in kinds.items())})" if kinds else ""
        parts.append(f"{name} faulted in {e['faulted']} of {e['games']} games{what}")
    limit = ("a fault in every game" if g["max_fault_rate"] is None
             else f"--max-fault-rate {g['max_fault_rate']:g}")
    verdict = (f"FAILED ({limit}; exit status {FAULT_EXIT}): {', '.join(g['failed'])}" if g["failed"]
               else f"within {limit}")
    return f"FAULTS: {'; '.join(parts)}; {verdict}"

