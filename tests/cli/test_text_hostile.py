"""Text from configs, specs, files, bots and people stays inert on the terminal: no control or escape character
reaches it raw, and messages stay one printable line. (In the report's Markdown and HTML and its file names:
tests/tournaments/test_document_hostile.py.)"""
import json
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.planted import HOSTILE_TEXT
from yacht_arena.cli import main
from yacht_arena.cli.options import InertOutput
from yacht_env.errors import printable



@settings(max_examples=200, deadline=None)
@given(st.text(max_size=40))
def test_printable_escapes_every_control_character_and_keeps_what_is_asked(text):
    shown = printable(text, keep="\n\t")
    for c in shown:
        category = unicodedata.category(c)
        assert c in "\n\t" or (category[0] != "C" and category not in ("Zl", "Zp")), repr(shown)
    assert shown.count("\n") == text.count("\n") and printable(text, 10).endswith("...") == (len(printable(text)) > 10)


@pytest.mark.parametrize("text", HOSTILE_TEXT)
def test_the_cli_output_stream_escapes_control_sequences(text):
    class Sink:
        def __init__(self):
            self.parts = []

        def write(self, s):
            self.parts.append(s)

    sink = Sink()
    out = InertOutput(sink)
    assert out.write(f"name {text}\n\tnext") == len(f"name {text}\n\tnext")
    written = "".join(sink.parts)
    assert written.endswith("\n\tnext") and not any(c in written for c in "\x1b\x07\r\x00\x9b\u202e\u2028")


@pytest.fixture
def hostile_games(tmp_path, capsys):
    """An `evaluate --out` folder whose games name their agent with terminal escape sequences."""
    out = tmp_path / "ev"
    assert main(["evaluate", "random", "--games", "2", "--seed", "3", "--no-progress", "--out", str(out)]) == 0
    capsys.readouterr()
    log = out / "games.jsonl"
    lines = [json.loads(x) for x in log.read_text().splitlines()]
    for rec in lines:
        rec["agents"] = ["".join(HOSTILE_TEXT)]
    log.write_text("".join(json.dumps(r) + "\n" for r in lines))
    return out


@pytest.mark.parametrize("command", [["show", "g0"], ["analyze"]])
def test_names_from_a_games_file_never_reach_the_terminal_raw(hostile_games, capsys, command):
    code = main([command[0], str(hostile_games), *command[1:]])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "\\x1b" in out                                  # the name is shown, escaped
    for c in "\x1b\x07\r\x00\x9b\u202e\u2028":
        assert c not in out
        assert c == "\r" or c not in err                  # a progress bar's own carriage returns
