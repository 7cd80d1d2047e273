"""The data folder of `yacht serve`: the tables' files (`tables/ID.json` and their journals), finished games
(`games/ID-N/`, written by `tables.store_game`) and the best solo scores."""
import os
import stat
import sys
from pathlib import Path

from yacht_env.safe_file import Busy, FileRefused, ensure_folder, kind, take_lock, writing_elsewhere

from .tables import Table, store_game

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
                print(f"yacht serve: warning: {path}: not loaded ({' '.join(str(e).split())[:200]})", file=sys.stderr)
        return tables

    def flush(self, table: Table) -> None:
        table.flush(self.table_dir)

    def store(self, table: Table) -> None:
        """Append the table's finished game to the records, then say so in its table file."""
        table.stored.append(store_game(table, self.games))
        table.changed(full=True)
        table.flush(self.table_dir)
        if table.solo:
            self.offer_best(table)

    def offer_best(self, table: Table) -> None:
        from yacht_arena.cli.play import BestScores
        name = table.seats[0].name
        BestScores(self.data).offer(f"{table.rules_key}:{name}", table.game.totals()[0],
                                    table.rules.name, name)

    def best(self, rules_hash: str, name: str) -> dict | None:
        from yacht_arena.cli.play import BestScores
        return BestScores(self.data).get(f"{rules_hash}:{name}")

    def remove(self, table_id: str) -> None:
        """A closed table's files (its stored games stay)."""
        for suffix in (".json", ".log"):
            (self.table_dir / f"{table_id}{suffix}").unlink(missing_ok=True)
