"""Tournament formats: lazy schedules agree with listed round robins, gauntlets seat every candidate
against every combination of the others, Swiss rounds follow the standings; every format gives the
same records for any worker count and across a resume."""
import ast
from itertools import combinations
from pathlib import Path

import numpy as np
import pytest
from tests.fake_agents import FACTORY

from tournaments.config import parse_config
from tournaments.formats import REGISTRY, kind_of
from tournaments.formats.base import unrank
from tournaments.formats.round_robin import RoundRobin
from tournaments.formats.swiss import Swiss, SwissReplay, SwissStandings
from tournaments.report import render
from tournaments.run import run_tournament
from tournaments.schedule import job_of, jobs, schedule
from tournaments.seating import arrangements
from tournaments.store import Store
from yacht_env.config import ConfigError
from yacht_env.core.dice_source import game_seeds



def field(n, specs=("best", "first", "random", "upper")):
    return [{"name": f"p{i}", "agent": specs[i % len(specs)]} for i in range(n)]


def listed_round_robin(cfg):
    """The round robin as the schedule listed it before it was lazy: every combination, in order."""
    out = []
    for t, members in enumerate(combinations(list(cfg.entrants), cfg.seats)):
        seeds = game_seeds(cfg.seed, t, last=np.arange(cfg.games)).tolist()
        for d, seed in enumerate(seeds):
            out += [(t, d, r, seed, agents) for r, agents in enumerate(arrangements(members, cfg.ruleset.teams))]
    return out


@pytest.mark.parametrize("n,k", [(5, 2), (6, 3), (7, 4), (8, 8), (9, 1)])
def test_unrank_is_the_combinations_order(n, k):
    assert [unrank(n, k, i) for i in range(len(list(combinations(range(n), k))))] == list(combinations(range(n), k))


@pytest.mark.parametrize("seats,sets", [(2, {}), (3, {}), (4, {"teams": 2})])
def test_lazy_round_robin_is_the_listed_one(seats, sets):
    cfg = parse_config({"entrants": field(6), "seats": seats, "games": 2, "seed": 5, "set": sets})
    lazy = [(j.table, j.deal, j.rotation, j.seed, j.agents) for j in jobs(cfg)]
    assert lazy == listed_round_robin(cfg)
    assert len(lazy) == cfg.total_games
    for j in schedule(cfg):                  # every job is found again from its key alone
        assert job_of(cfg, j.key) == j
    assert job_of(cfg, "t999-d0-r0") is None and job_of(cfg, "t0-d2-r0") is None and job_of(cfg, "x") is None


def test_round_robin_of_a_large_field_starts_lazily():
    fmt = RoundRobin([f"e{i}" for i in range(100)], 8)      # 1.9e11 tables: never listed
    assert fmt.table_count == 186087894300
    assert fmt.members(fmt.table_count - 1) == tuple(f"e{i}" for i in range(92, 100))
    assert next(iter(fmt.tables()))[1] == tuple(f"e{i}" for i in range(8))


def test_gauntlet_seats_each_candidate_against_every_combination_of_the_others():
    cfg = parse_config({"entrants": field(6), "seats": 3, "games": 1, "format": "gauntlet",
                        "candidates": ["p4", "p1"]})
    tables = {}
    for j in jobs(cfg):
        tables.setdefault(j.table, set()).add(j.agents)
    others = ["p0", "p2", "p3", "p5"]
    expected = [(c, *rest) for c in ("p4", "p1") for rest in combinations(others, 2)]
    assert [frozenset(next(iter(s))) for _, s in sorted(tables.items())] == [frozenset(m) for m in expected]
    assert len(list(jobs(cfg))) == cfg.total_games == 2 * 6 * 3
    for j in jobs(cfg):
        assert job_of(cfg, j.key) == j
        assert j.agents in arrangements(expected[j.table], 0)


def test_gauntlet_of_one_against_500_is_lazy():
    cfg = parse_config({"entrants": field(501), "games": 2, "format": "gauntlet", "candidates": ["p500"]})
    assert cfg.total_games == 500 * 2 * 2
    first = next(jobs(cfg))
    assert first.agents == ("p500", "p0")


def play_swiss(fmt, strength, rounds):
    """Pair `rounds` rounds where the stronger entrant (by `strength`) always wins: (tables, byes) per round."""
    standings = SwissStandings(fmt.entrants)
    out = []
    for rnd in range(rounds):
        tables, byes = fmt.pair(rnd, standings)
        out.append((tables, byes))
        for _, members in tables:
            ranked = sorted(members, key=lambda m: -strength[m])
            for place, m in enumerate(ranked):
                i = standings.index[m]
                standings.points[i] += (len(members) - 1 - place) / (len(members) - 1)
    return out


def test_swiss_pairs_everyone_once_a_round_without_repeats_and_rotates_byes():
    names = [f"e{i}" for i in range(10)]
    fmt = Swiss(names, 3, rounds=3)
    strength = {n: i for i, n in enumerate(names)}
    met, byes = set(), []
    for rnd, (tables, out) in enumerate(play_swiss(fmt, strength, 3)):
        assert [t for t, _ in tables] == [rnd * 3 + i for i in range(3)]
        seated = [m for _, members in tables for m in members]
        assert len(seated) == len(set(seated)) == 9 and len(out) == 1 and out[0] not in seated
        byes += out
        for _, members in tables:
            pairs = {frozenset(p) for p in combinations(members, 2)}
            assert not pairs & met, "no repeat meeting while others are left"
            met |= pairs
    assert len(set(byes)) == 3, "nobody sits out twice while others have not"


def test_swiss_pairs_by_standings():
    names = [f"e{i}" for i in range(8)]
    strength = {n: -i for i, n in enumerate(names)}          # e0 strongest
    rounds = play_swiss(Swiss(names, 2, rounds=3), strength, 3)
    assert [m for _, m in rounds[0][0]] == [("e0", "e1"), ("e2", "e3"), ("e4", "e5"), ("e6", "e7")]
    # after round 1 the winners e0, e2, e4, e6 lead: the top tables are winners against winners
    assert [m for _, m in rounds[1][0]] == [("e0", "e2"), ("e4", "e6"), ("e1", "e3"), ("e5", "e7")]


def test_swiss_of_1000_schedules_nine_rounds():
    names = [f"e{i}" for i in range(1000)]
    rng = np.random.default_rng(0)
    strength = dict(zip(names, rng.permutation(1000).tolist()))
    rounds = play_swiss(Swiss(names, 4, rounds=9), strength, 9)
    assert all(len(tables) == 250 and not byes for tables, byes in rounds)


def test_format_config_errors():
    base = {"entrants": field(4), "games": 1}
    cases = [({"format": "knockout"}, r"t.yaml: format: must be one of round_robin, gauntlet, swiss, got 'knockout'"),
             ({"candidates": ["p0"]}, r"t.yaml: candidates: only a gauntlet has candidates"),
             ({"format": "gauntlet"}, r"t.yaml: candidates: a gauntlet needs a non-empty list"),
             ({"format": "gauntlet", "candidates": ["nobody"]}, r"t.yaml: candidates\[0\]: must be an entrant's name"),
             ({"format": "gauntlet", "candidates": ["p0", "p0"]}, r"t.yaml: candidates\[1\]: 'p0' is listed twice"),
             ({"format": "gauntlet", "candidates": ["p0", "p1", "p2"], "seats": 3},
              r"t.yaml: candidates: a table of 3 seats needs 2 entrants besides its candidate, and 1 are not"),
             ({"format": "swiss"}, r"t.yaml: rounds: a Swiss needs the number of rounds \(1 to 1000\)"),
             ({"format": "swiss", "rounds": 0}, r"t.yaml: rounds: must be a whole number from 1 to 1000, got 0"),
             ({"rounds": 3}, r"t.yaml: rounds: only a Swiss or an adaptive schedule has rounds")]
    for changes, message in cases:
        with pytest.raises(ConfigError, match=message):
            parse_config({**base, **changes}, "t.yaml")


def test_a_key_of_another_format_names_the_formats_that_take_it():
    base = {"entrants": field(4), "games": 1}
    cases = [({"rounds": 3}, "t.yaml: rounds: only a Swiss or an adaptive schedule has rounds (format: swiss, or "
                             "schedule: adaptive); this is a round robin"),
             ({"format": "gauntlet", "candidates": ["p0"], "confidence": 0.9},
              "t.yaml: confidence: only an adaptive schedule stops at a confidence (schedule: adaptive); this is a "
              "gauntlet"),
             ({"format": "swiss", "rounds": 2, "candidates": ["p0"]},
              "t.yaml: candidates: only a gauntlet has candidates (format: gauntlet); this is a Swiss"),
             ({"format": "swiss", "schedule": "adaptive", "rounds": 2},
              "t.yaml: schedule: an adaptive schedule ranks a round robin's field; this is a swiss")]
    for changes, message in cases:
        with pytest.raises(ConfigError) as e:
            parse_config({**base, **changes}, "t.yaml")
        assert str(e.value) == message


def test_the_registry_is_the_one_place_that_names_the_formats():
    """Each format is chosen by its own (format, schedule) pair, and no module outside tournaments/formats
    compares a value with a format's or a schedule's name: the rest asks the format."""
    pairs = [(f.format, f.schedule) for f in REGISTRY]
    assert len(set(pairs)) == len(pairs) and all(kind_of(*p) is f for p, f in zip(pairs, REGISTRY))
    names = {name for pair in pairs for name in pair}
    root = Path(__file__).resolve().parents[2]
    compared = []
    for package in ("agents", "tournaments", "yacht_arena"):
        for path in (root / package).rglob("*.py"):
            if "formats" in path.relative_to(root / package).parts[:1]:
                continue
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.Compare):
                    values = [node.left, *node.comparators]
                    values += [e for v in values if isinstance(v, (ast.Tuple, ast.List, ast.Set)) for e in v.elts]
                    if any(isinstance(v, ast.Constant) and v.value in names for v in values):
                        compared.append(f"{path.relative_to(root)}:{node.lineno}")
    assert not compared, compared


def test_round_robin_hash_is_unchanged_by_formats():
    plain = parse_config({"entrants": field(3), "games": 1})
    explicit = parse_config({"entrants": field(3), "games": 1, "format": "round_robin"})
    swiss = parse_config({"entrants": field(3), "games": 1, "format": "swiss", "rounds": 1})
    assert plain.hash == explicit.hash != swiss.hash


def run(cfg, out, **kw):
    return run_tournament(cfg, out=out, progress=False, factory=FACTORY, analysis=False, **kw)


SWISS = {"entrants": field(7), "games": 2, "seed": 4, "format": "swiss", "rounds": 3}
GAUNTLET = {"entrants": field(5), "games": 2, "seed": 4, "format": "gauntlet", "candidates": ["p2"], "seats": 3}
ADAPTIVE = {"entrants": [*field(4), {"name": "p4", "agent": "crash"}], "games": 2, "seed": 4, "schedule": "adaptive",
            "rounds": 5, "confidence": 0.9}     # a forfeiting entrant too; rounds of 4, 3, 3, 2 and 2 tables


@pytest.mark.parametrize("config", [SWISS, GAUNTLET, ADAPTIVE], ids=["swiss", "gauntlet", "adaptive"])
def test_same_records_for_any_worker_count_and_across_a_resume(tmp_path, config):
    cfg = parse_config(config)
    one = run(cfg, tmp_path / "one", workers=1)
    two = run(cfg, tmp_path / "two", workers=2)
    total = len(Store(tmp_path / "one").records())       # an adaptive schedule plays fewer than its most
    assert total == cfg.total_games if cfg.schedule == "fixed" else total < cfg.total_games
    assert two["run"]["games_run"] == total
    assert Store(tmp_path / "one").records() == Store(tmp_path / "two").records()
    assert one["run"]["games_run"] == total
    # a run cut short: keep the first 40% of the stored lines, in the order another worker count wrote them
    games = (tmp_path / "two" / "games.jsonl").read_bytes().splitlines(keepends=True)
    cut = tmp_path / "cut"
    cut.mkdir()
    (cut / "tournament.json").write_bytes((tmp_path / "two" / "tournament.json").read_bytes())
    (cut / "games.jsonl").write_bytes(b"".join(games[:len(games) * 2 // 5]))
    resumed = run(cfg, cut, workers=2)
    assert resumed["run"]["games_run"] == total - len(games) * 2 // 5
    assert Store(cut).records() == Store(tmp_path / "one").records()
    one.pop("run"), resumed.pop("run")
    assert one == resumed
    assert (cut / "report.md").read_text() == (tmp_path / "one" / "report.md").read_text()


def test_swiss_report_and_a_store_that_breaks_the_pairing(tmp_path):
    cfg = parse_config(SWISS)
    res = run(cfg, tmp_path)
    assert [r["round"] for r in res["swiss"]] == [1, 2, 3]
    assert all(len(r["byes"]) == 1 for r in res["swiss"])
    assert len({b for r in res["swiss"] for b in r["byes"]}) == 3
    replay = SwissReplay(cfg, Store(tmp_path).records().values())
    assert [tables for _, tables, _ in replay.pairings()] == [
        [(t, tuple(res["game_ids"]["tables"][f"t{t}"])) for t in r["tables"]] for r in res["swiss"]]
    assert "Format: Swiss, 3 rounds of 3 tables" in (tmp_path / "report.md").read_text()
    # swap two entrants of a round-2 table in every stored game of it: the seats are legal, the pairing is not
    path = tmp_path / "games.jsonl"
    lines = path.read_text().splitlines()
    t = res["swiss"][1]["tables"][0]
    a, b = res["game_ids"]["tables"][f"t{t}"][0], next(n for n in cfg.entrants
                                                       if n not in res["game_ids"]["tables"][f"t{t}"])
    swapped = [line.replace(f'"{a}"', '"@"').replace(f'"{b}"', f'"{a}"').replace('"@"', f'"{b}"')
               if f'"key":"t{t}-' in line else line for line in lines]
    path.write_text("\n".join(swapped) + "\n")
    with pytest.raises(ConfigError, match=rf"table {t} \(round 2\) holds .* but the pairing gives"):
        render(tmp_path, analysis=False)


def test_a_large_swiss_report_draws_no_matrix_and_no_histogram_per_entrant(tmp_path):
    cfg = parse_config({"entrants": [{"name": f"p{i}", "agent": "random"} for i in range(40)], "games": 1,
                        "format": "swiss", "rounds": 2})
    res = run(cfg, tmp_path)
    text = (tmp_path / "report.md").read_text()
    assert "No matrix for more than 32 entrants" in text
    assert not list(tmp_path.glob("hist_*.png")) and (tmp_path / "scores.png").exists()
    assert res["tournament"]["games_played"] == cfg.total_games == 2 * 20 * 2
