"""In-process agents that misbehave on their second decision, behind a `make_agent(spec)` factory
(the tournament_agents ones and `external...` specs are known too). Each plays FirstBox until then."""
import ctypes
import os
import signal
import time

from numba import njit

from tournament_agents import AGENTS as PLAIN
from tournament_agents import FirstBox


def spin(n):
    """A loop that, compiled without the GIL, runs as long as n says and never looks at signals."""
    x = 0
    for i in range(n):
        x = (x * 31 + i) % 1000003
    return x


class Misbehaves(FirstBox):
    """FirstBox, but on its second decision it runs `misbehave` instead."""

    def reset(self, rules, seat, num_players, seed=None):
        super().reset(rules, seat, num_players, seed)
        self.n = 0

    def act(self, view):
        self.n += 1
        if self.n == 2:
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


AGENTS = {**PLAIN, "swallow": Swallow, "late": Late, "blocked_sleep": BlockedSleep, "numba_spin": NumbaSpin,
          "ignore_alarm": IgnoreAlarm, "endless_message": EndlessMessage, "exit": Exit, "interrupt": Interrupt,
          "exit_on_reset": ExitOnReset, "hang_on_reset": HangOnReset, "die": Die, "segfault": Segfault,
          "float_action": FloatAction, "str_action": StrAction, "bool_action": BoolAction,
          "object_action": ObjectAction, "self_interrupt": SelfInterrupt}


def make_agent(spec: str):
    if spec.startswith("external"):
        from agents.registry import make_agent as make_registered
        return make_registered(spec)
    if spec not in AGENTS:
        raise ValueError(f"unknown agent {spec!r}; known: {', '.join(AGENTS)}")
    return AGENTS[spec]()
