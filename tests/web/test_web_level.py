"""Your level on the analysis board: a stored web game's person seats placed on the strength dial
(`level` in `/api/games/ID-N`, `agents.placement`), CPU seats not; the board and the result show it, and the
lobby offers a CPU at the level of this device's last games."""
import pytest

from tests.web.test_web_tables import play_first_boxes
from agents.base import play_game
from agents.dial import DialAgent
from agents.strong import StrongAgent
from tournaments.gamelog import daily_folders, store_table_game, table_meta, table_record, table_specs
from yacht_arena.web.board import game_analysis
from yacht_arena.web.tables import BOT_LABEL, Seat, Table, store_game
from yacht_env.core.game import Game
from yacht_env.rules import load

RULES = load("yacht")


def stored(tmp_path, agents, specs, seed=31337, name="lvtable-1"):
    """A web game of `agents` (playing for the seats' people or CPUs, `specs`) stored as a table stores it."""
    names = [f"P{i}" for i in range(len(agents))]
    game = play_game(Game(RULES, len(agents), seed=seed), agents)
    meta = table_meta("lvtable", 1, "yacht", {}, RULES, names, specs, 5, seed)
    store_table_game(tmp_path / name, meta, table_record(game, names, seed))
    return name


def test_person_seats_are_placed_on_the_dial_and_cpus_are_not(tmp_path):
    shared = StrongAgent()
    folder = stored(tmp_path, [DialAgent(0.7, shared), StrongAgent(), DialAgent(0.7, shared)],
                    ["human", "human", "strong?strength=0.7"])
    doc = game_analysis(tmp_path, folder)
    at_07, at_1, cpu = doc["seats"]
    assert "level" not in cpu
    lv = at_07["level"]
    assert lv["low"] <= 0.7 <= lv["high"] and abs(lv["strength"] - 0.7) < 0.12, lv
    assert lv["decisions"] == at_07["decisions"]
    assert abs(lv["loss_per_decision"] * lv["decisions"] - at_07["loss"]) < 1e-9
    assert at_1["loss"] == 0.0 and at_1["level"]["strength"] == 1.0 and at_1["level"]["low"] > 0.85
    assert list(at_1["level"]["levels"]) == ["easy", "normal", "strong"]


def test_a_solo_game_names_its_person(tmp_path):
    folder = stored(tmp_path, [DialAgent(0.5)], ["human"], name="solo-1")
    (seat,) = game_analysis(tmp_path, folder)["seats"]
    assert seat["level"]["low"] <= 0.5 <= seat["level"]["high"]


@pytest.mark.parametrize("meta", ["", "[]", '{"web": 3, "agent": "P0"}', "{" * 3000, '{"config": {"entrants": [5]}}'])
def test_a_meta_file_that_names_no_specs_places_nobody(tmp_path, meta):
    folder = stored(tmp_path, [DialAgent(0.5)], ["human"], name="solo-1")
    record = {"agents": ["P0"]}
    assert table_specs(tmp_path / folder, record) == ["human"]
    (tmp_path / folder / "evaluate.json").write_text(meta)
    assert table_specs(tmp_path / folder, record) == [None]
    assert table_specs(tmp_path / folder, {"agents": "P0"}) == [] and table_specs(tmp_path / folder, None) == []


def test_a_remote_bots_seat_is_stored_as_remote_name_and_is_no_person(tmp_path):
    """A remote bot holds a person seat (label BOT_LABEL); its game is stored with spec remote:NAME, so the
    board places no level for it, the daily ranking leaves it out and it sets no best score."""
    table = Table.create("yacht", {}, [Seat("Dice Bot", label=BOT_LABEL), Seat("Ann")], pace=0)
    play_first_boxes(table, {0, 1})
    folder = store_game(table, tmp_path)
    record = table.record()[1]
    assert table_specs(tmp_path / folder, record) == ["remote:Dice Bot", "human"]
    bot, ann = game_analysis(tmp_path, folder)["seats"]
    assert "level" not in bot and "level" in ann

    day = "2026-12-06"
    for seats in ([Seat("Dice Bot", label=BOT_LABEL)], [Seat("Ann")]):
        solo = Table.create("yacht", {}, seats, pace=0, daily=day)
        play_first_boxes(solo, {0})
        store_game(solo, tmp_path / "games")
        assert (solo.best_offer is None) == seats[0].remote
    (person,) = daily_folders(tmp_path / "games", day, "yacht")
    assert table_specs(person, {"agents": ["Ann"]}) == ["human"]
    (bot_game,) = set((tmp_path / "games").iterdir()) - {person}
    assert table_specs(bot_game, {"agents": ["Dice Bot"]}) == ["remote:Dice Bot"]
