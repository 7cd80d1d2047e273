"""The Easy and Normal play styles, and the `skill` knob that blends any level with the one below.

Both styles pick holds with the one-turn planner (`turn_plan`), over what each box is worth to them:

* Easy goes for the box that pays the most for the dice in hand, holds for that box alone,
  plans as if the next roll were its last, ignores the upper bonus -- and, being impatient,
  often just settles for the roll in hand (its default skill is 0.7: see below).
* Normal plans all its re-rolls towards every open box at once (so it keeps straights and full
  houses alive), values a box at its points plus the bonuses it pays, credits upper boxes for
  progress towards the upper bonus (`bonus_weight` per point above three of the face, while the
  bonus can still be reached), and optionally charges each box a *par* (`par_weight` times what
  the box pays when chased alone for a whole turn; 0 by default).

`skill` in [0, 1]: at each decision the agent plays its own choice with probability `skill`,
and otherwise the choice of the level below (easy -> greedy, normal -> easy, strong -> normal).
So difficulty is continuous along the whole ladder. The named levels are points on it:
`easy` = easy style at skill 0.7 (the other 30% of its decisions are greedy: score the best box
now), `normal` = normal style at skill 1, `strong` = the solver at skill 1.
"""
from functools import lru_cache

import numpy as np

from yacht_env.dice import NUM_HOLDS, roll_index
from yacht_env.odds import chase

from .base import Agent, View
from .box_values import sheet_gains
from .simple import GreedyAgent
from .turn_plan import best_action, hold_values


def _candidates(gains: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows of open boxes from (columns, boxes, 252) gains, and the action that scores each."""
    flat = gains.reshape(-1, gains.shape[-1])
    rows = np.flatnonzero(np.isfinite(flat).any(axis=1))
    return flat[rows], NUM_HOLDS + rows


@lru_cache(maxsize=64)
def box_par(rules) -> np.ndarray:
    """Expected points of each box when a whole turn is spent chasing it alone."""
    t = rules.tables
    return np.array([chase(t.score[b].astype(float), rules.rolls_per_turn)[-1] for b in range(t.n_boxes)])


class Blended(Agent):
    """An agent with a `skill` knob: own move with probability skill, else the weaker agent's move."""

    def __init__(self, skill: float = 1.0, weaker: Agent | None = None):
        if not 0.0 <= skill <= 1.0:
            raise ValueError(f"skill must be in [0, 1], got {skill}")
        self.skill, self.weaker = float(skill), weaker

    def reset(self, rules, seat, num_players, seed=None):
        super().reset(rules, seat, num_players, seed)
        if self.weaker is not None:
            self.weaker.reset(rules, seat, num_players, seed=None if seed is None else seed ^ 0x5EED)

    def act(self, view: View) -> int:
        if self.skill < 1.0 and self.weaker is not None and self.rng.random() >= self.skill:
            return int(self.weaker.act(view))
        return int(self.choose(view))

    def choose(self, view: View) -> int:
        raise NotImplementedError


class EasyAgent(Blended):
    """Holds for the box that pays most now, ignores the upper bonus, looks one roll ahead."""

    name = "easy"

    def __init__(self, skill: float = 0.7):
        super().__init__(skill, GreedyAgent())

    def choose(self, view: View) -> int:
        values, actions = _candidates(sheet_gains(view, upper_bonus=False))
        r = roll_index(view.dice)
        i = int(np.argmax(values[:, r]))
        if view.rolls_left == 0:
            return int(actions[i])
        holds = hold_values(values[i:i + 1], r, view.rolls_left - 1, horizon=0)
        return int(np.argmax(holds)) if holds.max() > values[i, r] else int(actions[i])


class NormalAgent(Blended):
    """Plans the whole turn; box value = points - par_weight * par + bonus_weight * upper progress."""

    name = "normal"

    def __init__(self, skill: float = 1.0, par_weight: float = 0.0, bonus_weight: float = 3.0):
        super().__init__(skill, EasyAgent(skill=1.0))
        self.par_weight, self.bonus_weight = par_weight, bonus_weight

    def box_values(self, view: View) -> np.ndarray:
        """(columns, boxes, 252) what scoring each roll in each box is worth to this style."""
        rules, t = view.rules, view.rules.tables
        gains = sheet_gains(view)
        values = gains - self.par_weight * box_par(rules)[None, :, None]
        if t.upper_bonus and self.bonus_weight:
            face = t.box_face.astype(np.int64)[:, None]
            above_par = np.where(face > 0, t.score - 3 * face, 0)        # points above three of the face
            scores = view.scores[view.sheet]
            for c in range(rules.columns):
                open_upper = (scores[c] < 0) & (t.box_face > 0)
                need = t.upper_threshold - int(view.upper[view.sheet][c])
                if 0 < need <= int((5 * t.box_face[open_upper]).sum()):   # the bonus can still be made
                    values[c] += self.bonus_weight * above_par
        return values

    def choose(self, view: View) -> int:
        values, actions = _candidates(self.box_values(view))
        return best_action(values, actions, roll_index(view.dice), view.rolls_left)[0]


def make_strong(skill: float = 1.0) -> Agent:
    """The solver's StrongAgent (agents/strong.py), blended with Normal when skill < 1."""
    from .strong import StrongAgent
    strong = StrongAgent()
    if skill >= 1.0:
        return strong
    return _Mixed(strong, NormalAgent(), skill)


class _Mixed(Blended):
    """Blend of two ready-made agents (used for strong?skill=...)."""

    def __init__(self, main: Agent, weaker: Agent, skill: float):
        super().__init__(skill, weaker)
        self.main = main
        self.name = f"{getattr(main, 'name', 'agent')}~{skill:g}"

    def reset(self, rules, seat, num_players, seed=None):
        super().reset(rules, seat, num_players, seed)
        self.main.reset(rules, seat, num_players, seed)

    def choose(self, view: View) -> int:
        return self.main.act(view)

    def close(self):
        self.main.close()
