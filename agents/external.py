"""External bots: any program that speaks JSON lines on stdin/stdout (see docs/external_bots.md).

The harness starts the bot through a small supervisor process (agents/bot_supervisor.py), sends
one `hello` per game and one `decide` message per decision, and reads one reply line per
`decide`. Every exchange is bounded: a message must be written and its reply read within
`timeout` seconds (the first reply after the bot starts gets `start_grace` more), a reply line
may hold at most MAX_LINE bytes and nest at most MAX_DEPTH levels of JSON, and only the last
STDERR_TAIL bytes of the bot's stderr are kept.

Faults never stop the game. The move is replaced by the fallback -- score the open box that pays
the most for the dice in hand (bonuses included; first such box on ties) -- and the fault is
appended to `agent.faults` with its kind and cause:

    timeout   no reply in time, or the bot does not read its input: the bot is killed;
              fallback for the rest of the game
    crash     the bot exited or closed stdin or stdout: fallback for the rest of the game
    garbage   the reply is not a JSON object with an integer "action", or the bot wrote without
              being asked: fallback for this move; a line longer than MAX_LINE (or more unasked
              output than that) kills the bot, with fallback for the rest of the game
    illegal   the action is not legal now: fallback for this move

A killed or crashed bot is started again for the next game. `close()` (also on `with` exit and
at interpreter exit) ends the bot: it gets {"type": "bye"}, then it and every process it started
are killed -- through a cgroup where one is writable, else by the supervisor, a child subreaper
that outlives the bot's descendants' escapes from its process group. If the harness dies in any
way, the supervisor sees its control pipe close and does the same.

Resource limits apply to the bot and everything it starts (see LIMITS): `memory` (MiB of address
space per process), `cpu` (seconds of CPU time per process), `files` (open files per process) and
`procs` (processes and threads: of the bot's cgroup when there is one, else of the user, as
RLIMIT_NPROC counts). `memory`, `cpu` and `procs` have defaults (`default_limits`: half the machine's
memory, a day of CPU time, 256 processes beyond those already running) so that a memory hog or a fork
bomb never takes the machine down; a spec raises them with a number and lifts one with `inf`.
"""
import atexit
import json
import math
import os
import select
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time
import weakref
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from . import bot_supervisor
from yacht_env.config import finite
from yacht_env.core.actions import num_actions

from .base import Agent, View
from .simple import greedy_action

PROTOCOL = 1
MAX_LINE = 1 << 20          # bytes in one reply line
MAX_DEPTH = 32              # nesting of [ and { in one reply
STDERR_TAIL = 64 << 10      # bytes of stderr kept
MAX_SECONDS = 86400.0       # longest timeout or start grace
SUPERVISOR = Path(__file__).with_name("bot_supervisor.py")

# name -> (smallest, largest, unit, resource limit set in the bot)
LIMITS = {
    "memory": (16, 1 << 30, "MiB", "RLIMIT_AS"),
    "cpu": (1, 1 << 31, "seconds", "RLIMIT_CPU"),
    "files": (8, 1 << 20, "open files", "RLIMIT_NOFILE"),
    "procs": (1, 1 << 22, "processes", "RLIMIT_NPROC"),
}

DEFAULT_CPU_SECONDS = 86400
DEFAULT_PROCS = 256          # processes and threads a bot may start (beyond the user's, without a cgroup)

_LIVE: "weakref.WeakSet[ExternalAgent]" = weakref.WeakSet()


def default_limits() -> dict:
    """The limits a bot gets when its spec names none: memory, half the machine's physical memory (at least
    1 GiB); cpu, DEFAULT_CPU_SECONDS; procs, DEFAULT_PROCS."""
    try:
        ram = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        ram = 8 << 30
    return {"memory": max(1024, ram // 2 >> 20), "cpu": DEFAULT_CPU_SECONDS, "procs": DEFAULT_PROCS}


def _user_tasks() -> int:
    """Processes and threads this user runs now (what RLIMIT_NPROC counts), 0 when unknown."""
    uid, count = os.getuid(), 0
    try:
        entries = [e for e in os.listdir("/proc") if e.isdigit()]
    except OSError:
        return 0
    for pid in entries:
        try:
            if os.stat(f"/proc/{pid}").st_uid == uid:
                count += len(os.listdir(f"/proc/{pid}/task"))
        except OSError:
            continue
    return count


@dataclass(frozen=True)
class Fault:
    """One thing a bot did wrong: kind (timeout, crash, garbage, illegal), cause, and where."""
    kind: str
    cause: str
    game: int       # games started by this agent, counting from 1
    move: int       # decisions asked of the bot in that game, counting from 1


class _Overflow(Exception):
    """The bot wrote more than MAX_LINE bytes where one line was expected: the stream is lost."""


class ExternalAgent(Agent):
    """Plays through an external program. command: a shell-style command line (no shell is used).

    timeout, start_grace: seconds (see the module docstring). memory, cpu, files, procs: whole-number
    limits (LIMITS); None takes the default (`default_limits`; files: as the harness has it), `inf` lifts
    the limit.
    """

    name = "external"

    def __init__(self, command: str, timeout: float = 5.0, start_grace: float = 10.0, memory=None, cpu=None,
                 files=None, procs=None):
        try:
            self.argv = shlex.split(command)
        except ValueError as e:
            raise ValueError(f"cannot parse bot command {command!r}: {e}") from None
        if not self.argv:
            raise ValueError("the bot command is empty")
        if shutil.which(self.argv[0]) is None:
            raise ValueError(f"bot program {self.argv[0]!r} not found (or not executable)")
        self.command = command
        self.timeout = _seconds("timeout", timeout, positive=True)
        self.start_grace = _seconds("start_grace", start_grace, positive=False)
        given = {"memory": memory, "cpu": cpu, "files": files, "procs": procs}
        self.limits = {name: _limit(name, value) for name, value in {**default_limits(), **{
            k: v for k, v in given.items() if v is not None}}.items() if value != math.inf}
        self._default_procs = procs is None
        self.proc: subprocess.Popen | None = None
        self.faults: list[Fault] = []
        self.games = 0
        self.moves = 0
        self._buf = bytearray()
        self._control: int | None = None
        self._cgroup: str | None = None
        self._stderr: _Tail | None = None
        self._grace = 0.0
        self._broken = False
        _LIVE.add(self)

    # ---- process ----------------------------------------------------------------------------
    def _start(self) -> None:
        procs = self.limits.get("procs")
        self._cgroup = bot_supervisor.make_cgroup(procs) if sys.platform.startswith("linux") else None
        rlimits = {LIMITS[name][3]: value * (1 << 20 if name == "memory" else 1) for name, value in self.limits.items()
                   if not (name == "procs" and self._cgroup)}        # the cgroup counts the bot's own processes
        if "RLIMIT_NPROC" in rlimits and self._default_procs:
            rlimits["RLIMIT_NPROC"] += _user_tasks()    # without a cgroup the user's own count: the default adds to it
        control_r, self._control = os.pipe()
        settings = {"control": control_r, "cgroup": self._cgroup, "limits": rlimits}
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-I", "-S", str(SUPERVISOR), json.dumps(settings), "--", *self.argv],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0,
                pass_fds=(control_r,), start_new_session=True)
        except OSError as e:
            os.close(self._control)
            self._control = None
            if self._cgroup is not None:
                bot_supervisor.kill_cgroup(self._cgroup)
                self._cgroup = None
            raise OSError(f"cannot start bot {self.command!r}: {e.strerror or e}") from None
        finally:
            os.close(control_r)
        os.set_blocking(self.proc.stdin.fileno(), False)
        os.set_blocking(self.proc.stdout.fileno(), False)
        self._stderr = _Tail(self.proc.stderr)
        self._buf = bytearray()
        self._grace = self.start_grace

    def _kill(self) -> None:
        """End the bot and everything it started; keep its stderr tail for the fault message."""
        proc, self.proc = self.proc, None
        if proc is None:
            return
        if self._control is not None:
            os.close(self._control)              # the supervisor kills every process of the bot, then exits
            self._control = None
        for f in (proc.stdin, proc.stdout):
            try:
                f.close()
            except OSError:
                pass
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:        # the supervisor is stopped (a bot can signal it)
            proc.kill()
            proc.wait()
        if self._cgroup is not None:             # anything the supervisor could not reach
            bot_supervisor.kill_cgroup(self._cgroup)
            self._cgroup = None
        if self._stderr is not None:
            self._stderr.join(1.0)

    def close(self) -> None:
        """Say bye and end the bot and everything it started."""
        if self.alive:
            try:
                self._send({"type": "bye"}, time.monotonic() + 0.2)
                self.proc.stdin.close()
                self.proc.wait(timeout=0.2)
            except (OSError, TimeoutError, subprocess.TimeoutExpired):
                pass
        self._kill()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    @property
    def alive(self) -> bool:
        """The bot's main process is running (its supervisor exits with it)."""
        return self.proc is not None and self.proc.poll() is None

    def _forget(self) -> None:
        """In a forked copy of the harness: drop this copy's ends of the bot's pipes, kill nothing."""
        if self._control is not None:
            os.close(self._control)
        if self.proc is not None:
            for f in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
                try:
                    f.close()
                except OSError:
                    pass
        self.proc, self._control, self._cgroup = None, None, None

    # ---- wire -------------------------------------------------------------------------------
    def _send(self, msg: dict, deadline: float) -> None:
        """Write one message; raises TimeoutError if the bot does not take it by `deadline`."""
        data = memoryview((json.dumps(msg, separators=(",", ":")) + "\n").encode())
        fd = self.proc.stdin.fileno()
        while data:
            try:
                data = data[os.write(fd, data):]
            except BlockingIOError:
                left = deadline - time.monotonic()
                if left <= 0 or not select.select([], [fd], [], left)[1]:
                    raise TimeoutError("the bot does not read its input") from None

    def _pull(self, fd: int) -> bool:
        """Append what the bot's stdout holds now (one read) to the buffer; False if it holds nothing.

        Raises EOFError when the bot has closed its stdout."""
        try:
            chunk = os.read(fd, 65536)
        except BlockingIOError:
            return False
        if not chunk:
            raise EOFError(self._exit_cause())
        self._buf += chunk
        return True

    def _unasked(self) -> bytes:
        """What the bot wrote since its last reply without being asked (empty for a well-behaved bot)."""
        fd = self.proc.stdout.fileno()
        while len(self._buf) <= MAX_LINE and self._pull(fd):
            pass
        if len(self._buf) > MAX_LINE:
            raise _Overflow(f"the bot wrote more than {MAX_LINE >> 20} MiB without being asked")
        data, self._buf = bytes(self._buf), bytearray()
        return data

    def _readline(self, deadline: float) -> bytes:
        """One line from the bot; raises TimeoutError, EOFError or _Overflow."""
        fd = self.proc.stdout.fileno()
        seen = 0
        while (end := self._buf.find(b"\n", seen)) < 0:
            if len(self._buf) > MAX_LINE:
                raise _Overflow(f"reply line longer than {MAX_LINE >> 20} MiB")
            seen = len(self._buf)
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise TimeoutError("no reply")
            self._pull(fd)
        if end > MAX_LINE:
            raise _Overflow(f"reply line longer than {MAX_LINE >> 20} MiB")
        line = bytes(self._buf[:end])
        del self._buf[:end + 1]
        return line

    def _exit_cause(self, otherwise: str = "the bot closed its stdout") -> str:
        """How the bot ended (exit code, last stderr line), or `otherwise` if it is still running."""
        try:
            code = self.proc.wait(timeout=1)
        except subprocess.TimeoutExpired:
            return otherwise
        tail = ""
        if self._stderr is not None:
            self._stderr.join(1.0)
            lines = self._stderr.text().strip().splitlines()
            tail = f"; last stderr line: {lines[-1][-200:]!r}" if lines else ""
        return f"the bot {describe_exit(code)}{tail}"

    # ---- Agent ------------------------------------------------------------------------------
    def reset(self, rules, seat, num_players, seed=None):
        super().reset(rules, seat, num_players, seed)
        self.games += 1
        self.moves = 0
        self._broken = False
        if not self.alive:
            self._kill()
            self._start()
        hello = {"type": "hello", "protocol": PROTOCOL, "rules": rules.to_dict(), "seat": seat,
                 "num_players": num_players, "seed": seed, "dice": rules.dice,
                 "num_actions": num_actions(rules)}
        wait = self.timeout + self._grace
        try:
            self._send(hello, time.monotonic() + wait)
        except TimeoutError as e:
            self._fault("timeout", f"{e} within {wait:g} s")
        except OSError:
            self._fault("crash", "the bot closed its stdin before the game started")
        except BaseException:
            self._broken = True      # cut short by the caller (its own time limit, Ctrl-C): the bot is lost
            self._kill()
            raise

    def _fault(self, kind: str, cause: str, fatal: bool = False) -> None:
        self.faults.append(Fault(kind, cause, self.games, self.moves))
        if fatal or kind in ("timeout", "crash"):
            self._broken = True
            self._kill()

    def act(self, view: View) -> int:
        self.moves += 1
        if self._broken or not self.alive:
            if not self._broken:
                self._fault("crash", self._exit_cause() if self.proc is not None else "the bot is not running")
            return greedy_action(view)
        try:
            unasked = self._unasked()
            if unasked:
                shown = unasked[:60].decode(errors="replace")
                self._fault("garbage", f"the bot wrote without being asked: {shown!r}")
                return greedy_action(view)
            wait, self._grace = self.timeout + self._grace, 0.0
            deadline = time.monotonic() + wait
            self._send(decide_message(view), deadline)
            line = self._readline(deadline)
        except TimeoutError as e:
            if self.alive:
                self._fault("timeout", f"{e} within {wait:g} s")
            else:                                     # the bot exited; a process it started holds stdout
                self._fault("crash", self._exit_cause())
            return greedy_action(view)
        except EOFError as e:
            self._fault("crash", str(e))
            return greedy_action(view)
        except _Overflow as e:
            self._fault("garbage", str(e), fatal=True)
            return greedy_action(view)
        except OSError:                               # a broken pipe: the bot closed its stdin or exited
            self._fault("crash", self._exit_cause(otherwise="the bot closed its stdin"))
            return greedy_action(view)
        except BaseException:
            self._broken = True      # cut short by the caller (its own time limit, Ctrl-C): a reply is in flight
            self._kill()
            raise
        action, problem = parse_reply(line, view.legal_actions)
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
            "legal": legal, "legal_names": [game.action_name(a) for a in legal],
            **({"saved_rolls": [game.saved_rolls_of(s) for s in range(game.num_sheets)]}
               if view.rules.saved_rolls else {})}


def parse_reply(line: bytes, legal: np.ndarray) -> tuple[int | None, str]:
    """(action, '') for a good reply; (None, why) for garbage; (action, why) for an illegal action."""
    try:
        text = line.decode("utf-8").strip()
    except UnicodeDecodeError as e:
        return None, f"reply is not valid UTF-8 ({e.reason} at byte {e.start}): {line[:60]!r}"
    shown = text if len(text) <= 80 else text[:77] + "..."
    if too_deep(text):
        return None, f"reply nests deeper than {MAX_DEPTH} levels: {shown!r}"
    try:
        msg = json.loads(text)
    except json.JSONDecodeError:
        return None, f"reply is not JSON: {shown!r}"
    except (ValueError, RecursionError) as e:       # e.g. an integer of more digits than Python reads
        return None, f"reply cannot be read ({e}): {shown!r}"
    if not isinstance(msg, dict) or "action" not in msg:
        return None, f'reply is not an object with an "action": {shown!r}'
    a = msg["action"]
    if isinstance(a, bool) or not isinstance(a, int):
        return None, f'"action" must be an integer, got {shown!r}'
    if a not in set(int(x) for x in legal):
        number = str(a) if len(str(a)) <= 20 else str(a)[:17] + "..."
        return a, f"action {number} is not legal now (legal: {', '.join(str(int(x)) for x in legal)})"
    return a, ""


def too_deep(text: str) -> bool:
    """True if [ and { nest deeper than MAX_DEPTH in a JSON text (brackets inside strings do not count)."""
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return False
    depth, in_string, escaped = 0, False, False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return True
        elif ch in "]}":
            depth -= 1
    return False


def describe_exit(code: int) -> str:
    """'exited with code 3' or 'was killed by signal SIGKILL' for a process's return code."""
    if code >= 0:
        return f"exited with code {code}"
    try:
        name = signal.Signals(-code).name
    except ValueError:
        name = str(-code)
    note = " (CPU time limit)" if name == "SIGXCPU" else ""
    return f"was killed by signal {name}{note}"


class _Tail(threading.Thread):
    """Reads a pipe to its end, keeping only the last STDERR_TAIL bytes."""

    def __init__(self, pipe):
        super().__init__(daemon=True, name="bot-stderr")
        self.pipe, self.data, self.lock = pipe, bytearray(), threading.Lock()
        self.start()

    def run(self) -> None:
        fd = self.pipe.fileno()
        try:
            while chunk := os.read(fd, 65536):
                with self.lock:
                    self.data += chunk
                    if len(self.data) > 2 * STDERR_TAIL:
                        del self.data[:-STDERR_TAIL]
        except OSError:
            pass
        finally:
            self.pipe.close()

    def text(self) -> str:
        with self.lock:
            return bytes(self.data[-STDERR_TAIL:]).decode(errors="replace")


def _seconds(name: str, value, positive: bool) -> float:
    ok = finite(value) and (value > 0 if positive else value >= 0) and value <= MAX_SECONDS
    if not ok:
        low = "> 0" if positive else ">= 0"
        raise ValueError(f"{name} must be a number of seconds {low} and at most {MAX_SECONDS:g}, got {value!r}")
    return float(value)


def _limit(name: str, value) -> int:
    low, high, unit, _ = LIMITS[name]
    ok = finite(value) and value == int(value) and low <= value <= high
    if not ok:
        shown = f"{value:g}" if isinstance(value, float) else repr(value)
        raise ValueError(f"{name} must be a whole number of {unit} from {low} to {high}, got {shown}")
    return int(value)


def _forget_all_in_child() -> None:
    for agent in list(_LIVE):
        agent._forget()
    _LIVE.clear()


os.register_at_fork(after_in_child=_forget_all_in_child)


@atexit.register
def _close_all() -> None:
    for agent in list(_LIVE):
        agent.close()
