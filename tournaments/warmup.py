"""Imported by the process-pool fork server: importing this module plays one short solitaire game, so
the compiled rules kernels are loaded once there and every forked worker starts with them ready."""
import numpy as np

from yacht_env.core.game import Game


def play_one() -> int:
    """Play one game scoring the last legal box each turn; return its total."""
    game = Game("yacht", num_players=1, seed=0)
    while not game.is_over:
        if game.phase == "roll":
            game.roll()
        else:
            game.apply(int(np.flatnonzero(game.legal_mask())[-1]))
    return game.totals()[0]


play_one()
