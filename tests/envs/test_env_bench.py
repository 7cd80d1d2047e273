"""scripts/bench.py env runs every contender it can and reports steps/s and ratios, and bench.py dispatch
reports every packing (tiny sizes)."""
import re
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "scripts" / "bench.py"


def test_bench_env_reports_rates():
    out = subprocess.run([sys.executable, str(BENCH), "env", "--steps", "200", "--batch-steps", "4",
                          "--sizes", "8", "--threads", "1", "2", "--rounds", "2",
                          "--gym-yahtzee-path", "/nonexistent"],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert re.search(r"Yacht-v0 single \(gymnasium.make, yacht\)\s+[\d,]+", out.stdout)
    assert re.search(r"Yacht-v0 batched N=8 \(bare kernel\)\s+[\d,]+\s+[\d,]+", out.stdout)
    assert re.search(r"Yacht-v0 batched N=8, 2 threads \(make_vec step\)\s+[\d,]+", out.stdout)
    assert re.search(r"gym-yahtzee \(YahtzeeSingleEnv\)\s+(n/a .*--gym-yahtzee-path DIR|[\d,]+)", out.stdout)



def test_bench_dispatch_times_every_packing():
    out = subprocess.run([sys.executable, str(BENCH), "dispatch", "--arrays", "3", "--calls", "5", "--rounds", "1"],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    for packing in ("3 arguments", "\\*args", "one tuple", "one named tuple", "3 arguments, direct"):
        assert re.search(rf"3 arrays (as|in) {packing}\s+[\d.]+ us", out.stdout), packing
    assert re.search(r"step_games, \d+ arguments, direct\s+[\d.]+ us", out.stdout)


def test_bench_rejects_unknown_benchmark():
    out = subprocess.run([sys.executable, str(BENCH), "nope"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "invalid choice: 'nope'" in out.stderr
