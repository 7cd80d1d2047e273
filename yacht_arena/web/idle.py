"""Making room in a full `yacht serve`: which tables to close (nobody connected, no CPU playing; finished and
stored first, then those idle for `IDLE` seconds, oldest first)."""
import time

from .tables import Table

IDLE = 3600.0                    # seconds without a message after which a table nobody watches may be closed


def closable(tables: list[Table], touched: dict[str, float], watched, busy: set[str]) -> list[Table]:
    """The tables that may close, in the order to close them: `watched(id)` says whether anyone is connected,
    `busy` holds the tables whose CPU is playing."""
    now = time.monotonic()
    quiet = [t for t in tables if not watched(t.id) and t.id not in busy]
    done = [t for t in quiet if t.game.is_over and t.game_folder in t.stored]
    idle = sorted((t for t in quiet if now - touched.get(t.id, now) > IDLE and t not in done),
                  key=lambda t: touched.get(t.id, now))
    return done + idle
