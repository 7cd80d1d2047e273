"""`yacht train`'s `table_obs` key: checked as the other keys are, given to the training env, recorded in the
model file, and played by `learned:` from a position exactly as the env showed it."""
import json

import numpy as np
import pytest

from agents.features import observations, policy_input, table_input
from agents.learned import LearnedAgent
from agents.model_file import ModelFileError, check_model, read_model
from agents.registry import make_agent
from agents.training.checkpoint import load_checkpoint
from agents.training.config import ConfigError, parse_config, split_sets
from agents.training.evaluate import evaluate_model
from agents.training.features import env_options
from agents.training.run import train
from agents.training.warm import input_columns
from yacht_env.envs.options import full_sheets, narrow_masks, sheet_size
from yacht_env.envs.table_obs import seat_space
from yacht_env.envs.vs_vector import YachtVsVectorEnv
from yacht_env.core.engine import ROLL
from yacht_env.rules import load

TABLE = {"name": "t", "total_timesteps": 512, "n_envs": 8, "ppo": {"n_steps": 32, "batch_size": 64, "n_epochs": 1},
         "num_players": 3, "opponents": "strong", "distinct_holds": True, "table_obs": "full",
         "policy": {"pi": [32], "vf": [32]}, "eval_every": 512, "eval_games": 12, "checkpoint_every": 512}


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("table-full")
    cfg = parse_config({**TABLE, "out": str(out)})
    return cfg, train(cfg, progress=False)


def test_the_key_is_checked_with_named_errors():
    assert parse_config(TABLE).table_obs == "full"
    assert parse_config({**TABLE, "table_obs": "summary"}).to_dict()["table_obs"] == "summary"
    assert parse_config({k: v for k, v in TABLE.items() if k != "table_obs"}).table_obs == "summary"
    with pytest.raises(ConfigError, match=r"t\.yaml.*table_obs.*'summary', 'full'|t\.yaml.*table_obs.*summary.*full"):
        parse_config({**TABLE, "table_obs": "everything"}, "t.yaml")
    for bad in (True, 1, ["full"], None):
        with pytest.raises(ConfigError, match="table_obs"):
            parse_config({**TABLE, "table_obs": bad}, "t.yaml")
    alone = {k: v for k, v in TABLE.items() if k not in ("num_players", "opponents")}
    with pytest.raises(ConfigError, match="table_obs.*needs a table"):
        parse_config(alone, "t.yaml")
    assert parse_config({**alone, "table_obs": "summary"}).table_obs == "summary"
    assert split_sets({"table_obs": "full"}) == ({"table_obs": "full"}, {})     # `--set table_obs=full`
    with pytest.raises(ConfigError, match="command line.*table_obs"):
        parse_config({**TABLE, "table_obs": "summary"}, "t.yaml", settings={"table_obs": "wide"})


def test_the_training_env_gets_the_option():
    assert env_options(parse_config(TABLE).to_dict())["table_obs"] == "full"
    assert env_options(parse_config({**TABLE, "table_obs": "summary"}).to_dict())["table_obs"] == "summary"
    alone = {k: v for k, v in TABLE.items() if k not in ("num_players", "opponents", "table_obs")}
    assert "table_obs" not in env_options(parse_config(alone).to_dict())


def test_the_model_records_it_and_its_inputs_are_the_envs(run):
    cfg, trained = run
    rules = load("yacht")
    for name in ("final.pt", "best.pt", "last.pt"):
        doc = read_model(trained.out / name)
        assert doc["config"]["table_obs"] == "full"
    env = YachtVsVectorEnv(2, num_players=3, opponents=make_agent("strong"), table_obs="full", action_set="distinct")
    assert read_model(trained.out / "final.pt")["obs_dim"] == env.single_observation_space.shape[0]
    assert env.single_observation_space.shape[0] == seat_space(rules, 3).shape[0] + 1 + 2 * sheet_size(rules)
    env.close()
    assert json.loads((trained.out / "config.json").read_text())["config"]["table_obs"] == "full"


def test_learned_sees_what_the_env_showed_it(run):
    """At every decision of some games, what `learned:` feeds its network from the position is the
    observation `YachtVs-v0(table_obs="full")` gave the learner, and it moves as the env's agent would."""
    _, trained = run
    agent = LearnedAgent(trained.out / "final.pt")
    rules = load("yacht")
    agent.prepare(rules, 3)
    n = 6
    env = YachtVsVectorEnv(n, num_players=3, opponents=make_agent("strong"), seat=2, table_obs="full",
                           action_set="distinct")
    obs, info = env.reset(seed=123)
    st = env.core.state
    live = np.ones(n, bool)
    decisions = 0
    while live.any():
        rows = np.flatnonzero(live)
        seats = np.full(len(rows), 2)
        x = policy_input(observations(st, rows, seats, st.dice[rows], 3), st.dice[rows], agent.config, rules,
                         table_input(st, rows, seats % st.num_sheets, agent.config))
        assert np.array_equal(x, obs[rows])
        assert np.array_equal(x[:, -(1 + 2 * sheet_size(rules)):], full_sheets(st, rows, seats % st.num_sheets))
        decisions += len(rows)
        a = agent.net.act(obs, narrow_masks(info["action_mask"].astype(bool), st.ints[:, ROLL]))
        obs, _, term, _, info = env.step(a)
        live &= ~term
    env.close()
    assert decisions >= n * 13


def test_it_plays_at_its_table_and_refuses_others(run):
    cfg, trained = run
    doc = read_model(trained.out / "final.pt")
    res = evaluate_model(doc, load("yacht"), 6, 5_000)
    assert res.games == 6 and res.num_players == 3
    with pytest.raises(ValueError, match="sheets|seats|table"):
        LearnedAgent(trained.out / "final.pt").prepare(load("yacht"), 4)


def test_resume_refuses_another_table_obs(run):
    cfg, trained = run
    other = parse_config({**cfg.to_dict(), "table_obs": "summary", "total_timesteps": 4096})
    with pytest.raises(ConfigError, match="table_obs full.*asks for summary"):
        train(other, resume=trained.out / "last.pt", progress=False)


def test_a_warm_start_from_a_summary_model_leaves_the_sheets_at_zero():
    rules = load("yacht")
    source = parse_config({**TABLE, "table_obs": "summary"}).to_dict()
    target = parse_config(TABLE).to_dict()
    cols = input_columns(rules, source, target)
    base = seat_space(rules, 3).shape[0]
    assert cols[:base].tolist() == list(range(base))
    assert (cols[base:] == -1).all() and len(cols) == base + 1 + 2 * sheet_size(rules)


@pytest.mark.parametrize("value, message", [("wide", "summary, full"), (["full"], "summary, full"),
                                            ("full-alone", "trained alone")])
def test_a_crafted_table_obs_is_refused(run, value, message):
    _, trained = run
    doc = load_checkpoint(trained.out / "best.pt")
    config = {**doc["config"], **({"num_players": 1} if value == "full-alone" else {"table_obs": value})}
    raw = {**doc, "config": json.dumps(config), "rules": json.dumps(doc["rules"]), "extra": json.dumps(doc["extra"])}
    with pytest.raises(ModelFileError, match=f"m.pt: config.table_obs: .*{message}"):
        check_model(raw, "m.pt")
