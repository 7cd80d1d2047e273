"""`yacht serve` in a child process, for the web tests and `bench.py web`: on 127.0.0.1, a free port, a data
folder of the caller's; waited for in a bounded loop and stopped (terminate, then kill) at the end."""
import contextlib
import json
import os
import resource
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]      # the checkout: the child imports this copy of the project
START_TIMEOUT = 60.0


def one_address_config(folder: Path) -> Path:
    """A serve config (written in `folder`) for a loopback run that plays many people, every one from
    127.0.0.1: that address may open as many tables as the server holds (`max_tables_per_address`)."""
    path = Path(folder) / "serve-one-address.yaml"
    path.write_text("max_tables_per_address: 100000\n")
    return path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Served:
    """A running server: `url`, `data`, `proc`; `kill9()` ends it as a crash would; `files` sets the child's
    open-file limit (soft and hard)."""

    def __init__(self, data: Path, config: Path | None = None, port: int | None = None, files: int | None = None):
        self.data, self.port = Path(data), port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        cmd = [sys.executable, "-m", "yacht_arena.cli", "serve", "--port", str(self.port), "--data", str(self.data)]
        if config is not None:
            cmd += ["--config", str(config)]
        env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
        self.log = open(self.data.parent / f"serve-{self.port}.log", "ab")   # closed in stop()
        limit = None if files is None else (lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (files, files)))
        self.proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=self.log, stderr=subprocess.STDOUT,
                                     preexec_fn=limit)
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            try:
                self.get("/api/menu")
                return
            except OSError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError(f"yacht serve did not start: {self.output()[-2000:]}") from None
                time.sleep(0.2)

    def get(self, path: str):
        with urllib.request.urlopen(self.url + path, timeout=60) as r:
            return json.loads(r.read())

    def post(self, path: str, doc) -> tuple[int, dict]:
        req = urllib.request.Request(self.url + path, data=json.dumps(doc).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=60) as r:
                return r.status, json.loads(r.read())
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read())

    def output(self) -> str:
        if not self.log.closed:
            self.log.flush()
        return (self.data.parent / f"serve-{self.port}.log").read_text(errors="replace")

    def kill9(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=30)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=15)
        self.log.close()


@contextlib.contextmanager
def serving(data: Path, config: Path | None = None, port: int | None = None, files: int | None = None):
    served = Served(data, config, port, files)
    try:
        yield served
    finally:
        served.stop()
