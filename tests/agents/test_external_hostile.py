"""Hostile external bots: each misbehaviour ends in a recorded fault, the harness stays bounded in
time and memory, and no process of the bot is left running afterwards (checked in /proc)."""
import contextlib
import json
import os
import re
import select
import signal
import subprocess
import sys
import textwrap
import time
import tracemalloc

import pytest
from tests.waiting import PATIENCE, until
from tests.fake_agents import FACTORY

from agents import bot_supervisor
from agents.base import play_game
from agents.external import MAX_LINE, ExternalAgent, parse_reply
from agents.registry import AgentSpecError, make_agent
from tournaments.config import parse_config
from tournaments.run import run_tournament
from tournaments.store import Store
from yacht_env.core.game import Game
from yacht_env.rules import load

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# Every bot below starts with this: `decisions()` yields each decide message, `answer(a)` replies.
PRELUDE = """
import json, os, sys, time
def decisions():
    for line in sys.stdin:
        msg = json.loads(line)
        if msg["type"] == "decide":
            yield msg
def first_box(msg):
    return [a for a in msg["legal"] if a >= 31][0]
def answer(a):
    sys.stdout.write(json.dumps({"action": a}) + "\\n")
    sys.stdout.flush()
"""


def bot(tmp_path, body: str, name: str = "bot.py") -> str:
    path = tmp_path / name
    path.write_text(PRELUDE + textwrap.dedent(body))
    return f"{sys.executable} {path}"


def misbehave_at(tmp_path, n: int, bad: str) -> str:
    """A bot that plays the first legal box, except that it runs `bad` at decision n."""
    return bot(tmp_path, f"""
        for n, msg in enumerate(decisions(), 1):
            if n == {n}:
                {bad}
            answer(first_box(msg))
    """)


def play(agent, seed=3):
    return play_game(Game("yacht", 1, seed=seed), [agent])


def run_processes(token: str) -> list[int]:
    """Processes (zombies excepted) whose command line names `token`: every bot of a test lives in its
    tmp_path, and its supervisor and every process it forks without exec carry that path too."""
    # walks /proc as scripts/bench/memory.py's tree_rss does, a deliberate twin: this one matches command
    # lines, that one follows parent ids to sum memory, and the tests do not import the scripts
    needle = token.encode()
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            with open(f"/proc/{name}/cmdline", "rb") as f:
                cmdline = f.read()
        except OSError:
            continue
        if needle in cmdline:
            found.append(int(name))
    return found


@pytest.fixture(autouse=True)
def nothing_left(tmp_path):
    """After each test, no process of its bots may be left (the bots live in tmp_path)."""
    token = str(tmp_path)
    yield token
    until(lambda: not run_processes(token), seconds=60)
    left = run_processes(token)
    for pid in left:                          # do not leave them to the rest of the suite either
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    assert not left, f"processes of the bot were left running: {left}"


@pytest.fixture(params=["cgroup", "subreaper"])
def containment(request, monkeypatch):
    """Run the test with the bot in a cgroup (where one is writable) and with the subreaper alone."""
    if request.param == "cgroup":
        probe = bot_supervisor.make_cgroup(None)
        if probe is None:
            pytest.skip("no writable cgroup here")
        bot_supervisor.kill_cgroup(probe)
    else:
        monkeypatch.setattr(bot_supervisor, "make_cgroup", lambda procs: None)
    return request.param


def kinds(agent):
    return [f.kind for f in agent.faults]


@contextlib.contextmanager
def traced_block():
    """Yields a dict that gets "bytes": the peak of Python memory allocated during the block (a warm-up
    game first loads the compiled rules, so only what the harness holds for the bot is counted)."""
    from agents.simple import GreedyAgent
    play(GreedyAgent())
    peak = {}
    tracemalloc.start()
    try:
        yield peak
        peak["bytes"] = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


# ---- the reply stream: length, time, flooding, unasked output ---------------------------------------
def test_an_endless_line_is_garbage_read_in_bounded_memory(tmp_path):
    endless = 'chunk = "x" * 65536\n                while True: sys.stdout.write(chunk)'
    with ExternalAgent(misbehave_at(tmp_path, 2, endless), timeout=5) as a:
        with traced_block() as peak:
            start = time.monotonic()
            g = play(a)
            seconds = time.monotonic() - start
        assert g.is_over and kinds(a) == ["garbage"]
        assert a.faults[0].cause == "reply line longer than 1 MiB" and a.faults[0].move == 2
        assert not a.alive                     # the stream cannot be trusted again this game
    assert seconds < 60 and peak["bytes"] < 3 * MAX_LINE     # the harness did not wait for the line to end


def test_a_line_that_trickles_without_newline_is_a_timeout(tmp_path):
    trickle = 'while True:\n                    sys.stdout.write("x"); sys.stdout.flush(); time.sleep(0.01)'
    with ExternalAgent(misbehave_at(tmp_path, 1, trickle), timeout=0.4, start_grace=0) as a:
        start = time.monotonic()
        assert play(a).is_over
        assert kinds(a) == ["timeout"] and a.faults[0].cause == "no reply within 0.4 s"
        assert time.monotonic() - start < 60         # the trickle does not extend the deadline


def test_a_bot_flooding_lines_is_stopped_after_one_mib_unasked(tmp_path):
    flood = bot(tmp_path, """
        for msg in decisions():
            line = json.dumps({"action": first_box(msg)}) + "\\n"
            while True:
                sys.stdout.write(line * 1000)
    """)
    with ExternalAgent(flood, timeout=5) as a:
        with traced_block() as peak:
            start = time.monotonic()
            assert play(a).is_over
            seconds = time.monotonic() - start
        # Each move first reads what the bot wrote unasked, at most 1 MiB: a garbage fault for that move,
        # or the end of the bot once 1 MiB piles up. A stale line that arrives just after the decide is
        # taken for the reply (and is illegal by then, or legal by chance): the bot gains nothing by it.
        assert set(kinds(a)) <= {"garbage", "illegal"} and "garbage" in kinds(a)
    assert seconds < 60 and peak["bytes"] < 3 * MAX_LINE


def test_a_reply_before_being_asked_is_garbage_for_that_move_only(tmp_path):
    eager = bot(tmp_path, """
        sys.stdin.readline()                    # hello
        answer(31)                              # nobody asked yet
        for msg in decisions():
            answer(first_box(msg))
    """)
    with ExternalAgent(eager) as a:
        a.reset(load("yacht"), 0, 1, seed=3)
        assert select.select([a.proc.stdout], [], [], PATIENCE)[0]     # the unasked line is there before the decide
        assert play(a).is_over
        assert kinds(a) == ["garbage"] and a.faults[0].move == 1 and a.alive
        assert a.faults[0].cause == "the bot wrote without being asked: '{\"action\": 31}\\n'"


# ---- the reply's content ----------------------------------------------------------------------------
@pytest.mark.parametrize("reply, kind, cause", [
    (b"[" * 100000, "garbage", "reply nests deeper than 32 levels"),
    (b'{"action": 31, "x": ' + b"[" * 40 + b"]" * 40 + b"}", "garbage", "reply nests deeper than 32 levels"),
    (b"\xff\xfe\x00garbage\x80", "garbage", "reply is not valid UTF-8 (invalid start byte at byte 0)"),
    (b'{"action": 31, "note": "\xc3("}', "garbage", "reply is not valid UTF-8"),
    (b'{"action": NaN}', "garbage", '"action" must be an integer'),
    (b'{"action": Infinity}', "garbage", '"action" must be an integer'),
    (b'{"action": 1e400}', "garbage", '"action" must be an integer'),
    (b'{"action": 31.0}', "garbage", '"action" must be an integer'),
    (b'{"action": "31"}', "garbage", '"action" must be an integer'),
    (b'{"action": 1' + b"0" * 5000 + b"}", "garbage", "reply cannot be read (Exceeds the limit"),
    (b'{"action": 123456789012345678901234567890}', "illegal", "action 12345678901234567... is not legal now"),
    (b'{"action": -1}', "illegal", "action -1 is not legal now"),
    (b"", "garbage", "reply is not JSON: ''"),
    (b"null", "garbage", 'reply is not an object with an "action"'),
])
def test_hostile_replies(reply, kind, cause):
    action, why = parse_reply(reply, [31, 32])
    assert ("illegal" if action is not None else "garbage") == kind
    assert cause in why and len(why) < 400


@pytest.mark.parametrize("reply", [
    b'{"action": 31, "note": "' + b"[" * 1000 + b'"}',           # brackets inside a string do not nest
    b'{"action": 31, "x": ' + b"[" * 30 + b"]" * 30 + b"}",
    b'{"action": 31, "x": "\\"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["}',
])
def test_replies_that_look_deep_but_are_fine(reply):
    assert parse_reply(reply, [31, 32]) == (31, "")


def test_a_deeply_nested_reply_over_the_wire_is_garbage(tmp_path):
    deep = 'print("[" * 100000, flush=True); continue'
    with ExternalAgent(misbehave_at(tmp_path, 1, deep)) as a:
        assert play(a).is_over
        assert kinds(a) == ["garbage"] and "nests deeper than 32 levels" in a.faults[0].cause and a.alive


def test_binary_garbage_over_the_wire(tmp_path):
    noise = 'sys.stdout.buffer.write(bytes(range(256)).replace(b"\\n", b"") + b"\\n"); sys.stdout.flush(); continue'
    with ExternalAgent(misbehave_at(tmp_path, 1, noise)) as a:
        assert play(a).is_over
        assert kinds(a) == ["garbage"] and a.faults[0].cause.startswith("reply is not valid UTF-8")


# ---- stderr -----------------------------------------------------------------------------------------
def test_400_mb_of_stderr_costs_the_harness_a_bounded_tail(tmp_path):
    noisy = bot(tmp_path, """
        block = b"e" * (1 << 20)
        for _ in range(400):
            sys.stderr.buffer.write(block)
        sys.stderr.buffer.write(b"\\nthe last words\\n")
        sys.stderr.flush()
        sys.exit(4)
    """)
    with ExternalAgent(noisy, timeout=20) as a:
        with traced_block() as peak:
            assert play(a).is_over
        assert kinds(a) == ["crash"]
        assert a.faults[0].cause == "the bot exited with code 4; last stderr line: 'the last words'"
    assert peak["bytes"] < 1 << 20


# ---- processes: escapes, leftovers, exits -----------------------------------------------------------
ESCAPE = """
        pid = os.fork()
        if pid == 0:                            # child: leave the session, fork again, and go
            os.setsid()
            if os.fork() == 0:                  # grandchild: an orphan in a session of its own
                for fd in (0, 1, 2):
                    os.close(fd)
                open(PIDFILE + ".tmp", "w").write(str(os.getpid()))
                os.rename(PIDFILE + ".tmp", PIDFILE)     # whole, or not there yet
                while True:
                    time.sleep(1)
            os._exit(0)
        os.waitpid(pid, 0)
        while not os.path.exists(PIDFILE):
            time.sleep(0.005)
"""


def escaping_bot(tmp_path) -> tuple[str, object]:
    pidfile = tmp_path / "grandchild.pid"
    return misbehave_at(tmp_path, 1, textwrap.indent(textwrap.dedent(ESCAPE), " " * 16).strip().replace(
        "PIDFILE", repr(str(pidfile)))), pidfile


def test_a_grandchild_that_escapes_its_session_is_killed_on_close(tmp_path, nothing_left, containment):
    command, pidfile = escaping_bot(tmp_path)
    with ExternalAgent(command) as a:                                # nothing_left checks /proc afterwards
        assert play(a).is_over and a.faults == []
        grandchild = int(pidfile.read_text())
        assert grandchild in run_processes(nothing_left)
        with open(f"/proc/{grandchild}/stat") as f:                 # an orphan, re-parented to the supervisor
            assert int(f.read().rsplit(")", 1)[1].split()[1]) == a.proc.pid


def test_escaped_grandchild_dies_with_a_harness_that_exits_abruptly(tmp_path, nothing_left, containment):
    command, pidfile = escaping_bot(tmp_path)
    code = textwrap.dedent(f"""
        import os, sys
        sys.path.insert(0, {ROOT!r})
        from agents import bot_supervisor
        if {containment == "subreaper"}:
            bot_supervisor.make_cgroup = lambda procs: None
        from agents.base import play_game
        from agents.external import ExternalAgent
        from yacht_env.core.game import Game
        play_game(Game("yacht", 1, seed=3), [ExternalAgent({command!r})])
        os._exit(0)                       # no close(), no atexit
    """)
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
    assert pidfile.exists()               # the grandchild was there; nothing_left checks it is gone


def test_main_exits_while_a_descendant_holds_stdout_is_a_crash(tmp_path):
    leave = ('subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"]); sys.exit(9)')
    with ExternalAgent(misbehave_at(tmp_path, 2, "import subprocess; " + leave), timeout=PATIENCE) as a:
        start = time.monotonic()
        assert play(a).is_over
        assert kinds(a) == ["crash"] and a.faults[0].cause.startswith("the bot exited with code 9")
        assert time.monotonic() - start < PATIENCE / 2, "the exit must be seen at once, not after the time limit"


def test_a_bot_that_kills_its_supervisor_is_still_ended(tmp_path, containment):
    if containment == "subreaper":
        pytest.skip("without a cgroup, a bot that kills its supervisor is re-parented out of reach (documented)")
    kill = "os.kill(os.getppid(), 9); time.sleep(0.2)"
    with ExternalAgent(misbehave_at(tmp_path, 1, kill), timeout=1) as a:
        assert play(a).is_over
        assert kinds(a) == ["crash"] and "killed by signal SIGKILL" in a.faults[0].cause


def test_a_bot_that_closes_stdin_is_a_crash(tmp_path):
    closed = tmp_path / "closed"
    closer = bot(tmp_path, f"""
        sys.stdin.readline()
        os.close(0)
        open({str(closed)!r}, "w").close()
        time.sleep(60)
    """)
    with ExternalAgent(closer, timeout=1) as a:
        a.reset(load("yacht"), 0, 1, seed=3)
        assert until(closed.exists)              # it has read the first hello and closed its stdin
        assert play(a).is_over
        assert kinds(a) == ["crash"] and a.faults[0].cause == "the bot closed its stdin before the game started"


def test_a_bot_that_never_reads_cannot_block_the_harness(tmp_path):
    deaf = bot(tmp_path, "time.sleep(60)")
    with ExternalAgent(deaf, timeout=0.3) as a:
        a.reset(load("yacht"), 0, 1, seed=0)
        start = time.monotonic()
        with pytest.raises(TimeoutError, match="the bot does not read its input"):
            a._send({"type": "padding", "data": "x" * (4 << 20)}, time.monotonic() + 0.3)
        assert time.monotonic() - start < 60     # the deadline holds: the write does not block for good


def test_a_bot_ignoring_bye_and_sigterm_is_killed(tmp_path):
    stubborn = bot(tmp_path, """
        import signal
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        for msg in decisions():
            answer(first_box(msg))
        while True:
            time.sleep(1)
    """)
    a = ExternalAgent(stubborn)
    try:
        assert play(a).is_over and a.faults == []
    finally:
        start = time.monotonic()
        a.close()
    assert time.monotonic() - start < 60         # bounded: bye, SIGTERM, then SIGKILL (nothing_left checks it)


# ---- resource limits ------------------------------------------------------------------------------
def test_memory_limit_ends_a_bot_that_allocates_too_much(tmp_path):
    hog = 'blob = bytearray(512 << 20)'
    with ExternalAgent(misbehave_at(tmp_path, 1, hog), memory=128) as a:
        assert play(a).is_over
        assert kinds(a) == ["crash"] and "MemoryError" in a.faults[0].cause


def test_cpu_limit_ends_a_spinning_bot(tmp_path):
    spin = "while True: pass"
    with ExternalAgent(misbehave_at(tmp_path, 1, spin), cpu=1, timeout=60) as a:
        assert play(a).is_over
        assert kinds(a) == ["crash"]                     # not a timeout: the CPU limit ended it
        assert a.faults[0].cause.startswith("the bot was killed by signal SIGXCPU (CPU time limit)")


def test_files_limit(tmp_path):
    count = tmp_path / "files.txt"
    opener = bot(tmp_path, f"""
        files = []
        try:
            while len(files) < 1000:
                files.append(open(os.devnull))
        except OSError:
            pass
        opened = len(files)
        for f in files:
            f.close()
        open({str(count)!r}, "w").write(str(opened))
        for msg in decisions():
            answer(first_box(msg))
    """)
    with ExternalAgent(opener, files=16) as a:
        assert play(a).is_over and a.faults == []
    assert 0 < int(count.read_text()) < 16


def test_procs_limit_contains_a_fork_bomb(tmp_path, nothing_left):
    probe = bot_supervisor.make_cgroup(8)
    if probe is not None:
        bot_supervisor.kill_cgroup(probe)
    elif os.geteuid() == 0:
        pytest.skip("RLIMIT_NPROC does not bind root, and no pids cgroup is writable here")
    count = tmp_path / "forks.txt"
    bomb = bot(tmp_path, f"""
        forks = 0
        for _ in range(300):
            try:
                if os.fork() == 0:
                    time.sleep(60)
                    os._exit(0)
                forks += 1
            except OSError:
                pass
        open({str(count)!r}, "w").write(str(forks))
        for msg in decisions():
            answer(first_box(msg))
    """)
    with ExternalAgent(bomb, procs=8, timeout=5) as a:
        assert play(a).is_over and a.faults == []
    assert 0 < int(count.read_text()) < 8


# one refused input and its message a row: alike in shape to the other such tables, by design
@pytest.mark.parametrize("params, message", [
    ("memory=0", "memory must be a whole number of MiB from 16 to 1073741824, got 0"),
    ("memory=1.5", "memory must be a whole number of MiB from 16 to 1073741824, got 1.5"),
    ("memory=nan", "memory must be a whole number of MiB from 16 to 1073741824, got nan"),
    ("memory=1e300", "got 1e+300"),
    ("cpu=-1", "cpu must be a whole number of seconds from 1 to 2147483648, got -1"),
    ("files=4", "files must be a whole number of open files from 8 to 1048576, got 4"),
    ("procs=0", "procs must be a whole number of processes from 1 to 4194304, got 0"),
    ("procs=lots", "procs: 'lots' is not a number"),
    ("timeout=inf", "timeout must be a number of seconds > 0 and at most 86400, got inf"),
    ("timeout=nan", "timeout: must be > 0, got nan"),
    ("disk=5", "unknown parameter 'disk' for external (allowed: timeout, memory, cpu, files, procs)"),
])
def test_bad_limits_are_refused_with_a_message(params, message):
    with pytest.raises(AgentSpecError, match=re.escape(message)):
        make_agent(f"external?{params}:{sys.executable} -c pass")


def test_limits_from_a_spec(tmp_path):
    a = make_agent(f"external?timeout=2&memory=512&cpu=60&files=64&procs=32:{sys.executable} -c pass")
    assert a.timeout == 2.0 and a.limits == {"memory": 512, "cpu": 60, "files": 64, "procs": 32}
    a.close()


def test_the_example_bot_plays_within_every_limit(tmp_path):
    example = os.path.join(ROOT, "scripts", "example_bot.py")
    with make_agent(f"external?timeout=5&memory=256&cpu=30&files=64&procs=16:{sys.executable} {example}") as a:
        assert play(a).totals()[0] > 0 and a.faults == []


# ---- in tournaments ---------------------------------------------------------------------------------
def tournament(tmp_path, entrants, **config):
    cfg = parse_config({"entrants": entrants, "games": 1, "seed": 2, **config})
    res = run_tournament(cfg, out=tmp_path / "run", progress=False, factory=FACTORY)
    assert res["tournament"]["complete"]
    return Store(tmp_path / "run").records()


def test_nothing_of_a_bot_is_left_after_a_tournament(tmp_path, nothing_left):
    command, pidfile = escaping_bot(tmp_path)
    records = tournament(tmp_path, ["first", {"name": "escaper", "agent": f"external:{command}"}])
    assert len(records) == 2 and all(f is None for rec in records.values() for f in rec["faults"])
    assert pidfile.exists()                # nothing_left checks the grandchild is gone


@pytest.mark.slow
def test_nothing_of_a_bot_is_left_when_its_game_worker_is_killed(tmp_path, nothing_left):
    """`swallow` makes the watcher kill the game worker while the bot and its escaped grandchild run in it.
    The limit is generous: the bot's first move starts two Python processes and forks twice, which must
    not time out on a busy machine."""
    command, pidfile = escaping_bot(tmp_path)
    records = tournament(tmp_path, ["swallow", {"name": "escaper", "agent": f"external:{command}"}],
                         move_timeout=5)
    errors = {rec["agents"][s]: f["error"] for rec in records.values() for s, f in enumerate(rec["faults"]) if f}
    assert errors == {"swallow": "MoveTimeout: no move within the 5 s limit"} and pidfile.exists()


def test_the_tournament_time_limit_cuts_a_bot_short_and_it_is_restarted(tmp_path):
    sleeper = misbehave_at(tmp_path, 2, "time.sleep(60)")
    records = tournament(tmp_path, ["first", {"name": "sleeper", "agent": f"external?timeout=5:{sleeper}"}],
                         move_timeout=0.3)
    faults = [rec["faults"][rec["agents"].index("sleeper")] for rec in records.values()]
    assert [f["error"] for f in faults] == ["MoveTimeout: no move within the 0.3 s limit"] * 2


def test_bots_get_default_limits_that_a_spec_raises_or_lifts(tmp_path):
    import resource

    from agents.external import default_limits
    seen = tmp_path / "limits.json"
    probe = bot(tmp_path, f"""
        import resource
        json.dump({{"as": resource.getrlimit(resource.RLIMIT_AS)[0],
                   "cpu": resource.getrlimit(resource.RLIMIT_CPU)[0]}}, open({str(seen)!r}, "w"))
        for msg in decisions():
            answer(first_box(msg))
    """)
    defaults = default_limits()
    assert defaults["memory"] >= 1024 and defaults["procs"] > 0 and defaults["cpu"] > 0
    cases = [({}, defaults["memory"] << 20, defaults["cpu"]), ({"memory": 2048, "cpu": 100}, 2048 << 20, 100),
             ({"memory": float("inf"), "cpu": float("inf")}, resource.getrlimit(resource.RLIMIT_AS)[0],
              resource.getrlimit(resource.RLIMIT_CPU)[0])]
    for params, memory, cpu in cases:
        with ExternalAgent(probe, timeout=5, **params) as a:
            assert play(a).is_over and a.faults == []
        assert json.loads(seen.read_text()) == {"as": memory, "cpu": cpu}, params
    agent = make_agent(f"external?memory=inf&procs=inf:{sys.executable} -c pass")
    assert "memory" not in agent.limits and "procs" not in agent.limits and agent.limits["cpu"] == defaults["cpu"]
