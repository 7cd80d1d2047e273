"""The data folder of `yacht serve`: the tables' files (`tables/ID.json` and their journals), finished games
(`games/ID-N/`, written by `tables.store_game`) and the best solo scores."""
import sys
from pathlib import Path

from .tables import Table, store_game


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
