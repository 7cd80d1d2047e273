"""Team tournaments: partnerships rotate with the seats, every deal in every arrangement with the same dice,
and the report gives each agent its own figures."""
from collections import Counter
from itertools import combinations

import pytest
from tests.fake_agents import FACTORY

from tournaments.config import parse_config
from tournaments.run import run_tournament
from tournaments.schedule import schedule
from tournaments.seating import all_splits, arrangements, balanced_splits, partners
from tournaments.stats import contributions
from tournaments.store import Store
from yacht_env.core.dice_source import game_seed



def team_config(entrants, seats, teams, games=2, **kw):
    return parse_config({"entrants": entrants, "seats": seats, "games": games, "seed": 4, "set": {"teams": teams},
                         **kw})


def relations(jobs, teams):
    """Partnered and opposed games per pair of entrants, and games per (entrant, seat)."""
    partnered, opposed, seat = Counter(), Counter(), Counter()
    for j in jobs:
        for s, a in enumerate(j.agents):
            seat[(a, s)] += 1
        for i, k in combinations(range(len(j.agents)), 2):
            pair = frozenset((j.agents[i], j.agents[k]))
            (partnered if i % teams == k % teams else opposed)[pair] += 1
    return partnered, opposed, seat


def test_two_teams_of_two_play_every_partnership_in_every_seat_on_every_deal():
    cfg = team_config(["a", "b", "c", "d"], 4, 2, games=3)
    jobs = schedule(cfg)
    assert len(jobs) == 3 * 12 and len({j.key for j in jobs}) == len(jobs)
    for d in range(3):
        deal = [j for j in jobs if j.deal == d]
        assert [j.rotation for j in deal] == list(range(12))
        assert {j.seed for j in deal} == {game_seed(4, 0, d)}, "every arrangement of a deal has the same dice"
        assert len({j.agents for j in deal}) == 12
        partnered, opposed, seat = relations(deal, 2)
        pairs = [frozenset(p) for p in combinations("abcd", 2)]
        assert {partnered[p] for p in pairs} == {4} and {opposed[p] for p in pairs} == {8}
        assert set(seat.values()) == {3} and len(seat) == 16, "every entrant sits in every seat 3 times"
        splits = {frozenset(frozenset(j.agents[s] for s in (t, t + 2)) for t in (0, 1)) for j in deal}
        assert len(splits) == 3, "AB|CD, AC|BD and AD|BC"


@pytest.mark.parametrize("seats, teams, n_splits", [(4, 2, 3), (6, 3, 5), (6, 2, 10), (8, 4, 7), (8, 2, 7)])
def test_splits_partner_every_pair_equally(seats, teams, n_splits):
    splits = balanced_splits(seats, teams)
    assert len(splits) == n_splits and len(set(splits)) == n_splits
    assert set(splits) <= set(all_splits(seats, teams))
    count = Counter(p for s in splits for p in partners(s))
    assert len(count) == seats * (seats - 1) // 2 and len(set(count.values())) == 1
    members = tuple(f"e{i}" for i in range(seats))
    seatings = arrangements(members, teams)
    assert len(seatings) == n_splits * seats
    partnered, opposed, seat = relations([type("J", (), {"agents": s}) for s in seatings], teams)
    assert len(set(partnered.values())) == 1 and len(set(opposed.values())) == 1
    assert set(seat.values()) == {n_splits}


@pytest.mark.parametrize("seats, teams", [(4, 2), (6, 3), (6, 2)])
def test_no_smaller_family_partners_every_pair_equally(seats, teams):
    every = all_splits(seats, teams)
    for size in range(1, len(balanced_splits(seats, teams))):
        for family in combinations(every, size):
            count = Counter(p for s in family for p in partners(s))
            assert not (len(count) == seats * (seats - 1) // 2 and len(set(count.values())) == 1), family


def test_more_entrants_than_seats_balance_over_the_tables():
    cfg = team_config(["a", "b", "c", "d", "e"], 4, 2, games=1)
    partnered, opposed, seat = relations(schedule(cfg), 2)
    assert len(set(partnered.values())) == 1 and len(set(opposed.values())) == 1 and len(partnered) == 10
    assert len(set(seat.values())) == 1


def test_teams_of_one_and_no_teams_keep_the_seat_rotations():
    plain = parse_config({"entrants": ["a", "b", "c", "d"], "seats": 4, "games": 1})
    solo_teams = team_config(["a", "b", "c", "d"], 4, 4, games=1)
    rotations = [tuple("abcd"[(i + r) % 4] for i in range(4)) for r in range(4)]
    assert [j.agents for j in schedule(plain)] == rotations == [j.agents for j in schedule(solo_teams)]


def test_a_two_team_tournament_gives_each_agent_its_own_figures(tmp_path):
    cfg = team_config(["best", "upper", "first", "random"], 4, 2, games=3)
    res = run_tournament(cfg, out=tmp_path, progress=False, factory=FACTORY)
    assert res["tournament"]["complete"] and res["tournament"]["games_played"] == 36
    teams = res["teams"]
    assert {p["partnered"] for p in teams["pairs"]} == {12} and {p["opposed"] for p in teams["pairs"]} == {24}
    assert len(teams["partnerships"]) == 6 and {p["games"] for p in teams["partnerships"]} == {12}
    # before partnerships rotated, partners had identical statistics; now every figure is the agent's own
    means = [res["agents"][a]["mean"] for a in cfg.entrants]
    own = {a: teams["contributions"][a]["mean"] for a in cfg.entrants}
    assert len(set(means)) == 4 and len(set(own.values())) == 4
    assert own["best"] > own["upper"] > max(own["first"], own["random"])
    assert {x["agent"] for x in res["standings"][:2]} == {"best", "upper"}
    assert {c["turns_per_game"] for c in teams["contributions"].values()} == {6.5}  # 7 and 6 turns, balanced
    for rec in Store(tmp_path).records().values():
        per_seat = contributions(rec)
        for sheet in (0, 1):
            seats = [s for s in range(4) if rec["sheet_of"][s] == sheet]
            assert sum(per_seat[s][1] + per_seat[s][2] for s in seats) == rec["totals"][seats[0]]
    shares = [teams["contributions"][a]["share_of_team_total"] for a in cfg.entrants]
    assert all(0 < x < 1 for x in shares)
    text = (tmp_path / "report.md").read_text()
    ranked = [x["agent"] for x in res["standings"]]
    assert "## Teams" in text and f"| {ranked[0]} + {ranked[1]} |" in text   # partners in standings order
    assert "Elo is not given: it rates games between two players, and these games have 2 teams of 2" in text
    assert "3 partnership splits × 4 seat rotations" in text
    assert "0–3: 1st+2nd vs 3rd+4th; 4–7: 1st+3rd vs 2nd+4th; 8–11: 1st+4th vs 2nd+3rd" in text


def test_team_forfeit_spoils_the_sheet_not_the_opponents(tmp_path):
    cfg = team_config(["best", "crash", "first", "random"], 4, 2, games=1)
    res = run_tournament(cfg, out=tmp_path, progress=False, factory=FACTORY)
    for rec in Store(tmp_path).records().values():
        crash = rec["agents"].index("crash")
        mate = next(s for s in range(4) if s != crash and rec["sheet_of"][s] == rec["sheet_of"][crash])
        assert rec["faults"][crash] is not None and rec["faults"][mate] is None
        assert rec["places"][crash] == rec["places"][mate] == 2, (rec["key"], rec["agents"], rec["faults"])
    # the crash's partners' sheet scores are left out: 12 games each, 4 with crash as partner
    assert res["agents"]["best"]["games"] == 12 and res["teams"]["contributions"]["best"]["games"] == 8
    assert res["agents"]["crash"]["forfeits"] == 12 and "mean" not in res["agents"]["crash"]
