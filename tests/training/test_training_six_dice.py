"""A learned policy's inputs and behaviour cloning under six dice (`six_mini`, tests/mini_rules.py): the dice
one-hot and upper-bonus features read the six dice where the six-dice observation keeps them, distinct holds
are the six-dice keeps, and a `bc` run with every input group trains and plays."""
import json

import numpy as np
import pytest

from agents.base import play_game
from agents.features import N_UPPER, SLACK, extra_size, upper_features
from agents.learned import LearnedAgent
from agents.training.features import add_features
from agents.training.imitate import canonical_hold
from tests.mini_rules import SIX_MINI
from yacht_arena.cli import main
from yacht_env import Game
from yacht_env.core.actions import num_holds
from yacht_env.envs.obs import column_layout, dice_layout, obs_size, observe_game
from yacht_env.envs.options import distinct
from yacht_env.rules import load


@pytest.fixture(scope="module")
def six(tmp_path_factory):
    path = tmp_path_factory.mktemp("six") / "six_mini.yaml"
    path.write_text(SIX_MINI)
    return str(path)


def test_the_dice_features_of_six_dice(six):
    rules = load(six)
    game = Game(rules, 1, seed=5)
    game.roll()
    obs = observe_game(game)[None]
    out = add_features(obs, {"dice_onehot": True}, rules)
    size = obs_size(rules)
    assert out.shape == (1, size + 41) and extra_size({"dice_onehot": True}, rules) == 41
    onehot = out[0, size:size + 36].reshape(6, 6)
    dice = sorted(game.dice)
    assert onehot.sum() == 6 and (onehot.argmax(axis=1) + 1).tolist() == dice
    assert out[0, size + 36:].tolist() == [float(a == b) for a, b in zip(dice, dice[1:])]


def test_the_upper_features_count_six_dice(six):
    """Only threes open, nothing in the upper section yet: 18 points needed, which six threes (not five) reach."""
    rules = load(six)
    lay, col = dice_layout(6), column_layout(rules, 0)
    obs = np.zeros((1, obs_size(rules)), np.float32)
    obs[0, lay.dice] = 3 / 6
    obs[0, lay.face_counts] = np.array([0, 0, 6, 0, 0, 0]) / 6
    obs[0, col.open] = [0, 0, 1, 1, 1, 1]                 # ones and twos filled (with no points)
    out = upper_features(obs, rules)[0]
    assert out.shape == (N_UPPER,)
    assert out[0] == 1.0                                   # all 18 points still needed
    assert out[1] == pytest.approx(0.5 - 9 / (2 * SLACK))  # three threes are 9 points: 9 short of par
    assert out[2] == 0 and out[3] == 1                     # six threes still reach 18
    assert out[4:10].tolist() == [0, 0, 0.5, 0, 0, 0]      # six threes now: exactly the bonus
    assert out[10:16].tolist() == [0, 0, 1, 0, 0, 0]       # and the bonus secured
    obs[0, lay.face_counts] = np.array([1, 0, 5, 0, 0, 0]) / 6
    out = upper_features(obs, rules)[0]
    assert out[10:16].tolist() == [0, 0, 0, 0, 0, 0]       # five threes now: 3 short, and no upper box left


def test_canonical_holds_of_six_dice(six):
    rules = load(six)
    D = rules.dice_tables
    dice = [2, 2, 5, 5, 6, 6]
    r = D.index(dice)
    assert num_holds(rules) == 63
    assert canonical_hold(rules, dice, 0b000010) == 0b000001
    assert canonical_hold(rules, dice, 0b101010) == 0b010101
    for h in range(63):
        c = canonical_hold(rules, dice, h)
        assert c <= h and distinct(6)[r, c] and D.hold_keep[r, c] == D.hold_keep[r, h]


def test_bc_with_every_input_group_trains_and_plays_six_dice(six, tmp_path, capsys):
    cfg = tmp_path / "bc.yaml"
    cfg.write_text(f"name: bc6\nalgo: bc\nrules: {six}\nseed: 3\nreward_scale: 0.02\ndistinct_holds: true\n"
                   f"dice_onehot: true\nupper_features: true\n"
                   f"bc: {{teacher: greedy, games: 8, epochs: 2, batch_size: 64}}\n"
                   f"policy: {{pi: [32], vf: [32]}}\neval_games: 4\nout: {tmp_path}/run\n")
    assert main(["train", str(cfg), "--no-progress", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["games"] == 4
    rules = load(six)
    agent = LearnedAgent(tmp_path / "run" / "final.pt")
    game = play_game(Game(rules, 1, seed=4), [agent])
    assert game.is_over and game.totals()[0] > 0
