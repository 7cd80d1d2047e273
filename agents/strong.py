"""Strong: the exact solver's optimal play.

One column (solitaire, multi-player or a team's shared sheet): every move maximises the
sheet's own expected final score exactly. The value table comes from `yacht_env.solver`
(cached on disk; solved on first use), and the turn widget is computed at the current state.

Several columns (too many states for an exact solve): each column is valued by the one-column
solitaire table and the sheet by the sum of its columns. A box is chosen by points + bonuses +
the changed column's new value (the least value lost for what it scores); holds come from the turn
widget built on those box values. Strong ignores the opponents' scores: it maximises its own
expected total, which is what wins most often when the others cannot be influenced.
"""
import weakref

from yacht_env.rules import load
from yacht_env.solver import Unsolvable, solution_for
from yacht_env.solver.policy import Policy

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

    def prepare(self, rules, num_players) -> None:
        self.policy_for(rules)

    def policy_for(self, rules) -> Policy:
        """The policy of a rule set (its one-column table solved or loaded once per agent)."""
        if rules not in self._policies:
            policy = _POLICIES.get((rules, self.cache))
            if policy is None:
                column = load(rules, columns=1) if rules.columns > 1 else rules
                try:
                    solution = solution_for(column, use_cache=self.cache, progress=self.progress)
                except Unsolvable as e:
                    raise ValueError(f"strong cannot play rules {rules.name!r}: {e}") from None
                policy = _POLICIES[rules, self.cache] = Policy(rules, solution)
            self._policies[rules] = policy
        return self._policies[rules]

    def act_batch(self, view: BatchView):
        return self.policy_for(view.rules).act_batch(view)

    def plan_tables(self, rules):
        """Where the policy of `rules` keeps its plans (`Policy.plan_tables`)."""
        return self.policy_for(rules).plan_tables()

    def plan_seats(self, state, rows) -> None:
        """Compute the plans of the seats to move at tables `rows` (`Policy.plan_seats`)."""
        self.policy_for(state.rules).plan_seats(state, rows)

    def advance(self, state, rows, seating, me: int) -> None:
        """The lockstep runner's fast path: the policy plays this agent's moves ahead (`Policy.advance`)."""
        self.policy_for(state.rules).advance(state, rows, seating, me)
