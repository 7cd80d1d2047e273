"""`yacht train` end to end on a tiny config: checkpoints, resume, and `learned:PATH` play."""
import json

import numpy as np
import pytest
import torch

from agents.base import play_game
from agents.learned import LearnedAgent
from agents.training.checkpoint import ModelFileError, load_checkpoint
from agents.training.config import ConfigError, load_config
from agents.training.evaluate import evaluate_model
from agents.training.run import train
from tests.planted import SECRET, plant
from yacht_arena.cli import main
from yacht_env import Game
from yacht_env.envs.table_core import TableCore
from yacht_env.core.dice_source import game_seed
from yacht_env.envs.obs import observe_game
from yacht_env.rules import load

STEPS = 2048


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("train") / "smoke"
    cfg = load_config("configs/train/smoke.yaml", total_timesteps=STEPS, out=str(out))
    trained = train(cfg, progress=False)
    return cfg, trained


def test_outputs(run):
    cfg, trained = run
    out = trained.out
    for name in ("config.json", "run.json", "curve.csv", "curve.png", "best.pt", "best.json", "final.pt",
                 "last.pt", f"checkpoints/step_{STEPS}.pt"):
        assert (out / name).is_file(), name
    assert list((out / "tb").rglob("events.out.tfevents*"))
    run_doc = json.loads((out / "run.json").read_text())
    assert run_doc["starts"][0]["model_seed"] == cfg.seed and run_doc["starts"][0]["ended_at_timesteps"] == STEPS
    ev = trained.evaluation
    assert ev.games == cfg.eval_games and 0 < ev.mean < 400 and ev.optimum == pytest.approx(254.5877, abs=0.01)
    assert 0.0 <= ev.bonus_rate <= 1.0 and 0.0 <= ev.yacht_rate <= 1.0


def test_play_only_file_has_no_optimizer(run):
    _, trained = run
    assert "optimizer" not in load_checkpoint(trained.out / "final.pt")
    assert "optimizer" in load_checkpoint(trained.out / "last.pt")


def test_learned_agent_plays_the_evaluated_games(run):
    """The agent's observation from a Game equals the env's: it scores exactly what the evaluation scored."""
    cfg, trained = run
    path = trained.out / "final.pt"
    rules = load("yacht")
    res = evaluate_model(load_checkpoint(path), rules, 12, cfg.eval_seed)
    agent = LearnedAgent(path)
    scores = [play_game(Game(rules, 1, seed=game_seed(cfg.eval_seed + j, 0)), [agent]).totals()[0]
              for j in range(12)]
    assert scores == res.scores.astype(int).tolist()


def test_game_observation_matches_batch():
    rules = load("yacht")
    batch = TableCore(rules, 1)
    batch.begin([0], [5])
    game = Game(rules, 1, seed=game_seed(5, 0))
    game.roll()
    rng = np.random.default_rng(0)
    while not game.is_over:
        assert np.array_equal(observe_game(game), batch.obs[0])
        a = int(rng.choice(np.flatnonzero(game.legal_mask())))
        game.apply(a)
        if game.phase == "roll":
            game.roll()
        batch.step(np.array([a]))
    assert game.totals()[0] == batch.total(0)


def test_learned_spec_in_a_two_player_game(run):
    from agents.registry import make_agent
    _, trained = run
    agent = make_agent(f"learned:{trained.out / 'best.pt'}")
    game = play_game(Game("yacht", 2, seed=3), [agent, LearnedAgent(trained.out / "final.pt")])
    assert game.is_over and all(t > 0 for t in game.totals())


def test_resume_continues_from_checkpoint(run, tmp_path):
    cfg, trained = run
    out = tmp_path / "resumed"
    cfg2 = load_config("configs/train/smoke.yaml", total_timesteps=STEPS + 1024, out=str(out))
    again = train(cfg2, resume=trained.out / "last.pt", progress=False)
    doc = load_checkpoint(out / "last.pt")
    assert doc["num_timesteps"] >= STEPS + 1024
    start = json.loads((out / "run.json").read_text())["starts"][0]
    assert start["at_timesteps"] == STEPS and start["resumed_from"].endswith("last.pt")
    first = load_checkpoint(trained.out / "last.pt")["policy"]
    assert any(not torch.equal(first[k], doc["policy"][k]) for k in first)
    assert again.evaluation.games == cfg2.eval_games


def test_resume_refusals(run, tmp_path):
    cfg, trained = run
    with pytest.raises(ConfigError, match="play-only model file"):
        train(load_config("configs/train/smoke.yaml", total_timesteps=STEPS * 2, out=str(tmp_path)),
              resume=trained.out / "final.pt", progress=False)
    with pytest.raises(ConfigError, match="nothing to do"):
        train(load_config("configs/train/smoke.yaml", total_timesteps=STEPS, out=str(tmp_path)),
              resume=trained.out / "last.pt", progress=False)
    with pytest.raises(ConfigError, match="trained with policy"):
        train(load_config("configs/train/ppo.yaml", total_timesteps=STEPS * 2, out=str(tmp_path)),
              resume=trained.out / "last.pt", progress=False)


def test_model_file_errors(run, tmp_path):
    _, trained = run
    with pytest.raises(ModelFileError, match="no model file at"):
        LearnedAgent(tmp_path / "missing.pt")
    junk = tmp_path / "junk.pt"
    junk.write_bytes(b"not a model")
    with pytest.raises(ModelFileError, match="not a model file saved by `yacht train`"):
        LearnedAgent(junk)
    other = tmp_path / "other.pt"
    torch.save({"weights": torch.zeros(3)}, other)
    with pytest.raises(ModelFileError, match="expected format"):
        LearnedAgent(other)
    agent = LearnedAgent(trained.out / "final.pt")
    with pytest.raises(ModelFileError, match="cannot play rules 'classic'"):
        play_game(Game("classic", 1, seed=1), [agent])


def test_cli_evaluate_and_errors(run, capsys):
    _, trained = run
    assert main(["train", "configs/train/smoke.yaml", "--evaluate", str(trained.out / "final.pt"),
                 "--games", "16", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["games"] == 16 and doc["optimum"] == pytest.approx(254.5877, abs=0.01)
    assert main(["train", "configs/train/ppo-classic.yaml", "--evaluate", str(trained.out / "final.pt")]) == 2
    assert "was trained on rules 'yacht', not on the config's 'classic'" in capsys.readouterr().err
    assert main(["train", "configs/train/smoke.yaml", "--games", "5"]) == 2
    assert "--games needs --evaluate" in capsys.readouterr().err


def test_sigterm_stops_training_with_a_checkpoint(tmp_path):
    """`kill`, `timeout` and job schedulers send SIGTERM (background jobs ignore Ctrl-C): the run stops as
    on Ctrl-C, writing last.pt first, and exits 130 with one line."""
    import signal
    import subprocess
    import sys
    import time
    out = tmp_path / "run"
    proc = subprocess.Popen([sys.executable, "-m", "yacht_arena.cli", "train", "configs/train/smoke.yaml",
                             "--timesteps", "50000000", "--out", str(out), "--no-progress"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 240

    def checkpoints() -> int:
        return len(list((out / "checkpoints").glob("*.pt"))) if (out / "checkpoints").exists() else 0
    # the signal comes after the second checkpoint, when the first evaluation and its compiles are done; a
    # SIGTERM during that first evaluation with numba's cache empty can leave the run unstopped for over 300 s,
    # an open problem this test does not cover
    while checkpoints() < 2 and proc.poll() is None and time.time() < deadline:
        time.sleep(0.2)
    assert proc.poll() is None, proc.communicate()
    proc.send_signal(signal.SIGTERM)
    stdout, stderr = proc.communicate(timeout=300)
    assert proc.returncode == 130, stderr
    assert stderr.strip().splitlines()[-1] == "yacht train: interrupted"
    assert "Traceback" not in stderr
    doc = load_checkpoint(out / "last.pt")
    assert doc["num_timesteps"] >= 2048 and "optimizer" in doc
    assert json.loads((out / "run.json").read_text())["starts"][0]["ended"] == "interrupted"


SIGTERM_CHILD = """
import os, signal, sys, threading, time
from pathlib import Path
from agents.training import run
run.TERM_GRACE_SECONDS = int(sys.argv[2])
try:
    with run._terminate_as_interrupt(Path(sys.argv[1])):
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(30)
except KeyboardInterrupt:
    print("interrupted", flush=True)
if sys.argv[3] == "stuck":
    lock = threading.Lock()
    lock.acquire()
    lock.acquire()          # waits for good, as a process stuck on its way out would
elif sys.argv[3] == "slow":
    time.sleep(30)
"""


def _sigterm_child(folder, grace: int, then: str):
    import subprocess
    import sys
    return subprocess.Popen([sys.executable, "-c", SIGTERM_CHILD, str(folder), str(grace), then],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_a_run_stuck_after_sigterm_is_ended_with_where_it_stood(tmp_path):
    """SIGTERM ends the process even when the way out hangs: faulthandler's watchdog ends it after the grace
    time (exit 1) and leaves every thread's stack in the run folder."""
    proc = _sigterm_child(tmp_path, 2, "stuck")
    stdout, stderr = proc.communicate(timeout=120)        # it would wait for good without the watchdog
    assert proc.returncode == 1 and stdout == "interrupted\n", stderr
    note = (tmp_path / "stuck-after-sigterm.txt").read_text()
    assert note.startswith("The run did not exit within 2 s of SIGTERM and was ended")
    assert "most recent call first" in note and 'File "<string>", line 15' in note    # the second acquire


def test_a_second_sigterm_ends_the_run_at_once(tmp_path):
    import signal
    proc = _sigterm_child(tmp_path, 60, "slow")
    assert proc.stdout.readline() == "interrupted\n"
    proc.send_signal(signal.SIGTERM)
    proc.communicate(timeout=120)
    assert proc.returncode == -signal.SIGTERM   # not the end of its 30 s sleep (0), nor the watchdog's (1)


def test_a_run_that_exits_in_time_leaves_no_note(tmp_path):
    proc = _sigterm_child(tmp_path, 60, "exit")
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 0 and stdout == "interrupted\n", stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("kind", ["symlink", "fifo", "folder"])
def test_a_planted_stuck_note_is_never_written_through(tmp_path, victim, kind):
    """Something planted where the watchdog's note goes is left alone: the stacks go to stderr instead."""
    run_folder = tmp_path / "run"
    run_folder.mkdir()
    plant(run_folder / "stuck-after-sigterm.txt", kind, victim)
    proc = _sigterm_child(run_folder, 2, "stuck")
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 1 and stdout == "interrupted\n", stderr
    assert "most recent call first" in stderr
    assert victim.read_bytes() == SECRET


def test_every_run_records_how_it_ended_and_its_device(run):
    start = json.loads((run[1].out / "run.json").read_text())["starts"][0]
    assert start["ended"] == "finished" and start["device"] == "cpu" and "error" not in start
    assert start["torch_threads"] == run[0].torch_threads      # held through the run's evaluations


def test_a_failed_run_is_recorded_as_failed(tmp_path, monkeypatch):
    from agents.training import callbacks

    def broken(self):
        raise RuntimeError("evaluation broke\nsecond line")
    monkeypatch.setattr(callbacks.TrainLoop, "run_eval", broken)
    cfg = load_config("configs/train/smoke.yaml", total_timesteps=1024, out=str(tmp_path / "f"))
    with pytest.raises(RuntimeError):
        train(cfg, progress=False)
    start = json.loads((tmp_path / "f" / "run.json").read_text())["starts"][0]
    assert start["ended"] == "failed" and start["error"] == "RuntimeError: evaluation broke"


def test_cuda_without_a_gpu_is_one_config_error(tmp_path):
    if torch.cuda.is_available():
        pytest.skip("a GPU is present")
    cfg = load_config("configs/train/smoke.yaml", settings={"device": "cuda"}, out=str(tmp_path / "c"))
    with pytest.raises(ConfigError, match="device: cuda, but torch .* sees no GPU"):
        train(cfg, progress=False)


def test_the_learning_rate_stops_at_its_end_and_continues_on_resume():
    from agents.training.run import LinearSchedule
    total = 200_000
    s = LinearSchedule(1e-3, 2e-5, 0, total)
    rates = [s(1 - n / total) for n in (0, 100_000, 200_000, 212_992, 400_000)]
    assert rates[0] == 1e-3 and rates[1] == pytest.approx((1e-3 + 2e-5) / 2)
    assert rates[2] == rates[3] == rates[4] == pytest.approx(2e-5)     # past the total: the end value, never below
    at = s(1 - 120_000 / total)
    longer = LinearSchedule(at, 2e-5, 120_000, 400_000)                 # a resume with a new --timesteps
    assert longer(1 - 120_000 / 400_000) == pytest.approx(at)           # goes on from where it was
    assert longer(1 - 260_000 / 400_000) < at and longer(1 - 500_000 / 400_000) == pytest.approx(2e-5)


def test_a_resume_continues_the_optimizers_rate(run, tmp_path):
    cfg, trained = run
    doc = load_checkpoint(trained.out / "last.pt")
    cfg2 = load_config("configs/train/smoke.yaml", total_timesteps=STEPS + 1024, out=str(tmp_path / "r"),
                       settings={"ppo.final_learning_rate": 1e-4})
    again = train(cfg2, resume=trained.out / "last.pt", progress=False)
    lr = again.model.policy.optimizer.param_groups[0]["lr"]
    was = doc["optimizer"]["param_groups"][0]["lr"]
    assert 1e-4 <= lr <= was


def test_a_fresh_run_into_another_runs_folder_is_refused(run, capsys):
    cfg, trained = run
    curve = (trained.out / "curve.csv").read_bytes()
    with pytest.raises(ConfigError, match=r"holds another training run \(run.json and 5 more\).*--resume"):
        train(load_config("configs/train/smoke.yaml", total_timesteps=STEPS, out=str(trained.out)), progress=False)
    assert main(["train", "configs/train/smoke.yaml", "--out", str(trained.out), "--no-progress"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "holds another training run" in err[0] and "--force" in err[0]
    assert (trained.out / "curve.csv").read_bytes() == curve


def test_force_starts_afresh_without_the_old_curve(tmp_path):
    from agents.training.run import check_run_folder
    for name in ("run.json", "curve.csv", "best.json", "last.pt"):
        (tmp_path / name).write_text("old")
    with pytest.raises(ConfigError, match="holds another training run"):
        check_run_folder(tmp_path)
    check_run_folder(tmp_path, resume=tmp_path / "last.pt")       # resuming it is what the folder is for
    check_run_folder(tmp_path, force=True)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["last.pt"]
    check_run_folder(tmp_path / "new")                            # an empty or missing folder is fresh


def test_resuming_after_a_depended_on_file_changed_is_refused_naming_it(run, tmp_path):
    cfg, trained = run
    out = tmp_path / "resumed"
    out.mkdir()
    opponent = tmp_path / "opponent.pt"
    opponent.write_bytes(b"the model the run began with, since replaced")
    (out / "run.json").write_text(json.dumps({"starts": [], "files": {str(opponent): "0" * 64}}))
    cfg2 = load_config("configs/train/smoke.yaml", total_timesteps=STEPS + 1024, out=str(out))
    with pytest.raises(ConfigError, match=f"{opponent} changed since the run began .*--force"):
        train(cfg2, resume=trained.out / "last.pt", progress=False)
    assert sorted(p.name for p in out.iterdir()) == ["run.json"]     # refused before anything was written
