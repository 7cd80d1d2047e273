"""`learned:MODEL.zip`: stable-baselines3 / sb3-contrib models play wherever agents play, read without
unpickling anything (`agents.sb3_zip`)."""
import base64
import json
import pickle
import zipfile

import numpy as np
import pytest

torch = pytest.importorskip("torch")
sb3 = pytest.importorskip("stable_baselines3")
sb3_contrib = pytest.importorskip("sb3_contrib")

import gymnasium as gym  # noqa: E402

import yacht_env  # noqa: E402,F401
from agents.registry import AgentSpecError, make_agent  # noqa: E402
from agents.sb3_zip import read_sb3_zip  # noqa: E402
from yacht_arena.cli import main  # noqa: E402
from tournaments.config import parse_config  # noqa: E402
from tournaments.run import run_tournament  # noqa: E402
from tournaments.store import Store  # noqa: E402
from yacht_env.integrations.sb3 import YachtVecEnv, YachtVsVecEnv  # noqa: E402


def tiny(tmp_path, name, make):
    model = make()
    model.learn(64)
    path = tmp_path / f"{name}.zip"
    model.save(path)
    return model, path


@pytest.fixture(scope="module")
def readme_model(tmp_path_factory):
    """The README's example, `MaskablePPO("MlpPolicy", gym.make("Yacht-v0"))`, trained a few steps."""
    return tiny(tmp_path_factory.mktemp("zip"), "readme", lambda: sb3_contrib.MaskablePPO(
        "MlpPolicy", gym.make("Yacht-v0"), n_steps=64, batch_size=64, n_epochs=1, seed=0))


def logits_of(model, obs):
    with torch.no_grad():
        x = torch.as_tensor(obs)
        if isinstance(model, sb3.DQN):
            return model.q_net(x).numpy()
        latent = model.policy.mlp_extractor.forward_actor(model.policy.extract_features(x))
        return model.policy.action_net(latent).numpy()


MODELS = {
    "maskable-ppo relu [32, 16]": lambda: sb3_contrib.MaskablePPO(
        "MlpPolicy", YachtVecEnv(8, seed=0), n_steps=8, batch_size=64, n_epochs=1, seed=0,
        policy_kwargs={"net_arch": [32, 16], "activation_fn": torch.nn.ReLU}),
    "ppo pi/vf": lambda: sb3.PPO("MlpPolicy", gym.make("Yacht-v0"), n_steps=64, batch_size=64, n_epochs=1, seed=0,
                                 policy_kwargs={"net_arch": {"pi": [24], "vf": [8, 8]}}),
    "a2c default": lambda: sb3.A2C("MlpPolicy", gym.make("Yacht-v0"), n_steps=8, seed=0),
    "dqn [32]": lambda: sb3.DQN("MlpPolicy", gym.make("Yacht-v0"), learning_starts=0, seed=0,
                                policy_kwargs={"net_arch": [32]}),
}


@pytest.mark.parametrize("kind", MODELS)
def test_the_network_read_gives_the_sb3_policys_logits_and_plays_it_masked(tmp_path, kind):
    model, path = tiny(tmp_path, "m", MODELS[kind])
    agent = make_agent(f"learned:{path}")
    env = YachtVecEnv(32, seed=5)
    obs = env.reset()
    for _ in range(20):
        np.testing.assert_allclose(agent.net(obs), logits_of(model, obs), rtol=1e-4, atol=1e-4)
        mask = env.action_masks()
        actions = agent.net.act(obs, mask)
        assert mask[np.arange(32), actions].all()
        expected = np.where(mask, logits_of(model, obs), -np.inf).argmax(axis=1)
        assert (expected == actions).mean() > 0.95       # float32 near-ties may differ
        if isinstance(model, sb3_contrib.MaskablePPO):
            assert (model.predict(obs, action_masks=mask, deterministic=True)[0] == actions).mean() > 0.95
        obs, *_ = env.step(actions)


def test_the_readme_model_plays_in_a_tournament_evaluate_and_an_env(tmp_path, readme_model, capsys):
    _, path = readme_model
    cfg = parse_config({"name": "zip", "entrants": [{"name": "readme", "agent": f"learned:{path}"}, "greedy", "random"],
                        "games": 3, "seed": 1})
    run_tournament(cfg, out=tmp_path / "t", progress=False, analysis=False)
    records = Store(tmp_path / "t").records()
    assert len(records) == 3 * 3 * 2
    assert all(f is None for r in records.values() for f in r["faults"])
    assert main(["evaluate", f"learned:{path}", "--games", "20", "--no-progress", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["games"] == 20
    vs = gym.make("YachtVs-v0", num_players=2, opponents=f"learned:{path}")
    obs, info = vs.reset(seed=3)
    done = False
    while not done:
        _, _, done, _, info = vs.step(vs.action_space.sample(info["action_mask"]))
    assert len(info["winners"]) >= 1


def test_a_table_model_plays_tables_of_its_size_only(tmp_path, capsys):
    _, path = tiny(tmp_path, "table", lambda: sb3_contrib.MaskablePPO(
        "MlpPolicy", YachtVsVecEnv(8, num_players=2, seed=0), n_steps=8, batch_size=64, n_epochs=1, seed=0,
        policy_kwargs={"net_arch": [16]}))
    cfg = parse_config({"name": "zip2", "entrants": [{"name": "zip", "agent": f"learned:{path}"}, "greedy"],
                        "games": 2, "seed": 1})
    run_tournament(cfg, out=tmp_path / "t", progress=False, analysis=False)
    assert all(f is None for r in Store(tmp_path / "t").records().values() for f in r["faults"])
    assert main(["evaluate", f"learned:{path}", "--games", "2", "--no-progress"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "takes 46 inputs and 44 actions" in err[0], err


def test_batched_play_matches_one_game_at_a_time(readme_model):
    from agents.evaluation import solitaire
    from yacht_env.rules import load
    agent = make_agent(f"learned:{readme_model[1]}")
    batch = solitaire(agent, load("yacht"), 16, seed=9, progress=False)["totals"]
    few = solitaire(agent, load("yacht"), 3, seed=9, progress=False)["totals"]
    assert list(batch[:3]) == list(few)


def rewrite(src, dst, change_data=None, policy=None):
    with zipfile.ZipFile(src) as z, zipfile.ZipFile(dst, "w") as out:
        for name in z.namelist():
            raw = z.read(name)
            if name == "data" and change_data:
                data = json.loads(raw)
                change_data(data)
                raw = json.dumps(data).encode()
            if name == "policy.pth" and policy is not None:
                raw = policy
            out.writestr(name, raw)
    return dst


class Boom:
    def __reduce__(self):
        return (open, ("/tmp/yacht-sb3-zip-was-unpickled", "w"))


def evil_serialized(data):
    payload = base64.b64encode(pickle.dumps(Boom())).decode()
    for key in ("observation_space", "action_space", "policy_class"):
        data[key][":serialized:"] = payload


def torch_bytes(obj, tmp_path):
    torch.save(obj, tmp_path / "w.pth")
    return (tmp_path / "w.pth").read_bytes()


def test_nothing_in_the_zip_is_unpickled(tmp_path, readme_model):
    marker = __import__("pathlib").Path("/tmp/yacht-sb3-zip-was-unpickled")
    marker.unlink(missing_ok=True)
    path = rewrite(readme_model[1], tmp_path / "evil.zip", change_data=evil_serialized)
    assert read_sb3_zip(path)["n_actions"] == 44            # the plain-text fields are enough
    state = dict(readme_model[0].policy.state_dict())
    state["extra"] = Boom()
    bad = rewrite(readme_model[1], tmp_path / "evil2.zip", policy=torch_bytes(state, tmp_path))
    with pytest.raises(AgentSpecError, match="weights_only"):
        make_agent(f"learned:{bad}")
    assert not marker.exists()


def set_key(*keys, value):
    def change(data):
        d = data
        for k in keys[:-1]:
            d = d[k]
        d[keys[-1]] = value
    return change


@pytest.mark.parametrize("change, policy, message", [
    (set_key("policy_class", "__init__", value="<function MyPolicy.__init__ at 0x1>"), None,
     "is not one learned: plays"),
    (set_key("policy_kwargs", value={"activation_fn": "<class 'torch.nn.modules.activation.LeakyReLU'>"}), None,
     "activation"),
    (set_key("observation_space", ":type:", value="<class 'gymnasium.spaces.dict.Dict'>"), None, "flat float32 Box"),
    (set_key("action_space", "n", value="45"), None, "its spaces say 41 and 45"),
    (None, "EXTRA", "a custom feature extractor"),
    (None, b"not a pickle", "not a state dict torch loads"),
])
def test_other_models_are_refused_with_one_line(tmp_path, readme_model, capsys, change, policy, message):
    if policy == "EXTRA":
        state = dict(readme_model[0].policy.state_dict())
        state["features_extractor.linear.weight"] = torch.zeros(3, 41)
        policy = torch_bytes(state, tmp_path)
    path = rewrite(readme_model[1], tmp_path / "bad.zip", change_data=change, policy=policy)
    assert main(["evaluate", f"learned:{path}", "--games", "1", "--no-progress"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0] and str(path) in err[0], err


def test_not_an_sb3_zip_and_no_lookahead(tmp_path, readme_model):
    (tmp_path / "x.zip").write_bytes(b"PK garbage")
    with pytest.raises(AgentSpecError, match="not a zip file"):
        make_agent(f"learned:{tmp_path / 'x.zip'}")
    with zipfile.ZipFile(tmp_path / "y.zip", "w") as z:
        z.writestr("hello.txt", "hi")
    with pytest.raises(AgentSpecError, match="not a stable-baselines3 model file"):
        make_agent(f"learned:{tmp_path / 'y.zip'}")
    with pytest.raises(AgentSpecError, match="cannot look ahead"):
        make_agent(f"learned?lookahead=2:{readme_model[1]}")
