"""A report document as one self-contained HTML page: images embedded as base64 PNG, tables sortable
by clicking a header (a few lines of inline JavaScript), no external files, fonts or scripts.

Sorting: a cell's `data-sort` value when it has one, else its text; numbers sort as numbers and come
before text; a second click on the same header reverses the order. Without JavaScript the tables stay
in the report's order.
"""
import base64
import html
import math
import re

from yacht_env.errors import printable

from .document import Cell, Code, Image, Section, Strong, Grid, Text, plain

STYLE = """
body { font: 15px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 78em; padding: 0 1em; color: #222; }
h1 { font-size: 1.6em; } h2 { font-size: 1.25em; margin-top: 2em; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; margin: 0.8em 0; }
th, td { padding: 0.25em 0.6em; border-bottom: 1px solid #e4e4e4; vertical-align: middle; }
th { background: #f4f4f4; text-align: left; white-space: nowrap; }
td.r, th.r { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
div.wide { overflow-x: auto; }
table.sortable th { cursor: pointer; user-select: none; }
table.sortable th[aria-sort=ascending]::after { content: " \\25B2"; }
table.sortable th[aria-sort=descending]::after { content: " \\25BC"; }
td img { width: 16em; } img { max-width: 100%; }
code { background: #f4f4f4; padding: 0 0.2em; }
"""

SCRIPT = """
document.querySelectorAll("table.sortable").forEach(function (table) {
  table.querySelectorAll("thead th").forEach(function (th, col) {
    th.addEventListener("click", function () {
      var down = th.getAttribute("aria-sort") === "ascending";
      table.querySelectorAll("thead th").forEach(function (h) { h.removeAttribute("aria-sort"); });
      th.setAttribute("aria-sort", down ? "descending" : "ascending");
      var body = table.tBodies[0], rows = Array.prototype.slice.call(body.rows);
      function key(row) {
        var c = row.cells[col], k = c.hasAttribute("data-sort") ? c.getAttribute("data-sort") : c.textContent.trim();
        var n = k === "" ? NaN : Number(k);
        return isNaN(n) ? [1, k] : [0, n];
      }
      rows.sort(function (a, b) {
        var x = key(a), y = key(b);
        var c = x[0] - y[0] || (x[0] ? x[1].localeCompare(y[1]) : x[1] - y[1]);
        return down && x[0] === y[0] ? -c : c;
      });
      rows.forEach(function (row) { body.appendChild(row); });
    });
  });
});
"""


def html_text(text: Text) -> str:
    if isinstance(text, tuple):
        return "".join(html_text(t) for t in text)
    if isinstance(text, Code):
        return f"<code>{html.escape(printable(text.text))}</code>"
    if isinstance(text, Strong):
        return f"<strong>{html_text(text.text)}</strong>"
    return html.escape(printable(text, keep="\n"))     # control characters shown escaped, as in every output


def _image(image: Image, images: dict[str, bytes]) -> str:
    data = base64.b64encode(images[image.file]).decode("ascii")
    return f'<img src="data:image/png;base64,{data}" alt="{html.escape(image.alt)}">'


def _sort_value(value) -> str:
    if isinstance(value, float) and not math.isfinite(value):
        return ""
    return repr(value) if isinstance(value, float) else str(value)


def _align(a: str) -> str:
    return ' class="r"' if a == "r" else ""


def _cell(cell, align: str, images) -> str:
    cls = _align(align)
    if isinstance(cell, Image):
        return f'<td{cls} data-sort="{html.escape(cell.alt)}">{_image(cell, images)}</td>'
    if isinstance(cell, Cell):
        sort = "" if cell.sort is None else f' data-sort="{html.escape(_sort_value(cell.sort))}"'
        return f"<td{cls}{sort}>{html_text(cell.text)}</td>"
    return f"<td{cls}>{html_text(cell)}</td>"


def html_table(table: Grid, images) -> str:
    cls = ' class="sortable"' if table.sortable else ""
    head = "".join(f'<th{_align(a)}>{html.escape(h)}</th>' for h, a in zip(table.head, table.align))
    rows = "\n".join("<tr>" + "".join(_cell(c, a, images) for c, a in zip(row, table.align)) + "</tr>"
                     for row in table.rows)
    return f'<div class="wide"><table{cls}>\n<thead><tr>{head}</tr></thead>\n<tbody>\n{rows}\n</tbody>\n</table></div>'


def _anchor(title: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")


def page(title: Text, sections: list[Section], images: dict[str, bytes]) -> str:
    """The whole page; `images` holds the bytes of every Image file the sections name."""
    body = [f"<h1>{html_text(title)}</h1>"]
    body.append("<nav>" + " · ".join(f'<a href="#{_anchor(s.title)}">{html.escape(s.title)}</a>' for s in sections)
                + "</nav>")
    for s in sections:
        body.append(f'<h2 id="{_anchor(s.title)}">{html.escape(s.title)}</h2>')
        for block in s.blocks:
            if isinstance(block, Grid):
                body.append(html_table(block, images))
            elif isinstance(block, Image):
                body.append(f"<p>{_image(block, images)}</p>")
            else:
                body.append(f"<p>{html_text(block)}</p>")
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            f"<title>{html.escape(plain(title))}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n"
            + "\n".join(body) + f"\n<script>{SCRIPT}</script>\n</body>\n</html>\n")
