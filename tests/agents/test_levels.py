"""The strength dial (agents.dial.DialAgent, Policy.move_values / pick_moves), its targets and calibration,
the kept settings, and every bad input as a clear message."""
import json
import math

import numpy as np
import pytest
from tests.five_dice import five_dice_presets
from tests.solver_tables import PAST_MEMORY, past_memory, past_memory_file, solved, temp_cache

import agents.calibration as calibration
import agents.levels as levels
import agents.targets as targets
from agents.analysis import analyze
from agents.base import play_game
from agents.dial import DialAgent, LossMeter, temperature
from agents.evaluation import solitaire
from agents.level_settings import protocol, read_settings, settings_path, shipped_settings
from agents.levels import LevelAgent, calibrate, level, setting
from agents.stats import mean_ci
from agents.targets import Target
from agents.registry import make_agent
from agents.strong import StrongAgent
from yacht_arena.cli import main
from yacht_env.core.actions import NUM_HOLDS
from yacht_env.core.dice_source import game_seeds
from yacht_env.core.engine import State
from yacht_env.core.game import Game
from yacht_env.core.lockstep import play
from yacht_env.rules import load
from yacht_env.solver.dial import pick_moves
from yacht_env.solver.plans import FIRST_HOLD
from yacht_env.solver.policy import Policy
from yacht_env.core.view import BatchView
from yacht_env.solver import cache_dir

SETTINGS = [round(0.1 * k, 1) for k in range(11)]


@pytest.fixture(autouse=True)
def cache():
    with temp_cache() as d:
        yield d


def test_temperature_falls_from_infinity_to_zero():
    temps = [temperature(s) for s in SETTINGS]
    assert temps[0] == math.inf and temps[-1] == 0.0
    assert all(a > b for a, b in zip(temps, temps[1:]))


def test_strength_one_plays_the_strong_agent():
    rules, _ = solved("yacht")
    assert isinstance(make_agent("strong?strength=1"), StrongAgent)
    dial = solitaire(DialAgent(1.0), rules, 30, seed=3, progress=False, logs=True)
    strong = solitaire(make_agent("strong"), rules, 30, seed=3, progress=False, logs=True)
    assert dial["logs"] == strong["logs"]


def decisions(rules, spec="random", tables=40, seed=1):
    """BatchViews at every decision of `tables` games of `spec` (copies of the state at each pass)."""
    state = State(rules, tables, 1)
    state.reset(game_seeds(seed, last=np.arange(tables)))
    agent = make_agent(spec)
    agent.prepare(rules, 1)
    seen = []

    class Watch:
        def act_batch(self, view):
            seen.append(BatchView(_copy(view.state), view.rows))
            return agent.act_batch(view)
    play(state, [Watch()])
    return seen


def _copy(state):
    out = State(state.rules, state.num_tables, state.num_players)
    for k, v in vars(state).items():
        setattr(out, k, v.copy() if isinstance(v, np.ndarray) else v)
    return out


@pytest.mark.parametrize("name,overrides", [("yacht", {}), ("kirakuken", {}), ("classic", {"rolls_per_turn": 2}),
                                            ("yacht", {"columns": 2}), ("yacht", {"rolls_per_turn": 1})])
def test_move_values_are_the_values_of_the_legal_moves(name, overrides):
    """Every legal action valued, nothing else: as `Policy.alternatives` (one game at a time) has them."""
    rules = load(name, **overrides)
    _, solution = solved(name, **{k: v for k, v in overrides.items() if k != "columns"})
    policy = Policy(rules, solution)
    for view in decisions(rules)[::5]:
        keys = policy.state_keys(view.own_filled, view.own_upper, view.own_yacht50)
        values = policy.move_values(keys, view.roll, view.rolls_left)
        assert np.array_equal(np.isfinite(values), view.mask == 1)
        j = 0
        alts = dict(policy.alternatives(view.own_scores[j], view.own_upper[j], int(view.roll[j]),
                                        int(view.rolls_left[j])))
        for a, v in alts.items():
            assert values[j, a] == pytest.approx(v, abs=1e-9)


def test_the_dial_loses_what_the_analysis_says():
    """The points a dial agent's decisions lose (its LossMeter) are the analysis' figures for its games."""
    rules, solution = solved("yacht")
    agent = DialAgent(0.6)
    agent.meter = LossMeter()
    run = solitaire(agent, rules, 20, seed=8, progress=False, logs=True)
    lost = agent.meter.per_game(game_seeds(8, last=np.arange(20)))
    a = analyze([{"agents": ["dial"], "log": log} for log in run["logs"]], rules, solution)
    per_game = np.bincount(a.rec, weights=a.loss, minlength=20)
    assert np.allclose(lost, per_game, atol=1e-6) and lost.sum() > 0


def test_the_dial_is_monotone_in_expected_score():
    """11 settings on common dice: each mean is at least the one below, up to 3 standard errors of the paired
    difference (10 one-sided comparisons at 3 SE: a false alarm under equal means has probability <= 1.4%).
    The same holds, with ~4x smaller errors, for the expected score the losses give (optimum - points lost
    per game: the same expectation without the luck of the dice)."""
    rules, solution = solved("yacht")
    games = 600
    seeds = game_seeds(21, last=np.arange(games))
    scores, expected = [], []
    for s in SETTINGS:
        agent = DialAgent(s)
        agent.meter = LossMeter()
        scores.append(solitaire(agent, rules, games, seed=21, progress=False)["totals"].astype(float))
        expected.append(solution.expected_score - agent.meter.per_game(seeds))
    for series in (scores, expected):
        for lo, hi in zip(series, series[1:]):
            d = hi - lo
            assert d.mean() > -3 * d.std(ddof=1) / math.sqrt(games)
    means = [x.mean() for x in expected]
    assert means[0] < 60 and means[-1] == pytest.approx(solution.expected_score) and means == sorted(means)


def test_a_higher_temperature_never_picks_a_better_move():
    """For a fixed uniform number the rank of the move drawn only falls as the temperature rises."""
    rng = np.random.default_rng(0)
    n = 400
    values = rng.normal(0, 5, (n, 44))
    values[rng.random((n, 44)) < 0.3] = -np.inf
    values[:, 31] = 0.0      # one legal box at least
    rolls = rng.integers(0, 252, n)
    u = rng.random(n)
    moves = np.isfinite(values)                     # the distinct legal moves: holds once per keep
    moves[:, :NUM_HOLDS] &= FIRST_HOLD[rolls]
    best = np.where(moves, values, -np.inf).max(axis=1)
    ranks = []
    for t in (0.01, 0.3, 1, 3, 10, math.inf):
        actions, losses = np.empty(n, np.int64), np.empty(n)
        pick_moves(values, rolls, t, u, FIRST_HOLD, actions, losses)
        assert moves[np.arange(n), actions].all()
        assert np.allclose(losses, best - values[np.arange(n), actions])
        ranks.append(losses)
    for lo, hi in zip(ranks, ranks[1:]):
        assert (hi >= lo - 1e-12).all()


@pytest.mark.parametrize("strength", [0.56, 0.76])
def test_mistakes_are_cheap_often_and_costly_rarely(strength):
    """The moves the dial plays, by what they lose, against what a uniform choice among the same decisions'
    distinct moves would play (lift 1 everywhere): the lift falls with the cost of the move, from above 1
    for the best move to far below 1 for moves that lose 5 points or more."""
    rules, solution = solved("yacht")
    policy = Policy(rules, solution)
    agent = DialAgent(strength)
    bins = np.array([0.0, 1e-9, 0.5, 2.0, 5.0, np.inf])     # the best move, then mistakes by cost
    uniform, chosen = np.zeros(5), np.zeros(5)
    for view in decisions(rules, f"strong?strength={strength}", tables=60, seed=4):
        keys = policy.state_keys(view.own_filled, view.own_upper, view.own_yacht50)
        values = policy.move_values(keys, view.roll, view.rolls_left)
        moves = np.isfinite(values)
        moves[:, :NUM_HOLDS] &= FIRST_HOLD[view.roll]
        loss = values.max(axis=1, keepdims=True) - values
        share = np.broadcast_to(1 / moves.sum(axis=1, keepdims=True), loss.shape)
        uniform += np.histogram(loss[moves], bins, weights=share[moves])[0]
        a = agent.act_batch(view)
        chosen += np.histogram(loss[np.arange(len(a)), a], bins)[0]
    lift = chosen / uniform
    assert all(a > b for a, b in zip(lift, lift[1:])), lift
    assert lift[0] > 1 > lift[-1] and lift[-1] < lift[1] / 3


@pytest.mark.slow
def test_calibration_hits_a_target_mean_on_fresh_dice():
    """Small runs: mean=200 under yacht and mean=100 under classic with two rolls, found on 1000 games; on
    2000 other games the expected score (optimum - points lost) is within 2 points, and the mean score's 95%
    interval reaches within 2 points of the target."""
    for (name, overrides), target in [(("yacht", {}), 200.0), (("classic", {"rolls_per_turn": 2}), 100.0)]:
        rules, solution = solved(name, **overrides)
        cal = calibrate(rules, Target("mean", target), games=1000)
        assert abs(cal.measured - target) <= calibration.TOLERANCE["mean"] and cal.ci95[0] < cal.measured < cal.ci95[1]
        agent = DialAgent(cal.strength)
        agent.meter = LossMeter()
        run = solitaire(agent, rules, 2000, seed=77, progress=False)
        expected = solution.expected_score - agent.meter.per_game(game_seeds(77, last=np.arange(2000))).mean()
        mean, (lo, hi), _ = mean_ci(run["totals"])
        assert abs(expected - target) <= 2.0
        assert lo - 2 <= target <= hi + 2


@pytest.mark.slow
def test_calibration_of_a_win_rate_and_a_percentage():
    rules, solution = solved("classic", rolls_per_turn=2)
    cal = calibrate(rules, Target("win", 0.3), deals=300)
    assert abs(cal.measured - 0.3) < 0.02 and cal.games == 600 and 0 < cal.strength < 1
    assert cal.runs[0] == [0.0, pytest.approx(cal.runs[0][1])] and cal.runs[1] == [1.0, 0.5]
    pct = calibrate(rules, Target("pct", 80), games=500)
    assert abs(pct.measured - 80) <= calibration.TOLERANCE["pct"] and pct.estimate.startswith("optimum")


def test_settings_are_kept_per_rule_set_and_rebuilt_when_damaged(cache, monkeypatch):
    rules, _ = solved("classic", rolls_per_turn=2)
    target = Target("pct", 75)
    found = setting(rules, target, progress=False)
    path = settings_path(rules)
    doc = json.loads(path.read_text())
    assert path.parent == cache_dir() and doc["rules_hash"] in path.name
    assert protocol(target) in doc["settings"]
    levels._FOUND.clear()
    monkeypatch.setattr(levels, "calibrate", lambda *a, **k: pytest.fail("a kept setting was calibrated again"))
    assert setting(rules, target).strength == found.strength                # read back, not found again
    assert setting(load("classic", rolls_per_turn=2, teams=2), target).strength == found.strength  # teams: same game
    monkeypatch.undo()
    for damage in ["{not json", "[]", json.dumps({**doc, "settings": {protocol(target): {"strength": "x"}}}),
                   json.dumps({**doc, "settings": {protocol(target): {**doc["settings"][protocol(target)],
                                                                            "strength": float("nan")}}}),
                   json.dumps({**doc, "rules_hash": "0" * 16}), "\x00\xff"]:
        path.write_text(damage)
        levels._FOUND.clear()
        assert read_settings(rules).get(protocol(target)) is None
        assert setting(rules, target).strength == found.strength              # found again, the same
        assert json.loads(path.read_text())["settings"][protocol(target)]["strength"] == found.strength


def test_an_unwritable_cache_folder_costs_a_warning(tmp_path, monkeypatch, capsys):
    rules, _ = solved("classic", rolls_per_turn=2)
    monkeypatch.setattr(levels, "write_settings", lambda *a: False)
    levels._FOUND.clear()
    cal = setting(rules, Target("pct", 70), progress=False)
    assert 0 < cal.strength < 1 and "cannot keep the dial setting for pct=70" in capsys.readouterr().err


def test_named_levels_are_dial_agents_that_find_their_strength():
    rules, _ = solved("yacht")
    normal, easy = level("normal", rules), make_agent("easy")
    assert isinstance(normal, LevelAgent) and normal.name == "normal" and easy.name == "easy"
    s_normal, s_easy = normal.strength_for(rules), easy.strength_for(rules)
    assert 0 < s_easy < s_normal < 1
    key = protocol(targets.level_target("normal"))
    kept = read_settings(rules).get(key) or shipped_settings(rules).get(key)   # found and kept, or shipped
    assert kept.strength == s_normal
    g = play_game(Game(rules, 2, seed=5), [easy, normal])
    assert g.is_over


@pytest.mark.parametrize("make, message", [
    (lambda: DialAgent(float("nan")), r"strength must be in \[0, 1\]"),
    (lambda: DialAgent(1.5), r"strength must be in \[0, 1\]"),
    (lambda: DialAgent("strong"), "strength must be a number"),
    (lambda: Target("win", float("nan")), "must be a finite number"),
    (lambda: Target("win", 0.7), r"a win rate against strong is in \(0, 0.5\]"),
    (lambda: Target("win", 0.0), r"in \(0, 0.5\]"),
    (lambda: Target("win", 0.3, "hard"), "not 'hard'"),
    (lambda: Target("pct", 101), r"in \(0, 100\]"),
    (lambda: Target("mean", -3), "above 0"),
    (lambda: Target("mean", math.inf), "finite"),
    (lambda: Target("elo", 1500), "unknown target 'elo'"),
    (lambda: Target.parse("pct"), "a target is KIND=VALUE"),
    (lambda: Target.parse("pct=high"), "'high' is not a number"),
    (lambda: level("hard"), "unknown level 'hard'; levels: normal, easy"),
])
def test_bad_input_is_refused_clearly(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_unreachable_targets_and_unsolvable_rules():
    rules, _ = solved("yacht", rolls_per_turn=1)
    with pytest.raises(ValueError, match="target mean=200 is above the optimal expected score .*127.5"):
        calibrate(rules, Target("mean", 200))
    with pytest.raises(ValueError, match=r"target mean=5 is out of the dial's reach .*strengths 0 \.\. 1 give"):
        calibrate(rules, Target("mean", 5), games=200)
    with pytest.raises(ValueError, match="the strength dial and the levels need the solver's table: .*" + PAST_MEMORY):
        level("normal", load(past_memory()))


@pytest.mark.parametrize("argv, message", [
    (["--calibrate", "hard"], "--calibrate hard: unknown level 'hard'"),
    (["--calibrate", "win=0.7"], "--calibrate win=0.7: target win=0.7: a win rate against strong is in (0, 0.5]"),
    (["--calibrate", "pct=nan"], "--calibrate pct=nan: target pct= must be a finite number"),
    (["--calibrate", "mean=1e9"], "target mean=1e+09 is above the optimal expected score"),
    (["--calibrate", "elo=1500"], "unknown target 'elo'"),
    (["--calibrate", "normal", "--only", "random", "strong"], "--calibrate takes targets, not --only/--agent"),
])
def test_levels_command_errors(argv, message, capsys):
    assert main(["levels", "--no-progress", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_levels_command_refuses_rules_out_of_the_solvers_reach(tmp_path, capsys):
    wide = past_memory_file(tmp_path, "wide")
    for argv, message in ((["--calibrate"], "rules 'wide': the strength dial and the levels need the solver's table"),
                          ([], "agent 'easy' cannot play rules 'wide' at 1 seat: it plays from the exact solver's")):
        assert main(["levels", "--rules", str(wide), "--games", "2", "--no-progress", *argv]) == 2
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1


@pytest.mark.slow
def test_levels_calibrate_json(capsys, tmp_path):
    argv = ["levels", "--rules", "classic", "--set", "rolls_per_turn=2", "--calibrate", "pct=85", "normal",
            "--games", "200", "--json", "--out", str(tmp_path)]
    assert main(argv) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["rules"]["name"] == "classic" and doc["rules"]["set"] == {"rolls_per_turn": 2}
    assert list(doc["settings"]) == ["pct=85", "normal"]
    pct = doc["settings"]["pct=85"]
    assert abs(pct["measured"] - 85) <= 0.1 and pct["check"]["kind"] == "pct" and pct["check"]["games"] == 200
    assert doc["settings"]["normal"]["check"]["kind"] == "win"
    assert doc["settings_file"].endswith(".json") and str(tmp_path / "calibration.json") in doc["files"]
    assert main(argv[:-3] + ["--games", "200"]) == 0          # text; the settings are kept by now
    out = capsys.readouterr().out
    assert "pct=85" in out and "check:" in out and "wrote no files" in out


def test_levels_under_team_rules_measure_own_sheets(capsys):
    argv = ["levels", "--set", "teams=3", "--only", "random", "greedy", "--games", "4", "--json", "--no-progress"]
    assert main(argv) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["rules"]["set"] == {"teams": 3} and "every seat on its own sheet" in doc["note"]
    assert doc["agents"]["greedy"]["mean"] > doc["agents"]["random"]["mean"]


@pytest.mark.parametrize("dense", [True, False])
def test_kept_state_rows_stay_right_and_bounded(dense):
    """StateRows (the plans' and the stage values' cache): every row handed out holds its state's entry,
    at most max_rows are kept, and a call bigger than that still gets all its rows."""
    from yacht_env.solver.state_rows import StateRows

    def fill(keys, out, first):
        out[first:first + len(keys), 0] = keys.sum(axis=1) * 10 + keys[:, 0]
    columns = 1 if dense else 2
    cache = StateRows(100, dense, (1,), np.int64, 16, fill)
    rng = np.random.default_rng(3)
    biggest = 0
    for size in [*rng.integers(1, 30, 200).tolist(), 40, 5, 60, 3]:
        keys = rng.integers(0, 100 if dense else 10, (size, columns))
        rows = cache.rows(keys)
        assert (cache.data[rows, 0] == keys.sum(axis=1) * 10 + keys[:, 0]).all()
        biggest = max(biggest, len(np.unique(keys, axis=0)))
        assert cache.count <= max(16, biggest) and len(set(rows.tolist())) == len(np.unique(keys, axis=0))
    assert biggest > 16 and len(cache.data) == biggest


# ---- the calibrations shipped for the presets (agents/calibrations/, scripts/ship_data.py) ------------

@pytest.mark.parametrize("name", five_dice_presets())
def test_every_preset_ships_its_levels_under_the_current_protocol(name):
    """A change to the dial, the solver version, the calibration's seed or budget, or a preset's rules makes
    the shipped file stale: rerun `python scripts/ship_data.py NAME`."""
    rules = load(name)
    shipped = shipped_settings(rules)
    assert set(shipped) == {protocol(targets.level_target(n)) for n in targets.LEVELS}, \
        f"stale shipped calibrations for {name}: python scripts/ship_data.py {name}"
    strengths = {n: shipped[protocol(targets.level_target(n))].strength for n in targets.LEVELS}
    assert 0 < strengths["easy"] < strengths["normal"] < 1


def test_a_first_run_reads_the_shipped_levels_and_calibrates_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("YACHT_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(levels, "_FOUND", {})
    monkeypatch.setattr(levels, "calibrate", lambda *a, **k: pytest.fail("a shipped setting was calibrated again"))
    rules = load("yacht")
    assert level("easy", rules).strength_for(rules) == \
        shipped_settings(rules)[protocol(targets.level_target("easy"))].strength
    assert list(tmp_path.iterdir()) == []          # nothing to keep: the package holds it


@pytest.mark.slow
def test_the_shipped_levels_are_what_the_code_finds(tmp_path, monkeypatch):
    """Calibrated from scratch as scripts/ship_data.py does (knizia: the cheapest preset), the settings are
    the shipped ones, figure for figure."""
    monkeypatch.setenv("YACHT_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(levels, "_FOUND", {})
    rules = load("knizia")
    shipped = shipped_settings(rules)
    monkeypatch.setattr(levels, "shipped_settings", lambda rules: {})
    found, _ = levels.settings_with(rules, [(n, targets.level_target(n)) for n in targets.LEVELS], progress=False)
    assert {protocol(targets.level_target(n)): c for n, c in found.items()} == shipped
