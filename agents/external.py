"""External bots: any program that speaks JSON lines on stdin/stdout (see docs/external_bots.md).

The harness starts the bot in its own process group, sends one `hello` per game and one
`decide` message per decision, and reads one reply line per `decide`. Every reply must arrive
within `timeout` seconds (the first reply after the bot starts gets `start_grace` more).

Faults never stop the game. The move is replaced by the fallback -- score the open box that pays
the most for the dice in hand (bonuses included; first such box on ties) -- and the fault is
appended to `agent.faults` with its kind and cause:

    timeout   no reply in time: the bot is killed; fallback for the rest of the game
    crash     the bot exited or closed stdout: fallback for the rest of the game
    garbage   the reply is not a JSON object with an integer "action": fallback for this move
    illegal   the action is not legal now: fallback for this move

A killed or crashed bot is started again for the next game. `close()` (also on `with` exit and
at interpreter exit) ends the bot: it gets {"type": "bye"}, then its whole process group is killed.
On Linux the bot is also killed if the harness process dies without running its exit handlers.
"""
import atexit
import ctypes
import json
import os
import selectors
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import weakref
from dataclasses import dataclass

import numpy as np

from .base import Agent, View
from .simple import greedy_action

PROTOCOL = 1
_LIVE: "weakref.WeakSet[ExternalAgent]" = weakref.WeakSet()


@dataclass(frozen=True)
class Fault:
    """One thing a bot did wrong: kind (timeout, crash, garbage, illegal), cause, and where."""
    kind: str
    cause: str
    game: int       # games started by this agent, counting from 1
    move: int       # decisions asked of the bot in that game, counting from 1


class ExternalAgent(Agent):
    """Plays through an external program. command: a shell-style command line (no shell is used)."""

    name = "external"

    def __init__(self, command: str, timeout: float = 5.0, start_grace: float = 10.0):
        try:
            self.argv = shlex.split(command)
        except ValueError as e:
            raise ValueError(f"cannot parse bot command {command!r}: {e}") from None
        if not self.argv:
            raise ValueError("the bot command is empty")
        if shutil.which(self.argv[0]) is None:
            raise ValueError(f"bot program {self.argv[0]!r} not found (or not executable)")
        if timeout <= 0:
            raise ValueError(f"timeout must be > 0 seconds, got {timeout}")
        self.command, self.timeout, self.start_grace = command, float(timeout), float(start_grace)
        self.proc: subprocess.Popen | None = None
        self.faults: list[Fault] = []
        self.games = 0
        self._buf = b""
        self._stderr = None
        self._grace = 0.0
        self._broken = False
        _LIVE.add(self)

    # ---- process ----------------------------------------------------------------------------
    def _start(self) -> None:
        self._stderr = tempfile.TemporaryFile()
        try:
            self.proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=self._stderr, start_new_session=True, preexec_fn=_die_with_parent)
        except OSError as e:
            self.proc = None
            raise OSError(f"cannot start bot {self.command!r}: {e.strerror or e}") from None
        os.set_blocking(self.proc.stdout.fileno(), False)
        self._buf = b""
        self._grace = self.start_grace

    def _kill(self) -> None:
        proc, self.proc = self.proc, None
        if proc is None:
            return
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        for f in (proc.stdin, proc.stdout):
            try:
                f.close()
            except OSError:
                pass
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None

    def close(self) -> None:
        """Say bye and end the bot and everything it started."""
        if self.proc is not None and self.proc.poll() is None:
            try:
                self._send({"type": "bye"})
                self.proc.stdin.close()
                self.proc.wait(timeout=0.2)
            except (OSError, ValueError, subprocess.TimeoutExpired):
                pass
        self._kill()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    # ---- wire -------------------------------------------------------------------------------
    def _send(self, msg: dict) -> None:
        self.proc.stdin.write((json.dumps(msg, separators=(",", ":")) + "\n").encode())
        self.proc.stdin.flush()

    def _drain(self) -> None:
        """Drop lines the bot sent without being asked (stale replies after a fault)."""
        try:
            while chunk := os.read(self.proc.stdout.fileno(), 65536):
                self._buf += chunk
        except BlockingIOError:
            pass
        self._buf = b""

    def _readline(self, seconds: float) -> bytes:
        """One line from the bot; raises TimeoutError or EOFError."""
        end = time.monotonic() + seconds
        fd = self.proc.stdout.fileno()
        with selectors.DefaultSelector() as sel:
            sel.register(fd, selectors.EVENT_READ)
            while b"\n" not in self._buf:
                left = end - time.monotonic()
                if left <= 0 or not sel.select(left):
                    raise TimeoutError(f"no reply within {seconds:g} s")
                try:
                    chunk = os.read(fd, 65536)
                except BlockingIOError:
                    continue
                if not chunk:
                    raise EOFError(self._exit_cause())
                self._buf += chunk
                if len(self._buf) > 1 << 20:
                    raise ValueError("reply line longer than 1 MiB")
        line, _, self._buf = self._buf.partition(b"\n")
        return line

    def _exit_cause(self) -> str:
        try:
            code = self.proc.wait(timeout=1)
        except subprocess.TimeoutExpired:
            return "the bot closed its stdout"
        tail = ""
        if self._stderr is not None:
            self._stderr.seek(0)
            lines = self._stderr.read().decode(errors="replace").strip().splitlines()
            tail = f"; last stderr line: {lines[-1]!r}" if lines else ""
        return f"the bot exited with code {code}{tail}"

    # ---- Agent ------------------------------------------------------------------------------
    def reset(self, rules, seat, num_players, seed=None):
        super().reset(rules, seat, num_players, seed)
        self.games += 1
        self.moves = 0
        self._broken = False
        if not self.alive:
            self._kill()
            self._start()
        try:
            self._send({"type": "hello", "protocol": PROTOCOL, "rules": rules.to_dict(), "seat": seat,
                        "num_players": num_players, "seed": seed, "num_actions": 31 + len(rules.boxes) * rules.columns})
        except (OSError, ValueError):
            self._fault("crash", "the bot closed its stdin before the game started")

    def _fault(self, kind: str, cause: str) -> None:
        self.faults.append(Fault(kind, cause, self.games, self.moves))
        if kind in ("timeout", "crash"):
            self._broken = True
            self._kill()

    def act(self, view: View) -> int:
        self.moves += 1
        if self._broken or not self.alive:
            if not self._broken:
                self._fault("crash", self._exit_cause() if self.proc is not None else "the bot is not running")
            return greedy_action(view)
        legal = view.legal_actions
        try:
            self._drain()
            self._send(decide_message(view))
            wait, self._grace = self.timeout + self._grace, 0.0
            line = self._readline(wait)
        except TimeoutError as e:
            self._fault("timeout", str(e))
            return greedy_action(view)
        except EOFError as e:
            self._fault("crash", str(e))
            return greedy_action(view)
        except (OSError, ValueError) as e:           # a broken pipe, or an over-long reply line
            if isinstance(e, ValueError) and self.alive:
                self._fault("garbage", str(e))
            else:
                self._fault("crash", self._exit_cause())
            return greedy_action(view)
        action, problem = parse_reply(line, legal)
        if problem:
            self._fault("illegal" if action is not None else "garbage", problem)
            return greedy_action(view)
        return action


def decide_message(view: View) -> dict:
    """What the bot gets at each decision (see docs/external_bots.md)."""
    game = view.game
    legal = [int(a) for a in view.legal_actions]
    return {"type": "decide", "seat": view.seat, "sheet": view.sheet, "round": view.round,
            "dice": list(view.dice), "rolls_left": view.rolls_left,
            "scores": view.scores.tolist(), "upper": view.upper.tolist(), "totals": list(view.totals),
            "preview": {(b if view.rules.columns == 1 else f"{b}@{c + 1}"): p for (c, b), p in game.preview().items()},
            "legal": legal, "legal_names": [game.action_name(a) for a in legal]}


def parse_reply(line: bytes, legal: np.ndarray) -> tuple[int | None, str]:
    """(action, '') for a good reply; (None, why) for garbage; (action, why) for an illegal action."""
    text = line.decode(errors="replace").strip()
    shown = text if len(text) <= 80 else text[:77] + "..."
    try:
        msg = json.loads(text)
    except json.JSONDecodeError:
        return None, f"reply is not JSON: {shown!r}"
    if not isinstance(msg, dict) or "action" not in msg:
        return None, f'reply is not an object with an "action": {shown!r}'
    a = msg["action"]
    if isinstance(a, bool) or not isinstance(a, int):
        return None, f'"action" must be an integer, got {shown!r}'
    if a not in set(int(x) for x in legal):
        return a, f"action {a} is not legal now (legal: {', '.join(str(int(x)) for x in legal)})"
    return a, ""


def _die_with_parent() -> None:
    """In the bot, before exec: on Linux, get SIGKILL when the harness process dies without cleaning
    up (e.g. a pool worker ended by os._exit, where atexit does not run)."""
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL(None).prctl(1, int(signal.SIGKILL))   # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass


@atexit.register
def _close_all() -> None:
    for agent in list(_LIVE):
        agent.close()
