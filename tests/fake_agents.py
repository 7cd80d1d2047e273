"""The test agents, one family behind one `make_agent(spec)` factory like the registry's: calm agents that
answer at once (first, best, upper, random), agents that misbehave on a given decision (crash, hang, illegal
actions, swallowed timeouts, blocked C calls, process exits, ...), and `external...` specs passed to the
registry; besides them batched players that misbehave (BatchedIllegal answers illegal moves, Flaky raises then
answers illegal moves at one table, Junk answers what its plan says), and OneGameAtATime, which hides that an
agent is batched. A tournament names the factory by the FACTORY string (FAST: `slow` without its pauses;
PER_GAME: the registry's agents one game at a time); a subprocess finds this module through
`subprocess_env()`, and `tournament_process` plays a tournament of these agents in a child process (to be
killed or interrupted in the middle)."""
import ctypes
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from numba import njit

from agents.base import Agent
from tests.waiting import lines_written
from yacht_env.core.actions import NUM_HOLDS, score_action

FACTORY = "tests.fake_agents:make_agent"
FAST = "tests.fake_agents:make_fast_agent"
PER_GAME = "tests.fake_agents:make_per_game_agent"
ROOT = Path(__file__).resolve().parent.parent


def subprocess_env() -> dict:
    """The environment of a child Python that imports this module by the FACTORY strings (the project root
    on its PYTHONPATH)."""
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}


CHILD_RUN = f"""
import json
import signal
import sys
signal.signal(signal.SIGINT, signal.default_int_handler)   # as in a terminal, also in a background suite
from tournaments.config import parse_config
from tournaments.run import run_tournament
cfg = parse_config(json.loads(sys.argv[2]))
try:
    run_tournament(cfg, out=sys.argv[1], progress=False, factory="{FACTORY}", workers=int(sys.argv[3]))
except KeyboardInterrupt:
    print("interrupted", file=sys.stderr)
    sys.exit(130)
"""


def tournament_process(config: dict, out, workers: int = 1, games: int = 0, **popen) -> subprocess.Popen:
    """A child Python playing the tournament `config` (a config mapping) into the folder `out` with the
    test agents (FACTORY) on `workers` workers, in a session of its own (its process group is its pid, for
    `os.killpg`); returned once its games.jsonl holds `games` records, or once it has ended. A SIGINT to it
    stops the run as Ctrl-C stops `yacht tournament` in a terminal: "interrupted" on stderr, exit code 130.
    `popen`: further Popen arguments (stderr=subprocess.PIPE, text=True)."""
    proc = subprocess.Popen([sys.executable, "-c", CHILD_RUN, str(out), json.dumps(config), str(workers)],
                            env=subprocess_env(), start_new_session=True, **popen)
    lines_written(Path(out) / "games.jsonl", games, proc)
    return proc


class Calm(Agent):
    """A test agent that answers at once, as the built-in agents do: trusted like them, so its calls are
    not timed (tournaments.play) and no verdict about it depends on the machine's speed. Only a class
    that sets `calm = True` itself is trusted: the misbehaving agents built on these classes are timed."""

    @property
    def trusted(self) -> bool:
        return type(self).__dict__.get("calm", False)


class FirstBox(Calm):
    """Scores the first legal box on the first roll."""
    name = "first"
    calm = True

    def act(self, view):
        legal = view.legal_actions
        return int(legal[legal >= NUM_HOLDS][0])


class BestBox(Calm):
    """Re-rolls everything but the most common face while it can, then takes the best-scoring box."""
    name = "best"
    calm = True

    def act(self, view):
        if view.rolls_left > 0:
            counts = np.bincount(view.dice, minlength=7)
            face = int(np.argmax(counts[1:]) + 1)
            hold = sum(1 << i for i, d in enumerate(view.dice) if d == face)
            if hold != 31:
                return hold
        pts = view.game.preview()
        (col, box), _ = max(pts.items(), key=lambda kv: kv[1])
        return score_action(view.rules, col, view.rules.boxes.index(box))


class UpperFirst(BestBox):
    """BestBox's holds, then the upper box of the most common face while it is open."""
    name = "upper"
    calm = True

    def act(self, view):
        action = super().act(view)
        if action < NUM_HOLDS:
            return action
        counts = np.bincount(view.dice, minlength=7)
        box = ("ones", "twos", "threes", "fours", "fives", "sixes")[int(np.argmax(counts[1:]))]
        if (0, box) in view.game.preview():
            return score_action(view.rules, 0, view.rules.boxes.index(box))
        return action


class Random(Calm):
    """Uniform over legal actions, from the seed given at reset."""
    name = "random"
    calm = True

    def act(self, view):
        return int(self.rng.choice(view.legal_actions))


class Slow(BestBox):
    """BestBox with a pause per move (to kill a run in the middle)."""
    def act(self, view):
        time.sleep(0.004)
        return super().act(view)


def spin(n):
    """A loop that, compiled without the GIL, runs as long as n says and never looks at signals."""
    x = 0
    for i in range(n):
        x = (x * 31 + i) % 1000003
    return x


class Misbehaves(FirstBox):
    """FirstBox, but on its decision number `at` (its second, unless a subclass says) it runs `misbehave`
    instead."""
    at = 2

    def reset(self, rules, seat, num_players, seed=None):
        super().reset(rules, seat, num_players, seed)
        self.n = 0

    def act(self, view):
        self.n += 1
        if self.n == self.at:
            return self.misbehave(view)
        return super().act(view)

    def misbehave(self, view):
        raise NotImplementedError


class Swallow(Misbehaves):
    """Catches everything, the move timeout included, and sleeps on."""
    def misbehave(self, view):
        while True:
            try:
                time.sleep(1000)
            except BaseException:  # noqa: BLE001, S110 - the point of this agent
                pass


class Late(Misbehaves):
    """Swallows the alarm, then answers well after the limit (but before the watcher's kill)."""
    def misbehave(self, view):
        end = time.monotonic() + 0.55
        while time.monotonic() < end:
            try:
                time.sleep(max(0.0, end - time.monotonic()))
            except BaseException:  # noqa: BLE001, S110
                pass
        return FirstBox.act(self, view)


class BlockedSleep(Misbehaves):
    """A long C call that no signal interrupts (SIGALRM blocked, then sleep)."""
    def misbehave(self, view):
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
        time.sleep(1000)


class NumbaSpin(Misbehaves):
    """A compiled loop without the GIL that never looks at signals (compiled when the agent is made,
    which is outside any timed call)."""
    def __init__(self):
        self.spin = njit("int64(int64)", nogil=True, cache=False)(spin)

    def misbehave(self, view):
        return self.spin(10 ** 15)


class IgnoreAlarm(Misbehaves):
    """Turns the alarm off for itself, then sleeps."""
    def misbehave(self, view):
        signal.signal(signal.SIGALRM, signal.SIG_IGN)
        time.sleep(1000)


class EndlessMessage(Misbehaves):
    """Raises an exception whose message never ends."""
    def misbehave(self, view):
        class Endless(Exception):
            def __str__(self):
                while True:
                    pass
        raise Endless()


class Exit(Misbehaves):
    def misbehave(self, view):
        raise SystemExit(3)


class Interrupt(Misbehaves):
    def misbehave(self, view):
        raise KeyboardInterrupt


class ExitOnReset(FirstBox):
    """Fails in reset when it sits in the second seat (the tournament's own check resets seat 0)."""
    def reset(self, rules, seat, num_players, seed=None):
        super().reset(rules, seat, num_players, seed)
        if seat == 1:
            raise SystemExit(4)


class HangOnReset(FirstBox):
    """Swallows everything in reset when it sits in the second seat."""
    def reset(self, rules, seat, num_players, seed=None):
        super().reset(rules, seat, num_players, seed)
        while seat == 1:
            try:
                time.sleep(1000)
            except BaseException:  # noqa: BLE001, S110
                pass


class Die(Misbehaves):
    """Ends the process playing the game."""
    def misbehave(self, view):
        os._exit(7)


class Segfault(Misbehaves):
    def misbehave(self, view):
        ctypes.string_at(0)


class FloatAction(Misbehaves):
    def misbehave(self, view):
        return FirstBox.act(self, view) + 0.9


class StrAction(Misbehaves):
    def misbehave(self, view):
        return str(FirstBox.act(self, view))


class BoolAction(Misbehaves):
    def misbehave(self, view):
        return True


class Sneaky:
    """An 'action' whose conversion to an integer never ends."""
    def __index__(self):
        while True:
            pass

    __int__ = __index__


class ObjectAction(Misbehaves):
    def misbehave(self, view):
        return Sneaky()


class SelfInterrupt(Misbehaves):
    """Sends SIGINT to its own process, as a Ctrl-C would."""
    def misbehave(self, view):
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(5)
        return FirstBox.act(self, view)


class Crash(Misbehaves):
    """Raises on its fourth decision."""
    at = 4

    def misbehave(self, view):
        raise RuntimeError("boom")


class Illegal(Agent):
    """Always asks for action 0 (a re-roll), which is illegal once no rolls are left."""
    def act(self, view):
        return 0


class Hang(Misbehaves):
    """Sleeps far past any move limit on its second decision."""
    def misbehave(self, view):
        time.sleep(60)
        return FirstBox.act(self, view)


class BatchedIllegal:
    """A batched player (the lockstep runner's `act_batch`) that answers the last box, also when it is filled."""
    batched = True

    def act_batch(self, view):
        return np.full(len(view), NUM_HOLDS + len(view.rules.boxes) - 1)


class Flaky:
    """A batched agent that raises at its third call, and from its sixth answers 99 (illegal) at table 1."""
    batched = True

    def __init__(self):
        self.calls = 0

    def act_batch(self, view):
        self.calls += 1
        if self.calls == 3:
            raise RuntimeError("boom")
        return np.array([99 if i == 1 and self.calls >= 6 else np.flatnonzero(view.mask[j])[0]
                         for j, i in enumerate(view.rows.tolist())], np.int64)


JUNK = ["legal", "illegal", "floats", "short", "raise", "bools", "none", "huge"]


class Junk:
    """A batched opponent answering each call as the next item of `plan` (kinds of JUNK, cycling) says: the
    first legal actions, or an illegal action, floats, one answer short, a MemoryError, bools, None, 2**62."""
    batched = True

    def __init__(self, plan):
        self.plan, self.calls = plan, 0

    def act_batch(self, view):
        kind = self.plan[self.calls % len(self.plan)]
        self.calls += 1
        if kind == "raise":
            raise MemoryError("junk")
        legal = np.array([np.flatnonzero(m)[0] for m in view.mask], np.int64)
        return {"legal": legal, "illegal": legal * 0 + 10**6, "floats": legal.astype(float), "short": legal[:-1],
                "bools": legal > 0, "none": None, "huge": np.full(len(view.rows), 2**62)}[kind]


AGENTS = {"first": FirstBox, "best": BestBox, "upper": UpperFirst, "random": Random, "crash": Crash, "illegal": Illegal,
          "hang": Hang, "slow": Slow, "swallow": Swallow, "late": Late, "blocked_sleep": BlockedSleep,
          "numba_spin": NumbaSpin, "ignore_alarm": IgnoreAlarm, "endless_message": EndlessMessage, "exit": Exit,
          "interrupt": Interrupt, "exit_on_reset": ExitOnReset, "hang_on_reset": HangOnReset, "die": Die,
          "segfault": Segfault, "float_action": FloatAction, "str_action": StrAction, "bool_action": BoolAction,
          "object_action": ObjectAction, "self_interrupt": SelfInterrupt}


def make_agent(spec: str, agents=AGENTS):
    """The test agent `spec` names (a key of `agents`), or the registry's for an `external...` spec."""
    if spec.startswith("external"):
        from agents.registry import make_agent as make_registered
        return make_registered(spec)
    if spec not in agents:
        raise ValueError(f"unknown agent {spec!r}; known: {', '.join(agents)}")
    return agents[spec]()

class OneGameAtATime(Agent):
    """Hides that an agent is batched, so runners take the per-game path (in game workers)."""

    def __init__(self, inner):
        self.inner = inner

    def reset(self, rules, seat, num_players, seed=None):
        self.inner.reset(rules, seat, num_players, seed)

    def act(self, view):
        return self.inner.act(view)


def make_per_game_agent(spec: str):
    """The registry's agent, played one game at a time."""
    from agents.registry import make_agent as registry_agent
    return OneGameAtATime(registry_agent(spec))


def make_fast_agent(spec: str):
    """As make_agent, but `slow` plays without pausing (the same moves)."""
    return make_agent(spec, {**AGENTS, "slow": BestBox})
