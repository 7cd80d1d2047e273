"""Move analysis (agents.analysis): strong loses nothing, every other level loses something, values agree
with `Policy.alternatives`, a known mistake costs what the table says, impossible records are refused."""
import copy

import numpy as np
import pytest
from tests.analysis_records import FirstRollThen, legal_by_game, play_records, record_of
from tests.solver_tables import PAST_MEMORY, past_memory, solved, temp_cache

from agents.analysis import (BLUNDER, INACCURACY, MISTAKE, AnalysisError, analyze, analyze_game, classify)
from agents.base import play_game
from agents.registry import make_agent
from yacht_env.core.actions import NUM_HOLDS, action_name
from yacht_env.core.dice import HOLD_KEEP, roll_index
from yacht_env.core.game import Game
from yacht_env.rules import load
from yacht_env.solver.policy import Policy, hold_of


@pytest.fixture
def cache(monkeypatch):
    with temp_cache() as d:
        monkeypatch.setenv("YACHT_CACHE_DIR", d)
        yield d


@pytest.mark.parametrize("name,overrides,seats", [("yacht", {}, 2), ("classic", {}, 1), ("kirakuken", {}, 2),
                                                  ("yacht", {"rolls_per_turn": 2}, 1),
                                                  ("classic", {"rolls_per_turn": 1}, 1)])
def test_strong_loses_nothing_on_any_decision(cache, name, overrides, seats):
    rules, solution = solved(name, **overrides)
    records = play_records(rules, ["strong"] * seats, games=6, seed=3)
    a = analyze(records, rules, solution)
    assert len(a.loss) > 6 * rules.rounds * seats - 1  # at least one decision per turn
    assert a.exact and (a.loss == 0).all()
    assert np.allclose(a.best_value, a.played_value, rtol=0, atol=1e-9)
    figures = a.summary()["agents"]["strong"]
    assert figures["accuracy"] == 100.0 and figures["blunders"] == 0 and figures["optimal_decisions"] == 1.0


def test_strong_loses_nothing_with_teams_and_columns(cache):
    rules, solution = solved("classic")
    teams = load("classic", teams=2)
    a = analyze(play_records(teams, ["strong"] * 4, games=2, seed=1), teams, solution)
    assert a.exact and (a.loss == 0).all() and set(a.sheet.tolist()) == {0, 1}
    two = load("classic", columns=2)
    a = analyze(play_records(two, ["strong"], games=2, seed=1), two, solution)
    assert not a.exact and a.values == "column-additive" and "column-additive" in a.note
    assert (a.loss == 0).all() and a.optimal == pytest.approx(2 * solution.expected_score)


@pytest.mark.parametrize("spec", ["random", "greedy", "easy", "normal"])
def test_every_other_level_loses_points(spec):
    rules, solution = solved("yacht")
    a = analyze(play_records(rules, [spec, "strong"], games=4, seed=5), rules, solution)
    f = a.summary()["agents"]
    assert f[spec]["loss"] > 0 and f[spec]["accuracy"] < 100 and f["strong"]["loss"] == 0
    assert (a.loss >= 0).all() and f[spec]["loss_per_game"] == pytest.approx(f[spec]["loss"] / 4)
    assert f[spec]["holds"]["loss"] + f[spec]["boxes"]["loss"] == pytest.approx(f[spec]["loss"])
    assert sum(b["loss"] for b in f[spec]["by_box"].values()) == pytest.approx(f[spec]["boxes"]["loss"])
    assert sum(t["loss"] for t in f[spec]["by_turn"]) == pytest.approx(f[spec]["loss"])
    assert sum(h["decisions"] for h in f[spec]["loss_histogram"]) == f[spec]["decisions"]


def test_loss_per_game_estimates_the_score_gap():
    """Points lost add up, in expectation, to the optimum minus the mean score (luck cancels out)."""
    rules, solution = solved("yacht")
    records = play_records(rules, ["greedy"], games=200, seed=11)
    f = analyze(records, rules, solution).summary()["agents"]["greedy"]
    scores = np.array([r["totals"][0] for r in records])
    half = 2.576 * scores.std(ddof=1) / np.sqrt(len(scores))
    assert abs(f["expected_score"] - scores.mean()) < half
    assert f["mean_score"] == pytest.approx(scores.mean())


def _sixes_instead_of_yacht(rules):
    """A game whose first roll is 6 6 6 6 6, scored as sixes (30) instead of yacht (50); strong plays on."""
    game = Game(rules, dice=FirstRollThen(7, [6, 6, 6, 6, 6]), seed=7)
    game.roll()
    game.score("sixes")
    play_game(game, [make_agent("strong")])
    return record_of(game, ["strong"], "sixes")


def test_known_mistake_costs_what_the_table_says():
    rules, solution = solved("yacht")
    record = _sixes_instead_of_yacht(rules)
    game = analyze_game(record, rules, solution)
    first, rest = game["decisions"][0], game["decisions"][1:]
    assert first["dice"] == [6, 6, 6, 6, 6] and first["rolls_left"] == 2
    assert first["played"] == "score sixes" and first["best"] == "score yacht"
    T = rules.tables
    bit = {b: 1 << k for k, b in enumerate(rules.boxes)}
    yacht = 50 + solution.value(bit["yacht"], 0, True)
    sixes = 30 + solution.value(bit["sixes"], 30, False)
    assert first["best_value"] == pytest.approx(yacht, abs=1e-9)
    assert first["played_value"] == pytest.approx(sixes, abs=1e-9)
    assert first["loss"] == pytest.approx(yacht - sixes, abs=1e-9) and first["class"] == "blunder"
    alts = dict(Policy(rules, solution).alternatives(np.full(T.n_boxes, -1), 0, roll_index([6] * 5), 2))
    a_sixes = NUM_HOLDS + rules.boxes.index("sixes")
    assert first["loss"] == pytest.approx(max(alts.values()) - alts[a_sixes], abs=1e-9)
    assert all(d["loss"] == 0 for d in rest)  # strong played the rest
    seat = game["seats"][0]
    assert seat["loss"] == pytest.approx(first["loss"]) and seat["blunders"] == 1
    assert seat["accuracy"] == pytest.approx(100 * (1 - first["loss"] / solution.expected_score))


@pytest.mark.parametrize("name,overrides", [("yacht", {}), ("verhoeff", {}), ("classic", {"rolls_per_turn": 2})])
def test_values_agree_with_policy_alternatives(name, overrides):
    rules, solution = solved(name, **overrides)
    records = play_records(rules, ["random", "easy"], games=2, seed=2)
    a = analyze(records, rules, solution)
    policy = Policy(rules, solution)
    rng = np.random.default_rng(0)
    for d in rng.choice(len(a.loss), size=60, replace=False):
        rec = records[a.rec[d]]
        scores = np.full((1, len(rules.boxes)), -1)
        upper = banked = 0
        for e in rec["log"][:a.move[d]]:   # the seat's sheet before the decision
            if "box" in e and e["seat"] == a.seat[d]:
                b = rules.boxes.index(e["box"])
                scores[0, b] = e["points"]
                upper += e["points"] if rules.tables.box_face[b] else 0
                banked += e["points"] + e["bonus"]
        alts = dict(policy.alternatives(scores, upper, int(a.roll[d]), int(a.left[d])))
        assert a.best_value[d] - banked == pytest.approx(max(alts.values()), abs=1e-9)
        played, best = (int(x) if x >= NUM_HOLDS else hold_of(int(a.roll[d]), int(HOLD_KEEP[a.roll[d], x]))
                        for x in (a.played[d], a.best[d]))   # holds as alternatives lists them
        assert a.played_value[d] - banked == pytest.approx(alts[played], abs=1e-9)
        assert a.loss[d] == pytest.approx(max(alts.values()) - alts[played], abs=1e-9)
        assert alts[best] == pytest.approx(max(alts.values()), abs=1e-9)   # the best move named is a best move


def test_banked_points_make_values_final_scores():
    rules, solution = solved("classic")
    [record] = play_records(rules, ["greedy"], games=1, seed=4)
    a = analyze([record], rules, solution)
    last = int(np.argmax(a.move))
    assert a.left[last] >= 0 and a.best_value[last] >= a.played_value[last]
    assert a.played_value[last] == pytest.approx(record["totals"][0])  # the last move's value is the final score


def test_classes_and_names():
    assert [classify(x) for x in (0, INACCURACY - 1e-6, INACCURACY, MISTAKE, BLUNDER, 80)] == \
        ["", "", "inaccuracy", "mistake", "blunder", "blunder"]
    rules = load("yacht")
    r = roll_index([1, 3, 3, 5, 6])
    assert action_name(rules, 0b00110, r) == "hold 3 3" and action_name(rules, 0, r) == "re-roll all"
    assert action_name(rules, 0b00110) == "hold 1,2" and action_name(rules, 0) == "roll all"
    assert action_name(rules, NUM_HOLDS + 12, r) == "score chance"
    assert action_name(load("yacht", columns=2), NUM_HOLDS + 13, r) == "score ones@2"


def test_forfeited_games_are_left_out_of_the_seats_figures():
    rules, solution = solved("yacht")
    records = play_records(rules, ["random", "strong"], games=2, seed=8)
    records[0]["faults"] = [{"error": "RuntimeError: boom", "move": 10}, None]
    a = analyze(records, rules, solution)
    assert set(zip(a.rec[~a.own].tolist(), a.seat[~a.own].tolist())) == {(0, 0)}
    doc = a.summary()
    assert doc["forfeited_decisions"] == int(((a.rec == 0) & (a.seat == 0)).sum())
    f = doc["agents"]["random"]
    assert f["games"] == 1 and f["forfeits"] == 1 and f["decisions"] == int(((a.rec == 1) & (a.seat == 0)).sum())
    assert f["loss"] == pytest.approx(a.loss[(a.rec == 1) & (a.seat == 0)].sum())
    assert doc["agents"]["strong"]["games"] == 2 and doc["agents"]["strong"]["forfeits"] == 0


def test_worst_moves_are_the_costliest_with_their_positions():
    rules, solution = solved("yacht")
    records = play_records(rules, ["random", "normal"], games=3, seed=9)
    a = analyze(records, rules, solution)
    worst = a.summary(worst=5)["worst"]
    assert [w["loss"] for w in worst] == sorted(a.loss[a.own], reverse=True)[:5]
    w = worst[0]
    assert set(w) >= {"game", "line", "seat", "agent", "turn", "dice", "rolls_left", "filled", "played", "best",
                      "played_value", "best_value", "loss", "class"}
    assert w["best_value"] - w["played_value"] == pytest.approx(w["loss"])
    assert len(w["filled"]) == w["turn"] - 1  # the seat's boxes filled before that turn
    assert a.summary(agent="normal", worst=3)["agents"].keys() == {"normal"}
    with pytest.raises(AnalysisError, match="no agent 'nobody' in these games; agents: random, normal"):
        a.summary(agent="nobody")


def _mutations(record):
    """Records one change away from `record`: some legal-looking, most impossible."""
    log = record["log"]
    rolls = [j for j, e in enumerate(log) if "dice" in e]
    scores = [j for j, e in enumerate(log) if "box" in e]
    rng = np.random.default_rng(1)
    for _ in range(60):
        r = copy.deepcopy(record)
        kind = rng.integers(9)
        j = int(rng.choice(rolls if kind < 4 else scores))
        e = r["log"][j]
        if kind == 0:
            e["hold"] = int(rng.integers(-1, 33))
        elif kind == 1:
            e["dice"][int(rng.integers(5))] = int(rng.integers(0, 8))
        elif kind == 2:
            e["dice"] = sorted(int(x) for x in rng.integers(1, 7, size=5))
        elif kind == 3:
            e["seat"] = int(rng.integers(0, 3))
        elif kind == 4:
            e["points"] += int(rng.choice([-1, 1, 25]))
        elif kind == 5:
            e["box"] = str(rng.choice(["yacht", "chance", "ones", "large_straight"]))
            e["points"] = int(rng.choice([0, 50, 25, 3]))
        elif kind == 6:
            e["bonus"] = int(rng.choice([0, 35, 100]))
        elif kind == 7:
            del r["log"][j]
        else:
            r["log"].insert(j, copy.deepcopy(r["log"][j - 1]))
        yield r


@pytest.mark.parametrize("name", ["yacht", "kirakuken", "verhoeff"])
def test_legality_check_agrees_with_the_game(name):
    rules, solution = solved(name)
    base = play_records(rules, ["random", "greedy"], games=2, seed=6)
    assert all(legal_by_game(r, rules) for r in base)
    verdicts = []
    for rec in base:
        for r in _mutations(rec):
            try:
                analyze([r], rules, solution)
                ours = True
            except AnalysisError:
                ours = False
            assert ours == legal_by_game(r, rules), r
            verdicts.append(ours)
    assert verdicts.count(False) > 50  # the mutations do break records


@pytest.mark.parametrize("change,message", [
    (lambda r: r["log"].__setitem__(1, {**r["log"][1], "points": 99}), "the points differ"),
    (lambda r: r["log"].__setitem__(0, {**r["log"][0], "hold": 3}), "the first roll of a turn rolls all five dice"),
    (lambda r: r["log"].__setitem__(0, {**r["log"][0], "dice": [6, 5, 4, 3, 2]}), "must be listed sorted"),
    (lambda r: r["log"].__setitem__(0, {**r["log"][0], "seat": 1}), "the first move is not by a seat of the game"),
    (lambda r: r["log"].pop(), "the log ends before the game does"),
    (lambda r: r["log"].append(dict(r["log"][0])), "a move after the game is over"),
    (lambda r: r["log"].__setitem__(1, {**r["log"][1], "box": "bogus"}), "no box 'bogus' in these rules"),
    (lambda r: r["log"].__setitem__(0, {**r["log"][0], "hold": True}), "hold must be a whole number"),
    (lambda r: r["log"].__setitem__(0, {**r["log"][0], "hold": float("nan")}), "hold must be a whole number"),
    (lambda r: r["log"].__setitem__(0, {**r["log"][0], "seat": 2 ** 70}), "a number out of range"),
    (lambda r: r["log"].__setitem__(0, {**r["log"][0], "dice": "12345"}), "dice must be a list of five"),
    (lambda r: r["log"].__setitem__(0, {**r["log"][0], "extra": 1}), "a move is a roll"),
    (lambda r: r["log"].__setitem__(0, [1, 2]), "a move must be a JSON object"),
    (lambda r: r.__setitem__("totals", [1]), "totals [1] are not what its log gives"),
    (lambda r: r.__setitem__("sheet_of", [1]), "sheet_of [1] is not how rules"),
    (lambda r: r.__setitem__("agents", ["a"] * 9), "1 to 8 agent names"),
    (lambda r: r.__setitem__("faults", "boom"), "faults must be a list"),
    (lambda r: r.__setitem__("key", ["x"]), "key must be a string"),
])
def test_bad_records_are_named(change, message):
    rules, solution = solved("classic", rolls_per_turn=1)
    [record] = play_records(rules, ["greedy"], games=1, seed=2)
    record["key"] = "k1"
    change(record)
    with pytest.raises(AnalysisError, match="record 0") as err:
        analyze([record], rules, solution)
    assert message in str(err.value)


def test_records_that_are_not_records(cache):
    rules, solution = solved("classic", rolls_per_turn=1)
    for bad in (5, None, [], {"agents": "ab", "log": []}, {"agents": [], "log": []}, {"agents": [1], "log": []}):
        with pytest.raises(AnalysisError, match=r"record 0: a record needs 'agents' \(1 to 8 agent names\)"):
            analyze([bad], rules, solution)
    with pytest.raises(AnalysisError, match="3 seats do not fit: 3 players cannot split into 2 teams"):
        analyze([{"agents": ["a"] * 3, "log": []}], load("classic", teams=2), solution)


def test_cyclic_record_is_refused_cleanly():
    rules, solution = solved("classic", rolls_per_turn=1)
    [record] = play_records(rules, ["greedy"], games=1, seed=2)
    record["log"][0]["dice"] = record["log"]
    with pytest.raises(AnalysisError, match="dice must be a list of five whole numbers"):
        analyze([record], rules, solution)


def test_no_records_and_unsolvable_rules(tmp_path):
    rules, solution = solved("classic")
    with pytest.raises(AnalysisError, match="no games to analyse"):
        analyze([], rules, solution)
    with pytest.raises(AnalysisError, match="rules 'wide' cannot be analysed: .*" + PAST_MEMORY):
        analyze([{"agents": ["a"], "log": []}], load(past_memory("wide")))
