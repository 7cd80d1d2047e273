"""Players inside the environments: agent specs, agents and plain callables, all as batched players.

The environments take their opponents as

* agent specs (`"strong"`, `"strong?strength=0.5"`, `"learned:models/ppo-yacht.pt"`,
  `"external:python bot.py"`): turned into agents by the factory registered under the entry-point
  group `yacht_arena.agents` (the `agents` package registers `agents.registry:make_agent`; this
  package imports nothing from it);
* agents: anything with `act_batch(BatchView)` plays many tables at once; anything with only
  `act(View)` (external bots, people, a user's class) plays through `PerGame`, one instance per table;
* callables `policy(game) -> action`, called with a `Game` view of the table (the original protocol of
  `YachtVs-v0`).

A batched player answers `act_batch(view)` with one action per row of a `yacht_env.core.view.BatchView`.
"""
from importlib.metadata import entry_points

import numpy as np

from .dice_source import decision_uniforms
from .game import Game
from .view import BatchView, View

GROUP = "yacht_arena.agents"


def kth_legal(mask: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Per row, the legal action picked by the uniform number u in [0, 1): the floor(u * n)-th of its n."""
    n = mask.sum(axis=1)
    k = np.minimum((u * n).astype(np.int64), n - 1)
    return np.argmax(np.cumsum(mask, axis=1) > k[:, None], axis=1).astype(np.int64)


def uniform_actions(view: BatchView) -> np.ndarray:
    """A uniformly random legal action at every row, from the decision's uniform number (the `random` agent's
    choice, and the environments' default opponent)."""
    return kth_legal(view.mask, decision_uniforms(view.seeds, view.seat, view.round, view.rolls_used))


class Uniform:
    """Uniformly random legal actions (`uniform_actions`)."""

    batched = True

    def act_batch(self, view: BatchView) -> np.ndarray:
        return uniform_actions(view)


def agent_factory():
    """The function registered under the `yacht_arena.agents` entry points that makes an agent from a spec."""
    found = entry_points(group=GROUP)
    if not found:
        raise ValueError(f"no agent factory is installed (entry points {GROUP!r}): install yacht-arena with pip, "
                         "or pass agent objects instead of specs")
    return sorted(found, key=lambda e: e.name)[0].load()


class PerGame:
    """A per-game agent at one seat of many tables: one instance per table, made by `make()`.

    `start(state, rows)` resets the instances of tables whose game starts; `act_batch` asks each
    instance in turn, through a `Game` view of its table (`Game.of_table`).
    """

    batched = True

    def __init__(self, make, num_tables: int, seat: int):
        self.make, self.seat = make, seat
        self.agents = [None] * num_tables

    def start(self, state, rows) -> None:
        for i in rows:
            if self.agents[i] is None:
                self.agents[i] = self.make()
            seed = int(state.seeds[i])
            self.agents[i].reset(state.rules, self.seat, state.num_players, seed=(seed * 8 + self.seat) & 0xFFFFFFFF)

    def act_batch(self, view: BatchView) -> np.ndarray:
        return np.array([self.agents[i].act(View.of(Game.of_table(view.state, int(i)))) for i in view.rows],
                        np.int64)

    def close(self) -> None:
        for a in self.agents:
            if a is not None and hasattr(a, "close"):
                a.close()


class CallablePlayer:
    """A callable `policy(game) -> action`, asked once per table with a `Game` view of it."""

    batched = True

    def __init__(self, policy):
        self.policy = policy

    def act_batch(self, view: BatchView) -> np.ndarray:
        return np.array([self.policy(Game.of_table(view.state, int(i))) for i in view.rows], np.int64)


def batched_player(opponent, num_tables: int, seat: int, factory=None):
    """A batched player for `opponent` at `seat` of `num_tables` tables (see the module docstring)."""
    if isinstance(opponent, str):
        make = factory or agent_factory()
        agent = make(opponent)
        if getattr(agent, "batched", False):
            return agent
        if hasattr(agent, "close"):
            agent.close()
        return PerGame(lambda: make(opponent), num_tables, seat)
    if getattr(opponent, "batched", False) and hasattr(opponent, "act_batch"):
        return opponent
    if hasattr(opponent, "act") and hasattr(opponent, "reset"):
        if num_tables > 1:
            raise ValueError(f"{type(opponent).__name__} plays one game at a time and cannot sit at {num_tables} "
                             "tables at once; give its agent spec (or a batched agent) instead")
        return PerGame(lambda: opponent, 1, seat)
    if callable(opponent):
        return CallablePlayer(opponent)
    raise ValueError(f"an opponent must be an agent spec, an agent or a callable game -> action, got {opponent!r}")
