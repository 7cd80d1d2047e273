"""Every markdown link from README.md, BENCHMARKS.md and docs/*.md to a local file resolves, and every anchor
names a heading of its target as GitHub renders it (GitHub's slug rule)."""
import re
import unicodedata
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", ROOT / "BENCHMARKS.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^()\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
FENCE = re.compile(r"^\s*(```|~~~)")


def prose(text: str, spans: bool = False) -> str:
    """The text a reader sees as prose: fenced and indented code blocks dropped, inline code spans emptied
    (kept with `spans`: a heading's anchor keeps their text)."""
    kept, fenced = [], False
    for line in text.split("\n"):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if fenced or line.startswith("    ") or line.startswith("\t"):
            continue
        kept.append(line if spans else re.sub(r"`[^`]*`", "``", line))
    return "\n".join(kept)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: the rendered text lower-cased, every character that is not a letter,
    digit, mark, space, hyphen or underscore dropped, each space a hyphen."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)    # a link in a heading shows its text
    text = text.replace("`", "").replace("**", "").strip().lower()
    kept = "".join(c for c in text if c in " -_" or unicodedata.category(c)[0] in "LNM")
    return kept.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    """Every anchor of a page: its headings' slugs (a repeated slug gets -1, -2, ... as GitHub numbers them)
    and the ids of any HTML anchors."""
    text = page.read_text()
    seen, found = Counter(), set()
    for line in prose(text, spans=True).split("\n"):
        heading = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if heading:
            base = slug(heading.group(1))
            found.add(base if seen[base] == 0 else f"{base}-{seen[base]}")
            seen[base] += 1
    found |= set(re.findall(r"<a\s+(?:id|name)=\"([^\"]+)\"", text))
    return found


def local_links(page: Path) -> list[str]:
    """The targets of a page's links that are not web addresses."""
    return [t for t in LINK.findall(prose(page.read_text())) if not re.match(r"^[a-z][a-z0-9+.-]*:", t)]


def shown(file: Path) -> str:
    return str(file.relative_to(ROOT)) if file.is_relative_to(ROOT) else str(file)


def broken(page: Path) -> list[str]:
    """Each local link of `page` whose file does not exist or whose anchor its target does not have."""
    problems = []
    for target in local_links(page):
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if not file.exists():
            problems.append(f"{target}: no file {shown(file)}")
        elif anchor and file.suffix == ".md" and anchor not in anchors(file):
            problems.append(f"{target}: no heading with the anchor #{anchor} in {shown(file)}")
    return problems


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_local_link_resolves(page):
    assert broken(page) == []


def test_the_slug_rule_is_githubs():
    assert slug("Matches: is the new version better?") == "matches-is-the-new-version-better"
    assert slug("Web tables (`yacht serve`)") == "web-tables-yacht-serve"
    assert slug("Playing to win (strong?goal=win)") == "playing-to-win-stronggoalwin"
    assert slug("Agents at engine speed (batched play)") == "agents-at-engine-speed-batched-play"
    assert slug("The levels at a 4-seat table") == "the-levels-at-a-4-seat-table"
    assert slug("A → B: yacht_env.core") == "a--b-yacht_envcore"


def test_a_broken_link_and_a_missing_anchor_are_found(tmp_path):
    (tmp_path / "other.md").write_text("# Title\n\n## Same\n\n## Same\n")
    page = tmp_path / "page.md"
    page.write_text("[ok](other.md#same-1) [file](missing.md) [anchor](other.md#nowhere) [web](https://x.org/a)\n"
                    "```\n[in code](missing-too.md)\n```\n`[span](gone.md)` [self](#page)\n\n# Page\n")
    found = broken(page)
    assert [p.split(":")[0] for p in found] == ["missing.md", "other.md#nowhere"]
