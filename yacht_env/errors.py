"""The config layer's one error, `ConfigError`, and `printable`, which keeps every part of a message one
line of inert text. A leaf: the config layer's reader and checks (`yacht_env.config`) and the safe file
functions (`yacht_env.safe_file`) both raise it.
"""
import unicodedata


class ConfigError(ValueError):
    """Bad user input: a config or rule file, one of its keys, a value, a command-line value.

    `ConfigError(problem)`, `ConfigError(source, problem)` or `ConfigError(source, key, problem)`;
    the message is the parts joined by ": ", e.g. `t.yaml: games: must be a whole number ...`.
    """

    def __init__(self, *parts):
        super().__init__(*parts)
        self.problem = str(parts[-1]) if parts else ""
        self.source = str(parts[0]) if len(parts) > 1 else ""
        self.key = str(parts[1]) if len(parts) > 2 else ""

    def __str__(self) -> str:
        """One line: control characters in any part are escaped, a source or key over 200 characters cut."""
        parts = [printable(p, 200 if i < len(self.args) - 1 else None)
                 for i, p in enumerate(self.args) if p not in (None, "")]
        return ": ".join(parts)


def _unprintable(c: str) -> bool:
    category = unicodedata.category(c)
    return category[0] == "C" or category in ("Zl", "Zp")


def printable(part, limit: int | None = None, keep: str = "") -> str:
    """`part` as inert text for a terminal or a one-line message: every control, format or unassigned
    character (Unicode category C: escape sequences, bidi overrides, NUL) and the line and paragraph
    separators are shown escaped (`\\x1b`, `\\u202e`), except those in `keep` (e.g. "\\n\\t" for a page of
    text); cut to `limit` characters with "..." when given."""
    text = str(part)
    plain = text
    for c in keep:
        plain = plain.replace(c, "")
    if not plain.isprintable():    # the fast path: almost every text is printable as it is
        text = "".join(c.encode("unicode_escape").decode()
                       if c not in keep and _unprintable(c) else c for c in text)
    return text if limit is None or len(text) <= limit else text[:limit] + "..."
