"""External bots: the line protocol, and every failure mode (crash, hang, garbage, illegal, leftovers)."""
import os
import sys
import textwrap

import pytest
from tests.waiting import PATIENCE, until

from agents.base import play_game
from agents.external import ExternalAgent, parse_reply
from agents.registry import AgentSpecError, make_agent
from yacht_env.core.game import Game

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLE = os.path.join(ROOT, "scripts", "example_bot.py")

# A bot that plays the first legal box, except that it misbehaves on decision number FAULT_AT.
TEMPLATE = """
import json, sys, time, os
n = 0
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] != "decide":
        continue
    n += 1
    if n == FAULT_AT:
        BAD
    boxes = [a for a in msg["legal"] if a >= 31]
    print(json.dumps({"action": boxes[0]}), flush=True)
"""


def bot(tmp_path, bad: str, fault_at: int = 1) -> str:
    path = tmp_path / "bot.py"
    code = TEMPLATE.replace("FAULT_AT", str(fault_at)).replace("BAD", bad)
    path.write_text(textwrap.dedent(code))
    return f"{sys.executable} {path}"


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def play(agent, seed=3):
    return play_game(Game("yacht", 1, seed=seed), [agent])


def test_example_bot_plays_whole_games_without_faults():
    with ExternalAgent(f"{sys.executable} {EXAMPLE}") as a:
        first = play(a).totals()
        again = play(a).totals()
        assert a.faults == []
        assert first == again and first[0] > 0
        pid = a.proc.pid
    assert a.proc is None and not alive(pid)


def test_crash_records_exit_code_and_stderr_and_the_game_goes_on(tmp_path):
    with ExternalAgent(bot(tmp_path, 'print("boom", file=sys.stderr); sys.exit(3)', fault_at=2)) as a:
        g = play(a)
        assert g.is_over
        assert [f.kind for f in a.faults] == ["crash"]
        assert "exited with code 3" in a.faults[0].cause and "boom" in a.faults[0].cause
        assert (a.faults[0].game, a.faults[0].move) == (1, 2)
        play(a)                              # a new game starts the bot again
        assert [f.kind for f in a.faults] == ["crash", "crash"] and a.faults[1].game == 2


def test_hang_is_a_timeout_and_the_bot_is_killed(tmp_path):
    a = ExternalAgent(bot(tmp_path, "time.sleep(60)", fault_at=2), timeout=0.3, start_grace=PATIENCE)
    try:
        a.reset(Game("yacht").rules, 0, 1, seed=0)
        pid = a.proc.pid
        g = play(a)
        assert g.is_over
        assert [f.kind for f in a.faults] == ["timeout"]
        assert "no reply within 0.3 s" in a.faults[0].cause
        assert not alive(pid)
    finally:
        a.close()


def test_garbage_replies_are_replaced_move_by_move(tmp_path):
    bad = 'print("hello world", flush=True); continue'
    with ExternalAgent(bot(tmp_path, bad, fault_at=1)) as a:
        g = play(a)
        assert g.is_over and len(a.faults) == 1
        f = a.faults[0]
        assert f.kind == "garbage" and f.cause == "reply is not JSON: 'hello world'"
        assert a.alive                       # a garbage reply does not end the bot


@pytest.mark.parametrize("reply, message", [
    (b"[1, 2]", 'reply is not an object with an "action": \'[1, 2]\''),
    (b'{"move": 3}', 'reply is not an object with an "action"'),
    (b'{"action": "3"}', '"action" must be an integer'),
    (b'{"action": true}', '"action" must be an integer'),
])
def test_parse_reply_messages(reply, message):
    action, why = parse_reply(reply, [31, 32])
    assert action is None and message in why


def test_illegal_action_is_recorded_with_the_legal_list(tmp_path):
    bad = 'print(json.dumps({"action": 999}), flush=True); continue'
    with ExternalAgent(bot(tmp_path, bad, fault_at=1)) as a:
        assert play(a).is_over
        assert a.faults[0].kind == "illegal"
        assert a.faults[0].cause.startswith("action 999 is not legal now (legal: 0, 1, 2")


def test_fallback_is_the_best_box_for_the_dice_in_hand(tmp_path):
    from agents.simple import GreedyAgent
    with ExternalAgent(bot(tmp_path, 'print("x", flush=True); continue', fault_at=1)) as a:
        g1 = play_game(Game("yacht", 1, seed=5), [a])
    first_box = next(e for e in g1.log if "box" in e)
    g2 = play_game(Game("yacht", 1, seed=5), [GreedyAgent()])
    assert first_box == next(e for e in g2.log if "box" in e)


def test_no_process_is_left_behind_even_grandchildren(tmp_path):
    pidfile = tmp_path / "child.pid"
    spawn = (f'import subprocess; p = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"]); '
             f'open({str(pidfile)!r}, "w").write(str(p.pid))')
    a = ExternalAgent(bot(tmp_path, spawn, fault_at=1))
    play(a)
    child = int(pidfile.read_text())
    assert alive(child)
    a.close()
    assert until(lambda: not alive(child) or _zombie(child))    # SIGKILL delivery is asynchronous; not ours to reap


def _zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] == "Z"
    except FileNotFoundError:
        return False


@pytest.mark.parametrize("spec, message", [
    ("external:no_such_bot_program", "bot program 'no_such_bot_program' not found"),
    ("external", "external needs an argument, as external:COMMAND"),
    ("external?timeout=0:python x.py", "timeout: must be > 0, got 0"),
    ("external:python 'unclosed", "cannot parse bot command"),
])
def test_bad_external_specs(spec, message):
    with pytest.raises(AgentSpecError, match=None) as e:
        make_agent(spec)
    assert message in str(e.value)


def test_bot_dies_with_a_harness_that_exits_abruptly(tmp_path):
    import subprocess
    stubborn = tmp_path / "stubborn.py"               # ignores end of input: only a signal ends it
    stubborn.write_text("import time\ntime.sleep(60)\n")
    code = textwrap.dedent(f"""
        import os, sys
        sys.path.insert(0, {ROOT!r})
        from agents.external import ExternalAgent
        from yacht_env.rules import load
        a = ExternalAgent({sys.executable + ' ' + str(stubborn)!r})
        a.reset(load("yacht"), 0, 1, seed=0)
        print(a.proc.pid, flush=True)
        os._exit(0)                       # no atexit, no close()
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    pid = int(out.stdout.split()[0])
    assert until(lambda: not alive(pid) or _zombie(pid))


def test_bot_that_exits_on_hello_is_a_crash_with_its_exit_code(tmp_path):
    path = tmp_path / "quitter.py"
    path.write_text("import sys\nsys.stdin.readline()\nsys.exit(7)\n")
    with ExternalAgent(f"{sys.executable} {path}") as a:
        assert play(a).is_over
        assert [f.kind for f in a.faults] == ["crash"] and "exited with code 7" in a.faults[0].cause


def test_overlong_reply_is_garbage(tmp_path):
    bad = 'print("x" * (2 << 20), flush=True); continue'
    with ExternalAgent(bot(tmp_path, bad, fault_at=1)) as a:
        assert play(a).is_over
        assert a.faults[0].kind == "garbage" and "longer than 1 MiB" in a.faults[0].cause
