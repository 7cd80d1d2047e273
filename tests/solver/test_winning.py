"""Playing to win: the score distributions of optimal play, and `strong?goal=win` / `goal=target`.

Distributions: their mean and spread are the solver's value and standard deviation, and their
probabilities are what simulated games of optimal play give. The win curve counts ties as the rules
share them. The win agent plays the same games batched and one game at a time (every small preset, a
small rule set with the upper bonus, extra-Yacht bonus and joker, and the knobs rolls_per_turn, teams,
tiebreak; the full 13-box presets in the slow set), refuses what it cannot play with one message, and
plays in the environments as an opponent.
"""
import json

import numpy as np
import pytest
from tests.solver_tables import solve_once, temp_cache
from tests.same_games import assert_same, both_ways
from tests.mini_rules import MINI

from agents.registry import AgentSpecError, make_agent
from yacht_env.core.dice_source import game_seeds
from yacht_env.rules import load
from yacht_env.solver import distributions_for
from yacht_env.solver.distribution import Pmfs, summary
from yacht_env.solver.simulate import simulate
from agents import strong
from yacht_env.solver.winning import ChanceCurve, OwnFutures, chance_after, curve_at, win_curve


@pytest.fixture(autouse=True)
def cache():
    with temp_cache():
        yield


@pytest.fixture(scope="module")
def mini(tmp_path_factory):
    path = tmp_path_factory.mktemp("rules") / "mini.yaml"
    path.write_text(MINI)
    return load(str(path))


def dist_of(rules):
    solution = solve_once(load(rules, columns=1) if rules.columns > 1 else rules)
    return solution, distributions_for(rules, progress=False)


def assert_percentiles_agree(percentiles, scores):
    """Each percentile v (q%) of a distribution is one of the games': fewer than q% of them score below v
    and at least q% score v or less, within 4 standard errors of a proportion (where the density is thin,
    a tail percentile may move several points with the sampling)."""
    n = len(scores)
    for q, v in percentiles.items():
        f = float(q) / 100
        tol = 4 * np.sqrt(f * (1 - f) / n)
        assert (scores < v).mean() <= f + tol and (scores <= v).mean() >= f - tol, (q, v)


@pytest.mark.parametrize("name", ["classic", "cheerio", "knizia", "mini"])
def test_distribution_mean_and_sd_are_the_solvers(name, mini):
    rules = mini if name == "mini" else load(name)
    solution, dist = dist_of(rules)
    lo, p = dist.pmf(0)
    s = summary(lo, p)
    assert abs(s["mean"] - solution.expected_score) < 1e-4
    assert abs(s["std"] - solution.std) < 1e-4
    assert abs(s["mass"] - 1.0) < 1e-5 and dist.lost[0] < 1e-8
    # every reachable state's mean is its value
    for state in np.flatnonzero(dist.offset >= 0)[::97]:
        lo, p = dist.pmf(int(state))
        assert abs((p * (lo + np.arange(len(p)))).sum() - solution.values[state]) < 1e-3


def test_distribution_is_what_simulated_games_score(mini):
    solution, dist = dist_of(mini)
    lo, p = dist.pmf(0)
    scores = simulate(mini, solution, game_seeds(5, last=np.arange(40_000))).astype(np.int64)
    freq = np.bincount(scores - lo, minlength=len(p))[:len(p)] / len(scores)
    assert len(scores[scores < lo]) == 0 and len(scores[scores >= lo + len(p)]) == 0
    # Kolmogorov-Smirnov: the CDFs differ by less than the 99.9% bound for 40,000 games
    assert np.abs(np.cumsum(freq) - np.cumsum(p)).max() < 1.95 / np.sqrt(len(scores))
    assert_percentiles_agree(summary(lo, p)["percentiles"], scores)


@pytest.mark.slow
def test_yacht_percentiles_agree_with_a_million_games():
    rules = load("yacht")
    solution, dist = dist_of(rules)
    lo, p = dist.pmf(0)
    scores = simulate(rules, solution, game_seeds(20, last=np.arange(1_000_000))).astype(np.int64)
    cdf = np.cumsum(p)
    emp = np.cumsum(np.bincount(scores - lo, minlength=len(p))[:len(p)]) / len(scores)
    assert np.abs(emp - cdf).max() < 1.95 / np.sqrt(len(scores))
    assert_percentiles_agree(summary(lo, p)["percentiles"], scores)


def test_the_lane_build_is_the_one_state_build(mini):
    # the build runs the solver's lane widget on up to 8 upper totals at once: the same figures to the bit
    from yacht_env.solver.distribution import build
    from yacht_env.solver.lanes import LANES
    solution = solve_once(mini)
    a = build(mini, solution)
    for min_lanes in (1, LANES + 1):          # every group through the lanes; every state one at a time
        b = build(mini, solution, min_lanes=min_lanes)
        for k in ("offset", "length", "lo", "lost", "data"):
            assert np.array_equal(getattr(a, k), getattr(b, k)), (min_lanes, k)


def test_risk_distributions_are_the_risk_policys(mini):
    # the exponential-utility policy's distributions (`risk`): log E[exp(risk X)] / risk of every state's pmf is
    # the certainty equivalent its solve gives (the build follows that policy), and a vanishing risk is the
    # points policy (its values, its distributions)
    from yacht_env.solver.distribution import build
    from yacht_env.solver.risk import risk_values
    solution, points = dist_of(mini)
    for risk in (0.02, 0.05):
        U = risk_values(mini, solution.space, risk)
        d = build(mini, solution, risk=risk)
        states = np.flatnonzero(d.offset >= 0)
        assert (d.lost[states] < 1e-8).all()
        for state in states[::53]:
            lo, p = d.pmf(int(state))
            x = lo + np.arange(len(p))
            m = x[p > 0].max()
            ce = m + np.log((p * np.exp(risk * (x - m))).sum() / p.sum()) / risk
            assert abs(ce - U[state]) < 1e-3, (risk, state)
        lo, p = d.pmf(0)
        plo, pp = points.pmf(0)
        s, sp = summary(lo, p), summary(plo, pp)
        assert s["mean"] < sp["mean"] and s["std"] > sp["std"]          # it gives up points for spread
    assert np.abs(risk_values(mini, solution.space, 1e-7) - solution.values).max() < 1e-3
    s = summary(*build(mini, solution, risk=1e-9).pmf(0))
    assert abs(s["mean"] - solution.expected_score) < 1e-4 and abs(s["std"] - solution.std) < 1e-4
    with pytest.raises(ValueError, match="risk must be a number from 1e-09 to 1, got 0.0"):
        risk_values(mini, solution.space, 0.0)


def test_distributions_are_loaded_from_the_cache(mini):
    # the points distributions and each risk's are kept apart in the cache and read back as built
    from yacht_env.solver.cache import load_distributions
    dist_of(mini)
    for risk in (0.0, 0.03):
        built = distributions_for(mini, progress=False, risk=risk)
        found = load_distributions(mini, risk)
        assert found is not None and isinstance(found.data, np.memmap)
        for k in ("offset", "length", "lo", "lost", "data"):
            assert np.array_equal(getattr(found, k), getattr(built, k)), (risk, k)
    assert not np.array_equal(load_distributions(mini, 0.03).lo, load_distributions(mini).lo)
    assert load_distributions(mini, 0.07) is None
    # pmfs stored in another order (the longest not last, as under `yacht`): still read back (the same pmfs)
    import dataclasses
    from yacht_env.solver.cache import save_distributions
    d = distributions_for(mini, progress=False)
    states = np.flatnonzero(d.offset >= 0)
    states = states[np.argsort(-d.length[states], kind="stable")]          # the longest first
    offset = np.full_like(d.offset, -1)
    offset[states] = np.r_[0, np.cumsum(d.length[states].astype(np.int64))[:-1]]
    data = np.concatenate([d.data[d.offset[s]:d.offset[s] + d.length[s]] for s in states])
    save_distributions(dataclasses.replace(d, offset=offset, data=data), mini)
    found = load_distributions(mini)
    assert found is not None and np.array_equal(found.offset, offset) and np.array_equal(found.data, data)


def test_curve_between_whole_scores():
    G = np.array([0.25, 0.5, 0.75])            # scores 100, 101, 102; 0 below, 1 above
    for y, g in [(98.0, 0.0), (99.5, 0.125), (100.0, 0.25), (100.5, 0.375), (102.5, 0.875), (103.0, 1.0),
                 (140.2, 1.0)]:
        assert curve_at(G, 100, 3, y) == pytest.approx(g)


def test_win_curve_shares_ties():
    # three sheets: two finished (totals 100 and 100), the curve for sheet 0
    lo = np.zeros(1, np.int32)
    length = np.ones(1, np.int32)
    offset = np.zeros(1, np.int64)
    data = np.ones(1, np.float32)
    G = np.empty(8)
    H = np.empty((2, 8))
    glo, n = win_curve(lo, length, offset, data, np.zeros(3, np.int64), np.array([0, 100, 100]), 0, G, H)
    assert (glo, n) == (100, 1) and G[0] == pytest.approx(1 / 3)   # a three-way tie: a third each
    assert np.allclose(H[:, 0], [1.0, 1 / 3])       # the field's best is 100; a tie there is worth a third
    # one opponent at 100 or 102 with probability 1/2 each
    lo2 = np.array([0, 0], np.int32)
    length2 = np.array([1, 3], np.int32)
    offset2 = np.array([0, 1], np.int64)
    data2 = np.array([1.0, 0.5, 0.0, 0.5], np.float32)
    glo, n = win_curve(lo2, length2, offset2, data2, np.array([0, 1]), np.array([0, 100]), 0, G, H)
    assert glo == 100 and np.allclose(G[:n], [0.25, 0.5, 0.75])
    assert np.allclose(H[0, :n], [0.5, 0.0, 0.5]) and np.allclose(H[1, :n], [0.25, 0.0, 0.25])
    # a sheet that cannot reach the others' lowest score counts as beaten (its pmf is read, nothing past it)
    data3 = np.array([1.0, 0.2, 0.3, 0.5, 7.0, 7.0], np.float32)      # 7.0: another state's entries
    glo, n = win_curve(lo2, length2, offset2, data3, np.array([0, 0, 1]), np.array([0, 100, 50]), 0, G, H)
    assert (glo, n) == (100, 1) and G[0] == pytest.approx(0.5)


def test_the_oracle_picks_a_future_per_field_score():
    # the field: one other sheet, finished at 100 or 102 (1/2 each); two own futures from the same state (key 0,
    # total 0): A ends at 101 for sure, B at 99 or 103 (1/2 each). A wins 1/2, B wins 1/2; the oracle plays A
    # when the field ends at 100 and B when it ends at 102: 3/4.
    lo = np.array([101, 0], np.int32)
    length = np.array([1, 3], np.int32)
    offset = np.array([0, 1], np.int64)
    data = np.array([1.0, 0.5, 0.0, 0.5], np.float32)     # A's pmf; the field's sheet (state 1)
    G, H = np.empty(8), np.empty((2, 8))
    glo, n = win_curve(lo, length, offset, data, np.array([0, 1]), np.array([0, 100]), 0, G, H)
    mass = np.ones(2)
    olo, olength, ooffset = np.array([[99, 0]], np.int32), np.array([[5, 0]], np.int32), np.array([[0, 0]], np.int64)
    other = np.array([0.5, 0.0, 0.0, 0.0, 0.5], np.float32)
    unused = np.zeros(1, np.float32)
    acc = np.empty(8)
    curve = ChanceCurve(G=G, H=H, glo=glo, n=n, spreads=np.ones(1), acc=acc)
    pmfs = Pmfs(offset=offset, length=length, lo=lo, lost=np.zeros(2), data=data, mass=mass, span=3)
    for beta, want in [(0.0, 0.5), (1.0, 0.75), (0.4, 0.6)]:
        own = OwnFutures(lo=olo, length=olength, offset=ooffset, mass=np.ones((1, 2)), data0=other, data1=unused,
                         data2=unused, beta=beta)
        assert chance_after(curve, pmfs, own, 0, 0, 101.0) == pytest.approx(want)
    # a single future: the oracle is the chance itself
    none = OwnFutures(lo=np.zeros((0, 2), np.int32), length=np.zeros((0, 2), np.int32),
                      offset=np.zeros((0, 2), np.int64), mass=np.zeros((0, 2)), data0=unused, data1=unused,
                      data2=unused, beta=1.0)
    assert chance_after(curve, pmfs, none, 0, 0, 101.0) == 0.5


WIN_CONFIGS = [("classic", {}), ("cheerio", {}), ("knizia", {}), ("mini", {}),
               ("mini", {"rolls_per_turn": 1}), ("mini", {"rolls_per_turn": 2}), ("classic", {"rolls_per_turn": 4}),
               ("mini", {"tiebreak": "sudden_death"}), ("mini", {"teams": 2}), ("mini", {"joker": "free"})]


@pytest.mark.parametrize("name,overrides", WIN_CONFIGS,
                         ids=[f"{n}-{'-'.join(f'{k}={v}' for k, v in o.items()) or 'preset'}" for n, o in WIN_CONFIGS])
def test_win_agent_plays_the_same_games_batched_and_per_game(name, overrides, mini):
    rules = load(mini if name == "mini" else name, **overrides)
    dist_of(rules)
    seats = 4 if rules.teams else 3
    specs = ["strong?goal=win", "strong", "strong?goal=win", "random"][:seats]
    if rules.teams:
        specs = ["strong?goal=win", "strong", "random", "strong"]
    assert_same(*both_ways(rules, specs, game_seeds(31, last=np.arange(5))))
    assert_same(*both_ways(rules, ["strong?goal=target&score=120", "greedy"], game_seeds(32, last=np.arange(3))))
    # the strength dial played for the chance to win (a level's strength where one is shipped for the rules)
    dial = "strong?strength=0.7&goal=win"
    level = "normal?goal=win" if not overrides and name != "mini" else "strong?strength=0.4&goal=win"
    specs = [dial, "strong", level, "random"][:seats] if not rules.teams else [dial, "strong", level, "strong"]
    assert_same(*both_ways(rules, specs, game_seeds(34, last=np.arange(4))))


@pytest.mark.parametrize("overrides", [{}, {"teams": 2}])
def test_a_scaled_own_future_plays_the_same_games_batched_and_per_game(overrides, mini, monkeypatch):
    # the deciding sheet's own future scaled (`strong.spread_for`, by the number of sheets)
    rules = load(mini, **overrides)
    dist_of(rules)
    monkeypatch.setitem(strong.SPREAD, 2 if rules.teams else 3, (0.8, 1.2) if rules.teams else (0.7,))
    specs = ["strong?goal=win", "strong", "random", "strong"] if rules.teams else \
        ["strong?goal=win", "strong", "strong?goal=win"]
    games = both_ways(rules, specs, game_seeds(36, last=np.arange(5)))
    assert_same(*games)
    monkeypatch.setitem(strong.SPREAD, 2 if rules.teams else 3, (1.0,))
    plain = both_ways(rules, specs, game_seeds(36, last=np.arange(5)))
    assert [g.log for g in games[0]] != [g.log for g in plain[0]]     # it changes the play


RISK_CONFIGS = [("cheerio", {}), ("mini", {}), ("mini", {"teams": 2}), ("mini", {"rolls_per_turn": 2}),
                ("mini", {"tiebreak": "sudden_death"})]


@pytest.mark.parametrize("name,overrides", RISK_CONFIGS,
                         ids=[f"{n}-{'-'.join(f'{k}={v}' for k, v in o.items()) or 'preset'}" for n, o in RISK_CONFIGS])
def test_risk_futures_play_the_same_games_batched_and_per_game(name, overrides, mini, monkeypatch):
    # the deciding sheet also weighs the futures of exponential-utility policies (`strong.risks_for`)
    rules = load(mini if name == "mini" else name, **overrides)
    dist_of(rules)
    sheets = 2 if rules.teams else 3
    specs = ["strong?goal=win", "strong", "random", "strong"] if rules.teams else \
        ["strong?goal=win", "strong", "strong?goal=win"]
    seeds = game_seeds(37, last=np.arange(4))
    monkeypatch.setitem(strong.RISKS, sheets, (0.02, 0.05))
    monkeypatch.setitem(strong.ORACLE, sheets, 0.5)     # and the oracle weight (`strong.oracle_for`)
    games = both_ways(rules, specs, seeds)
    assert_same(*games)
    if name == "mini" and not overrides:
        dial = ["strong?strength=0.7&goal=win", "strong", "strong?goal=win"]
        assert_same(*both_ways(rules, dial, game_seeds(38, last=np.arange(3))))
        monkeypatch.setitem(strong.RISKS, sheets, ())
        plain = both_ways(rules, specs, seeds)
        assert [g.log for g in games[0]] != [g.log for g in plain[0]]     # it changes the play


def test_bad_risks_say_what_is_wrong():
    with pytest.raises(ValueError, match="risk must be a number from 1e-09 to 1, got -1.0"):
        strong.WinAgent(risks=[0.01, -1])
    for bad in (float("nan"), float("inf"), 1.5):
        with pytest.raises(ValueError, match="risk must be a number from 1e-09 to 1, got "):
            strong.WinAgent(risks=bad)
    with pytest.raises(ValueError, match="at most 3 risks"):
        strong.own_futures(load("classic"), (0.01, 0.02, 0.03, 0.04))


@pytest.mark.slow
@pytest.mark.parametrize("name", ["yacht", "verhoeff", "kirakuken", "extended"])
def test_win_agent_same_games_on_the_full_presets(name):
    rules = load(name)
    dist_of(rules)
    assert_same(*both_ways(rules, ["strong?goal=win", "strong", "strong"], game_seeds(33, last=np.arange(4))))
    assert_same(*both_ways(rules, ["normal?goal=win", "easy?goal=win", "strong?strength=0.8&goal=win"],
                           game_seeds(35, last=np.arange(3))))


MINI_YATZY = """\
extends: yatzy
name: mini-yatzy
boxes:
  - {id: ones, kind: upper, face: 1}
  - {id: sixes, kind: upper, face: 6}
  - {id: one_pair, kind: pairs, count: 1, points: matching}
  - {id: two_pairs, kind: pairs, count: 2, points: matching}
  - {id: four_of_a_kind, kind: of_a_kind, count: 4, points: matching}
  - {id: small_straight, kind: straight, runs: [[1, 2, 3, 4, 5]], points: 15}
  - {id: full_house, kind: full_house, points: sum}
  - {id: yatzy, kind: yacht, points: 50}
upper_bonus: {threshold: 15, points: 50}
"""


@pytest.mark.parametrize("forced", [False, True])
def test_win_agent_same_games_under_yatzy_boxes(tmp_path, forced):
    """`strong?goal=win` on Scandinavian Yatzy's box kinds (pairs, two pairs and kinds by the matching dice,
    a fixed-run straight, a summed full house; with and without forced order): per game and batched agree.
    The full `yatzy` preset's distributions take about 1 GB and minutes to build, so its boxes are tried on
    eight of them here."""
    path = tmp_path / "mini-yatzy.yaml"
    path.write_text(MINI_YATZY + f"forced_order: {str(forced).lower()}\n")
    rules = load(str(path))
    dist_of(rules)
    assert_same(*both_ways(rules, ["strong?goal=win", "strong", "strong"], game_seeds(36, last=np.arange(4))))
    assert_same(*both_ways(rules, ["normal?goal=win", "strong?strength=0.8&goal=win"],
                           game_seeds(37, last=np.arange(3))))


def test_win_agent_wins_more_than_strong_at_two_seats():
    from agents.evaluation import head_to_head
    rules = load("classic")
    dist_of(rules)
    r = head_to_head(make_agent("strong?goal=win"), make_agent("strong"), rules, 400, seed=44, progress=False)
    assert r["win_rate_a"] > 0.5


def test_target_agent_reaches_the_target_more_often(mini):
    from agents.evaluation import solitaire
    solution, _ = dist_of(mini)
    target = int(solution.expected_score + 1.5 * solution.std)
    hit = {}
    for spec in ("strong", f"strong?goal=target&score={target}"):
        run = solitaire(make_agent(spec), mini, 2000, seed=45, progress=False)
        hit[spec] = float((run["totals"] >= target).mean())
    assert hit[f"strong?goal=target&score={target}"] > hit["strong"]


@pytest.mark.parametrize("spec,message", [
    ("strong?goal=best", "must be one of points, win, target"),
    ("strong?goal=target", "goal=target needs score=T"),
    ("strong?score=200", "score=T goes with goal=target"),
    ("strong?goal=target&score=200&strength=0.5", "full strength only"),
    ("normal?goal=target", "a level plays goal=points or goal=win"),
    ("strong?goal=win&strength=0.5&score=100", "score=T goes with goal=target only"),
])
def test_bad_goal_specs_say_what_is_wrong(spec, message):
    with pytest.raises(AgentSpecError, match=message):
        make_agent(spec)


def test_win_agent_refuses_several_columns():
    agent = make_agent("strong?goal=win")
    with pytest.raises(ValueError, match="one-column rules"):
        agent.prepare(load("classic", columns=2), 2)


def test_win_agent_plays_as_an_env_opponent():
    import gymnasium as gym
    import yacht_env  # noqa: F401 - registers the envs
    rules = load("classic")
    dist_of(rules)
    env = gym.make("YachtVs-v0", rules="classic", opponents=["strong?goal=win"])
    obs, info = env.reset(seed=3)
    done, steps = False, 0
    while not done:
        mask = info["action_mask"]
        obs, reward, term, trunc, info = env.step(int(np.flatnonzero(mask)[-1]))
        done = term or trunc
        steps += 1
    assert steps >= len(rules.boxes)


def test_solve_distribution_command(capsys):
    from yacht_arena.cli import main
    assert main(["solve", "--rules", "classic", "--distribution", "--json", "--no-progress"]) == 0
    doc = json.loads(capsys.readouterr().out)
    d = doc["distribution"]
    assert abs(d["mean"] - doc["expected_score"]) < 1e-4
    assert abs(sum(d["pmf"]) - 1) < 1e-5
    assert main(["solve", "--rules", "classic", "--distribution", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "percentiles" in out and "50%:" in out


def test_solve_distribution_of_a_risk_seeking_policy(tmp_path, capsys):
    # `--risk R`: the distribution of the policy maximising E[exp(R X)], the table the win agent reads; the
    # points policy has the highest mean, the risk policy the highest E[exp(R X)] (each is optimal for its own)
    from tests.cli_errors import cli_error, error_line
    from yacht_arena.cli import main
    from yacht_env.solver.cache import distribution_paths
    path = tmp_path / "mini.yaml"
    path.write_text(MINI)
    argv = ["solve", "--rules", str(path), "--distribution", "--json", "--no-progress"]
    assert main(argv) == 0
    points = json.loads(capsys.readouterr().out)["distribution"]
    assert main([*argv, "--risk", "0.05"]) == 0
    risky = json.loads(capsys.readouterr().out)["distribution"]
    assert (points["risk"], risky["risk"]) == (0.0, 0.05)
    assert abs(sum(risky["pmf"]) - 1) < 1e-5
    assert risky["mean"] < points["mean"] - 10 and risky["std"] > points["std"] + 5     # 112.3 (41.5), 130.8 (32.1)

    def certainty_equivalent(d, r=0.05):
        x = d["lowest"] + np.arange(len(d["pmf"]))
        return x.max() + np.log(np.dot(d["pmf"], np.exp(r * (x - x.max())))) / r
    assert certainty_equivalent(risky) > certainty_equivalent(points)
    rules = load(str(path))
    assert distribution_paths(rules, 0.05)[0].is_file()           # cached where the agent looks
    lo, p = distributions_for(rules, progress=False, risk=0.05).pmf(0)
    assert risky["lowest"] == lo and np.allclose(risky["pmf"], p)
    assert risky["percentiles"] == summary(lo, p)["percentiles"]
    assert main(["solve", "--rules", str(path), "--distribution", "--no-progress", "--risk", "0.05"]) == 0
    out = capsys.readouterr().out
    assert "Final score of the risk-seeking policy, risk 0.05 (its distribution):" in out and "99%:" in out
    for bad in ("nan", "inf", "0", "-0.02", "1.5", "1e-12", "x"):
        with pytest.raises(SystemExit) as e:                       # a usage error, as argparse reports one
            main([*argv, "--risk", bad])
        line = error_line(capsys)
        assert e.value.code == 2 and line.startswith(
            f"yacht solve: error: argument --risk: risk must be a number from 1e-09 to 1, got '{bad}'"), line
    assert "--risk picks the policy whose distribution --distribution shows" in cli_error(
        capsys, ["solve", "--rules", str(path), "--risk", "0.05"])


def test_independent_win_share_counts_ties_as_shared():
    from tournaments.stats import independent_win_share
    assert independent_win_share([100], [[100], [100]])[0] == pytest.approx(1 / 3)
    assert np.allclose(independent_win_share([99, 100, 110, 111], [[90, 110]]), [0.5, 0.5, 0.75, 1.0])
    assert np.allclose(independent_win_share([5], [[1, 9], [1, 9]]), [0.25])


def test_report_explains_the_win_share(tmp_path):
    from tournaments.config import parse_config
    from tournaments.report import render
    from tournaments.run import run_tournament
    solve_once(load("classic"))
    cfg = parse_config({"rules": "classic", "entrants": {"win": "strong?goal=win", "a": "strong", "b": "greedy"},
                        "seats": 3, "games": 20, "seed": 5})
    run_tournament(cfg, out=tmp_path, progress=False)
    res = render(tmp_path, analysis=False)
    ws = res["win_share"]
    assert set(ws) == {"win", "a", "b"}
    for w in ws.values():
        assert w["deals"] == 20 and w["games"] == 60
        assert w["gain"] == pytest.approx(w["observed"] - w["expected"])
        assert w["observed_ci95"][0] <= w["observed"] <= w["observed_ci95"][1]
    # one game in three is won, shared or not: the observed shares add up to 1
    assert sum(w["observed"] for w in ws.values()) == pytest.approx(1.0)
    text = (tmp_path / "report.md").read_text()
    assert "## Win share explained" in text and "gained %" in text


@pytest.fixture(scope="module")
def table_games(tmp_path_factory):
    """Three seats under classic rules: strong?goal=win against two strong (every rotation of 2 deals)."""
    from tournaments.config import parse_config
    from tournaments.run import run_tournament
    out = tmp_path_factory.mktemp("table")
    with temp_cache():
        solve_once(load("classic"))
        dist_of(load("classic"))
        cfg = parse_config({"rules": "classic", "entrants": {"win": "strong?goal=win", "a": "strong", "b": "strong"},
                            "seats": 3, "games": 6, "seed": 5})
        run_tournament(cfg, out=out, progress=False)
    return out


def test_analysis_gives_the_chance_to_win_each_move_gave_up(table_games):
    from tournaments.gamelog import analyze_file, read_games
    solve_once(load("classic"))
    dist_of(load("classic"))
    games = read_games(table_games)
    a = analyze_file(games, win=True)
    of = a.agent_of()
    assert np.isfinite(a.win_lost).all() and (a.win_before >= -1e-9).all() and (a.win_before <= 1 + 1e-9).all()
    # the win player maximises this very estimate: it gives up nothing; strong plays for points: no points
    # lost, but some chance to win
    assert (a.win_lost[of == "win"] == 0).all()
    strong = (of == "a") | (of == "b")
    assert (a.loss[strong] == 0).all() and a.win_lost[strong].max() > 0.01
    # the last box of a game: every other sheet has finished, so the chance after it is the share it won
    for i, r in enumerate(games.records):
        last = np.flatnonzero(a.rec == i)[np.argmax(a.move[a.rec == i])]
        seat = int(a.seat[last])
        winners = [s for s, p in enumerate(r["places"]) if p == 1]
        share = 1 / len(winners) if seat in winners else 0.0
        assert a.win_after[last] == pytest.approx(share, abs=1e-6)
    doc = a.summary()
    assert doc["agents"]["a"]["win"]["lost_per_game"] > 0 and doc["agents"]["win"]["win"]["lost"] == 0
    assert doc["worst_win"] and all(m["agent"] != "win" for m in doc["worst_win"])


def test_analysis_values_the_own_future_as_the_win_player_plays_it(mini, tmp_path, monkeypatch):
    # the analysis reads the same factors (`strong.spread_for`), own futures (`strong.risks_for`) and oracle weight
    # (`strong.oracle_for`) as the play: the win player gives up nothing
    from tournaments.gamelog import analyze_file, read_games
    from tournaments.config import parse_config
    from tournaments.run import run_tournament
    dist_of(mini)
    monkeypatch.setitem(strong.SPREAD, 3, (0.7,))
    monkeypatch.setitem(strong.RISKS, 3, (0.03,))       # and the same own futures
    monkeypatch.setitem(strong.ORACLE, 3, 0.5)          # and the same oracle weight
    (tmp_path / "mini.yaml").write_text(MINI)
    cfg = parse_config({"rules": str(tmp_path / "mini.yaml"),
                        "entrants": {"win": "strong?goal=win", "a": "strong", "b": "strong"},
                        "seats": 3, "games": 3, "seed": 8})
    run_tournament(cfg, out=tmp_path / "t", progress=False)
    a = analyze_file(read_games(tmp_path / "t"), win=True)
    of = a.agent_of()
    assert (a.win_lost[of == "win"] == 0).all() and a.win_lost[of != "win"].max() > 0


def test_analyze_and_show_print_the_chance_to_win(table_games, capsys):
    from yacht_arena.cli import main
    solve_once(load("classic"))
    dist_of(load("classic"))
    assert main(["analyze", str(table_games), "--worst", "3"]) == 0
    out = capsys.readouterr().out
    assert "chance to win lost" in out and "moves that gave up the most chance to win" in out
    assert main(["show", str(table_games), "t0-d0-r0"]) == 0
    out = capsys.readouterr().out
    assert "win = chance to finish first" in out and "% -> " in out and "chance to win" in out.splitlines()[-1]
    assert main(["analyze", str(table_games), "--no-win", "--json"]) == 0
    assert "worst_win" not in json.loads(capsys.readouterr().out)


def test_the_win_dial_plays_a_decided_position_as_the_points_dial():
    # alone at the table every move has the same chance (certain): the points dial at the same strength,
    # with the same decision numbers, so the same games
    from agents.evaluation import solitaire
    rules = load("classic")
    dist_of(rules)
    runs = [solitaire(make_agent(spec), rules, 40, seed=46, progress=False, logs=True)
            for spec in ("strong?strength=0.6&goal=win", "strong?strength=0.6")]
    assert runs[0]["totals"].tolist() == runs[1]["totals"].tolist()
    assert runs[0]["logs"] == runs[1]["logs"]


def test_the_win_dial_weakens_with_the_strength():
    from agents.evaluation import table_share
    rules = load("classic")
    dist_of(rules)
    weak = table_share(make_agent("strong?strength=0.3&goal=win"), make_agent("strong"), rules, 60, 3, seed=47,
                       progress=False)
    assert weak["win_rate_a"] < 1 / 3 and weak["games"] == 180


def test_levels_at_a_table(capsys):
    from agents.evaluation import head_to_head, table_share
    from yacht_arena.cli import main
    rules = load("classic")
    dist_of(rules)
    a, b = make_agent("strong?goal=win"), make_agent("greedy")
    # at two seats the table is the head-to-head: the same deals, the same games
    assert table_share(a, b, rules, 6, 2, seed=3, progress=False)["win_rate_a"] == \
        head_to_head(a, b, rules, 6, seed=3, progress=False)["win_rate_a"]
    assert main(["levels", "--rules", "classic", "--only", "greedy", "normal?goal=win", "--seats", "3", "--games", "6",
                 "--json", "--no-progress"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["seats"] == 3 and doc["head_to_head"][0]["games"] == 6 and doc["head_to_head"][0]["seats"] == 3
    assert doc["agents"]["normal?goal=win"]["strength"] == doc["settings"]["normal?goal=win"]["strength"]
    assert main(["levels", "--rules", "classic", "--only", "greedy", "strong", "--seats", "3", "--games", "6",
                 "--no-progress"]) == 0
    assert "ladder at tables of 3" in capsys.readouterr().out
    for argv, message in ((["--seats", "9"], "--seats must be 2..8"), (["--seats", "3", "--calibrate"], "--calibrate"),
                          (["--seats", "4", "--games", "2"], "--games must be at least --seats")):
        assert main(["levels", "--rules", "classic", "--no-progress", *argv]) == 2
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1
