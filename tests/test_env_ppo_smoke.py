"""MaskablePPO trains through the batched SB3 adapter (scripts/train_ppo_smoke.py, a few thousand steps)."""
import importlib.util
import re
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "train_ppo_smoke.py"


def load_script():
    spec = importlib.util.spec_from_file_location("train_ppo_smoke", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_maskable_ppo_smoke(capsys):
    pytest.importorskip("sb3_contrib")
    script = load_script()
    assert script.main(["--timesteps", "2048", "--num-envs", "8", "--eval-games", "16", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    m = re.search(r"random legal ([\d.]+), MaskablePPO ([\d.]+) \((\d+) illegal moves\)", out)
    assert m, out
    assert float(m.group(1)) > 0 and float(m.group(2)) > 0
    assert m.group(3) == "0"  # masked predictions never pick an illegal action


def test_smoke_script_rejects_bad_arguments(capsys):
    script = load_script()
    with pytest.raises(SystemExit):
        script.main(["--timesteps", "0"])
    assert "--timesteps, --num-envs and --eval-games must be positive" in capsys.readouterr().err
