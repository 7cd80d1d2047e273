"""Swiss standings as people read them: points as the pairing counts them, Buchholz and Sonneborn–Berger
tiebreaks, byes and unequal game counts stated, and who played whom in every round -- against a table
computed by hand, and in a played Swiss's report."""
import pytest
from tests.tournaments.test_tournament_formats import SWISS, run

from tournaments.config import parse_config
from tournaments.stats import swiss_standings


def game(table: int, rotation: int, a: str, b: str, outcome: str) -> dict:
    """A game at `table` of a against b; outcome "W", "D" or "L" for a."""
    pa, pb = {"W": (1, 2), "D": (1, 1), "L": (2, 1)}[outcome]
    return {"table": table, "deal": 0, "rotation": rotation, "agents": [a, b], "places": [pa, pb],
            "totals": [200, 150], "faults": [None, None]}


ROUNDS = [{"round": 1, "tables": [0, 1], "byes": ["E"]}, {"round": 2, "tables": [2, 3], "byes": ["D"]}]
RECORDS = [game(0, 0, "A", "B", "W"), game(0, 1, "A", "B", "W"),      # A 1, B 0
           game(1, 0, "C", "D", "W"), game(1, 1, "C", "D", "L"),      # C 1/2, D 1/2
           game(2, 0, "A", "C", "W"), game(2, 1, "A", "C", "D"),      # A 3/4, C 1/4
           game(3, 0, "E", "B", "D"), game(3, 1, "E", "B", "D")]      # E 1/2, B 1/2


def test_swiss_standings_against_a_hand_computed_table():
    sw = swiss_standings(RECORDS, ROUNDS, ["A", "B", "C", "D", "E"])
    got = {x["agent"]: (x["rank"], x["points"], x["buchholz"], x["sonneborn_berger"], x["byes"], x["games"])
           for x in sw["standings"]}
    # points: A 1 + 3/4; B 0 + 1/2; C 1/2 + 1/4; D 1/2 + bye 1/2; E bye 1/2 + 1/2
    # Buchholz: A: B 0.5 + C 0.75; B: A 1.75 + E 1; C: D 1 + A 1.75; D: C 0.75; E: B 0.5
    # Sonneborn-Berger: A: 1 x 0.5 + 0.75 x 0.75; B: 0 x 1.75 + 0.5 x 1; C: 0.5 x 1 + 0.25 x 1.75; D: 0.5 x 0.75;
    # E: 0.5 x 0.5. D and E tie on points; D's Buchholz is higher.
    assert got == {"A": (1, 1.75, 1.25, pytest.approx(1.0625), [], 4),
                   "D": (2, 1.0, 0.75, 0.375, [2], 2),
                   "E": (3, 1.0, 0.5, 0.25, [1], 2),
                   "C": (4, 0.75, 2.75, pytest.approx(0.9375), [], 4),
                   "B": (5, 0.5, 2.75, 0.5, [], 4)}
    assert [x["agent"] for x in sw["standings"]] == ["A", "D", "E", "C", "B"]
    assert not sw["equal_games"]
    r2 = sw["rounds"][1]
    assert r2["byes"] == ["D"]
    assert [[(m["agent"], m["points"], m["wins"], m["draws"], m["losses"]) for m in t["members"]]
            for t in r2["tables"]] == [[("A", 0.75, 1, 1, 0), ("C", 0.25, 0, 1, 1)],
                                       [("B", 0.5, 0, 2, 0), ("E", 0.5, 0, 2, 0)]]


def test_a_full_tie_shares_the_rank():
    records = [game(0, 0, "A", "B", "W"), game(0, 1, "A", "B", "L")]
    sw = swiss_standings(records, [{"round": 1, "tables": [0], "byes": []}], ["A", "B"])
    assert [(x["agent"], x["rank"]) for x in sw["standings"]] == [("A", 1), ("B", 1)] and sw["equal_games"]


def test_a_played_swiss_reports_points_tiebreaks_and_pairings(tmp_path):
    res = run(parse_config(SWISS), tmp_path)
    sw = res["swiss_standings"]
    assert sum(x["points"] for x in sw["standings"]) == pytest.approx(3 * (3 + 0.5))   # 3 tables + a bye a round
    assert all(len(r["tables"]) == 3 and len(r["byes"]) == 1 for r in sw["rounds"])
    report = (tmp_path / "report.md").read_text()
    assert "## Swiss standings and pairings" in report and "Round 3:" in report and "Buchholz" in report
    assert "Game counts differ (a bye is a round without games)" in report
    t = sw["rounds"][0]["tables"][0]
    assert " – ".join(m["agent"] for m in t["members"]) in report
