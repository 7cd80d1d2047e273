"""The one protocol for everything that plays: `reset` per game, `act(view) -> action`."""
from dataclasses import dataclass

import numpy as np

from yacht_env.game import Game
from yacht_env.rules import RuleSet


@dataclass(frozen=True)
class View:
    """What a seat sees when it must decide (phase 'decide').

    action encoding (as `Game.apply`): 0..30 re-roll holding the dice whose bits are set
    (dice are sorted), 31 + column * n_boxes + box scores a box.
    """
    rules: RuleSet
    seat: int
    sheet: int                 # the sheet this seat writes on (its own or its team's)
    dice: tuple[int, ...]      # sorted
    rolls_left: int
    mask: np.ndarray           # int8 legal-action mask
    scores: np.ndarray         # (sheets, columns, boxes), -1 = open
    upper: np.ndarray          # (sheets, columns) upper totals
    totals: tuple[int, ...]    # per sheet, bonuses included
    round: int                 # this sheet's turn number
    num_players: int
    game: Game                 # the live game, for agents that want more; never modify it

    @classmethod
    def of(cls, game: Game) -> "View":
        return cls(rules=game.rules, seat=game.current_seat, sheet=game.current_sheet, dice=game.dice,
                   rolls_left=game.rolls_left, mask=game.legal_mask(),
                   scores=np.stack([s.scores for s in game.sheets]),
                   upper=np.stack([s.upper for s in game.sheets]),
                   totals=tuple(game.sheet_totals()), round=game.round, num_players=game.num_players, game=game)

    @property
    def legal_actions(self) -> np.ndarray:
        return np.flatnonzero(self.mask)


class Agent:
    """Base class: override `act`; `reset` is called before each game."""

    name = "agent"

    def reset(self, rules: RuleSet, seat: int, num_players: int, seed: int | None = None) -> None:
        self.rules, self.seat, self.num_players = rules, seat, num_players
        self.rng = np.random.default_rng(seed)

    def act(self, view: View) -> int:
        raise NotImplementedError

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
        except Exception as exc:  # noqa: BLE001 - the caller decides what a failure means
            if on_error is None:
                raise
            game.apply(on_error(seat, exc, game))
    return game
