"""The strength dial: `DialAgent(strength)` (spec `strong?strength=S`) plays the solver's values with noise.

At every decision each legal move m has a value, the expected final points of the sheet after it with
optimal play from there (`yacht_env.solver.dial.move_values`), and a loss, best value - value of m.
The agent draws a move with probability proportional to exp(-loss / T), T = `temperature(strength)`:
strength 1 is T = 0, the strong agent itself (the same games); strength 0 is T = infinity, every
distinct move alike (holds that keep the same dice are one move). In between, a move that loses a
tenth of a point is played almost as often as the best one and one that loses twenty almost never:
cheap mistakes often, costly ones rarely. The draw takes the decision's number from `decision_uniforms`
(stream `DIAL_STREAM`), so a game is the same played alone or in a batch, and the same number at a
lower strength never picks a better move (the moves are drawn best first by inverse CDF).

One column: the values are exact. Several columns: the column-additive values the strong agent plays by
(each column valued by the one-column solitaire table, the sheet by their sum). Teams: the team's sheet.
Targets on the dial are `agents.targets`, the search for a target's strength `agents.calibration`, the
named levels `agents.levels`.
"""
import math

import numpy as np

from yacht_env.core.dice_source import decision_uniforms

from .base import Agent, BatchView
from .strong import StrongAgent, WinAgent

DIAL_STREAM = 1          # the dial's stream of decision_uniforms (the random agent's is 0)
SCALE = 5.0              # temperature at strength 1/2, in expected points
SHAPE = 1.0              # temperature = SCALE * ((1 - s) / s) ** SHAPE
WIN_POINTS = 200.0       # goal=win: a chance to win of 1 weighs as 200 expected points in the dial's temperature
DIAL_VERSION = 1         # bump when the dial's play changes: calibrations of another version are not reused


def temperature(strength: float) -> float:
    """The softmax temperature, in expected points, of a strength in [0, 1] (inf at 0, 0 at 1)."""
    s = check_strength(strength)
    if s == 0.0:
        return math.inf
    return SCALE * ((1.0 - s) / s) ** SHAPE


def check_strength(strength) -> float:
    """A strength as a float in [0, 1]; ValueError (saying what is allowed) for anything else."""
    try:
        s = float(strength)
    except (TypeError, ValueError):
        raise ValueError(f"strength must be a number in [0, 1], got {strength!r}") from None
    if not 0.0 <= s <= 1.0:     # NaN fails both comparisons
        raise ValueError(f"strength must be in [0, 1] (1 = optimal, 0 = random-like), got {s:g}")
    return s


class DialAgent(Agent):
    """The solver's play at a strength in [0, 1] (see the module docstring); batched and trusted.

    `meter`, when set to a `LossMeter`, is told the expected points every decision lost. `strong`: the
    `StrongAgent` whose policies (solved tables, kept plans and stage values) it plays from; agents that
    share one share those caches.

    goal "win": the same dial on the chance to finish first (`WinAgent`'s estimate) instead of expected
    points: move m is drawn with probability proportional to exp(-WIN_POINTS * (best chance - chance of
    m) / T) -- a chance of 1 weighs as `WIN_POINTS` expected points (at the start of a two-player game one
    point of final score moves the chance to win by about 0.5%); strength 1 is `strong?goal=win` itself. A
    decided position (every move with the same chance: won, lost, or no other sheet) is played by the dial
    on expected points at the same strength, as `strong?goal=win` plays such positions as `strong`.
    """

    name = "dial"
    trusted = True

    def __init__(self, strength: float = 1.0, strong: StrongAgent | None = None, goal: str = "points"):
        if goal not in ("points", "win"):
            raise ValueError(f"the dial plays goal=points or goal=win, not {goal!r}")
        self.strength = check_strength(strength)
        self.strong = strong if strong is not None else StrongAgent()
        self.goal = goal
        self.win = WinAgent("win", strong=self.strong) if goal == "win" else None
        self.meter = None
        self.name = "strong" if self.strength == 1.0 else f"strong~{self.strength:g}"
        if goal == "win":
            self.name += "?goal=win"

    def check_rules(self, rules, num_players) -> None:
        self.strong.check_rules(rules, num_players)
        if self.win is not None:
            self.win.check_rules(rules, num_players)

    def prepare(self, rules, num_players) -> None:
        self.strong.prepare(rules, num_players)
        if self.win is not None:
            self.win.prepare(rules, num_players)
        self.strength_for(rules)

    def strength_for(self, rules) -> float:
        """The strength played under these rules (fixed here; a `LevelAgent` finds its own per rule set)."""
        return self.strength

    def act_batch(self, view: BatchView) -> np.ndarray:
        strength = self.strength_for(view.rules)
        if self.win is not None:
            return self._act_win(view, strength)
        policy = self.strong.policy_for(view.rules)
        keys = policy.state_keys(view.own_filled, view.own_upper, view.own_yacht50)
        if strength == 1.0:
            actions = policy.actions(keys, view.roll, view.rolls_left)
            if self.meter is not None:
                values = policy.move_values(keys, view.roll, view.rolls_left)
                self.meter.add(view.seeds, view.seat, values.max(axis=1) - values[np.arange(len(actions)), actions])
            return actions
        u = decision_uniforms(view.seeds, view.seat, view.round, view.rolls_used, DIAL_STREAM)
        actions, losses = policy.sampled_actions(keys, view.roll, view.rolls_left, temperature(strength), u)
        if self.meter is not None:
            self.meter.add(view.seeds, view.seat, losses)
        return actions

    def _act_win(self, view: BatchView, strength: float) -> np.ndarray:
        """goal=win: strength 1 plays `strong?goal=win`'s moves; below, the dial on its chances."""
        if strength == 1.0:
            return self.win.act_batch(view)
        u = decision_uniforms(view.seeds, view.seat, view.round, view.rolls_used, DIAL_STREAM)
        t = temperature(strength)
        actions, losses, decided = self.win.act_dial(view, t / WIN_POINTS, u)
        losses *= WIN_POINTS
        if decided.any():      # every move alike for the chance to win: the dial on expected points
            policy = self.strong.policy_for(view.rules)
            keys = policy.state_keys(view.own_filled, view.own_upper, view.own_yacht50)[decided]
            actions[decided], losses[decided] = policy.sampled_actions(keys, view.roll[decided],
                                                                       view.rolls_left[decided], t, u[decided])
        if self.meter is not None:
            self.meter.add(view.seeds, view.seat, losses)
        return actions


class LossMeter:
    """The expected points a dial agent's decisions lost, summed per (game seed, seat)."""

    def __init__(self):
        self._seeds, self._seats, self._losses = [], [], []

    def add(self, seeds, seats, losses) -> None:
        self._seeds.append(np.asarray(seeds, np.uint64).copy())
        self._seats.append(np.asarray(seats, np.int64).copy())
        self._losses.append(np.asarray(losses, np.float64).copy())

    def per_game(self, seeds, seat: int = 0) -> np.ndarray:
        """Points lost in each game of `seeds` (distinct game seeds) at `seat`."""
        seeds = np.asarray(seeds, np.uint64)
        out = np.zeros(len(seeds))
        if not self._seeds:
            return out
        s, t, x = (np.concatenate(a) for a in (self._seeds, self._seats, self._losses))
        order = np.argsort(seeds, kind="stable")
        at = np.minimum(np.searchsorted(seeds[order], s), len(seeds) - 1)
        hit = (t == seat) & (seeds[order][at] == s)
        np.add.at(out, order[at[hit]], x[hit])
        return out
