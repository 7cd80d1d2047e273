"""Behaviour cloning (algo: bc): a separate, labelled imitation pipeline with the same model files."""
import json

import pytest

from agents.base import play_game
from agents.learned import LearnedAgent
from agents.training.config import ConfigError, parse_config
from agents.training.imitate import canonical_hold
from yacht_arena.cli import main
from yacht_env import Game
from yacht_env.core.dice import HOLD_KEEP, roll_index
from yacht_env.rules import load


def test_canonical_hold_keeps_the_same_dice():
    dice = [2, 2, 5, 5, 6]
    r = roll_index(dice)
    yacht = load("yacht")
    assert canonical_hold(yacht, dice, 0b00010) == 0b00001
    assert canonical_hold(yacht, dice, 0b01010) == 0b00101
    for h in range(31):
        assert HOLD_KEEP[r, canonical_hold(yacht, dice, h)] == HOLD_KEEP[r, h]


def test_sections_belong_to_their_algo():
    with pytest.raises(ConfigError, match="bc: this section is not used by algo 'ppo'"):
        parse_config({"name": "x", "bc": {"games": 3}})
    with pytest.raises(ConfigError, match="ppo: this section is not used by algo 'bc'"):
        parse_config({"name": "x", "algo": "bc", "ppo": {"n_steps": 3}})
    with pytest.raises(ConfigError, match="algo: must be one of ppo, bc, got 'dqn'"):
        parse_config({"name": "x", "algo": "dqn"})
    with pytest.raises(ConfigError, match="bc.games: must be a whole number from 1 to 100,000, got 0"):
        parse_config({"name": "x", "algo": "bc", "bc": {"games": 0}})


def test_bc_run_plays_as_learned(tmp_path, capsys):
    cfg = tmp_path / "bc.yaml"
    cfg.write_text(f"name: bc\nalgo: bc\nseed: 3\nreward_scale: 0.02\ndistinct_holds: true\n"
                   f"bc: {{teacher: greedy, games: 12, epochs: 2, batch_size: 64}}\n"
                   f"policy: {{pi: [32], vf: [32]}}\neval_games: 8\nout: {tmp_path}/run\n")
    assert main(["train", str(cfg), "--no-progress", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["games"] == 8 and doc["optimum"] == pytest.approx(254.5877, abs=0.01)
    run = tmp_path / "run"
    for name in ("best.pt", "final.pt", "curve.csv", "curve.png", "config.json", "run.json"):
        assert (run / name).is_file(), name
    game = play_game(Game("yacht", 1, seed=4), [LearnedAgent(run / "final.pt")])
    assert game.is_over and game.totals()[0] > 0
    assert main(["train", str(cfg), "--resume", str(run / "final.pt")]) == 2
    assert "--resume works with algo 'ppo' only" in capsys.readouterr().err
