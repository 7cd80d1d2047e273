"""A web table's finished game stored through `tournaments.gamelog`: for fixed games (fixed table, seats,
seed and moves) the folder holds exactly the bytes it held when a table stored its game as a one-game
tournament run through the store (digests taken from the tree before gamelog), storing is one append of
one line, done once, and a folder or a record that is not the table's is refused."""
import hashlib

import pytest

from tests.planted import SECRET
from tournaments.gamelog import GAMES, read_games, store_table_game
from tournaments.store import Store
from yacht_arena.web.tables import Table, store_game
from yacht_env.config import ConfigError
from yacht_env.safe_file import FileRefused

# (rules, overrides, seats as (name, CPU spec or None), config seed) -> {file: sha256} of the stored folder
FIXED = {
    "two people": (("yacht", {}, [("Ann", None), ("Bob", None)], 123456789), {
        GAMES: "42e667a15201a08b331a7320861193e7c9fe8a6b18327f4e255aaae587fff291",
        "tournament.json": "3558c21bf336f20ca8d3212b953bc2c0529598235b50b35e7124f794c227d860"}),
    "people and CPUs": (("yacht", {}, [("Ann", None), ("", "easy"), ("Cy", "normal")], 987654321), {
        GAMES: "dbd46093e6d58c5c2079a09dd42dd2ed493b9e7a150fac1c9d7bf60f32fc7777",
        "tournament.json": "424c0407fa364b08304a160e8ec51094d586700f9886a0865223c7272a2dd768"}),
    "two teams": (("yacht", {"teams": 2}, [("Ann", None), ("Bob", None), ("Cy", None), ("Di", None)], 42), {
        GAMES: "72e602353f45b6340360f94f74c15da4f9f531fe1c10a68b8a20b232d82b0b1d",
        "tournament.json": "843e78e7f6c7a2637419c6143e316cba2f2df5b0ff9049933006520d00bb015a"}),
    "solo": (("yacht", {}, [("Ann", None)], 7), {
        GAMES: "778d4023c3b95e87d0dd85a83c3599f13dfd93236da75fb3fb93598103d289ed",
        "evaluate.json": "d11958785f28323c647852c5d7970d66c71a8d15d16070db5cae11cd315d967f"}),
}


def fixed_table(rules: str, sets: dict, seats, config_seed: int) -> Table:
    """A table with fixed id, tokens and seed, played to the end: people roll once and score their first
    legal box, CPUs their last."""
    doc = {"id": "fixedtable", "invite": "inv", "rules": rules, "set": sets,
           "seats": [{"name": n, "spec": s, "token": f"tok{i}", "label": ""} for i, (n, s) in enumerate(seats)],
           "pace": 0, "replace_after": None, "replace_spec": "normal", "config_seed": config_seed, "number": 1,
           "first_seat": None, "log": [], "stored": [], "version": 0}
    table = Table.from_json(doc)
    held = set(range(len(seats)))
    while not table.game.is_over:
        seat = table.game.current_seat
        if table.seats[seat].cpu:
            table.game.roll()
            table.game.score(table.game.legal_boxes()[-1].split("@")[0])
            continue
        table.handle(held, {"type": "roll", "seat": seat})
        table.handle(held, {"type": "score", "seat": seat, "box": table.game.legal_boxes()[0].split("@")[0]})
    return table


@pytest.mark.parametrize("case", sorted(FIXED))
def test_a_web_game_is_stored_byte_for_byte_as_before(case, tmp_path):
    setup, digests = FIXED[case]
    table = fixed_table(*setup)
    folder = tmp_path / store_game(table, tmp_path)
    assert store_game(table, tmp_path) == folder.name                  # storing again keeps one record
    stored = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in folder.iterdir()}
    assert stored == digests
    games = read_games(folder)
    assert len(games.records) == 1 and games.records[0]["agents"] == table.entrants()
    assert games.records[0]["places"] == table.state(set())["result"]["places"]
    if len(table.seats) > 1:                                           # a folder the tournament store reads
        assert list(Store(folder).records()) == ["t0-d0-r0"]


def test_storing_refuses_another_games_folder_a_planted_log_and_a_wrong_record(tmp_path, victim):
    table = fixed_table("yacht", {}, [("Ann", None), ("Bob", None)], 5)
    meta, record = table.record()
    other = tmp_path / "other"
    other.mkdir()
    (other / "tournament.json").write_text('{"config_hash": "0", "config": {}}\n')
    with pytest.raises(ConfigError, match="holds another game than this table's"):
        store_table_game(other, meta, record)
    assert not (other / GAMES).exists()
    planted = tmp_path / "planted"
    planted.mkdir()
    (planted / GAMES).symlink_to(victim)
    with pytest.raises(FileRefused, match="symbolic link"):
        store_table_game(planted, meta, record)
    assert victim.read_bytes() == SECRET
    changed = {**record, "totals": [t + 1 for t in record["totals"]]}
    with pytest.raises(ConfigError, match=r"record refused \(totals\[0\]"):
        store_table_game(tmp_path / "changed", meta, changed)
    assert not (tmp_path / "changed" / GAMES).exists()
