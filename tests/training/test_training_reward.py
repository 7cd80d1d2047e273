"""Training reward options keep the return equal (or proportional) to the game's score."""
import numpy as np
import pytest

from agents.features import upper_par_potential
from agents.training.reward import ScaleReward, UpperParShaping
from yacht_env.envs.obs import column_layout, obs_size
from yacht_env.rules import load
from yacht_env.integrations.sb3 import YachtVecEnv


def _returns(venv, games: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    venv.reset()
    acc = np.zeros(venv.num_envs)
    out = []
    while len(out) < games:
        masks = np.stack(venv.env_method("action_masks"))
        _, rewards, dones, infos = venv.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        acc += rewards
        for i in np.flatnonzero(dones):
            out.append((acc[i], infos[i]["final_total"]))
            acc[i] = 0.0
    return np.array(out)


@pytest.mark.parametrize("rules", ["yacht", "classic"])
def test_upper_shaping_return_is_the_score(rules):
    r = load(rules)
    got = _returns(UpperParShaping(YachtVecEnv(4, rules=r, seed=1), r, 1.5), 12)
    assert np.allclose(got[:, 0], got[:, 1])


def test_scaled_return_is_proportional():
    got = _returns(ScaleReward(YachtVecEnv(4, seed=2), 0.02), 8)
    assert np.allclose(got[:, 0], 0.02 * got[:, 1], atol=1e-3)


def test_potential_reads_par():
    r = load("yacht")
    lay = column_layout(r, 0)
    obs = np.zeros((2, obs_size(r)), np.float32)
    obs[:, lay.open] = 1.0                                # all open
    obs[0, lay.open.start + r.tables.face_box[6]] = 0.0   # sixes filled ...
    obs[0, lay.upper] = 24 / 63                           # ... with four sixes: 6 above par
    obs[1, lay.upper] = 1.0                               # bonus already won: no potential
    assert upper_par_potential(obs, r, 2.0).tolist() == [12.0, 0.0]
