"""scripts/baselines.py at a tiny budget: its results are the per-run curves' numbers aggregated over seeds with
a Student-t interval; the masked A2C and DQN never choose an illegal action; bad flags exit 2 with a message."""
import csv
import json
import math

import numpy as np
import pytest
import torch

from agents.stats import mean_t_ci, t_quantile95, t_within
from tests.scripts import load_script
from yacht_env.integrations.sb3 import YachtVecEnv



@pytest.fixture(scope="module")
def baselines():
    return load_script("baselines")


def _rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


# ---- the interval --------------------------------------------------------------------------------

def test_t_quantiles_are_the_tables():
    for df, q in ((1, 12.7062), (2, 4.3027), (3, 3.1824), (4, 2.7764), (9, 2.2622), (29, 2.0452), (120, 1.9799)):
        assert t_quantile95(df) == pytest.approx(q, abs=5e-4)
    assert t_within(0.0, 5) == 0.0 and t_within(1e9, 6) == pytest.approx(1.0)


def test_the_t_interval_of_fixed_numbers():
    mean, (lo, hi), sd = mean_t_ci([170.0, 175.0, 180.0])
    assert mean == 175.0 and sd == 5.0
    half = 4.302653 * 5.0 / math.sqrt(3)           # t(0.975, 2) s / sqrt(n)
    assert lo == pytest.approx(175.0 - half, abs=1e-4) and hi == pytest.approx(175.0 + half, abs=1e-4)
    assert mean_t_ci([3.0]) == (3.0, [3.0, 3.0], 0.0)


# ---- masks ---------------------------------------------------------------------------------------

def test_random_legal_only_draws_legal_actions(baselines):
    rng = np.random.default_rng(0)
    masks = rng.random((500, 44)) < 0.1
    masks[np.arange(500), rng.integers(0, 44, 500)] = True
    for _ in range(5):
        picks = baselines.random_legal(masks, rng)
        assert masks[np.arange(500), picks].all()
    one = np.zeros((3, 44), bool)
    one[:, 7] = True
    assert baselines.random_legal(one, rng).tolist() == [7, 7, 7]


@pytest.mark.parametrize("algo", ["dqn", "a2c"])
def test_the_masked_agents_never_choose_an_illegal_action(baselines, algo):
    """Exploring (epsilon 1, then sampling), greedy and in the warm-up, on the live env's masks: every action
    the agent plays is legal under the env's mask, and the network's input is the observation without it."""
    venv = baselines.MaskInObs(YachtVecEnv(16, seed=5, **baselines.OPTIONS))
    if algo == "dqn":
        model = baselines.MaskedDQN(baselines.MaskedDQNPolicy, venv, learning_starts=50, buffer_size=2000,
                                    batch_size=32, seed=1, device="cpu", policy_kwargs={"net_arch": [16]})
    else:
        model = baselines.A2C(baselines.MaskedActorCritic, venv, seed=1, device="cpu",
                              policy_kwargs={"net_arch": [16]})
    obs = venv.reset()
    model._last_obs = obs
    n = venv.action_space.n
    with torch.no_grad():      # an untrained network's preferences are arbitrary: illegal ones among them
        for p in model.policy.parameters():
            p.normal_(0.0, 1.0)
    for step in range(200):
        legal = venv.venv.action_masks()
        assert np.array_equal(obs[:, -n:] > 0.5, legal)
        if algo == "dqn":
            model.exploration_rate = (1.0, 0.3, 0.0)[step % 3]
            model.num_timesteps = 0 if step % 4 == 0 else 100        # the warm-up draw, then the policy's
            action, _ = model._sample_action(50, n_envs=16)
        else:
            action, _ = model.predict(obs, deterministic=step % 2 == 0)
        assert legal[np.arange(16), action].all()
        model._last_obs = obs = venv.step(action)[0]
    x, legal = torch.as_tensor(obs), torch.as_tensor(venv.venv.action_masks())
    if algo == "dqn":
        q = model.q_net(x)
        assert (q[~legal] <= -1e7).all() and (q[legal] > -1e7).all()
        assert model.q_net.q_net[0].in_features == obs.shape[1] - n
    else:
        dist = model.policy.get_distribution(x)
        probs = dist.distribution.probs
        assert (probs[~legal] == 0).all() and (probs.sum(dim=1) - 1).abs().max() < 1e-5
        assert model.policy.mlp_extractor.policy_net[0].in_features == obs.shape[1] - n
    venv.close()


# ---- the table -----------------------------------------------------------------------------------

def test_a_tiny_table_is_recomputable_from_its_run_files(baselines, tmp_path, capsys):
    out = tmp_path / "table"
    argv = ["--algos", "a2c", "dqn", "--budgets", "400", "--seeds", "2", "--eval-games", "20", "--out", str(out),
            "--work", str(tmp_path / "work"), "--json"]
    assert baselines.main(argv) == 0
    printed = json.loads(capsys.readouterr().out)
    results = _rows(out / "results.csv")
    assert [(r["algo"], r["budget"], r["seeds"]) for r in results] == [("a2c", "400", "0 10000"),
                                                                       ("dqn", "400", "0 10000")]
    assert [r["mean"] for r in printed] == [float(r["mean"]) for r in results]
    for r in results:
        finals = [_rows(out / "runs" / f"{r['algo']}-400-s{seed}.csv")[-1] for seed in (0, 10000)]
        scores = [float(f["eval_mean"]) for f in finals]
        mean, (lo, hi), _ = mean_t_ci(scores)
        assert float(r["mean"]) == round(mean, 2) and float(r["lo"]) == round(lo, 2) and float(r["hi"]) == round(hi, 2)
        assert int(r["steps"]) == round(np.mean([float(f["timesteps"]) for f in finals])) >= 400
        assert float(r["wall_minutes"]) == round(np.mean([float(f["wall_seconds"]) for f in finals]) / 60, 2)
        assert r["eval_games"] == "20" and r["interval"].startswith("student-t")
    curve = _rows(out / "runs" / "dqn-400-s0.csv")
    assert [int(c["timesteps"]) for c in curve] == [112, 208, 304, 400]        # a quarter .. all, 16 envs a step
    assert (out / "curves.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # a second command adds its row to the same table and keeps the runs it finds
    assert baselines.main(["--algos", "dqn", "--budgets", "400", "--seeds", "2", "--eval-games", "20", "--out",
                           str(out), "--work", str(tmp_path / "work")]) == 0
    assert "kept" in capsys.readouterr().err
    assert _rows(out / "results.csv") == results


def test_bad_files_end_in_one_line_before_any_training(baselines, tmp_path, capsys):
    out = tmp_path / "table"
    (out / "runs").mkdir(parents=True)
    (out / "runs" / "a2c-400-s0.csv").write_text("timesteps,wall_seconds\n1,nan\n")
    argv = ["--algos", "dqn", "--budgets", "400", "--seeds", "1", "--eval-games", "5", "--work", str(tmp_path / "w")]
    assert baselines.main(argv + ["--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "a2c-400-s0.csv" in err and "damaged" in err and "Traceback" not in err
    assert not (out / "runs" / "dqn-400-s0.csv").exists()                  # nothing trained
    (out / "runs" / "a2c-400-s0.csv").write_text("timesteps,wall_seconds,eval_mean,eval_ci95,eval_games,eval_seed\n")
    assert baselines.main(argv + ["--out", str(out)]) == 2
    assert "damaged" in capsys.readouterr().err
    afile = tmp_path / "afile"
    afile.write_text("x")
    assert baselines.main(argv + ["--out", str(afile)]) == 2
    assert "not a folder" in capsys.readouterr().err and afile.read_text() == "x"


@pytest.mark.parametrize("argv, message", [
    (["--algos", "sac"], "invalid choice"),
    (["--budgets", "10"], "--budgets must be"),
    (["--seeds", "0"], "--seeds must be"),
    (["--eval-games", "0"], "--eval-games must be"),
    (["--seed", "999900"], "meet the evaluation streams"),
    (["--seeds", "3", "--eval-seed", "20000"], "meet the evaluation streams"),
])
def test_bad_flags_exit_2_with_a_message(baselines, capsys, argv, message):
    with pytest.raises(SystemExit) as e:
        baselines.parse_args(argv)
    assert e.value.code == 2 and message in capsys.readouterr().err
