"""Text from configs, specs, files, bots and people stays inert in every output: a Markdown code span holds
whatever backticks its text has, no control or escape character reaches the terminal raw, and messages
stay one printable line."""
import html
import json
import re
import unicodedata

import markdown
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.cli import main
from tournaments.cli.options import InertOutput
from tournaments.document import Code, md_text
from yacht_env.config import printable

HOSTILE = ["\x1b[2J\x1b[H", "\x1b]0;pwned\x07", "a\rb", "\u202eevil", "nul\x00", "\x9b31m", "line\u2028break"]


def rendered_code(md: str) -> str:
    """The text of the one <code> element Python-Markdown makes of `md`."""
    out = markdown.markdown(md)
    found = re.fullmatch(r"<p><code>(.*)</code></p>", out, re.DOTALL)
    assert found, out
    return html.unescape(found.group(1))


@pytest.mark.parametrize("body", ["a`b", "``x`", "x ``` y", "`", "````", "`start", "end`", "a``b`c```d"])
def test_a_code_span_holds_any_backticks(body):
    assert rendered_code(md_text(Code(body))) == body


@settings(max_examples=200, deadline=None)
@given(st.text(st.sampled_from("ab`| \\*_<>"), min_size=1, max_size=30).map(str.strip).filter(bool))
def test_generated_code_spans_show_their_text_exactly(body):
    md = md_text(Code(body))
    fence = re.match(r"`+", md).group(0)
    assert md.endswith(fence) and all(len(run) < len(fence) for run in re.findall(r"`+", md[len(fence):-len(fence)]))
    assert rendered_code(md) == body


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=40))
def test_markdown_of_any_text_has_no_raw_control_character_and_stays_on_its_line(text):
    for md in (md_text(text), md_text(Code(text)), md_text(Code(text), in_table=True)):
        assert "\n" not in md and "\r" not in md
        assert printable(md) == md, md


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=40))
def test_printable_escapes_every_control_character_and_keeps_what_is_asked(text):
    shown = printable(text, keep="\n\t")
    for c in shown:
        category = unicodedata.category(c)
        assert c in "\n\t" or (category[0] != "C" and category not in ("Zl", "Zp")), repr(shown)
    assert shown.count("\n") == text.count("\n") and printable(text, 10).endswith("...") == (len(printable(text)) > 10)


@pytest.mark.parametrize("text", HOSTILE)
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
        rec["agents"] = ["".join(HOSTILE)]
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


@settings(max_examples=200, deadline=None)
@given(st.text(min_size=1, max_size=64))
def test_every_name_maps_to_a_file_name_that_fits_every_file_system(name):
    from tournaments.report import histogram_name
    from yacht_env.config import slug
    file = histogram_name(name)
    assert len(file.encode("utf-8")) <= 255 and "/" not in file and "\0" not in file
    assert file not in (".", "..") and slug(name) == slug(name)


def test_long_names_keep_distinct_slugs(tmp_path):
    from tournaments.report import histogram_name
    a, b = "名" * 63 + "a", "名" * 63 + "b"              # 190 bytes of UTF-8 each, the same first 100
    assert histogram_name(a) != histogram_name(b)
    for name in (a, b):
        (tmp_path / histogram_name(name)).write_bytes(b"png")   # a real file system takes them


@pytest.mark.parametrize("text", HOSTILE)
def test_html_text_shows_control_characters_escaped(text):
    from tournaments.html import html_text
    for shown in (html_text(text), html_text(Code(text))):
        assert not any(c in shown for c in "\x1b\x07\r\x00\x9b\u202e\u2028"), shown
