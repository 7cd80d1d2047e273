"""`learned?lookahead=K:PATH`: a learned policy that looks one roll ahead with its own critic.

    agent = LearnedAgent("models/ppo-yacht.pt", lookahead=3)    # spec: learned?lookahead=3:models/ppo-yacht.pt

At each decision the agent values every legal hold and the policy's K likeliest legal boxes, and
plays the best of them (the first action on ties):

* a hold is worth the critic's value of the next roll of this turn, averaged over the sorted rolls of the
  rules' dice (252 of five, 462 of six) with the probabilities the kept dice give them (`transition` of
  `rules.dice_tables`);
* a box is worth the points it pays now (bonuses included) plus, unless it ends the game, the critic's
  value of the first roll of the sheet's next turn, averaged over those rolls (`roll_prob`).

The critic is the value head trained with the policy (`yacht train` keeps it in every model file):
its output is the points still to come times `reward_scale`, less the upper-par potential when the
model was trained with `upper_shaping` (`agents.training.reward`), so `Critic` adds the potential
back and divides by the scale. No solver value is used; everything the agent knows it learned from
the rewards of its training games, and the dice probabilities are the rules'. Only models trained
alone (`num_players: 1`, `reward: points`) have a critic that values the sheet's points; the agent
plays them at any table, looking ahead on its own sheet (`State.solo`).

Each table's move depends on that table only (compiled per-row networks, fixed summation orders), so
a game gets the same moves played alone or in a batch of thousands.
"""
import numpy as np

from yacht_env.core.actions import num_holds
from yacht_env.config import ConfigError, number
from yacht_env.core.engine import ROLL, ROLLS_USED
from yacht_env.envs.obs import observe
from yacht_env.envs.options import narrow_masks

from .features import policy_input, upper_par_potential

MAX_LOOKAHEAD = 64     # boxes the look-ahead may value per decision (spec bound; more than any sheet)
CHUNK = 64             # positions expanded at once (each into every roll of the dice per candidate)


class Critic:
    """A model's value head (`agents.learned.PolicyNet` with head "value") read as the points still to
    come, by the training config it was trained with (a dict)."""

    def __init__(self, net, config: dict):
        self.net = net
        self.config = config
        self.scale = float(config.get("reward_scale", 1.0))
        self.shaping = float(config.get("upper_shaping", 0.0))

    def points_to_come(self, state, rows, rules) -> np.ndarray:
        """(len(rows),) float64: the points the critic expects the sheet to move at tables `rows` of a
        one-player `State` to add from here (0 at a finished game)."""
        rows = np.asarray(rows, np.int64)
        obs = observe(state, rows)
        value = self.net(policy_input(obs, state.dice[rows], self.config, rules))[:, 0].astype(np.float64)
        value /= self.scale
        if self.shaping:
            value += upper_par_potential(obs, rules, self.shaping)
        return np.where(state.over(rows), 0.0, value)


def refuse_reason(config: dict) -> str | None:
    """Why a model trained with this config (as its model file records it) cannot look ahead, or None."""
    if config.get("num_players", 1) != 1:
        return (f"it was trained at a table of {config['num_players']} seats, and its critic values "
                f"{config.get('reward', 'points')!r} there, not the points of its own sheet")
    if config.get("reward", "points") != "points":
        return f"its critic values reward {str(config['reward'])[:40]!r}, not points"
    try:      # the bounds `yacht train` checks them by (agents.training.config)
        number("its config", "reward_scale", config.get("reward_scale", 1.0), 0, 1e6, above=True)
        number("its config", "upper_shaping", config.get("upper_shaping", 0.0), 0, 1e6)
    except ConfigError as e:
        return str(e)[:200]
    return None


def lookahead_actions(policy, critic: Critic, state, rows, masks, rules, boxes: int,
                      distinct_holds: bool) -> np.ndarray:
    """The look-ahead's actions (module docstring) at tables `rows` of an engine `State`: the best valued
    action of each (`action_values`), the first on ties."""
    out = np.empty(len(rows), np.int64)
    for lo in range(0, len(rows), CHUNK):
        part = slice(lo, lo + CHUNK)
        out[part] = action_values(policy, critic, state.solo(rows[part]), masks[part], rules, boxes,
                                  distinct_holds).argmax(axis=1)
    return out


def action_values(policy, critic: Critic, solo, masks, rules, boxes: int, distinct_holds: bool) -> np.ndarray:
    """(tables, actions) float64: what the look-ahead expects each action to be worth (points now plus
    points to come) at every table of a one-player `State` (`State.solo`); -inf for actions it does not
    value. masks: the legal actions (bool); policy: the model's `agents.learned.PolicyNet`; boxes: how
    many of the policy's likeliest legal boxes are valued; distinct_holds: value one hold per keep."""
    n, n_actions = masks.shape
    every = np.arange(n)
    if distinct_holds:
        masks = narrow_masks(masks, solo.ints[:, ROLL], rules.dice)
    value = np.full((n, n_actions), -np.inf)
    D, holds = rules.dice_tables, num_holds(rules)
    rolls = D.n_rolls

    holding = np.flatnonzero(masks[:, :holds].any(axis=1))
    if len(holding):
        ahead = solo.repeat(holding, rolls)
        ahead.put_rolls(np.arange(ahead.num_tables), np.tile(np.arange(rolls), len(holding)),
                        np.repeat(solo.ints[holding, ROLLS_USED] + 1, rolls))
        after = critic.points_to_come(ahead, np.arange(ahead.num_tables), rules).reshape(len(holding), rolls)
        keeps = D.hold_keep[solo.ints[holding, ROLL], :holds]                 # (positions, holds)
        worth = np.einsum("phr,pr->ph", D.transition[keeps], after)
        value[holding, :holds] = np.where(masks[holding, :holds], worth, -np.inf)

    obs = observe(solo, every)
    logits = policy(policy_input(obs, solo.dice, critic.config, rules))[:, holds:]
    logits = np.where(masks[:, holds:], logits, -np.inf)
    order = np.argsort(-logits, axis=1, kind="stable")[:, :boxes]             # likeliest legal boxes first
    pos, rank = np.nonzero(np.take_along_axis(logits, order, axis=1) > -np.inf)
    actions = holds + order[pos, rank]
    if len(pos):
        scored = solo.repeat(pos, 1)
        points = scored.play(np.arange(len(pos)), actions).astype(np.float64)
        going = np.flatnonzero(~scored.over())
        if len(going):
            ahead = scored.repeat(going, rolls)
            ahead.put_rolls(np.arange(ahead.num_tables), np.tile(np.arange(rolls), len(going)), 1)
            after = critic.points_to_come(ahead, np.arange(ahead.num_tables), rules).reshape(len(going), rolls)
            points[going] += np.einsum("pr,r->p", after, D.roll_prob)
        value[pos, actions] = points
    return value
