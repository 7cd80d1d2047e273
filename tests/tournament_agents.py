"""Small agents for the tournament tests, behind a `make_agent(spec)` factory like the registry's."""
import time

import numpy as np

from agents.base import Agent
from yacht_env.core.actions import NUM_HOLDS, score_action


class Calm(Agent):
    """A test agent that answers at once, as the built-in agents do: trusted like them, so its calls are
    not timed (tournaments.play) and no verdict about it depends on the machine's speed. Only a class
    that sets `calm = True` itself is trusted: the misbehaving agents built on these classes are timed."""

    @property
    def trusted(self) -> bool:
        return type(self).__dict__.get("calm", False)


class FirstBox(Calm):
    """Scores the first legal box on the first roll."""
    name = "first"
    calm = True

    def act(self, view):
        legal = view.legal_actions
        return int(legal[legal >= NUM_HOLDS][0])


class BestBox(Calm):
    """Re-rolls everything but the most common face while it can, then takes the best-scoring box."""
    name = "best"
    calm = True

    def act(self, view):
        if view.rolls_left > 0:
            counts = np.bincount(view.dice, minlength=7)
            face = int(np.argmax(counts[1:]) + 1)
            hold = sum(1 << i for i, d in enumerate(view.dice) if d == face)
            if hold != 31:
                return hold
        pts = view.game.preview()
        (col, box), _ = max(pts.items(), key=lambda kv: kv[1])
        return score_action(view.rules, col, view.rules.boxes.index(box))


class UpperFirst(BestBox):
    """BestBox's holds, then the upper box of the most common face while it is open."""
    name = "upper"
    calm = True

    def act(self, view):
        action = super().act(view)
        if action < NUM_HOLDS:
            return action
        counts = np.bincount(view.dice, minlength=7)
        box = ("ones", "twos", "threes", "fours", "fives", "sixes")[int(np.argmax(counts[1:]))]
        if (0, box) in view.game.preview():
            return score_action(view.rules, 0, view.rules.boxes.index(box))
        return action


class Random(Calm):
    """Uniform over legal actions, from the seed given at reset."""
    name = "random"
    calm = True

    def act(self, view):
        return int(self.rng.choice(view.legal_actions))


class Crash(FirstBox):
    """Raises on its fourth decision."""
    def reset(self, rules, seat, num_players, seed=None):
        super().reset(rules, seat, num_players, seed)
        self.n = 0

    def act(self, view):
        self.n += 1
        if self.n == 4:
            raise RuntimeError("boom")
        return super().act(view)


class Illegal(Agent):
    """Always asks for action 0 (a re-roll), which is illegal once no rolls are left."""
    def act(self, view):
        return 0


class Hang(FirstBox):
    """Sleeps far past any move limit on its second decision."""
    def reset(self, rules, seat, num_players, seed=None):
        super().reset(rules, seat, num_players, seed)
        self.n = 0

    def act(self, view):
        self.n += 1
        if self.n == 2:
            time.sleep(60)
        return super().act(view)


class Slow(BestBox):
    """BestBox with a pause per move (to kill a run in the middle)."""
    def act(self, view):
        time.sleep(0.004)
        return super().act(view)


AGENTS = {"first": FirstBox, "best": BestBox, "upper": UpperFirst, "random": Random, "crash": Crash, "illegal": Illegal,
          "hang": Hang, "slow": Slow}


def make_agent(spec: str, agents=AGENTS):
    if spec not in agents:
        raise ValueError(f"unknown agent {spec!r}; known: {', '.join(agents)}")
    return agents[spec]()


class OneGameAtATime(Agent):
    """Hides that an agent is batched, so runners take the per-game path (in game workers)."""

    def __init__(self, inner):
        self.inner = inner

    def reset(self, rules, seat, num_players, seed=None):
        self.inner.reset(rules, seat, num_players, seed)

    def act(self, view):
        return self.inner.act(view)


def make_per_game_agent(spec: str):
    """The registry's agent, played one game at a time."""
    from agents.registry import make_agent as registry_agent
    return OneGameAtATime(registry_agent(spec))


def make_fast_agent(spec: str):
    """As make_agent, but `slow` plays without pausing (the same moves)."""
    return make_agent(spec, {**AGENTS, "slow": BestBox})
