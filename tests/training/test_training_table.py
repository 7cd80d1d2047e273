"""Training at a table (`num_players` > 1): config keys, the SB3 table env, warm starts, and models that
record their table, see at play time exactly what the env showed them, and refuse tables they cannot see."""
import json

import numpy as np
import pytest

from agents.base import play_game
from agents.features import observations, policy_input
from yacht_env.envs.options import narrow_masks
from agents.learned import LearnedAgent
from agents.model_file import ModelFileError, check_model, play_hash, read_model
from agents.registry import make_agent
from agents.training.checkpoint import load_checkpoint, new_policy
from agents.training.config import ConfigError, load_config, parse_config
from agents.training.evaluate import evaluate_model, evaluate_table
from agents.training.run import train
from agents.training.warm import input_columns, warm_start
from yacht_arena.cli import main
from yacht_env import Game
from yacht_env.core.dice_source import game_seed
from yacht_env.core.engine import ROLL, State
from yacht_env.core.lockstep import play
from yacht_env.envs.obs import obs_size
from yacht_env.rules import load
from yacht_env.integrations.sb3 import YachtVsVecEnv
from yacht_env.envs.table_obs import num_extra, seat_observations
from yacht_env.envs.vs_vector import YachtVsVectorEnv

SOLO_MODEL = "models/ppo-yacht.pt"     # the shipped solitaire model (dice features, 256 x 256)
TABLE = {"name": "t", "total_timesteps": 1000, "n_envs": 4, "ppo": {"n_steps": 16, "batch_size": 32},
         "num_players": 4, "opponents": "strong", "reward": "win"}


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("table") / "smoke-table"
    cfg = load_config("configs/train/smoke-table.yaml", out=str(out))
    return cfg, train(cfg, progress=False)


# ---- config ------------------------------------------------------------------------------------

def test_table_keys_are_read_and_recorded():
    cfg = parse_config(TABLE)
    assert (cfg.num_players, cfg.opponents, cfg.reward, cfg.seat) == (4, ("strong",), "win", "rotate")
    d = cfg.to_dict()
    assert d["opponents"] == ["strong"] and d["num_players"] == 4 and json.loads(json.dumps(d)) == d
    many = parse_config({**TABLE, "num_players": 3, "opponents": ["strong", "normal"], "seat": 2})
    assert many.opponents == ("strong", "normal") and many.seat == 2
    alone = parse_config({k: v for k, v in TABLE.items() if k not in ("num_players", "opponents", "reward")})
    assert (alone.num_players, alone.opponents, alone.reward) == (1, (), "points")


@pytest.mark.parametrize("change, message", [
    ({"num_players": 9}, "num_players: must be a whole number from 1 to 8, got 9"),
    ({"num_players": True}, "num_players: must be a whole number"),
    ({"num_players": "4"}, "num_players: must be a whole number"),
    ({"num_players": float("nan")}, "num_players: must be a whole number"),
    ({"num_players": 1}, "opponents: needs a table: set num_players to 2 .. 8"),
    ({"opponents": None}, "opponents: must be an agent spec, or a list of one per other seat, got None"),
    ({"opponents": {"a": "strong"}}, "opponents: must be an agent spec, or a list of one per other seat"),
    ({"opponents": []}, "opponents: must have 1 to 7 items, got 0"),
    ({"opponents": ["strong", "strong"]}, "opponents: one agent spec for every other seat, or a list of 3"),
    ({"opponents": [["strong"]]}, "opponents[0]: must be text"),
    ({"opponents": "bogus"}, "opponents: unknown agent 'bogus'; known: random, greedy"),
    ({"opponents": "strong?strength"}, "opponents: agent spec 'strong?strength': parameter 'strength' is not"),
    ({"opponents": "human"}, "opponents: human plays at a terminal"),
    ({"opponents": "x" * 2000}, "opponents: must be at most 1000 characters"),
    ({"reward": "terminal"}, "reward: must be one of points, win, got 'terminal'"),
    ({"seat": 4}, "seat: must be rotate or 0 .. 3, got 4"),
    ({"seat": -1}, "seat: must be a whole number from 0 to 7, got -1"),
    ({"seat": "left"}, "seat: must be rotate or a seat number 0 .. 7, got 'left'"),
    ({"seat": True}, "seat: must be rotate or a seat number"),
    ({"upper_shaping": 1.0}, "upper_shaping: pays points; with reward 'win' it must be 0"),
    ({"env_threads": 0}, "env_threads: must be a whole number from 1 to 64"),
    ({"warm_start": 3}, "warm_start: must be text"),
    ({"algo": "bc", "ppo": None, "league": {"current": 1}}, "league: self-play needs algo 'ppo'; algo 'bc' learns"),
    ({"algo": "bc", "ppo": None, "seat": 1}, "seat: algo 'bc' seats its teacher at seat k % num_players of game k"),
    ({"set": {"teams": 3}}, "num_players: 4 players cannot split into 3 teams of equal size"),
])
def test_bad_table_keys(change, message):
    raw = {**TABLE, **change}
    if raw.get("ppo") is None:
        raw.pop("ppo")
    with pytest.raises(ConfigError) as e:
        parse_config(raw, "t.yaml")
    assert message in str(e.value) and str(e.value).startswith("t.yaml: ")


@pytest.mark.parametrize("change, key", [({"reward": "win"}, "reward"), ({"seat": 0}, "seat"),
                                         ({"opponents": "strong"}, "opponents")])
def test_table_keys_alone_are_refused(change, key):
    raw = {k: v for k, v in TABLE.items() if k not in ("num_players", "opponents", "reward")}
    with pytest.raises(ConfigError, match=f"^t.yaml: {key}: needs a table"):
        parse_config({**raw, **change}, "t.yaml")


def test_shipped_win_config_loads():
    cfg = load_config("configs/train/ppo-win4.yaml")
    assert (cfg.num_players, cfg.opponents, cfg.reward, cfg.warm_start) == (4, ("strong",), "win", SOLO_MODEL)


# ---- the SB3 table env ---------------------------------------------------------------------------

def test_sb3_table_env_plays_the_vector_env_games():
    """YachtVsVecEnv is YachtVsVectorEnv in SB3's conventions: same observations, rewards, ends and masks."""
    sb3 = YachtVsVecEnv(6, num_players=3, opponents="greedy", reward="win", seed=40)
    gym = YachtVsVectorEnv(6, num_players=3, opponents="greedy", reward="win", seat="rotate")
    obs = sb3.reset()
    ref, info = gym.reset(seed=40)
    assert np.array_equal(obs, ref) and obs.shape == (6, obs_size(load("yacht")) + num_extra(3))
    rng = np.random.default_rng(0)
    returns, ends = np.zeros(6), 0
    for _ in range(300):
        masks = sb3.action_masks()
        assert np.array_equal(masks, info["action_mask"].astype(bool))
        assert all(np.array_equal(m, masks[i]) for i, m in enumerate(sb3.env_method("action_masks")))
        a = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, r, done, infos = sb3.step(a)
        ref, r2, term, _, info = gym.step(a)
        assert np.array_equal(obs, ref) and np.array_equal(r, r2) and np.array_equal(done, term)
        returns += r
        for i in np.flatnonzero(done):
            ends += 1
            assert infos[i]["episode"]["r"] == returns[i] and returns[i] in (-1.0, 0.0, 1.0)
            assert np.array_equal(infos[i]["terminal_observation"], info["final_obs"][i])
            returns[i] = 0
    assert ends > 0
    with pytest.raises(AttributeError, match="YachtVsVecEnv envs have no method 'render'"):
        sb3.env_method("render")
    sb3.close()
    gym.close()


def test_one_strong_opponent_spec_is_one_agent_in_compiled_code():
    from agents.training.run import make_vec_env
    cfg = parse_config({**TABLE, "num_players": 3})
    venv = make_vec_env(cfg, cfg.ruleset, 0)
    assert venv.env.core.planned is not None
    venv.close()


# ---- training, the model file and play -------------------------------------------------------------

def test_table_run_records_its_table_and_evaluates_win_share(run):
    cfg, trained = run
    doc = read_model(trained.out / "best.pt")
    rules = load("yacht")
    assert doc["config"]["num_players"] == 3 and doc["config"]["opponents"] == ["strong"]
    assert doc["config"]["reward"] == "win"
    assert doc["obs_dim"] == obs_size(rules) + num_extra(3)
    ev = trained.evaluation
    assert ev.games == cfg.eval_games and ev.num_players == 3 and 0 <= ev.win_share <= 1
    assert ev.opponents_mean > 200          # three strong players
    best = json.loads((trained.out / "best.json").read_text())
    assert best["score"] == best["win_share"]
    header = (trained.out / "curve.csv").read_text().splitlines()[0].split(",")
    assert "win_share" in header and "win_ci95" in header


def test_evaluation_is_the_tables_it_names(run):
    """The training evaluation is `evaluate_table`: the model at seat j % 3 of game j, two strong beside it."""
    cfg, trained = run
    doc = load_checkpoint(trained.out / "final.pt")
    rules = load("yacht")
    res = evaluate_model(doc, rules, 9, cfg.eval_seed)
    agent, strong = LearnedAgent(trained.out / "final.pt"), make_agent("strong")
    for j in range(9):
        seat = j % 3
        agents = [strong, strong, strong]
        agents[seat] = agent
        game = play_game(Game(rules, 3, seed=game_seed(cfg.eval_seed + j, 0)), agents)
        totals = game.totals()
        firsts = [s for s in range(3) if totals[s] == max(totals)]
        assert res.shares[j] == pytest.approx(1 / len(firsts) if seat in firsts else 0.0), j


def test_play_time_observation_is_the_env_observation(run):
    """At every decision of some games the learned agent at a table sees exactly the env's observation:
    the games the env deals the model (seat 1, two strong) are the games it plays in lockstep there."""
    _, trained = run
    agent = LearnedAgent(trained.out / "final.pt")
    rules = load("yacht")
    agent.prepare(rules, 3)
    n, seen = 8, []
    env = YachtVsVectorEnv(n, num_players=3, opponents=make_agent("strong"), seat=1)
    obs, info = env.reset(seed=70)
    moves = [[] for _ in range(n)]
    live = np.ones(n, bool)
    totals = np.zeros(n, np.int64)
    st = env.core.state
    while live.any():
        rows = np.flatnonzero(live)
        mine = observations(st, rows, np.ones(len(rows), np.int64), st.dice[rows], 3)
        assert np.array_equal(mine, obs[rows])
        x = policy_input(obs, st.dice, agent.config, st.rules)
        mask = info["action_mask"].astype(bool)
        a = agent.net.act(x, narrow_masks(mask, st.ints[:, ROLL]) if agent.distinct_holds else mask)
        for i in rows:
            moves[i].append(int(a[i]))
        seen.append(len(rows))
        obs, _, term, _, info = env.step(a)
        ended = term & live
        if ended.any():
            totals[ended] = info["final_total"][ended]
        live &= ~term
    env.close()
    # the same games in lockstep, the agent asked through act_batch (what tournaments do)
    state = State(rules, n, 3)
    state.reset(np.array([game_seed(70 + i, 0) for i in range(n)], np.uint64))
    got = [[] for _ in range(n)]

    class Recorder:
        batched = True

        def act_batch(self, view):
            assert (view.seat == 1).all()
            x = observations(view.state, view.rows, view.seat, view.dice, 3)
            assert np.array_equal(x, seat_observations(view.state, view.rows, view.seat, view.dice))
            out = agent.act_batch(view)
            for i, a in zip(view.rows, out):
                got[i].append(int(a))
            return out

    strong = make_agent("strong")
    strong.prepare(rules, 3)
    play(state, [Recorder(), strong], np.tile([1, 0, 1], (n, 1)))
    assert got == moves and sum(seen) == sum(len(m) for m in moves)
    assert state.totals[:, 1].tolist() == totals.tolist()


def test_the_model_plays_through_learned_at_its_table_and_refuses_others(run, tmp_path, capsys):
    _, trained = run
    path = trained.out / "best.pt"
    agent = make_agent(f"learned:{path}")
    game = play_game(Game("yacht", 3, seed=5), [make_agent("strong"), agent, make_agent("strong")])
    assert game.is_over and all(t > 0 for t in game.totals())
    for players in (2, 4, 1):
        with pytest.raises(ModelFileError, match=rf"was trained at tables of 3 sheets \(3 players; its observation "
                                                 rf"holds every other sheet\) and cannot play a table of {players} "):
            play_game(Game("yacht", players, seed=5), [agent] * players)
    # a 6-seat table of 3 teams has 3 sheets: the model sees it as trained
    game = play_game(Game(load("yacht", teams=3), 6, seed=5), [agent] + [make_agent("strong")] * 5)
    assert game.is_over
    # in a tournament: at 2-seat tables the model is refused before any game, with that one line;
    # at a 3-seat table it plays
    cfg = tmp_path / "t.yaml"
    cfg.write_text(f"name: t\nentrants: {{me: 'learned:{path}', s1: strong, s2: strong}}\nseats: 2\ngames: 1\n")
    capsys.readouterr()
    assert main(["tournament", str(cfg), "--out", str(tmp_path / "t2"), "--quiet", "--workers", "1",
                 "--no-analysis"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "entrant 'me'" in err and "trained at tables of 3 sheets" in err
    assert not (tmp_path / "t2" / "games.jsonl").exists()
    cfg.write_text(f"name: t\nentrants: {{me: 'learned:{path}', s1: strong, s2: strong}}\nseats: 3\ngames: 2\n")
    assert main(["tournament", str(cfg), "--out", str(tmp_path / "t3"), "--quiet", "--workers", "1",
                 "--no-analysis"]) == 0
    done = json.loads((tmp_path / "t3" / "results.json").read_text())
    assert done["faults"] == [] and all(a["games"] == 2 * 3 and a["forfeits"] == 0 for a in done["agents"].values())
    # the win shares of scripts/win_share.py: every game's shares sum to 1 over its seats
    import importlib.util
    spec = importlib.util.spec_from_file_location("win_share", "scripts/win_share.py")
    win_share = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(win_share)
    shares = win_share.win_shares(tmp_path / "t3")
    assert set(shares) == {"me", "s1", "s2"} and all(s["games"] == 6 and s["deals"] == 2 for s in shares.values())
    assert sum(s["observed"] for s in shares.values()) == pytest.approx(1.0)
    assert win_share.paired(tmp_path / "t3", tmp_path / "t3", "me")["difference"] == 0.0
    assert main(["tournament", str(cfg), "--out", str(tmp_path / "t3b"), "--quiet", "--workers", "1",
                 "--no-analysis", "--seed", "1"]) == 0
    with pytest.raises(ValueError, match="did not deal the same dice"):
        win_share.paired(tmp_path / "t3", tmp_path / "t3b", "me")


def test_solitaire_models_still_play_any_table():
    agent = LearnedAgent(SOLO_MODEL)
    for players in (1, 2, 4):
        assert play_game(Game("yacht", players, seed=9), [agent] * players).is_over


@pytest.mark.parametrize("players, message", [
    (0, "config.num_players: must be a whole number from 1 to 8, got 0"),
    (9, "config.num_players: must be a whole number from 1 to 8, got 9"),
    (True, "config.num_players: must be a whole number"),
    ("3", "config.num_players: must be a whole number"),
    (2.0, "config.num_players: must be a whole number"),
])
def test_crafted_num_players_is_refused(run, players, message):
    _, trained = run
    doc = load_checkpoint(trained.out / "best.pt")
    raw = {**doc, "config": json.dumps({**doc["config"], "num_players": players}),
           "rules": json.dumps(doc["rules"]), "extra": json.dumps(doc["extra"])}
    with pytest.raises(ModelFileError, match=message):
        check_model(raw, "m.pt")


def test_a_crafted_table_size_that_does_not_fit_the_weights_is_refused(run):
    _, trained = run
    doc = load_checkpoint(trained.out / "best.pt")
    raw = {**doc, "config": json.dumps({**doc["config"], "num_players": 4}),
           "rules": json.dumps(doc["rules"]), "extra": json.dumps(doc["extra"])}
    with pytest.raises(ModelFileError, match="obs_dim/n_actions: .* do not fit its own rules"):
        check_model(raw, "m.pt")


# ---- warm starts --------------------------------------------------------------------------------------

def _policy(cfg, rules):
    return new_policy(cfg.to_dict(), rules)


def test_warm_start_from_a_solitaire_model_plays_as_it_did():
    """The table entries get zero weights: on any table observation the new policy picks the solitaire
    model's move; the value head's output starts at zero (points were valued, not wins)."""
    from agents.learned import PolicyNet
    cfg = load_config("configs/train/ppo-win4.yaml")
    rules = cfg.ruleset
    policy = _policy(cfg, rules)
    info = warm_start(policy, SOLO_MODEL, cfg.to_dict(), rules)
    assert info["new_inputs"] == num_extra(4) and info["value_head_reset"]
    src = read_model(SOLO_MODEL)
    old, new = PolicyNet(src["policy"], src["config"]["policy"]), PolicyNet(policy.state_dict(), {"activation": "relu"})
    base, extra = obs_size(rules), num_extra(4)
    x = np.random.default_rng(1).random((500, new.inputs), dtype=np.float32)
    solo = np.concatenate([x[:, :base], x[:, base + extra:]], axis=1)
    mask = np.ones((500, 44), bool)
    assert np.array_equal(new.act(x, mask), old.act(solo, mask))
    assert not policy.state_dict()["value_net.weight"].any()
    cols = input_columns(rules, src["config"], cfg.to_dict())
    assert (cols[base:base + extra] == -1).all() and cols[-1] == src["obs_dim"] - 1


def test_warm_start_refusals(run, tmp_path):
    _, trained = run
    cfg = load_config("configs/train/ppo-win4.yaml")
    rules = cfg.ruleset
    policy = _policy(cfg, rules)
    with pytest.raises(ConfigError, match="^warm_start: no model file at"):
        warm_start(policy, tmp_path / "none.pt", cfg.to_dict(), rules)
    with pytest.raises(ConfigError, match=r"^warm_start: cannot start from .*best.pt: its network is"):
        warm_start(policy, trained.out / "best.pt", cfg.to_dict(), rules)
    small = load_config("configs/train/smoke-table.yaml", num_players=4)
    with pytest.raises(ConfigError, match="it sees tables of 3 sheets, the config's table has 4"):
        warm_start(_policy(small, rules), trained.out / "best.pt", small.to_dict(), rules)
    classic = load_config("configs/train/ppo-win4.yaml", rules="classic")
    with pytest.raises(ConfigError, match="it was trained on rules 'yacht'"):
        warm_start(policy, SOLO_MODEL, classic.to_dict(), classic.ruleset)
    junk = tmp_path / "junk.pt"
    junk.write_bytes(b"junk")
    with pytest.raises(ConfigError, match="^warm_start: .*junk.pt: not a model file"):
        warm_start(policy, junk, cfg.to_dict(), rules)


def test_resume_refuses_another_table(run, tmp_path):
    _, trained = run
    cfg = load_config("configs/train/smoke-table.yaml", num_players=4, out=str(tmp_path), total_timesteps=10_000)
    with pytest.raises(ConfigError, match="cannot resume from .*: it was trained with num_players 3, the config "
                                          "asks for 4"):
        train(cfg, resume=trained.out / "last.pt", progress=False)


def test_evaluate_table_shares():
    rules = load("yacht")
    res = evaluate_table(make_agent("greedy"), rules, 4, ["greedy"], 40, 0)
    assert set(res.shares.tolist()) <= {0.0, 1.0, 1 / 2, 1 / 3, 1 / 4} and len(res.shares) == 40
    assert 0.05 < res.win_share < 0.5 and res.opponents == ("greedy",) and "an equal share: 25.00%" in res.line()
    hopeless = evaluate_table(make_agent("random"), rules, 3, ["strong", "greedy"], 12, 0)
    assert hopeless.win_share == 0.0 and hopeless.opponents == ("strong", "greedy") and hopeless.mean < 150


def test_yacht_play_seats_the_model_at_its_table(run, monkeypatch, capsys):
    import io
    _, trained = run
    path = trained.out / "best.pt"
    boxes = Game("yacht").rules.boxes
    script = "".join(f"score {b}\n\n" for b in reversed(boxes))
    monkeypatch.setattr("sys.stdin", io.StringIO(script))
    assert main(["play", "--vs", f"learned:{path}", "strong", "--seed", "3", "--no-best"]) == 0
    text = capsys.readouterr().out
    assert "winner:" in text and text.count("scored ") == len(boxes) and "-- you, learned:" in text
    monkeypatch.setattr("sys.stdin", io.StringIO(script))
    assert main(["play", "--vs", f"learned:{path}", "--seed", "3", "--no-best"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("yacht play: error: ") and "trained at tables of 3 sheets" in err[0]


def test_the_file_says_what_it_was_trained_for(run):
    _, trained = run
    doc = read_model(trained.out / "best.pt")
    assert doc["extra"]["trained_for"] == {
        "rules": "yacht", "rules_hash": play_hash(load("yacht")),
        "num_players": 3, "sheets": 3, "observation": "yacht_env.envs.table_obs (its sheet and the 2 others)"}


def test_an_earlier_checkpoint_as_opponent(run, tmp_path):
    """opponents: learned:PATH plays an earlier table checkpoint at the other seats (prepared for the table,
    so one that cannot see it is refused with its one line)."""
    from agents.training.run import make_vec_env, opponents
    _, trained = run
    path = trained.out / "final.pt"
    cfg = load_config("configs/train/smoke-table.yaml", out=str(tmp_path / "vs-self"), total_timesteps=1024)
    cfg = parse_config({**cfg.to_dict(), "opponents": [f"learned:{path}", "greedy"], "eval_every": 1024,
                        "eval_games": 6})
    assert isinstance(opponents(cfg, cfg.ruleset)[0], LearnedAgent)
    venv = make_vec_env(cfg, cfg.ruleset, 0)
    venv.reset()
    venv.close()
    res = train(cfg, progress=False).evaluation
    assert res.opponents == (f"learned:{path}", "greedy") and res.games == 6
    four = parse_config({**cfg.to_dict(), "num_players": 4, "opponents": f"learned:{path}"})
    with pytest.raises(ConfigError, match=r"^opponents: learned:.*final.pt: model .* was trained at tables of 3 "
                                          r"sheets .* cannot play a table of 4 \(4 players under 'yacht'\)$"):
        opponents(four, four.ruleset)


@pytest.mark.parametrize("seats", [2, 4, 8])
def test_shipped_win_models_play_at_their_tables(seats):
    """models/ppo-winN.pt: PPO trained to win at N seats against strong; it plays there through `learned:`
    (guards it against observation-layout drift) and nowhere else."""
    path = f"models/ppo-win{seats}.pt"
    doc = read_model(path)
    config = doc["config"]
    assert (config["num_players"], config["opponents"], config["reward"]) == (seats, ["strong"], "win")
    assert load(doc["rules"]) == load("yacht") and "optimizer" not in doc
    # the files were written when the observation's module was `yacht_env.table_obs` (now yacht_env.envs.table_obs)
    assert doc["extra"]["trained_for"]["observation"] == f"yacht_env.table_obs (its sheet and the {seats - 1} others)"
    agent = make_agent(f"learned:{path}")
    res = evaluate_table(agent, load("yacht"), seats, ["strong"], 24, 5)
    assert res.mean > 200 and res.opponents_mean > 200       # it plays Yacht, not noise
    with pytest.raises(ModelFileError, match=f"trained at tables of {seats} sheets"):
        agent.prepare(load("yacht"), 3)
