"""The fault gate: `evaluate`, `tournament`, `match` and `levels` exit with status 3 when an entrant faulted
in more than --max-fault-rate of its games (default: in every game), say so on the first line of their
text, and never show a mean made of fallback moves as the bot's own without saying so."""
import json
import sys
import textwrap

import pytest

from yacht_arena.cli import main
from yacht_arena.cli.faults import FAULT_EXIT, fails, gate, headline

PRELUDE = """
import json, sys, time
def decisions():
    for line in sys.stdin:
        msg = json.loads(line)
        if msg["type"] == "decide":
            yield msg
def answer(a):
    sys.stdout.write(json.dumps({"action": a}) + "\\n")
    sys.stdout.flush()
"""
BOTS = {
    "crash": "sys.exit(3)\n",
    "garbage": "for msg in decisions():\n    print('nope', flush=True)\n",
    # answers its first decision, then never again (a hang after the start, so the first reply's extra
    # grace does not slow the test)
    "hang": "for n, msg in enumerate(decisions()):\n    if n:\n        time.sleep(3600)\n"
            "    answer([a for a in msg['legal'] if a >= 31][0])\n",
}


def bot(tmp_path, kind: str) -> str:
    path = tmp_path / f"{kind}.py"
    path.write_text(PRELUDE + textwrap.dedent(BOTS[kind]))
    timeout = "?timeout=0.3" if kind == "hang" else ""
    return f"external{timeout}:{sys.executable} {path}"


def once_bot(tmp_path) -> str:
    """A bot that sends garbage once, on the first move of its first game, and plays the first box after."""
    path = tmp_path / "once.py"
    path.write_text(PRELUDE + textwrap.dedent("""
        first = True
        for msg in decisions():
            if first:
                first = False
                print('nope', flush=True)
                continue
            answer([a for a in msg['legal'] if a >= 31][0])
    """))
    return f"external:{sys.executable} {path}"


def test_the_gate_arithmetic():
    assert not fails(0, 10, None) and not fails(9, 10, None) and fails(10, 10, None)
    assert fails(1, 10, 0.0) and not fails(1, 10, 0.1) and fails(2, 10, 0.1) and not fails(10, 10, 1.0)
    assert not fails(0, 0, 0.0)
    g = gate({"a": {"games": 4, "faulted": 4, "kinds": {"crash": 4}}, "b": {"games": 4, "faulted": 0}}, None)
    assert g["failed"] == ["a"] and g["exit"] == FAULT_EXIT and list(g["entrants"]) == ["a"]
    assert headline(g) == ("FAULTS: a faulted in 4 of 4 games (4 crash); FAILED (a fault in every game; "
                           "exit status 3): a")
    ok = gate({"a": {"games": 4, "faulted": 1}}, 0.25)
    assert ok["exit"] == 0 and headline(ok) == "FAULTS: a faulted in 1 of 4 games; within --max-fault-rate 0.25"
    assert headline(gate({"a": {"games": 4, "faulted": 0}}, None)) is None


@pytest.mark.parametrize("kind", ["crash", "garbage", "hang"])
def test_evaluate_of_a_bot_faulting_in_every_game_exits_3(tmp_path, capsys, kind):
    spec = bot(tmp_path, kind)
    assert main(["evaluate", spec, "--games", "2", "--no-progress"]) == FAULT_EXIT
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"FAULTS: {spec} faulted in 2 of 2 games (")
    assert f" {'timeout' if kind == 'hang' else kind})" in out[0] and "FAILED" in out[0] and "exit status 3" in out[0]
    mean = next(line for line in out if line.strip().startswith("mean "))
    assert "not the bot's own: 2 of 2 games include fallback moves" in mean


def test_evaluate_json_carries_the_gate(tmp_path, capsys):
    spec = bot(tmp_path, "crash")
    assert main(["evaluate", spec, "--games", "2", "--json", "--no-progress"]) == FAULT_EXIT
    g = json.loads(capsys.readouterr().out)["fault_gate"]
    assert g["failed"] == [spec] and g["entrants"][spec]["faulted"] == 2 and g["max_fault_rate"] is None


@pytest.mark.parametrize("rate, status", [(None, 0), ("0", FAULT_EXIT), ("0.2", FAULT_EXIT), ("0.25", 0), ("1", 0)])
def test_max_fault_rate_is_the_share_of_games_allowed(tmp_path, capsys, rate, status):
    spec = once_bot(tmp_path)                      # one faulted game of four
    argv = ["evaluate", spec, "--games", "4", "--no-progress"] + (["--max-fault-rate", rate] if rate else [])
    assert main(argv) == status
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith(f"FAULTS: {spec} faulted in 1 of 4 games (1 garbage)")
    assert ("FAILED" in first) == (status == FAULT_EXIT)


@pytest.mark.parametrize("command", ["evaluate", "tournament", "match", "levels"])
@pytest.mark.parametrize("value", ["nan", "-0.1", "1.5", "x", "inf"])
def test_a_bad_max_fault_rate_is_one_line_exit_2(capsys, command, value):
    argv = {"evaluate": ["evaluate", "greedy"], "tournament": ["tournament"], "match": ["match", "greedy", "random"],
            "levels": ["levels"]}[command]
    with pytest.raises(SystemExit) as e:
        main([*argv, "--max-fault-rate", value])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--max-fault-rate: must be a number from 0 to 1" in err


@pytest.mark.parametrize("command", ["evaluate", "tournament", "match", "levels"])
def test_help_documents_the_exit_status(capsys, command):
    with pytest.raises(SystemExit):
        main([command, "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--max-fault-rate" in text and "status 3" in text


def test_tournament_with_a_crashing_bot_exits_3(tmp_path, capsys):
    spec = bot(tmp_path, "crash")
    config = tmp_path / "t.yaml"
    config.write_text(json.dumps({"name": "t", "entrants": [{"name": "crasher", "agent": spec},
                                                            {"name": "greedy", "agent": "greedy"}],
                                  "seats": 2, "games": 2, "move_timeout": 30}))
    argv = ["tournament", str(config), "--out", str(tmp_path / "out"), "--quiet", "--workers", "1", "--no-analysis"]
    assert main(argv) == FAULT_EXIT
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("FAULTS: crasher faulted in 4 of 4 games (4 crash); FAILED")
    assert main([*argv, "--json", "--max-fault-rate", "1"]) == 0            # resumed: nothing played again
    doc = json.loads(capsys.readouterr().out)
    assert doc["fault_gate"]["entrants"]["crasher"]["faulted"] == 4 and not doc["fault_gate"]["failed"]


def test_match_with_a_garbage_bot_exits_3(tmp_path, capsys, monkeypatch):
    bot(tmp_path, "garbage")
    monkeypatch.chdir(tmp_path)                 # a match names entrants by their specs: keep this one short
    spec = f"external:{sys.executable} garbage.py"
    argv = ["match", spec, "greedy", "--max-games", "4", "--out", str(tmp_path / "m"), "--quiet", "--workers", "1",
            "--no-analysis"]
    assert main(argv) == FAULT_EXIT
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"FAULTS: {spec} faulted in 4 of 4 games (4 garbage); FAILED")
    doc = json.loads((tmp_path / "m" / "match.json").read_text())
    assert doc["forfeits"][spec]["faulted"] == 4 and doc["forfeits"]["greedy"]["faulted"] == 0


def test_levels_marks_fallback_figures_and_exits_3(tmp_path, capsys):
    spec = bot(tmp_path, "crash")
    assert main(["levels", "--only", "greedy", spec, "--games", "2", "--no-progress"]) == FAULT_EXIT
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"FAULTS: {spec} faulted in 4 of 4 games (4 crash); FAILED")
    row = next(line for line in out if line.strip().startswith(spec))
    assert row.endswith("* with fallback moves")
    assert not next(line for line in out if line.strip().startswith("greedy ")).endswith("fallback moves")
