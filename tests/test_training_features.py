"""The dice features (`dice_onehot`): layout, the VecEnv wrapper, and a model trained with them."""
import numpy as np
import pytest

from agents.base import play_game
from agents.learned import LearnedAgent
from agents.training.config import ConfigError, load_config
from agents.training.checkpoint import load_checkpoint
from agents.training.evaluate import evaluate_model
from agents.training.features import N_EXTRA, DiceFeatures, add_dice_features
from agents.training.run import train
from yacht_env import Game
from yacht_env.dice_source import game_seed
from yacht_env.rules import load
from yacht_env.sb3 import YachtVecEnv

STEPS = 1024


def test_layout_of_the_dice_features():
    obs = np.zeros((2, 41), np.float32)
    obs[0, :5] = np.array([2, 3, 3, 4, 6]) / 6
    obs[1, :5] = np.array([1, 1, 1, 1, 1]) / 6
    out = add_dice_features(obs)
    assert out.shape == (2, 41 + N_EXTRA) and out.dtype == np.float32
    assert np.array_equal(out[:, :41], obs)
    onehot = out[:, 41:71].reshape(2, 5, 6)
    assert onehot[0].argmax(axis=1).tolist() == [1, 2, 2, 3, 5] and onehot.sum() == 10
    assert out[0, 71:].tolist() == [0, 1, 0, 0] and out[1, 71:].tolist() == [1, 1, 1, 1]


def test_wrapper_extends_observations_and_space():
    env = DiceFeatures(YachtVecEnv(3, seed=0))
    obs = env.reset()
    assert obs.shape == (3, 41 + N_EXTRA) and env.observation_space.shape == (41 + N_EXTRA,)
    assert env.observation_space.contains(obs[0])
    masks = np.stack(env.env_method("action_masks"))
    ended = 0
    for _ in range(40):       # scoring at once ends a game in 13 steps: terminal observations carry the features
        actions = np.array([np.flatnonzero(m)[-1] for m in masks])
        obs, _, dones, infos = env.step(actions)
        assert obs.shape == (3, 41 + N_EXTRA)
        masks = np.stack(env.env_method("action_masks"))
        for i in np.flatnonzero(dones):
            assert infos[i]["terminal_observation"].shape == (41 + N_EXTRA,)
            ended += 1
    assert ended >= 3


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("train") / "dice"
    cfg = load_config("configs/train/smoke.yaml", total_timesteps=STEPS, out=str(out), dice_onehot=True)
    return cfg, train(cfg, progress=False)


def test_model_with_dice_features_plays_as_evaluated(run):
    cfg, trained = run
    path = trained.out / "final.pt"
    doc = load_checkpoint(path)
    assert doc["config"]["dice_onehot"] and doc["obs_dim"] == 41 + N_EXTRA
    rules = load("yacht")
    res = evaluate_model(doc, rules, 8, cfg.eval_seed)
    agent = LearnedAgent(path)
    scores = [play_game(Game(rules, 1, seed=game_seed(cfg.eval_seed + j, 0)), [agent]).totals()[0]
              for j in range(8)]
    assert scores == res.scores.astype(int).tolist()


def test_resume_refuses_another_dice_onehot(run, tmp_path):
    _, trained = run
    cfg = load_config("configs/train/smoke.yaml", total_timesteps=STEPS * 2, out=str(tmp_path))
    with pytest.raises(ConfigError, match="trained with dice_onehot True, the config asks for False"):
        train(cfg, resume=trained.out / "last.pt", progress=False)


def test_dice_onehot_must_be_a_boolean(tmp_path):
    with pytest.raises(ConfigError, match="dice_onehot: must be true or false, got 'yes'"):
        load_config("configs/train/smoke.yaml", dice_onehot="yes")
