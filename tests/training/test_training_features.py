"""The extra policy inputs (`dice_onehot`, `upper_features`): layouts, the VecEnv wrapper, warm starts
that add a group, and models trained with them."""
import numpy as np
import pytest

from agents.base import play_game
from agents.learned import LearnedAgent
from agents.training.config import ConfigError, load_config
from agents.training.checkpoint import load_checkpoint, new_policy
from agents.training.evaluate import evaluate_model
from agents.features import N_UPPER, SLACK, extra_size, onehot_size, upper_features
from agents.training.features import InputFeatures, add_features
from agents.training.run import train
from agents.training.warm import input_columns, warm_start
from yacht_env import Game
from yacht_env.core.dice_source import game_seed
from yacht_env.envs.obs import DICE as DICE_AT
from yacht_env.envs.obs import obs_size
from yacht_env.rules import load
from yacht_env.integrations.sb3 import YachtVecEnv

STEPS = 1024
DICE = {"dice_onehot": True}
BOTH = {"dice_onehot": True, "upper_features": True}
YACHT = load("yacht")
OBS = obs_size(YACHT)   # the flat observation the features are appended to
N_EXTRA = onehot_size(YACHT)     # the dice_onehot entries of five dice


def test_layout_of_the_dice_features():
    obs = np.zeros((2, OBS), np.float32)
    obs[0, DICE_AT] = np.array([2, 3, 3, 4, 6]) / 6
    obs[1, DICE_AT] = np.array([1, 1, 1, 1, 1]) / 6
    out = add_features(obs, DICE, YACHT)
    assert out.shape == (2, OBS + N_EXTRA) and out.dtype == np.float32
    assert np.array_equal(out[:, :OBS], obs)
    onehot = out[:, OBS:OBS + 30].reshape(2, 5, 6)
    assert onehot[0].argmax(axis=1).tolist() == [1, 2, 2, 3, 5] and onehot.sum() == 10
    assert out[0, OBS + 30:].tolist() == [0, 1, 0, 0] and out[1, OBS + 30:].tolist() == [1, 1, 1, 1]


def test_wrapper_extends_observations_and_space():
    env = InputFeatures(YachtVecEnv(3, seed=0), BOTH, YACHT)
    size = OBS + N_EXTRA + N_UPPER
    obs = env.reset()
    assert obs.shape == (3, size) and env.observation_space.shape == (size,)
    assert env.observation_space.contains(obs[0])
    masks = np.stack(env.env_method("action_masks"))
    ended = 0
    for _ in range(40):       # scoring at once ends a game in 13 steps: terminal observations carry the features
        actions = np.array([np.flatnonzero(m)[-1] for m in masks])
        obs, _, dones, infos = env.step(actions)
        assert obs.shape == (3, size)
        masks = np.stack(env.env_method("action_masks"))
        for i in np.flatnonzero(dones):
            assert infos[i]["terminal_observation"].shape == (size,)
            ended += 1
    assert ended >= 3


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("train") / "dice"
    cfg = load_config("configs/train/smoke.yaml", total_timesteps=STEPS, out=str(out), dice_onehot=True,
                      upper_features=True)
    return cfg, train(cfg, progress=False)


def test_model_with_the_extra_inputs_plays_as_evaluated(run):
    cfg, trained = run
    path = trained.out / "final.pt"
    doc = load_checkpoint(path)
    assert doc["config"]["dice_onehot"] and doc["config"]["upper_features"]
    assert doc["obs_dim"] == 41 + N_EXTRA + N_UPPER
    rules = load("yacht")
    res = evaluate_model(doc, rules, 8, cfg.eval_seed)
    agent = LearnedAgent(path)
    scores = [play_game(Game(rules, 1, seed=game_seed(cfg.eval_seed + j, 0)), [agent]).totals()[0]
              for j in range(8)]
    assert scores == res.scores.astype(int).tolist()


@pytest.mark.parametrize("key", ["dice_onehot", "upper_features"])
def test_resume_refuses_other_extra_inputs(run, tmp_path, key):
    _, trained = run
    cfg = load_config("configs/train/smoke.yaml", total_timesteps=STEPS * 2, out=str(tmp_path),
                      **{**BOTH, key: False})
    with pytest.raises(ConfigError, match=f"trained with {key} True, the config asks for False"):
        train(cfg, resume=trained.out / "last.pt", progress=False)


@pytest.mark.parametrize("key", ["dice_onehot", "upper_features"])
def test_extra_inputs_must_be_booleans(key):
    with pytest.raises(ConfigError, match=f"{key}: must be true or false, got 'yes'"):
        load_config("configs/train/smoke.yaml", **{key: "yes"})


def _flat(dice, upper, open_upper, rules=YACHT):
    """One flat observation of `rules` (one column): sorted dice, upper total, which upper faces are open."""
    from yacht_env.envs.obs import FACE_COUNTS, column_layout
    obs = np.zeros((1, obs_size(rules)), np.float32)
    obs[0, DICE_AT] = np.sort(dice) / 6
    obs[0, FACE_COUNTS] = np.bincount(dice, minlength=7)[1:] / 5
    lay = column_layout(rules, 0)
    t = rules.tables
    for f in open_upper:
        obs[0, lay.open.start + t.face_box[f]] = 1
    obs[0, lay.upper] = min(upper / t.upper_threshold, 1) if t.upper_threshold else 0
    return obs


def test_layout_of_the_upper_features():
    """Worked by hand: 40 in the upper section with fives and sixes open needs 23; par of the open boxes
    is 33, so the slack is 10. Three sixes in hand: scoring them in sixes leaves slack 10 (par), in
    fives 10 - 15 = -5; either way the bonus stays reachable. With 30 (needs 33) and one five in hand,
    scoring it in sixes leaves 33 to make from the fives: out of reach."""
    out = upper_features(_flat([6, 6, 6, 2, 1], 40, [5, 6]), YACHT)[0]
    assert out.shape == (N_UPPER,) and out.dtype == np.float32
    scaled = lambda slack: 0.5 + slack / (2 * SLACK)       # noqa: E731
    assert out[0] == pytest.approx(23 / 63) and out[1] == pytest.approx(scaled(10))
    assert out[2] == 0 and out[3] == 1
    assert out[4:8].tolist() == [0, 0, 0, 0] and out[10:14].tolist() == [0, 0, 0, 0]   # faces 1-4 filled
    assert out[8] == pytest.approx(scaled(10 - 15)) and out[9] == pytest.approx(scaled(10))
    assert out[14] == 1 and out[15] == 1
    one_five = upper_features(_flat([5, 1, 1, 2, 3], 30, [5, 6]), YACHT)[0]
    assert one_five[1] == pytest.approx(0.5) and one_five[3] == 1
    assert one_five[14] == 1 and one_five[15] == 0
    assert one_five[8] == pytest.approx(scaled(-10)) and one_five[9] == pytest.approx(scaled(-18))
    secured = upper_features(_flat([6, 6, 6, 2, 1], 70, [6]), YACHT)[0]
    assert secured[0] == 0 and secured[2] == 1 and secured[3] == 1 and secured[15] == 1


def test_upper_features_without_a_bonus_are_zero():
    rules = load("classic")
    assert not upper_features(_flat([6, 6, 6, 2, 1], 0, [5, 6], rules), rules).any()
    two = load("yacht", columns=2)
    assert extra_size(BOTH, two) == N_EXTRA + 2 * N_UPPER


def test_warm_start_adding_the_upper_features_plays_as_before():
    """The new inputs start with zero weights: the policy picks the source's moves on any input."""
    from agents.features import FEATURES
    from agents.learned import PolicyNet
    from agents.model_file import read_model
    cfg = load_config("configs/train/ppo-upper.yaml")
    assert FEATURES == ("dice_onehot", "rule_knobs", "upper_features")
    policy = new_policy(cfg.to_dict(), YACHT)
    info = warm_start(policy, "models/ppo-yacht.pt", cfg.to_dict(), YACHT)
    assert info["new_inputs"] == N_UPPER and not info["value_head_reset"]
    src = read_model("models/ppo-yacht.pt")
    old = PolicyNet(src["policy"], src["config"]["policy"])
    new = PolicyNet(policy.state_dict(), {"activation": "relu"})
    x = np.random.default_rng(2).random((400, new.inputs), dtype=np.float32)
    mask = np.ones((400, 44), bool)
    assert np.array_equal(new.act(x, mask), old.act(x[:, :old.inputs], mask))
    cols = input_columns(YACHT, src["config"], cfg.to_dict())
    assert (cols[-N_UPPER:] == -1).all() and (cols[:-N_UPPER] == np.arange(old.inputs)).all()



def test_warm_start_refuses_to_drop_an_input_group(run):
    _, trained = run
    cfg = load_config("configs/train/smoke.yaml", dice_onehot=True)
    with pytest.raises(ConfigError, match="trained with upper_features true, the config has upper_features false"):
        warm_start(new_policy(cfg.to_dict(), YACHT), trained.out / "final.pt", cfg.to_dict(), YACHT)
