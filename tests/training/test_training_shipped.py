"""The shipped model plays well through `learned:` (guards it against observation-layout drift)."""
import json

import numpy as np

from agents.base import play_game
from agents.registry import make_agent
from agents.training.checkpoint import load_checkpoint
from yacht_env import Game
from yacht_env.rules import load

MODEL = "models/ppo-yacht.pt"


def test_shipped_model_is_ppo_on_yacht():
    doc = load_checkpoint(MODEL)
    assert "optimizer" not in doc and doc["config"].get("algo", "ppo") == "ppo" and "ppo" in doc["config"]
    assert load(doc["rules"]) == load("yacht")
    assert doc["config"]["dice_onehot"] and doc["extra"]["eval"]["mean"] >= 245


def test_shipped_model_scores_like_its_evaluation():
    agent = make_agent(f"learned:{MODEL}")
    scores = [play_game(Game("yacht", 1, seed=s), [agent]).totals()[0] for s in range(25)]
    # the model averages 245+; 25 games (fixed seeds) have a standard error near 11 points
    assert np.mean(scores) > 205, json.dumps(scores)


def test_shipped_clones_play_where_they_were_trained():
    """The imitation models (`algo: bc`, labelled so in their files): the clone of `strong` alone, the clone of
    `strong?goal=win` at a 4-seat table (two hidden layers, the deeper one of three, and the one of three on
    250,000 games with soft targets), all with the env's options."""
    solo = load_checkpoint("models/bc-strong-wide.pt")
    assert solo["config"]["algo"] == "bc" and solo["config"]["dice_onehot"] and solo["config"]["distinct_holds"]
    agent = make_agent("learned:models/bc-strong-wide.pt")
    scores = [play_game(Game("yacht", 1, seed=s), [agent]).totals()[0] for s in range(25)]
    assert np.mean(scores) > 205, json.dumps(scores)
    soft = load_checkpoint("models/bc-goalwin4-more-soft.pt")["config"]["bc"]
    assert (soft["games"], soft["soft_temperature"], soft["soft_weight"]) == (250_000, 0.003, 0.5)
    for path, layers in (("models/bc-goalwin4.pt", 2), ("models/bc-goalwin4-deep.pt", 3),
                         ("models/bc-goalwin4-more-soft.pt", 3)):
        table = load_checkpoint(path)
        assert table["config"]["algo"] == "bc" and table["config"]["num_players"] == 4
        assert table["config"]["table_obs"] == "full" and table["config"]["reward"] == "win"
        assert table["config"]["policy"]["pi"] == [512] * layers
        game = play_game(Game("yacht", 4, seed=3), [make_agent(f"learned:{path}")] +
                         [make_agent("strong") for _ in range(3)])
        assert game.is_over and game.totals()[0] > 100
