"""Text from configs, specs, files, bots and people stays inert in the report (`tournaments.document`,
`tournaments.html`, `tournaments.report`): a Markdown code span holds whatever backticks its text has, no
control character reaches the Markdown or the HTML raw, and every name maps to a file name any file system
takes."""
import html
import re

import markdown
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.planted import HOSTILE_TEXT

from tournaments.document import Code, md_text
from yacht_env.errors import printable


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


@pytest.mark.parametrize("text", HOSTILE_TEXT)
def test_html_text_shows_control_characters_escaped(text):
    from tournaments.html import html_text
    for shown in (html_text(text), html_text(Code(text))):
        assert not any(c in shown for c in "\x1b\x07\r\x00\x9b\u202e\u2028"), shown
