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
