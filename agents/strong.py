"""Strong: the exact solver's optimal play.

One column (solitaire, multi-player or a team's shared sheet): every move maximises the
sheet's own expected final score exactly. The value table comes from `yacht_env.solver`
(cached on disk; solved on first use), and the turn widget is computed at the current state.

Several columns (too many states for an exact solve): each column is valued by the one-column
solitaire table and the sheet by the sum of its columns. A box is chosen by points + bonuses +
the changed column's new value (the least value lost for what it scores); holds come from the turn
widget built on those box values. Strong ignores the opponents' scores: it maximises its own
expected total. `WinAgent` (`strong?goal=win`) looks at the other sheets: each move maximises the
chance of finishing first (`yacht_env.solver.winning`); `strong?goal=target&score=T` the chance of a
final score of at least T.
"""
import sys
import weakref

import numpy as np

from yacht_env.core.actions import num_actions
from yacht_env.rules import command_args, load
from yacht_env.solver import (Unsolvable, check_distributions, check_saved_rolls, check_solvable, distributions_for,
                              solution_for)
from yacht_env.solver.cache import long_solve_bytes
from yacht_env.solver.dial import Decisions
from yacht_env.solver.policy import Policy
from yacht_env.solver.risk import check_risk
from yacht_env.solver.distribution import Pmfs
from yacht_env.solver.winning import (MAX_FUTURES, OwnFutures, Seats, pmf_mass, win_dial_moves, win_move_chances,
                                      win_plans, win_tables)

from .base import Agent, BatchView


# The policies of the agents in this process, by rule set (and whether the solver's cache is used): every
# agent of a rule set (strong and the dial's levels) shares one, so a plan or stage value computed for one
# serves all. They only depend on the state, so sharing changes the speed, never a move. Freed once no agent
# holds them.
_POLICIES: "weakref.WeakValueDictionary[object, Policy]" = weakref.WeakValueDictionary()


class StrongAgent(Agent):
    """Optimal (one column) or column-additive (several columns) play from the solver's table.

    cache: read and write solved tables in the solver cache; progress: show a bar while solving.
    """

    name = "strong"
    trusted = True

    def __init__(self, cache: bool = True, progress: bool = False):
        self.cache = cache
        self.progress = progress
        self._policies = {}
        self._last = None      # (rules, policy) of the last call: the planned path asks every step

    def check_rules(self, rules, num_players) -> None:
        """The solver's table must exist for the rules' one column (several columns play column-additively)."""
        try:
            check_solvable(load(rules, columns=1) if rules.columns > 1 else rules)
            if rules.columns > 1:
                check_saved_rolls(rules, "several columns' additive play")
        except Unsolvable as e:
            raise ValueError(f"it plays from the exact solver's table: {e}") from None

    def prepare(self, rules, num_players) -> None:
        self.policy_for(rules)

    def policy_for(self, rules) -> Policy:
        """The policy of a rule set (its one-column table solved or loaded once per agent)."""
        if self._last is not None and self._last[0] is rules:     # no hash of the rules (a deep one)
            return self._last[1]
        if rules not in self._policies:
            policy = _POLICIES.get((rules, self.cache))
            if policy is None:
                column = load(rules, columns=1) if rules.columns > 1 else rules
                try:
                    check_solvable(column)
                    if self.cache:
                        announce_long_solve(column)
                    solution = solution_for(column, use_cache=self.cache, progress=self.progress)
                except Unsolvable as e:
                    raise ValueError(f"strong cannot play rules {rules.name!r}: {e}") from None
                policy = _POLICIES[rules, self.cache] = Policy(rules, solution)
            self._policies[rules] = policy
        self._last = (rules, self._policies[rules])
        return self._last[1]

    def act_batch(self, view: BatchView):
        return self.policy_for(view.rules).act_batch(view)

    # the planned-player fast path (`yacht_env.core.plan_source.PlanSource`)
    def plan_tables(self, rules):
        """Where the policy of `rules` keeps its plans (`Policy.plan_tables`)."""
        return self.policy_for(rules).plan_tables()

    def plan_seats(self, state, rows) -> None:
        """Compute the plans of the seats to move at tables `rows` (`Policy.plan_seats`)."""
        self.policy_for(state.rules).plan_seats(state, rows)

    def advance(self, state, rows, seating, me: int) -> None:
        """The lockstep runner's fast path: the policy plays this agent's moves ahead (`Policy.advance`)."""
        self.policy_for(state.rules).advance(state, rows, seating, me)


def announce_long_solve(rules) -> None:
    """Say on stderr, in one line, that the table of `rules` is solved first when that solve is a long one
    (`yacht_env.solver.cache.long_solve_bytes`): a person who asked for a game would otherwise wait minutes
    without a word."""
    need = long_solve_bytes(rules)
    if need:
        print(f"solving the rules {rules.name} first (once; about {need / 1e9:.1f} GB for many minutes; "
              f"`yacht solve {command_args(rules)}` does it ahead)", file=sys.stderr, flush=True)


GOALS = ("points", "win", "target")
MAX_TARGET = 2 ** 31 - 1      # the largest target score (goal "target"): the kernels compare it with totals as int64
_DISTRIBUTIONS: dict = {}   # rules -> (lo, length, offset, data) arrays and the longest pmf, once per process
# sheets at the table -> the factors the deciding sheet's own future is scaled by around its mean in the
# estimate (`yacht_env.solver.winning.chance_after`; the best of several counts); a size not listed: 1, the
# points player's future as it is. Empty: no factor was measured to gain (BENCHMARKS.md, "Playing to win",
# third session).
SPREAD: dict[int, tuple[float, ...]] = {}


# sheets at the table -> the risks of the exponential-utility policies whose futures the deciding sheet may also
# play (`yacht_env.solver.risk`; `winning.chance_after`'s `own`: the best of the points future and these); a size
# not listed: none. 8 sheets: risk 0.02 gained about 0.13 points of win share on tuning deals; at 4 sheets it
# lost 0.09 (within the noise), so smaller tables are left as they were (BENCHMARKS.md, "Playing to win", s31).
RISKS: dict[int, tuple[float, ...]] = {8: (0.02,)}


# sheets at the table -> the oracle weight beta of the estimate with own futures (`winning.chance_after`: the chance
# moves from the best single future, a lower bound of adaptive play, by beta towards the oracle's, which picks
# its future knowing the field's best score); a size not listed: 0.
ORACLE: dict[int, float] = {}


def spread_for(sheets: int) -> np.ndarray:
    """The factors `strong?goal=win` scales its own future by at a table of `sheets` sheets (`SPREAD`)."""
    return np.array(SPREAD.get(sheets, (1.0,)), np.float64)


def risks_for(sheets: int) -> tuple[float, ...]:
    """The risks of the own futures `strong?goal=win` also weighs at a table of `sheets` sheets (`RISKS`)."""
    return tuple(float(r) for r in RISKS.get(sheets, ()))


def oracle_for(sheets: int) -> float:
    """The oracle weight of `strong?goal=win`'s estimate at a table of `sheets` sheets (`ORACLE`)."""
    return float(ORACLE.get(sheets, 0.0))


_UNUSED = np.zeros(1, np.float32)
_UNUSED.setflags(write=False)      # read-only as the futures' data it stands for: one compiled version of each kernel
_NO_FUTURES = OwnFutures(lo=np.zeros((0, 1), np.int32), length=np.zeros((0, 1), np.int32),
                         offset=np.zeros((0, 1), np.int64), mass=np.zeros((0, 1)), data0=_UNUSED, data1=_UNUSED,
                         data2=_UNUSED, beta=0.0)
_FUTURES: dict = {}   # (rules, risks, cache) -> the `own` argument of the kernels, once per process


def own_futures(rules, risks, cache: bool = True, progress: bool = False, oracle: float = 0.0):
    """The kernels' `own` argument (`yacht_env.solver.winning.chance_after`): the score distributions of the
    exponential-utility policies with these risks (built or loaded once per process; none: no futures) and the
    oracle weight."""
    risks = tuple(float(r) for r in risks)
    if not risks:
        return _NO_FUTURES
    if len(risks) > MAX_FUTURES:
        raise ValueError(f"at most {MAX_FUTURES} risks, got {len(risks)}")
    key = (rules, risks, cache)
    if key not in _FUTURES:
        ds = [distributions_for(rules, use_cache=cache, progress=progress, risk=r) for r in risks]
        mass = np.empty((len(ds), len(ds[0].offset)))
        for f, d in enumerate(ds):
            pmf_mass(np.asarray(d.offset), np.asarray(d.length), np.asarray(d.data), mass[f])
        data = [np.asarray(d.data) for d in ds] + [_UNUSED] * (MAX_FUTURES - len(ds))
        _FUTURES[key] = OwnFutures(lo=np.stack([np.asarray(d.lo) for d in ds]),
                                   length=np.stack([np.asarray(d.length) for d in ds]),
                                   offset=np.stack([np.asarray(d.offset) for d in ds]), mass=mass, data0=data[0],
                                   data1=data[1], data2=data[2], beta=0.0)
    return _FUTURES[key]._replace(beta=float(oracle))


def distribution_arrays(rules, cache: bool = True, progress: bool = False):
    """The `distribution.Pmfs` of the score distributions of a one-column rule set, as the compiled kernels take them
    (`yacht_env.solver.winning`); built or loaded once per process."""
    key = (rules, cache)
    if key not in _DISTRIBUTIONS:
        d = distributions_for(rules, use_cache=cache, progress=progress)
        mass = np.empty(len(d.offset))
        pmf_mass(np.asarray(d.offset), np.asarray(d.length), np.asarray(d.data), mass)
        _DISTRIBUTIONS[key] = Pmfs(offset=np.asarray(d.offset), length=np.asarray(d.length), lo=np.asarray(d.lo),
                                   lost=np.asarray(d.lost), data=np.asarray(d.data), mass=mass,
                                   span=int(d.length.max()))
    return _DISTRIBUTIONS[key]


class WinAgent(Agent):
    """Plays to finish first at the table (goal "win") or to reach `score` points (goal "target").

    Every decision, holds and boxes, maximises the chance by the estimate of `yacht_env.solver.winning`:
    the other sheets as they stand at that moment, every later turn played for expected points. One-column
    rules (solitaire, multi-player, team sheets); ties count as the rules share them. Batched and
    compiled; a game's moves depend only on its table, so they are the same played alone or in a batch.
    spread: the factors its own later turns are scaled by in the estimate (a number or several, the best counts:
    `winning.chance_after`); None: the measured default for the table's size (`spread_for`) under goal "win",
    1 under goal "target". risks: the exponential-utility policies whose futures it also weighs for its own later
    turns (`own_futures`; the best counts); None: the default for the table's size (`risks_for`) under goal
    "win", none under goal "target". oracle: the oracle weight of the estimate (`winning.chance_after`); None:
    the default for the table's size (`oracle_for`) under goal "win", 0 under goal "target".
    """

    trusted = True

    def __init__(self, goal: str = "win", score: float | None = None, strong: StrongAgent | None = None,
                 spread=None, risks=None, oracle=None):
        if goal not in ("win", "target"):
            raise ValueError(f"goal must be win or target for WinAgent, got {goal!r}")
        if (goal == "target") != (score is not None):
            raise ValueError("goal=target needs score=T (the final score to reach); score goes with goal=target "
                             "only")
        if score is not None and not 0 <= score <= MAX_TARGET:      # NaN too
            raise ValueError(f"score must be a final score from 0 to {MAX_TARGET:,} points, got {score:g}")
        self.goal = goal
        self.target = -1 if score is None else int(np.ceil(score))
        self.spread = None if spread is None else np.atleast_1d(np.asarray(spread, np.float64))
        if self.spread is not None and not (len(self.spread) and np.isfinite(self.spread).all() and
                                            (self.spread > 0).all()):
            raise ValueError(f"spread must be finite numbers > 0, got {spread!r}")
        self.risks = None if risks is None else tuple(check_risk(float(r)) for r in np.atleast_1d(risks))
        if oracle is not None and not 0.0 <= float(oracle) <= 1.0:
            raise ValueError(f"oracle must be a weight in [0, 1], got {oracle!r}")
        self.oracle = None if oracle is None else float(oracle)
        self.strong = strong if strong is not None else StrongAgent()
        self.name = "strong?goal=win" if goal == "win" else f"strong?goal=target&score={score:g}"
        self._kept = weakref.WeakKeyDictionary()   # engine state -> `_TurnPlans` of its tables
        self._dial = weakref.WeakKeyDictionary()   # engine state -> `_TurnChances` of its tables (`act_dial`)

    def check_rules(self, rules, num_players) -> None:
        self._check(rules)
        self.strong.check_rules(rules, num_players)
        self._check_distributions(rules)

    def prepare(self, rules, num_players) -> None:
        self._check(rules)
        self._check_distributions(rules)
        self.strong.prepare(rules, num_players)
        distribution_arrays(rules, self.strong.cache)
        self._own(rules, rules.teams or num_players)     # the own futures of this table's size, built or loaded

    def _check(self, rules) -> None:
        if rules.columns > 1:
            raise ValueError(f"strong?goal={self.goal} plays one-column rules; {rules.name!r} have {rules.columns} "
                             f"columns (no score distributions for several columns)")

    def _check_distributions(self, rules) -> None:
        """ValueError when the score distributions it plays by are out of reach under `rules`."""
        try:
            check_distributions(rules)
        except Unsolvable as e:
            raise ValueError(f"{self.name} plays by the score distributions of optimal play: {e}") from None

    def act_batch(self, view: BatchView):
        rules = view.rules
        policy, inputs = self._inputs(view)
        plans = self._plans(view.state, inputs.shape[1], policy.n_stages, policy.model.D.n_rolls)
        rows = view.rows
        miss = ~(plans.inputs[rows] == inputs).all(axis=1)
        if miss.any():
            at = rows[miss]
            plans.plans[at] = self.plan(rules, inputs[miss])[0]
            plans.inputs[at] = inputs[miss]
        lefts = np.minimum(view.rolls_left, policy.n_stages)
        return plans.plans[rows, lefts, view.roll].astype(np.int64)

    def _inputs(self, view: BatchView):
        """(policy, inputs): every table's plan inputs (state key of every sheet, total of every sheet, the
        deciding sheet)."""
        rules = view.rules
        self._check(rules)
        policy = self.strong.policy_for(rules)
        keys = policy.state_keys(view.filled[:, :, 0], view.upper[:, :, 0], view.yacht50[:, :, 0])
        return policy, np.concatenate([keys, view.totals, view.sheet[:, None]], axis=1).astype(np.int64)

    def act_dial(self, view: BatchView, temperature: float, uniforms):
        """(actions, losses, decided): the strength dial on chances to win
        (`yacht_env.solver.winning.win_dial_moves`): each move drawn from the softmax over the legal moves'
        chances at `temperature` (in chance) with the decision's uniform number; losses: the chance each gave
        up; decided: the decisions whose moves all have the same chance. The chances of a turn's moves are
        computed once per turn and kept with their inputs, as the plans are."""
        model, kept, decisions = self._turn_chances(view, uniforms)
        n = len(decisions.rows)
        actions, losses, decided = np.empty(n, np.int64), np.empty(n), np.empty(n, np.bool_)
        win_dial_moves(model, kept.chances, kept.boxvals, decisions, float(temperature), actions, losses, decided)
        return actions, losses, decided

    def move_chances(self, view: BatchView) -> np.ndarray:
        """(decisions, actions) float64: the chance to win (goal "win") or to reach the target after each move,
        by the estimate it plays by; -inf where a move is not legal (every hold pattern of a keep gets the
        keep's chance). Its move is one with the highest chance."""
        model, kept, decisions = self._turn_chances(view, np.zeros(len(view.rows)))
        out = np.empty((len(view.rows), num_actions(view.rules)))
        win_move_chances(model, kept.chances, kept.boxvals, decisions, out)
        return out

    def _turn_chances(self, view: BatchView, uniforms):
        """(model, kept, decisions): the chances of every move of the views' turns (`_TurnChances`, computed
        once per turn by `win_tables` and kept with their inputs) and the decisions to read them at."""
        policy, inputs = self._inputs(view)
        rules = view.rules
        kept = self._dial.get(view.state)
        if kept is None or kept.inputs.shape[1] != inputs.shape[1]:
            kept = self._dial[view.state] = _TurnChances(view.state.num_tables, inputs.shape[1], policy.n_stages,
                                                         policy.model.D.n_rolls, len(rules.boxes))
        rows = view.rows
        miss = ~(kept.inputs[rows] == inputs).all(axis=1)
        if miss.any():
            at = rows[miss]
            k = (inputs.shape[1] - 1) // 2
            new = np.ascontiguousarray(inputs[miss])
            n_rolls = policy.model.D.n_rolls
            chances = np.empty((len(at), policy.n_stages + 1, n_rolls))
            boxvals = np.empty((len(at), n_rolls, len(rules.boxes)))
            M = policy.model
            win_tables(M.T, M.D, M.space, M.L, policy.solution.values, distribution_arrays(rules, self.strong.cache),
                       self._own(rules, k), self._seats(new, np.full(len(at), self.target, np.int64)), chances,
                       boxvals)
            kept.chances[at], kept.boxvals[at], kept.inputs[at] = chances, boxvals, new
        lefts = np.minimum(view.rolls_left, policy.n_stages).astype(np.int64)
        decisions = Decisions(rows=np.asarray(rows, np.int64), keys=np.zeros((0, 1), np.int64),
                              rolls=np.asarray(view.roll, np.int64), lefts=lefts,
                              uniforms=np.ascontiguousarray(uniforms, np.float64))
        return policy.model, kept, decisions

    def plan(self, rules, inputs):
        """(plans, chances) of whole turns: inputs rows are (state key of every sheet, total of every sheet,
        the deciding sheet); plans[j, L, r] the move with L re-rolls left and roll r, chances[j, L, r] its
        chance (`yacht_env.solver.winning.win_plans`)."""
        policy = self.strong.policy_for(rules)
        k = (inputs.shape[1] - 1) // 2
        n = len(inputs)
        n_rolls = policy.model.D.n_rolls
        plans = np.empty((n, policy.n_stages + 1, n_rolls), np.uint8)
        chances = np.empty((n, policy.n_stages + 1, n_rolls))
        M = policy.model
        seats = self._seats(np.ascontiguousarray(inputs, np.int64), np.full(n, self.target, np.int64))
        win_plans(M.T, M.D, M.space, M.L, policy.solution.values, distribution_arrays(rules, self.strong.cache),
                  self._own(rules, k), seats, plans, chances)
        return plans, chances

    def _seats(self, inputs, targets) -> Seats:
        """The `winning.Seats` of plan inputs (rows: state key of every sheet, total of every sheet, the deciding
        sheet) with these targets."""
        k = (inputs.shape[1] - 1) // 2
        return Seats(keys=np.ascontiguousarray(inputs[:, :k]), totals=np.ascontiguousarray(inputs[:, k:2 * k]),
                     mine=np.ascontiguousarray(inputs[:, 2 * k]), targets=targets, spreads=self._spread(k))

    def _own(self, rules, sheets: int):
        """The own futures it weighs at a table of `sheets` sheets (see the class docstring)."""
        risks = self.risks if self.risks is not None else risks_for(sheets) if self.goal == "win" else ()
        oracle = self.oracle if self.oracle is not None else oracle_for(sheets) if self.goal == "win" else 0.0
        return own_futures(rules, risks, self.strong.cache, oracle=oracle)

    def _spread(self, sheets: int) -> np.ndarray:
        """The factors of its own future at a table of `sheets` sheets (see the class docstring)."""
        if self.spread is not None:
            return self.spread
        return spread_for(sheets) if self.goal == "win" else np.ones(1)

    def _plans(self, state, width: int, n_stages: int, n_rolls: int) -> "_TurnPlans":
        """The turn plans kept for the tables of an engine state (one per table: the plan of the turn being
        played, with the inputs it was made from; a plan is used only while its inputs are the table's)."""
        plans = self._kept.get(state)
        if plans is None or plans.inputs.shape[1] != width:
            plans = self._kept[state] = _TurnPlans(state.num_tables, width, n_stages, n_rolls)
        return plans


class _TurnPlans:
    def __init__(self, tables: int, width: int, n_stages: int, n_rolls: int):
        self.inputs = np.full((tables, width), -1, np.int64)
        self.plans = np.zeros((tables, n_stages + 1, n_rolls), np.uint8)


class _TurnChances:
    """Per table: the chances of every move of the turn being played (`win_tables`) and their inputs."""

    def __init__(self, tables: int, width: int, n_stages: int, n_rolls: int, n_boxes: int):
        self.inputs = np.full((tables, width), -1, np.int64)
        self.chances = np.zeros((tables, n_stages + 1, n_rolls))
        self.boxvals = np.zeros((tables, n_rolls, n_boxes))
