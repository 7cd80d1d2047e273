"""Store records that contradict themselves: places that contradict the totals, scores that contradict the
move log. `tournaments.gamelog.check_record` refuses them, never counts them, and a command reading such a store
stops with one line and exit status 2. (Generated damage to records: test_store_hostile.py.)"""
import copy
import json

import pytest

from tests.cli_errors import error_line
from tests.fake_agents import FACTORY
from yacht_arena.cli import main
from tournaments.config import parse_config
from tournaments.run import run_tournament
from tournaments.gamelog import GAMES, TOURNAMENT_META, check_record
from tournaments.store import Store


@pytest.fixture(scope="module")
def store_and_record(tmp_path_factory):
    out = tmp_path_factory.mktemp("places") / "run"
    run_tournament(parse_config({"entrants": ["first", "best", "random"], "games": 2, "seed": 5, "seats": 3}),
                   out=out, progress=False, factory=FACTORY)
    store = Store(out)
    rec = next(r for r in store.records().values() if len(set(r["totals"])) == len(r["totals"]))
    return store.expected(), rec


def flipped(rec):
    r = copy.deepcopy(rec)
    best, worst = r["places"].index(1), r["places"].index(max(r["places"]))
    r["places"][best], r["places"][worst] = r["places"][worst], r["places"][best]
    return r


def shared(rec):
    r = copy.deepcopy(rec)
    r["places"] = [1] * len(r["places"])
    return r


def gap(rec):
    r = copy.deepcopy(rec)
    r["places"] = [1 if p == 1 else len(r["places"]) for p in r["places"]]   # 1, 3, 3: no place 2
    return r


def faulted_first(rec):
    r = copy.deepcopy(rec)
    r["faults"][r["places"].index(1)] = {"error": "timeout", "move": 0}
    return r


@pytest.mark.parametrize("change, message", [
    (flipped, "a higher total has a worse place"), (shared, "equal totals|higher total"),
    (gap, "not a ranking|worse place"), (faulted_first, "a sheet with a faulted seat is placed 1"),
])
def test_records_whose_places_contradict_their_totals_are_refused(store_and_record, change, message):
    expected, rec = store_and_record
    assert check_record(rec, expected) is None
    problem = check_record(change(rec), expected) or ""
    assert any(m in problem for m in message.split("|")), problem


def store_of(folder, expected, record):
    """A tournament folder of the fixture's tournament holding one game: `record`."""
    folder.mkdir()
    meta = {"config_hash": expected.config_hash, "config": expected.config.to_dict()}
    (folder / TOURNAMENT_META).write_text(json.dumps(meta))
    (folder / GAMES).write_text(json.dumps(record) + "\n")
    return folder


def test_a_store_with_flipped_places_is_an_error_not_standings(store_and_record, tmp_path, capsys):
    expected, rec = store_and_record
    folder = store_of(tmp_path / "flip", expected, flipped(rec))
    assert main(["report", str(folder)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "line 1" in err[0] and "worse place" in err[0]


# ---- scores against the move log ------------------------------------------------------------------

def _scoring(rec, box="chance"):
    return next(k for k, m in enumerate(rec["log"]) if m.get("box") == box)


def sheet_raised(rec):
    """A sheet cell and its total raised together: the sheet adds up, the log says otherwise."""
    r = copy.deepcopy(rec)
    m = r["log"][_scoring(r)]
    sheet = r["sheet_of"][m["seat"]]
    chance = len(r["sheets"][0][0]) - 1
    r["sheets"][sheet][0][chance] += 1 if r["sheets"][sheet][0][chance] < 30 else -1
    r["totals"] = [sum(map(sum, r["sheets"][r["sheet_of"][s]])) + r["upper_bonus"][s] + r["extra_bonus"][s]
                   for s in range(len(r["totals"]))]
    return r


def scored_twice(rec):
    r = copy.deepcopy(rec)
    r["log"].append(copy.deepcopy(r["log"][_scoring(r)]))
    return r


def stranger_seat(rec):
    r = copy.deepcopy(rec)
    r["log"][0]["seat"] = 7
    return r


def box_left_out(rec):
    r = copy.deepcopy(rec)
    del r["log"][_scoring(r)]
    return r


def fault_past_the_log(rec):
    r = copy.deepcopy(rec)
    worst = r["places"].index(max(r["places"]))
    r["faults"][worst] = {"error": "timeout", "move": len(r["log"]) + 5}
    return r


def bonus_inflated(rec):
    r = copy.deepcopy(rec)
    r["log"][_scoring(r)]["bonus"] += 35
    return r


@pytest.mark.parametrize("change, message", [
    (sheet_raised, "but the sheet holds"), (scored_twice, "is scored twice"), (stranger_seat, "seat must be 0 to 2"),
    (box_left_out, "the log scores 12 of the 13 boxes"), (fault_past_the_log, "past the log's"),
    (bonus_inflated, "but the moves of the log gained"),
])
def test_records_whose_scores_contradict_their_move_log_are_refused(store_and_record, change, message):
    expected, rec = store_and_record
    problem = check_record(change(rec), expected) or ""
    assert message in problem and "\n" not in problem, problem
    r = copy.deepcopy(rec)
    r["log"] = []                                  # a record without a log is checked without one
    assert check_record(r, expected) is None


def test_a_store_whose_log_contradicts_a_sheet_is_one_line_exit_2(store_and_record, tmp_path, capsys):
    expected, rec = store_and_record
    folder = store_of(tmp_path / "tampered", expected, sheet_raised(rec))
    assert main(["report", str(folder)]) == 2
    line = error_line(capsys)
    assert "line 1" in line and "but the sheet holds" in line


# ---- siblings: what a run record or a recorded file may be ------------------------------------------
