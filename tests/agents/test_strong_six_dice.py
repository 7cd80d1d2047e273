"""The solver's players under six dice, on a five-box rule set solved in a moment: the values, every move's value
(plans, the dial's move values, advise) and the moves strong plays equal an expectimax written here over plain
dice tuples with the rules' own scoring; strong, the dial, `strong?goal=win` and their analysis play the same
games batched, one game at a time and with one or two workers."""
import json
from itertools import combinations_with_replacement, product

import numpy as np
import pytest
from tests.fake_agents import PER_GAME
from tests.same_games import batched_as_alone
from tests.solver_tables import solve_once, temp_cache

from agents.analysis import analyze
from agents.base import play_game
from agents.registry import make_agent
from tournaments.config import parse_config
from tournaments.run import run_tournament
from tournaments.store import Store
from yacht_arena.cli import main
from yacht_env.core.actions import num_actions, num_holds
from yacht_env.core.game import Game
from yacht_env.rules import load
from yacht_env.solver.cache import distributions_for
from yacht_env.solver.policy import Policy

SIX = """\
name: six_tiny
description: six dice, five boxes
dice: 6
boxes:
  - {id: sixes, kind: upper, face: 6}
  - {id: one_pair, kind: pairs, count: 1, points: matching}
  - {id: castle, kind: groups, sizes: [3, 3], points: matching}
  - {id: chance, kind: chance}
  - {id: maxi_yatzy, kind: yacht, points: 100}
upper_bonus: {threshold: 18, points: 35}
extra_yacht_bonus: 0
joker: none
"""
N = 6
THRESHOLD, BONUS = 18, 35        # sixes is the one upper box (box 0)
ROLLS = list(combinations_with_replacement(range(1, 7), N))


@pytest.fixture(autouse=True)
def cache():
    with temp_cache():
        yield


@pytest.fixture(scope="module")
def six(tmp_path_factory):
    path = tmp_path_factory.mktemp("six") / "six_tiny.yaml"
    path.write_text(SIX)
    return str(path)


class Expectimax:
    """Optimal play of the rules by expectimax over sorted dice tuples: V[mask, u] at every reachable turn start
    (u the upper total capped at the threshold: a multiple of 6, 0 while sixes is open) and the value of every
    move of a turn."""

    def __init__(self, rules):
        self.nbox = len(rules.boxes)
        index = {r: i for i, r in enumerate(ROLLS)}
        self.score = np.array([[rules.score(b, r) for r in ROLLS] for b in rules.boxes])
        keeps = [k for size in range(N) for k in combinations_with_replacement(range(1, 7), size)]
        self.keep_at = {k: i for i, k in enumerate(keeps)}
        self.after = np.zeros((len(keeps), len(ROLLS)))      # P(roll | keep): every way the free dice fall
        for i, k in enumerate(keeps):
            for faces in product(range(1, 7), repeat=N - len(k)):
                self.after[i, index[tuple(sorted(k + faces))]] += 6.0 ** -(N - len(k))
        subs = [sorted({self.keep_at[self.kept(roll, h)] for h in range((1 << N) - 1)}) for roll in ROLLS]
        width = max(map(len, subs))
        self.sub = np.array([x + [x[0]] * (width - len(x)) for x in subs])
        self.V = np.zeros((1 << self.nbox, THRESHOLD + 1))
        for mask in range((1 << self.nbox) - 2, -1, -1):
            for u in self.uppers(mask):
                self.V[mask, u] = self.after[self.keep_at[()]] @ self.stage(mask, u, 2)

    @staticmethod
    def uppers(mask):
        return [0, 6, 12, 18] if mask & 1 else [0]

    @staticmethod
    def kept(roll, h):
        return tuple(roll[i] for i in range(N) if h >> i & 1)

    def box_values(self, mask, u):
        """(boxes, rolls): points + bonus + value after scoring roll r in box b (-inf where b is filled)."""
        out = np.full((self.nbox, len(ROLLS)), -np.inf)
        for b in range(self.nbox):
            if not mask >> b & 1:
                p = self.score[b]
                u2 = np.minimum(u + p, THRESHOLD) if b == 0 else np.full(len(ROLLS), u)
                gain = np.where((b == 0) & (u < THRESHOLD) & (u + p >= THRESHOLD), BONUS, 0)
                out[b] = p + gain + self.V[mask | 1 << b, u2]
        return out

    def stage(self, mask, u, left):
        """The best value of each roll with `left` re-rolls left."""
        f = self.box_values(mask, u).max(axis=0)
        for _ in range(left):
            f = np.maximum(self.box_values(mask, u).max(axis=0), (self.after @ f)[self.sub].max(axis=1))
        return f

    def moves(self, mask, u, r, left):
        """{action: value} of every legal move (holds: every pattern) with roll r and `left` re-rolls left."""
        out = {}
        if left > 0:
            e = self.after @ self.stage(mask, u, left - 1)
            out = {h: float(e[self.keep_at[self.kept(ROLLS[r], h)]]) for h in range((1 << N) - 1)}
        boxes = self.box_values(mask, u)[:, r]
        out.update({(1 << N) - 1 + b: float(v) for b, v in enumerate(boxes) if v > -np.inf})
        return out


@pytest.fixture(scope="module")
def solved(six):
    rules = load(six)
    with temp_cache():
        return rules, solve_once(rules), Expectimax(rules)


def _positions(seed=0, count=12):
    """Decisions (mask, u, roll, re-rolls left) at reachable states: u a multiple of 6 only where sixes is filled."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        mask = int(rng.integers(0, 31))
        u = int(rng.choice(Expectimax.uppers(mask)))
        out.append((mask, u, int(rng.integers(0, len(ROLLS))), int(rng.integers(0, 3))))
    return out


def test_the_values_are_the_expectimax(solved):
    rules, solution, ex = solved
    assert rules.dice == 6 and num_holds(rules) == 63 and solution.space.n_upper == THRESHOLD + 1
    for mask in range(31):
        for u in Expectimax.uppers(mask):
            assert solution.value(mask, u) == pytest.approx(ex.V[mask, u], abs=1e-9)


@pytest.mark.parametrize("seed", [0, 1])
def test_every_move_is_valued_as_the_expectimax_and_strong_plays_a_best_one(solved, seed):
    rules, solution, ex = solved
    policy = Policy(rules, solution)
    for mask, u, r, left in _positions(seed):
        want = ex.moves(mask, u, r, left)
        scores = np.array([[0 if mask >> b & 1 else -1 for b in range(5)]])
        got = dict(policy.alternatives(scores, [u], r, left))
        assert set(got) <= set(want) and {a for a in want if a >= 63} <= set(got)
        assert all(got[a] == pytest.approx(want[a], abs=1e-9) for a in got)
        best = max(want.values())
        assert want[policy.action(scores, [u], r, left)] == pytest.approx(best, abs=1e-9)
        # the dial's move values: every action, -inf where illegal
        key = policy.state_keys(np.array([[mask]]), np.array([[u]]), np.array([[0]]))
        row = policy.move_values(key, np.array([r]), np.array([left]))[0]
        assert row.shape == (num_actions(rules),)
        assert np.allclose([row[a] for a in sorted(want)], [want[a] for a in sorted(want)], rtol=0, atol=1e-9)
        assert all(row[a] == -np.inf for a in range(num_actions(rules)) if a not in want)


def test_the_dial_draws_legal_moves_and_their_losses(solved):
    rules, solution, ex = solved
    policy = Policy(rules, solution)
    positions = _positions(2, 40)
    keys = np.array([[mask * (THRESHOLD + 1) + u] for mask, u, _, _ in positions])
    rolls = np.array([r for _, _, r, _ in positions])
    lefts = np.array([left for *_, left in positions])
    actions, losses = policy.sampled_actions(keys, rolls, lefts, 2.0, np.linspace(0.01, 0.99, len(positions)))
    for (mask, u, r, left), a, loss in zip(positions, actions, losses):
        want = ex.moves(mask, u, r, left)
        assert a in want and loss == pytest.approx(max(want.values()) - want[a], abs=1e-9)


def test_strong_and_the_dial_play_the_same_games_batched_and_one_at_a_time(solved):
    rules, solution, _ = solved
    seeds = np.arange(6, dtype=np.uint64)
    specs = ["strong", "strong?strength=0.6"]
    alone = batched_as_alone(rules, specs, seeds)
    # the analysis replays six-dice logs: strong's every decision is optimal, the dial's lose what it says
    records = [{"agents": specs, "log": [dict(e) for e in g.log]} for g in alone]
    a = analyze(records, rules, solution)
    assert len(a.rec) > 0 and (a.loss[a.seat == 0] == 0).all() and (a.loss[a.seat == 1] > 0).any()
    assert (a.loss >= 0).all() and a.roll.max() < len(ROLLS)


def test_playing_to_a_sure_target_plays_strongs_games(solved):
    """Every move reaches a target of 0 for sure, so the win kernels' ties go to expected points: strong's moves,
    read through six dice's plans and action numbers."""
    rules, _, _ = solved
    for s in range(4):
        a = play_game(Game(rules, 1, seed=s), [make_agent("strong")])
        b = play_game(Game(rules, 1, seed=s), [make_agent("strong?goal=target&score=0")])
        assert a.log == b.log


def test_the_distributions_have_the_solvers_mean(solved):
    rules, solution, _ = solved
    d = distributions_for(rules, progress=False)
    lo, p = d.pmf(0)
    assert float((p * (lo + np.arange(len(p)))).sum()) == pytest.approx(solution.expected_score, rel=1e-5)


@pytest.mark.parametrize("workers", [1, 2])
def test_tournaments_of_solver_agents_store_the_same_games_batched_and_per_game(six, tmp_path, workers):
    config = parse_config({"rules": six, "entrants": ["greedy", "strong", {"name": "dial", "agent":
                           "strong?strength=0.6"}, {"name": "win", "agent": "strong?goal=win"}], "games": 2,
                           "seed": 7, "move_timeout": None})
    solve_once(load(six))
    a, b = tmp_path / "batched", tmp_path / "single"
    run_tournament(config, out=a, progress=False)
    run_tournament(config, out=b, progress=False, factory=PER_GAME, workers=workers)
    ra, rb = Store(a).records(), Store(b).records()
    assert sorted(ra) == sorted(rb) and len(ra) == config.total_games
    assert all(ra[k] == rb[k] for k in ra)
    assert (a / "report.md").read_text() == (b / "report.md").read_text()
    assert "cannot be analysed" not in (a / "report.md").read_text()


def test_advise_names_a_best_move(solved, six, capsys):
    rules, _, ex = solved
    dice = [1, 2, 3, 3, 5, 6]
    assert main(["advise", "--rules", six, "--dice", *map(str, dice), "--rolls-left", "2", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    want = ex.moves(0, 0, ROLLS.index(tuple(dice)), 2)
    assert doc["best"]["expected_final_score"] == pytest.approx(max(want.values()), abs=1e-6)
    assert want[doc["best"]["action"]] == pytest.approx(max(want.values()), abs=1e-9)
    assert all(r["expected_final_score"] == pytest.approx(want[r["action"]], abs=1e-6) for r in doc["alternatives"])
