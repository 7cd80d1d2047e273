"""The one protocol for everything that plays, in two forms: one game at a time, or many at once.

Per game: `reset(rules, seat, num_players, seed)` before each game, then `act(view) -> action` at every
decision (`yacht_env.core.view.View`). Batched: `prepare(rules, num_players)` before play, then
`act_batch(batch_view) -> actions` decides for many tables at once (`yacht_env.core.view.BatchView`,
arrays with one row per table). Actions use the encoding of `yacht_env.core.actions`.

An agent that implements `act_batch` answers `act(view)` too (through a one-row batch view), so it plays
anywhere; `batched` tells the runners it can play in lockstep. A per-game agent plays a batch through
`PerGame` (`yacht_env.core.players`), which keeps one instance per table. Built-in agents take their random choices
from `yacht_env.core.dice_source.decision_uniforms`, keyed by the game and the decision, so a game comes out the
same played alone or in a batch.
"""
import numpy as np

from yacht_env.config import ConfigError
from yacht_env.core.game import Game
from yacht_env.core.players import PerGame
from yacht_env.rules import RuleSet
from yacht_env.core.view import BatchView, View

__all__ = ["Agent", "BatchView", "PerGame", "View", "play_game"]


class Agent:
    """Base class: override `act` (per game) or `act_batch` (batched); `reset` is called before each game."""

    name = "agent"
    # library code that returns in bounded time (the built-in agents): tournaments play tables of
    # trusted batched agents in their own process; every other agent plays in a watched game worker
    trusted = False

    def reset(self, rules: RuleSet, seat: int, num_players: int, seed: int | None = None) -> None:
        self.rules, self.seat, self.num_players = rules, seat, num_players
        self.rng = np.random.default_rng(seed)
        if self.batched:
            self.prepare(rules, num_players)

    def check_rules(self, rules: RuleSet, num_players: int) -> None:
        """Refuse, cheaply and before any game (nothing solved or loaded), rules or a table this agent cannot
        play: ValueError with the reason (`check_playable` names the agent). The default plays any rule set
        (random, greedy, external bots, people); agents that need the solver's table, or a model's inputs
        and actions, override it."""

    def prepare(self, rules: RuleSet, num_players: int) -> None:
        """Get ready to play these rules (load tables, check the model fits); ValueError if it cannot."""

    def act(self, view: View) -> int:
        if not self.batched:
            raise NotImplementedError(f"{type(self).__name__} implements neither act nor act_batch")
        return int(self.act_batch(BatchView.of_view(view))[0])

    def act_batch(self, view: BatchView) -> np.ndarray:
        """One action per row of the view (int64 array)."""
        raise NotImplementedError

    @property
    def batched(self) -> bool:
        """True when the agent decides for many tables at once (implements `act_batch`)."""
        return type(self).act_batch is not Agent.act_batch

    def close(self) -> None:
        """Release processes or files (external bots)."""


def play_game(game: Game, agents, on_error=None) -> Game:
    """Play a game to the end: agents[seat].act(View) at every decision.

    on_error(seat, exc) -> action | None lets a caller replace a failing move (tournaments use it
    for forfeits); without it, the error propagates.
    """
    for seat, agent in enumerate(agents):
        agent.reset(game.rules, seat, game.num_players, seed=(game.seed * 8 + seat) & 0xFFFFFFFF)
    while not game.is_over:
        if game.phase == "roll":
            game.roll()
            continue
        seat = game.current_seat
        try:
            game.apply(agents[seat].act(View.of(game)))
        except Exception as exc:  # the caller decides what a failure means
            if on_error is None:
                raise
            game.apply(on_error(seat, exc, game))
    return game


def check_playable(agents: dict, rules: RuleSet, num_players: int) -> None:
    """Every agent's `check_rules` ({name: agent}), before any game: ConfigError, one line, naming the first
    agent that cannot play `rules` at a table of `num_players` and why."""
    for name, agent in agents.items():
        try:
            agent.check_rules(rules, num_players)
        except ValueError as e:
            raise ConfigError(f"agent {name!r} cannot play rules {rules.name!r} at {num_players} "
                              f"seat{'s' if num_players != 1 else ''}: {e}") from None
