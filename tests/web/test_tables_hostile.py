"""`yacht serve`'s table files against planted links and FIFOs: a table is never written through a link,
and a journal that is a FIFO is refused without hanging."""
import pytest

from tests.planted import SECRET, fifo
from yacht_env.safe_file import FileRefused


def test_web_tables_are_never_written_through_links_and_never_read_from_fifos(tmp_path, victim):
    pytest.importorskip("starlette")
    from yacht_arena.web.tables import Seat, Table
    table = Table.create("yacht", {}, [Seat("Ann"), Seat("Bob")], pace=0)
    path = tmp_path / f"{table.id}.json"
    path.symlink_to(victim)                                   # planted where the table file goes
    with pytest.raises(FileRefused, match="symbolic link"):
        table.flush(tmp_path)
    assert victim.read_bytes() == SECRET
    path.unlink()
    table.flush(tmp_path)                                     # the whole table, as a regular file
    table.handle({0, 1}, {"type": "roll", "seat": table.game.current_seat})
    log = tmp_path / f"{table.id}.log"
    log.symlink_to(victim)                                    # planted where the journal goes
    with pytest.raises(FileRefused, match="symbolic link"):
        table.flush(tmp_path)
    assert victim.read_bytes() == SECRET
    log.unlink()
    fifo(log)                                                 # a journal that would never end
    with pytest.raises(FileRefused, match="FIFO"):
        Table.load(path)
