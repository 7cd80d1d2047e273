"""The config layer: one YAML reader, one set of typed checks and one error for every file a user
writes (rule files, tournament configs, training configs) and every `--set` value.

The reader is bounded: files over `MAX_FILE_BYTES`, nesting deeper than `MAX_DEPTH`, anchors and
aliases (`&name` / `*name`: a few hundred bytes of them can expand to gigabytes) are refused before
anything is built. It gives plain data only: mappings with text keys (a key may appear once), lists,
text, whole numbers, floats, true/false and null; dates stay text, and tags such as `!!set` or
`!!binary` are refused.

The checks take `(source, key, value, ...)` and return the checked value or raise `ConfigError`
naming the file, the key and what is allowed:

    games = whole(path, "games", data.get("games", 10), 1, 1_000_000)
    timeout = number(path, "move_timeout", data["move_timeout"], 0, 86_400, above=True)

Library code raises `ConfigError` (`yacht_env.errors`, a leaf below this module and the safe file
functions; or a subclass, like `yacht_env.rules.RuleError`); only the command line turns it into
`yacht CMD: error: ...` and exit status 2.

A name on the command line or in a config is a preset when it is bare (`yacht`, `default`) and a
file when it is a path: it contains a `/` or `\\`, or ends in `.yaml` / `.yml` (`./yacht.yaml`,
`rules/mine.yaml`). So a stray file or folder in the working folder never shadows a preset.
"""
import hashlib
import math
import os
import re
import unicodedata
from importlib.resources.abc import Traversable
from pathlib import Path

import yaml

from .errors import ConfigError
from .safe_file import read_bytes

MAX_FILE_BYTES = 1_000_000     # config and rule files are a few kilobytes
MAX_DEPTH = 32                 # nesting levels of mappings and lists
MAX_SEED = 2**63 - 1           # seeds are whole numbers 0 .. 2^63 - 1 (the dice source takes 64 bits)
YAML_SUFFIXES = (".yaml", ".yml")
PRESET_NAME = re.compile(r"[\w.-]{1,100}")

# keys that were renamed: old -> new (the error for the old key says what to write instead)
RENAMED = {"overrides": "set"}


# --- the reader ------------------------------------------------------------------------------------

class _Refused(yaml.MarkedYAMLError):
    """A YAML construct the reader does not accept (raised at its position in the file)."""

    def __init__(self, problem: str, mark):
        super().__init__(problem=problem, problem_mark=mark)


class _Loader(yaml.SafeLoader):
    """SafeLoader without anchors, aliases, deep nesting, duplicate or non-text keys and odd types."""

    def __init__(self, stream):
        super().__init__(stream)
        self._depth = 0

    def compose_node(self, parent, index):
        event = self.peek_event()
        if isinstance(event, yaml.AliasEvent) or event.anchor is not None:
            raise _Refused("anchors and aliases (&name, *name) are not allowed; write the value out",
                           event.start_mark)
        self._depth += 1
        if self._depth > MAX_DEPTH:
            raise _Refused(f"nested deeper than {MAX_DEPTH} levels", event.start_mark)
        try:
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def construct_mapping(self, node, deep=False):
        if isinstance(node, yaml.MappingNode):
            first_line = {}
            for key_node, _ in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    continue
                key = self.construct_object(key_node, deep=True)
                if not isinstance(key, str):
                    raise _Refused(f"keys must be text, got {key!r} (quote it)", key_node.start_mark)
                if key in first_line:
                    raise _Refused(f"key {key!r} appears twice (first on line {first_line[key]})",
                                   key_node.start_mark)
                first_line[key] = key_node.start_mark.line + 1
        return super().construct_mapping(node, deep=deep)

    def construct_yaml_int(self, node):
        try:
            return super().construct_yaml_int(node)
        except ValueError:  # more digits than Python converts (sys.get_int_max_str_digits)
            raise _Refused("a number with too many digits", node.start_mark) from None

    def construct_as_text(self, node):
        return self.construct_scalar(node)

    def construct_refused(self, node):
        raise _Refused(f"the tag {node.tag.replace('tag:yaml.org,2002:', '!!')} is not allowed; use "
                       "mappings, lists, text, numbers, true/false and null", node.start_mark)


_Loader.add_constructor("tag:yaml.org,2002:int", _Loader.construct_yaml_int)
_Loader.add_constructor("tag:yaml.org,2002:timestamp", _Loader.construct_as_text)
_Loader.add_constructor("tag:yaml.org,2002:value", _Loader.construct_as_text)
for _tag in ("binary", "set", "omap", "pairs"):
    _Loader.add_constructor(f"tag:yaml.org,2002:{_tag}", _Loader.construct_refused)


def parse_yaml(text: str, source: str = "<text>"):
    """Plain data from YAML text (see the module docstring for what is refused)."""
    if len(text) > MAX_FILE_BYTES:
        raise ConfigError(source, f"longer than {MAX_FILE_BYTES:,} characters")
    loader = None
    try:
        loader = _Loader(text)
        return loader.get_single_data()
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""
        problem = e.problem or e.context or "cannot be read"
        prefix = "" if isinstance(e, _Refused) else "not valid YAML: "
        raise ConfigError(source, f"{prefix}{problem}{where}") from None
    except yaml.YAMLError as e:  # the reader's errors: characters YAML does not allow
        raise ConfigError(source, f"not valid YAML: {str(e).splitlines()[0]}") from None
    finally:
        if loader is not None:
            loader.dispose()


def read_yaml(path, what: str = "file"):
    """Plain data from a YAML file: a path (str or Path) or a package resource (`Traversable`).

    Refuses what is not a regular file, files over `MAX_FILE_BYTES`, text that is not UTF-8 and
    everything `parse_yaml` refuses; `what` names the file in the error for a missing one.
    """
    source = str(path)
    if not isinstance(path, Traversable):
        path = Path(path)
    if isinstance(path, Path):
        raw = read_bytes(path, MAX_FILE_BYTES, what)   # a regular file only, bounded
    elif not path.is_file():
        raise ConfigError(source, f"no such {what}")
    else:
        try:
            with path.open("rb") as f:
                raw = f.read(MAX_FILE_BYTES + 1)
        except OSError as e:
            raise ConfigError(source, f"cannot read the {what} ({e.strerror})") from None
        if len(raw) > MAX_FILE_BYTES:
            raise ConfigError(source, f"more than {MAX_FILE_BYTES:,} bytes; a {what} may have at most that")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise ConfigError(source, f"not UTF-8 text (byte {e.start})") from None
    return parse_yaml(text, source)


# --- memory ----------------------------------------------------------------------------------------

def available_memory() -> int | None:
    """Bytes of memory the machine can give a new allocation now (Linux `MemAvailable`, else the free
    physical pages), or None when it cannot be told."""
    try:
        with open("/proc/meminfo", "rb") as f:          # a kernel file: never a planted one
            for line in f.read(1 << 16).decode("ascii", "replace").splitlines():
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


MEMORY_OVERRIDE = "YACHT_MEMORY_CHECK"      # set to "off" to go on past check_memory's refusal


def check_memory(source, key, need: int, what: str, have: int | None = None) -> None:
    """Refuse work that would need about `need` bytes (an estimate made before it starts) when the
    machine has less available (`have`, default `available_memory()`): a `ConfigError` naming the option,
    both amounts and what to change, instead of a MemoryError or the machine swapping to a halt. The
    environment variable YACHT_MEMORY_CHECK=off lifts the check (the estimates are upper bounds)."""
    if os.environ.get(MEMORY_OVERRIDE, "").strip().lower() == "off":
        return
    have = available_memory() if have is None else have
    if have is not None and need > have:
        raise ConfigError(source, key, f"{what} would need about {need / 2**30:,.1f} GiB of memory and this "
                                       f"machine has {have / 2**30:,.1f} GiB available; ask for less (or set "
                                       f"{MEMORY_OVERRIDE}=off to try anyway)")


# --- naming presets and files ----------------------------------------------------------------------

def names_a_file(spec: str) -> bool:
    """True if `spec` names a file (has a `/` or `\\`, or a .yaml/.yml suffix), False for a preset."""
    return "/" in spec or "\\" in spec or spec.lower().endswith(YAML_SUFFIXES)


def preset_names(folder: Traversable) -> list[str]:
    """The names of the `*.yaml` presets in a package folder."""
    return sorted(p.name[:-5] for p in folder.iterdir() if p.name.endswith(".yaml") and p.is_file())


def find(spec, folder: Traversable, what: str, base=None, key: str = "name"):
    """The file a name refers to: the preset `folder/<spec>.yaml` for a bare name, else the path
    (a relative path is taken from the folder `base`, e.g. the folder of the file that names it).

    `spec` is text or a Path; an unknown preset name raises `ConfigError` listing the presets, with
    `key` (the option or config key naming it) and `what` (the kind of preset: "rule set").
    """
    if isinstance(spec, str) and not names_a_file(spec):
        entry = folder / f"{spec}.yaml"
        if PRESET_NAME.fullmatch(spec) and entry.is_file():
            return entry
        example = f" (./{spec}.yaml)" if PRESET_NAME.fullmatch(spec) else ""
        raise ConfigError(spec, key, f"no such {what}; presets: {', '.join(preset_names(folder))}; a file is "
                                     f"named with a path or a .yaml suffix{example}")
    path = Path(spec)
    if base is not None and not path.is_absolute():
        path = Path(base) / path
    return path


# --- typed checks ----------------------------------------------------------------------------------

def shown(value, limit: int = 60) -> str:
    """`value` as a message quotes it: its repr, cut to `limit` characters (a number too long for Python to
    print is said so)."""
    try:
        text = repr(value)
    except ValueError:                  # an int past sys.get_int_max_str_digits()
        return "a number too long to print"
    return text if len(text) <= limit else text[:limit] + "…"


def _n(x) -> str:
    return f"{x:,}" if isinstance(x, int) and abs(x) >= 10_000 else f"{x:,g}" if isinstance(x, float) else str(x)


def finite(value) -> bool:
    """A real number that is finite: an int of any size (not true/false) or a finite float. Safe for ints
    too large for a float, where `math.isfinite` raises."""
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (isinstance(value, float) and math.isfinite(value))


def whole(source, key, value, lo: int, hi: int) -> int:
    """A whole number lo..hi (not true/false, not 3.0)."""
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise ConfigError(source, key, f"must be a whole number from {_n(lo)} to {_n(hi)}, got {shown(value)}")
    return value


def number(source, key, value, lo: float, hi: float, above: bool = False) -> float:
    """A finite number lo..hi (above=True: more than lo), as a float."""
    ok = finite(value) and (value > lo if above else value >= lo) and value <= hi    # ints compare exactly
    if not ok:
        span = f"above {_n(lo)} and at most {_n(hi)}" if above else f"from {_n(lo)} to {_n(hi)}"
        raise ConfigError(source, key, f"must be a finite number {span}, got {shown(value)}")
    return float(value)


def choice(source, key, value, choices):
    """One of `choices`."""
    if isinstance(value, bool) or value not in choices:
        raise ConfigError(source, key, f"must be one of {', '.join(map(str, choices))}, got {shown(value)}")
    return value


def flag(source, key, value) -> bool:
    """true or false."""
    if not isinstance(value, bool):
        raise ConfigError(source, key, f"must be true or false, got {shown(value)}")
    return value


def text(source, key, value, max_len: int = 200, lines: bool = False) -> str:
    """Non-empty text (surrounding spaces dropped) of at most max_len characters, without control
    characters (lines=True allows newlines and tabs)."""
    if not isinstance(value, str):
        quote = " (quote it)" if value is not None else ""
        raise ConfigError(source, key, f"must be text, got {shown(value)}{quote}")
    value = value.strip()
    if not value:
        raise ConfigError(source, key, "must not be empty")
    if len(value) > max_len:
        raise ConfigError(source, key, f"must be at most {max_len} characters, got {len(value)}")
    allowed = "\n\t" if lines else ""
    if any(unicodedata.category(c).startswith("C") and c not in allowed for c in value):
        raise ConfigError(source, key, f"must not contain control characters, got {shown(value)}")
    return value


def mapping(source, key, value, allowed=None) -> dict:
    """A mapping; with `allowed`, every key must be one of them (a renamed key says its new name)."""
    if not isinstance(value, dict):
        raise ConfigError(source, key, f"must be a mapping, got {_kind(value)}")
    if allowed is not None:
        for k in value:
            if k not in allowed:
                at = f"{key}.{k}" if key and key != "top level" else k
                if k in RENAMED and RENAMED[k] in allowed:
                    raise ConfigError(source, at, f"renamed: write `{RENAMED[k]}:` instead (rule overrides are "
                                                  f"`set:` in every config, as `--set` on the command line)")
                raise ConfigError(source, at, f"unknown key; allowed: {', '.join(allowed)}")
    return value


def overrides(source, key, value) -> dict:
    """Rule overrides (`set:` in every config, `--set` on the command line): a mapping whose keys are
    text, rule keys such as `rolls_per_turn` or dotted ones such as `boxes.full_house.points`. The
    values are checked when the rules are loaded (`yacht_env.rules.load`), which names the key."""
    mapping(source, key, value)
    for name in value:
        if not isinstance(name, str):
            raise ConfigError(source, key, f"rule keys are names such as rolls_per_turn or boxes.full_house.points, "
                                           f"got {name!r:.40}")
    return value


def items(source, key, value, lo: int, hi: int) -> list:
    """A list of lo..hi items."""
    if not isinstance(value, list):
        raise ConfigError(source, key, f"must be a list, got {_kind(value)}")
    if not lo <= len(value) <= hi:
        raise ConfigError(source, key, f"must have {lo} to {_n(hi)} items, got {len(value):,}")
    return value


def _kind(value) -> str:
    if isinstance(value, (dict, list)):
        return "a mapping" if isinstance(value, dict) else "a list"
    return repr(value)


MAX_SLUG_BYTES = 100   # a file name's part for a name, in UTF-8 bytes (file names hold at most 255 bytes)


def slug(name: str) -> str:
    """The part of a file name that stands for `name`: letters and digits, lower case, every run of
    other characters one `_` (`A.b`, `a b` and `a_b` all give `a_b`); at most MAX_SLUG_BYTES bytes of
    UTF-8 (a longer one is cut and ends in a hash of the whole name, so it stays a valid file name on
    every file system). Names that must not share a file (tournament entrants) must have distinct slugs."""
    s = re.sub(r"[\W_]+", "_", unicodedata.normalize("NFKC", name).casefold()).strip("_") or "_"
    if len(s.encode("utf-8")) > MAX_SLUG_BYTES:
        tag = hashlib.sha256(s.encode("utf-8")).hexdigest()[:10]
        cut = s.encode("utf-8")[:MAX_SLUG_BYTES - 11].decode("utf-8", "ignore")
        s = f"{cut}_{tag}"
    return s
