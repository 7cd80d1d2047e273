"""The learner's torch thread count holds through evaluations, whatever the import order (issue 39, item 1).

Each check runs in a fresh interpreter: numba's parallel pool starts once per process, and this test
process may have started it already."""
import json
import subprocess
import sys

import numba
import pytest

from agents.training.checkpoint import load_checkpoint

# torch first, as a user's script (or scripts/ppo_batched.py before) imports it; then one evaluation,
# which plays through numba's parallel kernels
EVALUATE = """
import torch
{set_threads}
from agents.learned import NetPlayer, PolicyNet
from agents.training.checkpoint import new_policy
from agents.training.evaluate import evaluate_player
from yacht_env.rules import load
rules = load("yacht")
config = {{"num_players": 1, "policy": {{"pi": [8], "vf": [8], "activation": "relu"}}}}
policy = new_policy(config, rules, 1e-3)
player = NetPlayer(PolicyNet(policy.state_dict(), config["policy"]), config)
evaluate_player(player, rules, 16, 1_000_000)
print(torch.get_num_threads())
"""


def threads_after_evaluation(set_threads: str) -> int:
    proc = subprocess.run([sys.executable, "-c", EVALUATE.format(set_threads=set_threads)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    return int(proc.stdout.split()[-1])


@pytest.mark.slow
def test_set_torch_threads_holds_after_an_evaluation():
    held = "from agents.training.threads import set_torch_threads\nset_torch_threads(1)"
    assert threads_after_evaluation(held) == 1


@pytest.mark.slow
@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="numba's pool has one thread: nothing to undo")
def test_torch_alone_loses_its_setting_at_the_first_evaluation():
    """What set_torch_threads is for: torch's own setting, made before numba's pool starts, is undone."""
    assert threads_after_evaluation("torch.set_num_threads(1)") == numba.config.NUMBA_NUM_THREADS


@pytest.mark.slow
def test_ppo_batched_keeps_its_torch_threads_and_evaluates_a_short_run(tmp_path):
    """A run of a few rollouts has a curve (early evaluations and one at the end), and --torch-threads 1
    holds through them."""
    out = tmp_path / "run"
    proc = subprocess.run([sys.executable, "scripts/ppo_batched.py", "--total-timesteps", "1536", "--num-envs", "64",
                           "--num-steps", "8", "--num-minibatches", "2", "--update-epochs", "1", "--hidden", "16",
                           "--first-eval", "512", "--eval-every", "4096", "--eval-games", "16",
                           "--torch-threads", "1", "--device", "cpu", "--out", str(out)],
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr
    rows = (out / "curve.csv").read_text().splitlines()[1:]
    assert [int(r.split(",")[0]) for r in rows] == [512, 1024, 1536]   # 512, doubling, and the last
    assert load_checkpoint(out / "final.pt")["extra"]["torch_threads"] == 1
    assert json.loads((out / "best.json").read_text())["games"] == 16
