"""The data folder of `yacht serve`: the tables' files (`tables/ID.json` and their journals), finished games
(`games/ID-N/`, written by `tables.store_game`) and the best solo scores."""
import os
import stat
import sys
from pathlib import Path

from tournaments.gamelog import BestScores
from yacht_env.config import ConfigError
from yacht_env.safe_file import Busy, FileRefused, ensure_folder, kind, take_lock, writing_elsewhere

from .tables import Table, TableError, store_game

LOCK = "serve.lock"              # held by the one server of a data folder (it names its process)


def check_data(data: Path) -> None:
    """The data folder, created when missing, checked once before the server starts: a folder (a link to one
    is followed), with `tables/` and `games/` folders of its own (never links). `FileRefused`, one line,
    when it is a file, a dangling link, a device or a FIFO, or cannot be made."""
    ensure_folder(data, "data folder")
    for name in ("tables", "games"):
        path = data / name
        try:
            mode = os.lstat(path).st_mode
        except FileNotFoundError:
            continue
        except OSError as e:
            raise FileRefused(str(path), f"cannot use it ({e.strerror or e})") from None
        if not stat.S_ISDIR(mode):
            raise FileRefused(str(path), f"is {kind(mode)}; the server keeps its {name} in a folder of its own")


def hold_data(data: Path) -> int:
    """Take the data folder's lock (`serve.lock`) for as long as the process runs: its descriptor. Another
    server holding it is one `FileRefused` line naming that process."""
    try:
        return take_lock(data / LOCK, "server lock")
    except Busy as e:
        raise FileRefused(writing_elsewhere(data, "yacht serve", e.holder)) from None


class Storage:
    """Where the tables and their finished games live on disk."""

    def __init__(self, data: Path):
        self.data = Path(data)
        self.table_dir, self.games = self.data / "tables", self.data / "games"
        self.table_dir.mkdir(parents=True, exist_ok=True)
        self.games.mkdir(parents=True, exist_ok=True)

    def load(self) -> list[Table]:
        """Every table of the data folder, each game replayed to where it was (a damaged table file is skipped
        with a warning: the others load)."""
        tables = []
        for path in sorted(self.table_dir.glob("*.json")):
            try:
                tables.append(Table.load(path))
            except Exception as e:  # noqa: BLE001 - one damaged table file must not keep the others down
                log(f"warning: {path.name}: not loaded ({' '.join(str(e).split())[:300]}); the other tables play on")
        return tables

    def create(self, table: Table) -> None:
        """Write a new table's file; TableError (and a logged error) when the disk refuses."""
        try:
            table.flush(self.table_dir)
        except (OSError, ConfigError) as e:
            log(f"table {table.id}: not opened ({' '.join(str(e).split())[:300]})")
            raise TableError("the table could not be saved; try again later") from None

    def save(self, table: Table, snap: tuple) -> None:
        """Put the table's change on disk; when the disk refuses (a full disk, a planted link, a folder gone), the
        table goes back to `snap` (`Table.snapshot`), the error is logged, and TableError tells the sender."""
        try:
            table.flush(self.table_dir)
        except (OSError, ConfigError) as e:          # ConfigError: a file `safe_file` refuses
            table.restore(snap)
            log(f"table {table.id}: not saved, the move is undone ({' '.join(str(e).split())[:300]})")
            raise TableError("the table could not be saved, so that move was not played; try again later") \
                from None

    def store(self, table: Table) -> None:
        """Append the table's finished game to the records, then say so in its table file. A disk error is
        logged and leaves the game unstored (the next start stores it)."""
        try:
            table.stored.append(store_game(table, self.games))
            table.changed(full=True)
            table.flush(self.table_dir)
        except (OSError, ConfigError) as e:
            log(f"table {table.id}: game {table.number} not stored yet ({' '.join(str(e).split())[:300]})")
            return
        if table.solo:
            self.offer_best(table)

    def offer_best(self, table: Table) -> None:
        offer = table.best_offer                  # None when a CPU played any of the person's moves
        if offer is not None:
            key, score, name = offer
            BestScores(self.data).offer(key, score, table.rules.name, name)

    def best(self, rules_hash: str, name: str) -> dict | None:
        return BestScores(self.data).get(f"{rules_hash}:{name}")

    def remove(self, table_id: str) -> None:
        """A closed table's files (its stored games stay)."""
        for suffix in (".json", ".log"):
            (self.table_dir / f"{table_id}{suffix}").unlink(missing_ok=True)


def log(text: str) -> None:
    """One line on the server's error output."""
    print(f"yacht serve: {text}", file=sys.stderr, flush=True)
