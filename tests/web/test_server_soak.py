"""`bench.py soak` at a small size: people playing whole games beside idle, slow, half-open, cross-site and
bad-frame clients while the server is killed with SIGKILL and restarted; no game lost or doubled, every table
continued where its person saw it."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
pytest.importorskip("websockets.asyncio.client")

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_a_small_soak_loses_and_doubles_no_game():
    done = subprocess.run([sys.executable, "scripts/bench.py", "soak", "--tables", "3", "--games", "1", "--idle", "8",
                           "--slow", "3", "--half-open", "3", "--kills", "2", "--seconds", "240", "--seed", "1",
                           "--think", "0"],
                          cwd=ROOT, capture_output=True, text=True, timeout=400,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    out = done.stdout + done.stderr
    assert done.returncode == 0, out
    assert "2 kill -9 and restarts" in out and "lost 0, doubled 0" in out and "soak: ok" in out
