"""Hostile in-process agents in tournaments: whatever an agent does in `reset` or `act` -- swallow
the move timeout, sit in a C call, raise SystemExit or KeyboardInterrupt, end its process, return a
strange action -- it forfeits that game, every other game is intact, the records are the ones an
interruptible agent would have given, and the run ends. A Ctrl-C from the user still stops the run."""
import ctypes
import json
import os
import signal
import subprocess

import pytest
from tests.fake_agents import FACTORY, FAST, tournament_process
from tests.waiting import group_gone, until

from tournaments.config import parse_config
from tournaments.executors import GameWorker, Setup, _worker_state
from tournaments.play import CallClock, play_job
from yacht_env.core.players import ACT
from tournaments.run import run_tournament
from tournaments.schedule import schedule
from tournaments.store import Store

TIMEOUT = "MoveTimeout: no move within the 0.3 s limit"


def run(entrants, out, factory=FACTORY, **kw):
    """The results and the stored games, without the config hash each record carries (the tests compare
    the games of different tournaments)."""
    cfg = parse_config({"entrants": entrants, "games": 1, "seed": 5, "move_timeout": kw.pop("move_timeout", 0.3)})
    res = run_tournament(cfg, out=out, progress=False, factory=factory, **kw)
    return res, {k: {f: v for f, v in r.items() if f != "config_hash"} for k, r in Store(out).records().items()}


def renamed(records: dict, old: str, new: str) -> dict:
    out = {}
    for key, rec in records.items():
        out[key] = {**rec, "agents": [new if a == old else a for a in rec["agents"]]}
    return out


def faults_of(records: dict, name: str) -> list:
    return [rec["faults"][rec["agents"].index(name)] for rec in records.values() if name in rec["agents"]]


def check_complete(res, records, games):
    assert res["tournament"]["complete"] and len(records) == games
    for rec in records.values():
        assert sum(1 for e in rec["log"] if "box" in e) == 13 * len(rec["agents"])     # played to the end


@pytest.fixture(scope="module")
def interruptible(tmp_path_factory):
    """The games of `hang`, which sleeps through its second move and is interrupted by the alarm."""
    return run(["first", "hang"], tmp_path_factory.mktemp("hang"))[1]


@pytest.mark.parametrize("agent", ["swallow", "blocked_sleep", "numba_spin", "ignore_alarm", "endless_message",
                                   "late"])
@pytest.mark.slow
def test_an_agent_that_cannot_be_interrupted_still_loses_on_time(tmp_path, interruptible, agent):
    res, records = run(["first", agent], tmp_path)
    check_complete(res, records, 2)
    assert [f["error"] for f in faults_of(records, agent)] == [TIMEOUT, TIMEOUT]
    assert faults_of(records, "first") == [None, None]
    # killed and played again, or caught as it returned late: the record is the interrupted agent's
    assert renamed(records, agent, "hang") == interruptible


def test_a_reset_that_never_returns_is_a_forfeit_at_move_zero(tmp_path):
    res, records = run(["first", "hang_on_reset"], tmp_path)
    check_complete(res, records, 2)
    by_seat = {rec["agents"].index("hang_on_reset"): rec["faults"][rec["agents"].index("hang_on_reset")]
               for rec in records.values()}
    assert by_seat == {0: None, 1: {"error": "reset: " + TIMEOUT, "move": 0}}


@pytest.mark.slow
def test_every_other_game_is_intact(tmp_path):
    res, records = run(["first", "best", "swallow"], tmp_path / "hostile")
    check_complete(res, records, 6)
    _, calm = run(["first", "best"], tmp_path / "calm")
    assert {k: r for k, r in records.items() if k.startswith("t0-")} == calm
    assert res["agents"]["swallow"]["forfeits"] == 4 and res["agents"]["best"]["forfeits"] == 0


def test_base_exceptions_are_forfeits_not_the_end_of_the_run(tmp_path):
    res, records = run(["first", "exit", "interrupt", "exit_on_reset"], tmp_path, move_timeout=None)
    check_complete(res, records, 12)
    assert {f["error"] for f in faults_of(records, "exit")} == {"SystemExit: 3"}
    assert {f["error"] for f in faults_of(records, "interrupt")} == {"KeyboardInterrupt"}
    on_reset = [rec["faults"][rec["agents"].index("exit_on_reset")] for rec in records.values()
                if "exit_on_reset" in rec["agents"]]
    assert sorted(on_reset, key=str) == [None] * 3 + [{"error": "reset: SystemExit: 4", "move": 0}] * 3
    assert faults_of(records, "first") == [None] * 6


def test_an_agent_that_ends_its_process_forfeits(tmp_path):
    res, records = run(["first", "die", "segfault"], tmp_path)
    check_complete(res, records, 6)
    assert {f["error"] for f in faults_of(records, "die")} == {
        "crash: the process playing the game exited with code 7 during this call"}
    assert {f["error"] for f in faults_of(records, "segfault")} == {
        "crash: the process playing the game was killed by signal SIGSEGV during this call"}
    assert faults_of(records, "first") == [None] * 4


@pytest.mark.slow
def test_same_records_with_hostile_agents_for_one_and_two_workers(tmp_path):
    one = run(["first", "swallow", "die"], tmp_path / "one", workers=1)[1]
    two = run(["first", "swallow", "die"], tmp_path / "two", workers=2)[1]
    assert one == two and len(one) == 6


@pytest.mark.parametrize("agent", ["float_action", "str_action", "bool_action"])
def test_a_non_integer_action_is_an_illegal_move(tmp_path, agent):
    res, records = run(["first", agent], tmp_path)
    check_complete(res, records, 2)
    assert all(f is not None and f["error"].startswith("IllegalMove") for f in faults_of(records, agent))


def test_an_action_object_that_runs_code_is_refused(tmp_path):
    res, records = run(["first", "object_action"], tmp_path)
    check_complete(res, records, 2)
    assert {f["error"] for f in faults_of(records, "object_action")} == {
        "TypeError: act returned a Sneaky object, not an integer action"}


# ---- the watcher's look at a call that begins while it looks (the 30 s forfeit seen once under load) --
class LooksLate:
    """A game worker's clock as its watcher reads it, with the watcher paused at its first read of the start
    (a busy machine can pause a process at any point): that read finds no call running (0.0), and before
    the watcher reads again the worker begins a call. `pause()` makes it so and returns what the read got."""

    def __init__(self, memory, pause):
        self.memory, self.pause, self.paused = memory, pause, False

    def __getitem__(self, i):
        if i == 0 and not self.paused:
            self.paused = True
            return self.pause()
        return self.memory[i]


def test_a_call_that_begins_while_the_watcher_looks_is_not_an_overrun():
    memory = (ctypes.c_double * CallClock.SIZE)()
    worker = CallClock(memory)
    call = worker.running(30.0, (ACT, 2, 7))

    def begin_a_call():
        call.__enter__()
        return 0.0

    watcher = CallClock(LooksLate(memory, begin_a_call))
    assert watcher.overrun() is None and watcher.shared.paused        # the call has only just begun
    assert watcher.current() == ((ACT, 2, 7, 0), 30.0) and watcher.overrun() is None


def test_no_seat_forfeits_when_the_watcher_is_paused_as_a_call_begins(tmp_path, monkeypatch):
    """The watcher of the game worker is paused once, as a busy machine can pause it: it reads the start
    of the clock between two calls, and reads on only once the worker has begun the next call. A harness
    that took that call for one running since the clock's zero forfeited the seat on time (MoveTimeout at
    the 30 s limit) in a game no agent had slowed: the one failure of a suite run under load."""
    paused = []
    start = GameWorker._start

    def between_calls(memory):
        def pause():
            if paused:
                return memory[0]
            paused.append(until(lambda: memory[0] == 0.0, step=0) and until(lambda: memory[0] != 0.0, step=0.001))
            return 0.0
        return pause

    def start_watched_late(self):
        start(self)
        self.clock = CallClock(LooksLate(self.clock.shared, between_calls(self.clock.shared)))

    monkeypatch.setattr(GameWorker, "_start", start_watched_late)
    res, records = run(["slow", "crash"], tmp_path, move_timeout=30)      # `slow`: 4 ms timed calls, 39 a game
    assert paused == [True], "the watcher was paused between two calls of the worker"
    check_complete(res, records, 2)
    assert faults_of(records, "slow") == [None, None]
    assert {f["error"] for f in faults_of(records, "crash")} == {"RuntimeError: boom"}


# ---- in this process: an agent's KeyboardInterrupt is a fault, a Ctrl-C is not ----------------------
def one_game(agent):
    cfg = parse_config({"entrants": ["first", agent], "games": 1, "move_timeout": None})
    rules, agents = _worker_state(Setup(cfg, FACTORY))
    return play_job(schedule(cfg)[0], rules, agents, None)


@pytest.fixture
def foreground():
    """Ctrl-C handled as in a terminal's foreground process (a suite started as a background job inherits
    SIGINT ignored, and with it nothing to tell apart)."""
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, old)


def test_in_process_an_agents_keyboard_interrupt_is_its_fault(foreground):
    rec = one_game("interrupt")
    assert rec["faults"][1]["error"] == "KeyboardInterrupt" and rec["faults"][0] is None
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_in_process_a_ctrl_c_stops_the_game(foreground):
    with pytest.raises(KeyboardInterrupt):
        one_game("self_interrupt")
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    assert one_game("interrupt")["faults"][1]["error"] == "KeyboardInterrupt"   # told apart again afterwards


# ---- a Ctrl-C from the user stops the whole run cleanly; resume completes it -----------------------
@pytest.mark.slow
def test_ctrl_c_stops_the_run_cleanly_and_resume_completes_it(tmp_path):
    out = tmp_path / "interrupted"
    # no move limit here or in the resumed run: the records compared must not depend on the machine's load
    config = {"entrants": ["slow", "best", "first"], "games": 4, "seed": 9, "move_timeout": None}
    proc = tournament_process(config, out, workers=2, games=4, stderr=subprocess.PIPE, text=True)
    games = out / "games.jsonl"
    os.killpg(proc.pid, signal.SIGINT)                 # what a terminal sends on Ctrl-C: the whole group
    _, err = proc.communicate(timeout=60)
    if not group_gone(proc.pid):
        os.killpg(proc.pid, signal.SIGKILL)
        pytest.fail("processes of the interrupted run were left behind")
    assert proc.returncode == 130 and "interrupted" in err and "Traceback" not in err, err
    n_before = games.read_bytes().count(b"\n")
    assert 4 <= n_before < 24, "the run should be stopped in the middle"
    cfg = parse_config(config)
    run_tournament(cfg, out=out, progress=False, factory=FAST)
    keys = [json.loads(x)["key"] for x in games.read_bytes().split(b"\n") if x]
    assert len(keys) == len(set(keys)) == 24
    fresh = tmp_path / "fresh"
    run_tournament(cfg, out=fresh, progress=False, factory=FAST)
    assert Store(out).records() == Store(fresh).records()
