"""A report as a document: sections of paragraphs, tables and images, and its Markdown rendering.

Text is plain: a `str` is shown as written (Markdown escapes it), `Code` and `Strong` mark a run, and
a tuple joins runs into one line. The same document renders to Markdown here and to one self-contained
HTML page in `tournaments.html`, so both always say the same things.
"""
import re
from dataclasses import dataclass, field

from yacht_env.errors import printable


@dataclass(frozen=True)
class Code:
    """A run shown in a fixed-width font (specs, file names, game ids)."""
    text: str


@dataclass(frozen=True)
class Strong:
    """A run shown in bold."""
    text: str


Text = str | Code | Strong | tuple


@dataclass(frozen=True)
class Image:
    """A picture written next to the report (`file`); `alt` describes it."""
    file: str
    alt: str


@dataclass(frozen=True)
class Cell:
    """A table cell: what it shows, and the value a sortable table orders it by (default: its text,
    as a number when it reads as one)."""
    text: Text
    sort: float | str | None = None


@dataclass
class Grid:
    """A table of the report: rows of cells under a header; `align` has one letter per column, l or r.
    Sortable tables can be reordered by clicking a header in the HTML page; a table is printed in the order of
    `rows`."""
    head: list[str]
    rows: list[list]                # each cell: Text, Cell or Image
    align: str
    sortable: bool = True


@dataclass
class Section:
    title: str
    blocks: list = field(default_factory=list)   # each: Text (a paragraph), Grid or Image


def listed(names) -> str:
    """Names in a sentence: "a", "a and b", "a, b and c"."""
    names = list(names)
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def plain(text: Text) -> str:
    """The characters of a text without any marking."""
    if isinstance(text, tuple):
        return "".join(plain(t) for t in text)
    return text if isinstance(text, str) else text.text


_MD_SPECIAL = re.compile(r"([\\`*|<>]|\](?=[(\[:]))")
_MD_EDGE_UNDERSCORE = re.compile(r"(?:^|(?<=\s))_|_(?=\s|$)")


def code_span(body: str, in_table: bool = False) -> str:
    """A Markdown code span showing `body` as written, whatever backticks it holds: the fence is one
    backtick longer than the longest run in it, and a body that starts or ends with a backtick or a space
    is padded with one space (CommonMark strips one from each side). Line breaks become spaces, other
    control characters are shown escaped (`yacht_env.errors.printable`), a `|` in a table cell is escaped."""
    body = printable(body.replace("\r\n", " ").replace("\n", " ").replace("\r", " "))
    if in_table:
        body = body.replace("|", "\\|")
    fence = "`" * (max((len(run) for run in _BACKTICKS.findall(body)), default=0) + 1)
    pad = " " if body[:1] in ("`", " ") or body[-1:] in ("`", " ") else ""
    return f"{fence}{pad}{body}{pad}{fence}"


_BACKTICKS = re.compile(r"`+")


def md_text(text: Text, in_table: bool = False) -> str:
    """Markdown for a text; plain runs are escaped so that names cannot turn into markup."""
    if isinstance(text, tuple):
        return "".join(md_text(t, in_table) for t in text)
    if isinstance(text, Code):
        return code_span(text.text, in_table)
    if isinstance(text, Strong):
        return f"**{md_text(text.text, in_table)}**"
    escaped = _MD_SPECIAL.sub(r"\\\1", printable(text, keep="\n"))
    escaped = _MD_EDGE_UNDERSCORE.sub(r"\\_", escaped)
    return escaped.replace("\n", " ")


def _md_cell(cell) -> str:
    if isinstance(cell, Image):
        return f"![{md_text(cell.alt, True)}]({cell.file})"
    if isinstance(cell, Cell):
        return md_text(cell.text, True)
    return md_text(cell, True)


def md_table(table: Grid) -> list[str]:
    lines = ["| " + " | ".join(md_text(h, True) for h in table.head) + " |",
             "|" + "".join("---:|" if a == "r" else "---|" for a in table.align)]
    lines += ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in table.rows]
    return lines


def markdown(title: Text, sections: list[Section]) -> str:
    """The document as Markdown: a level-1 title, then each section under a level-2 heading."""
    lines = [f"# {md_text(title)}"]
    for section in sections:
        lines += ["", f"## {md_text(section.title)}"]
        for block in section.blocks:
            lines.append("")
            if isinstance(block, Grid):
                lines += md_table(block)
            elif isinstance(block, Image):
                lines.append(_md_cell(block))
            else:
                lines.append(md_text(block))
    return "\n".join(lines) + "\n"
