"""Read a rule set from YAML (a preset name or a file path), apply overrides, validate.

A bare name (`yacht`, `classic`) is always a preset, a file of `yacht_env/rules/presets/`; a rules
file is named with a path or a .yaml/.yml suffix (`./mine.yaml`, `rules/mine.yaml`). `extends: NAME`
in a file starts from another rule set, by the same naming; a relative path is taken from the
folder of the file that says `extends:`. A chain that comes back to a file is refused.
"""
import functools
import hashlib
import json
import os
import shlex
from contextlib import contextmanager
from importlib.resources import files
from pathlib import Path

from ..config import (ConfigError, choice, find, mapping, names_a_file, parse_yaml, preset_names, read_yaml, text,
                      whole)
from ..core.dice import DICE_COUNTS, FACES
from .boxes import KINDS, SCORES, Box
from .errors import RuleError
from .ruleset import FIRST_PLAYERS, JOKERS, TIEBREAKS, RuleSet

TOP_KEYS = ("name", "description", "extends", "boxes", "upper_bonus", "extra_yacht_bonus", "joker",
            "rolls_per_turn", "columns", "teams", "tiebreak", "first_player", "players", "full_house_flat",
            "forced_order", "dice", "saved_rolls")
BOX_KEYS = ("id", "kind", "face", "count", "points", "runs", "length", "five_alike", "four_alike", "sizes")
# the keys each kind of box uses besides id and kind: any other is refused, never accepted and ignored
KIND_KEYS = {"upper": ("face",), "of_a_kind": ("count", "points"), "pairs": ("count", "points", "four_alike"),
             "full_house": ("points", "five_alike"), "two_pairs": ("points", "four_alike"),
             "straight": ("length", "runs", "points"), "yacht": ("points",),
             "chance": ("points",), "groups": ("sizes", "points")}
RULE_KEYS = tuple(k for k in TOP_KEYS if k != "extends")
SETTABLE = tuple(k for k in TOP_KEYS if k not in ("extends", "boxes")) + ("boxes.ID.FIELD",)
PRESETS = files(__package__) / "presets"
MAX_EXTENDS = 16
# what `RuleSet.to_dict` leaves out when a key has its default
UNSET = {"first_player": "fixed", "forced_order": False, "dice": 5, "saved_rolls": 0}
MAX_SAVED_ROLLS = 40    # rolls a sheet may carry: Maxi Yatzy's 20 turns save at most 2 x 19 = 38


@contextmanager
def _rule_errors():
    """Raise the config layer's errors as `RuleError` (its subclass for rules)."""
    try:
        yield
    except RuleError:
        raise
    except ConfigError as e:
        raise RuleError(*e.args) from None


def solitaire_rules(rules: RuleSet) -> RuleSet:
    """The rule set as one player alone plays it: no teams, no tiebreak, one to eight players (what the
    solver's value table and a sheet played alone depend on)."""
    if rules.teams or rules.tiebreak != "share" or (rules.min_players, rules.max_players) != (1, 8):
        rules = load(rules, teams=0, tiebreak="share", players={"min": 1, "max": 8})
    return rules


def presets() -> list[str]:
    """Names of the preset rule sets."""
    return preset_names(PRESETS)


def read_rules(spec, base=None) -> tuple[dict, str]:
    """The rule dict a preset name or file path gives, its `extends:` chain merged in, and its source
    (the preset name or the file's path). A relative path is taken from the folder `base`
    (default: the working folder)."""
    if isinstance(spec, str) and not spec.strip():
        raise RuleError("rules", "must name a preset or a rules file, got ''")
    with _rule_errors():
        return _resolve(spec.strip() if isinstance(spec, str) else spec, base, ())


def _resolve(spec, base, chain: tuple) -> tuple[dict, str]:
    where = find(spec, PRESETS, "rule set", base, key="rules")
    preset = isinstance(spec, str) and not names_a_file(spec)
    source = spec if preset else str(where)
    data, ident = _read_file(where)
    seen = [i for i, _ in chain]
    if ident in seen:
        names = " -> ".join([s for _, s in chain[seen.index(ident):]] + [source])
        raise RuleError(chain[-1][1], "extends", f"a cycle: {names}")
    if len(chain) >= MAX_EXTENDS:
        raise RuleError(chain[-1][1], "extends", f"a chain of more than {MAX_EXTENDS} rule files")
    return _extend(data, source, None if preset else where.parent, chain + ((ident, source),))


def _extend(data, source: str, folder, chain: tuple) -> tuple[dict, str]:
    if not isinstance(data, dict):
        raise RuleError(source, "top level", "must be a mapping of rule keys")
    if "extends" not in data:
        return data, source
    base = data.pop("extends")
    if not isinstance(base, str) or not base.strip():
        raise RuleError(source, "extends", f"must be one preset name or one path to a rules file, got {base!r}")
    merged, _ = _resolve(base.strip(), folder, chain)
    merged.pop("name", None)
    merged.pop("description", None)
    return _merge(merged, data), source


def _read_file(where) -> tuple[dict, tuple]:
    """(the YAML data of one rules file, the file's identity). The data comes from a cache keyed by
    the file's device, inode, modification time and size, so a path means the same file from any
    working folder, and an edited file is read again."""
    try:
        st = where.stat() if isinstance(where, Path) else None
    except (OSError, ValueError):
        return _read_yaml(where), ("unreadable", str(where))  # read_yaml names the problem
    ident = (st.st_dev, st.st_ino) if st is not None else ("resource", str(where))
    key = (ident, st.st_mtime_ns, st.st_size) if st is not None else ident
    return json.loads(_read_cached(key, where)), ident  # a fresh copy for every caller


@functools.lru_cache(maxsize=256)
def _read_cached(key, where) -> str:
    return json.dumps(_read_yaml(where))


def _read_yaml(where):
    return read_yaml(where, "rules file")


def _merge(base: dict, top: dict) -> dict:
    out = dict(base)
    for k, v in top.items():
        out[k] = _merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def parse_value(text_: str, source: str = "--set"):
    """A `--set key=value` value, read as YAML by the config layer's reader (true, 25, free, [1, 2])."""
    with _rule_errors():
        return parse_yaml(text_, source)


def parse_sets(pairs) -> dict:
    """Turn `["key=value", ...]` into an overrides dict; dotted keys allowed."""
    out = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise RuleError("--set", pair, "expected key=value, for example --set rolls_per_turn=2")
        out[key.strip()] = parse_value(value.strip(), f"--set {key.strip()}")
    return out


def _apply_override(data: dict, key: str, value, source: str):
    parts = key.split(".")
    if parts[0] == "boxes":
        if len(parts) != 3:
            raise RuleError(source, key, "boxes are changed one field at a time: boxes.ID.FIELD, "
                                         "e.g. boxes.full_house.points=30")
        boxes = data.get("boxes")
        for b in boxes if isinstance(boxes, list) else []:
            if isinstance(b, dict) and b.get("id") == parts[1]:
                if parts[2] in ("runs", "length"):          # a straight's runs replace its length, and back
                    b.pop("length" if parts[2] == "runs" else "runs", None)
                b[parts[2]] = value
                return
        raise RuleError(source, key, f"no box {parts[1]!r} to change")
    if parts[0] not in SETTABLE:
        raise RuleError(source, key, f"unknown key; allowed: {', '.join(SETTABLE)}")
    target = data
    for p in parts[:-1]:
        target = target.setdefault(p, {})
        if not isinstance(target, dict):
            raise RuleError(source, key, "cannot set a part of a plain value")
    target[parts[-1]] = value


def load(name_or_path="yacht", **overrides) -> RuleSet:
    """Load a rule set by preset name, rules file path or dict, and apply overrides.

    A bare name is a preset; a file is named with a path or a .yaml/.yml suffix (`./mine.yaml`).
    Overrides use the rule file's keys (`joker="free"`, `rolls_per_turn=2`, `columns=2`);
    dotted keys reach inside (`{"upper_bonus.points": 50}`, `{"boxes.full_house.points": 25}`).
    Raises `RuleError` (a `ConfigError`) naming the file, the key and what is allowed.
    """
    if isinstance(name_or_path, RuleSet):
        if not overrides:
            return name_or_path
        data, source = name_or_path.to_dict(), name_or_path.source or name_or_path.name
    elif isinstance(name_or_path, dict):
        with _rule_errors():
            data, source = _extend(_plain(name_or_path, "<dict>"), "<dict>", None, ())
    elif isinstance(name_or_path, (str, os.PathLike)):
        data, source = read_rules(name_or_path)
    else:
        raise RuleError("rules", f"a preset name, a rules file path, a mapping or a RuleSet, got {name_or_path!r}")
    for key, value in overrides.items():
        _apply_override(data, key, value, f"{source} (override)")
    try:
        return _build_cached(_json(data, source), source)
    except RuleError as e:
        if any(e.key == k or e.key.startswith(k + ".") for k in overrides):  # the override's value is wrong
            raise RuleError(f"{source} (override)", e.key, e.problem) from None
        raise


def _plain(data, source: str):
    return json.loads(_json(data, source))


def _json(data, source: str) -> str:
    try:
        return json.dumps(data, sort_keys=True)
    except (TypeError, ValueError) as e:
        raise RuleError(source, "rules", f"must hold only mappings, lists, text, numbers, true/false and null "
                                         f"({e})") from None


@functools.lru_cache(maxsize=256)
def _build_cached(data_json: str, source: str) -> RuleSet:
    # one RuleSet object per distinct rule dict, so its compiled tables are built once
    return build(json.loads(data_json), source)


def _box(source: str, i: int, spec, n: int) -> Box:
    """Box i of a rules file played with n dice; refused when it is malformed or can never be made with n dice."""
    where = f"boxes[{i}]"
    if not isinstance(spec, dict):
        raise RuleError(source, where, "each box is a mapping with id and kind")
    mapping(source, where, spec, BOX_KEYS)
    bid = spec.get("id")
    if not isinstance(bid, str) or not bid.isidentifier() or bid.lower() != bid:
        raise RuleError(source, f"{where}.id", f"must be a snake_case name, got {bid!r}")
    where = f"boxes.{bid}"
    kind = choice(source, f"{where}.kind", spec.get("kind"), KINDS)
    points = spec.get("points", "sum")
    if not (points in SCORES or (isinstance(points, int) and not isinstance(points, bool) and 0 <= points <= 1000)):
        raise RuleError(source, f"{where}.points", f"must be sum, matching or a number 0..1000, got {points!r}")
    face = count = 0
    runs = ()
    if kind == "upper":
        face = whole(source, f"{where}.face", spec.get("face"), 1, 6)
        points = "sum"
    sizes = ()
    if kind == "of_a_kind":
        count = whole(source, f"{where}.count", spec.get("count"), 2, n)
    elif kind == "pairs":
        count = whole(source, f"{where}.count", spec.get("count"), 1, 3)
        if 2 * count > n:
            raise RuleError(source, f"{where}.count", f"{count} pairs of different faces need {2 * count} dice; "
                                                      f"with {n} dice a pairs box takes count 1 to {n // 2}")
    elif kind == "groups":
        sizes = _sizes(source, f"{where}.sizes", spec.get("sizes"), n)
    elif points == "matching" and kind != "two_pairs":
        raise RuleError(source, f"{where}.points", "matching is only for of_a_kind, pairs, two_pairs and groups "
                                                   "boxes")
    if kind == "full_house" and n != 5:
        raise RuleError(source, f"{where}.kind", f"a full_house (three and two of a kind, nothing else) can never be "
                                                 f"made with {n} dice; write kind: groups, sizes: [3, 2]")
    if kind == "straight":
        if "length" in spec:
            length = whole(source, f"{where}.length", spec["length"], 2, n)
            runs = tuple(tuple(range(s, s + length)) for s in range(1, 8 - length))
        else:
            raw = spec.get("runs")
            if not isinstance(raw, list) or not 1 <= len(raw) <= 32 or not all(
                    isinstance(r, list) and 1 <= len(r) <= 6
                    and all(isinstance(f, int) and not isinstance(f, bool) and 1 <= f <= 6 for f in r) for r in raw):
                raise RuleError(source, f"{where}.runs", "a straight needs length: N or runs: a list of face lists")
            runs = tuple(tuple(sorted(set(r))) for r in raw)
        if any(len(r) > n for r in runs):
            raise RuleError(source, f"{where}.runs", f"a run longer than the dice ({n}) can never be made; "
                                                     f"runs of 1 to {n} faces are allowed")
    if kind in ("yacht",) and points in SCORES:
        raise RuleError(source, f"{where}.points", "a yacht box scores a fixed number of points")
    five = spec.get("five_alike", False)
    if not isinstance(five, bool) or (five and kind != "full_house"):
        raise RuleError(source, f"{where}.five_alike", "true or false, and only for full_house")
    four = spec.get("four_alike", False)
    if not isinstance(four, bool):
        raise RuleError(source, f"{where}.four_alike", f"true or false, got {four!r}")
    if four and kind == "pairs" and count < 2:
        raise RuleError(source, f"{where}.four_alike", "four of a kind counting as two pairs needs a box of 2 or "
                                                       "more pairs; nothing would change")
    unused = [k for k in spec if k not in ("id", "kind", *KIND_KEYS[kind])]
    if unused:
        article = "an" if kind[0] in "aeiou" else "a"
        keys = ", ".join(KIND_KEYS[kind])
        raise RuleError(source, f"{where}.{unused[0]}",
                        f"{article} {kind} box does not use {unused[0]} (its keys: id, kind, {keys}); "
                        f"nothing would change")
    if "length" in spec and "runs" in spec:
        raise RuleError(source, f"{where}.runs", "a straight takes length or runs, not both (length would win)")
    return Box(id=bid, kind=kind, face=face, count=count, points=points, runs=runs, five_alike=five,
               four_alike=four, sizes=sizes)


def _sizes(source: str, key: str, raw, n: int) -> tuple:
    """A groups box's sizes: 1 to 6 whole numbers from 1 to n, largest first once read (the order does not
    change what fits or what it scores), whose total is at most n (the groups' faces differ, so their dice
    are distinct dice)."""
    if not isinstance(raw, list) or not 1 <= len(raw) <= FACES or not all(
            isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= n for v in raw):
        raise RuleError(source, key, f"a list of 1 to {FACES} group sizes, each a whole number from 1 to {n}, "
                                     f"e.g. [3, 2] for a full house; got {raw!r}")
    if sum(raw) > n:
        raise RuleError(source, key, f"groups of {' + '.join(map(str, raw))} dice need {sum(raw)} dice; with {n} "
                                     f"dice the sizes may add up to at most {n}")
    return tuple(sorted(raw, reverse=True))


def build(data: dict, source: str = "<dict>") -> RuleSet:
    """Validate a rule dict (without `extends`) and freeze it into a `RuleSet`."""
    with _rule_errors():
        return _build(data, source)


def _build(data: dict, source: str) -> RuleSet:
    mapping(source, "top level", data, RULE_KEYS)
    raw_boxes = data.get("boxes")
    if not isinstance(raw_boxes, list) or not 1 <= len(raw_boxes) <= 20:
        raise RuleError(source, "boxes", "a list of 1 to 20 boxes is required")
    dice = whole(source, "dice", data.get("dice", 5), min(DICE_COUNTS), max(DICE_COUNTS))
    boxes = [_box(source, i, b, dice) for i, b in enumerate(raw_boxes)]
    ids = [b.id for b in boxes]
    dup = {i for i in ids if ids.count(i) > 1}
    if dup:
        raise RuleError(source, "boxes", f"box ids must be unique; repeated: {', '.join(sorted(dup))}")
    faces = [b.face for b in boxes if b.upper]
    if len(set(faces)) != len(faces):
        raise RuleError(source, "boxes", "two upper boxes count the same face")
    flat = data.get("full_house_flat")
    if flat is not None:
        flat = whole(source, "full_house_flat", flat, 0, 1000)
        fh = [i for i, b in enumerate(boxes) if b.kind == "full_house"]
        if not fh:
            raise RuleError(source, "full_house_flat", "there is no full_house box to score flat")
        for i in fh:
            boxes[i] = Box(**{**boxes[i].__dict__, "points": flat})
    if sum(b.kind == "yacht" for b in boxes) > 1:
        raise RuleError(source, "boxes", "at most one yacht box")
    forced_order = data.get("forced_order", False)
    if not isinstance(forced_order, bool):
        raise RuleError(source, "forced_order", f"true (boxes filled top to bottom) or false, got {forced_order!r}")

    ub = data.get("upper_bonus", {"threshold": 63, "points": 35})
    if ub in (None, False):
        ub = {"threshold": 0, "points": 0}
    if not isinstance(ub, dict) or set(ub) - {"threshold", "points"}:
        raise RuleError(source, "upper_bonus", "a mapping {threshold: N, points: N}, or false for none")
    threshold = whole(source, "upper_bonus.threshold", ub.get("threshold", 63), 0, 21 * dice)
    ub_points = whole(source, "upper_bonus.points", ub.get("points", 35), 0, 1000)
    if ub_points and not faces:
        raise RuleError(source, "upper_bonus", "an upper bonus needs upper boxes")

    joker = data.get("joker", "forced")
    eyb = data.get("extra_yacht_bonus", 100)
    if eyb is True:
        eyb = 100
    elif eyb is False:  # seed 000's switch: no bonus and no joker rule
        eyb, joker = 0, "none"
    eyb = whole(source, "extra_yacht_bonus", eyb, 0, 1000)
    joker = choice(source, "joker", joker, JOKERS)
    if (joker != "none" or eyb) and not any(b.kind == "yacht" for b in boxes):
        raise RuleError(source, "joker", "a joker rule or extra-Yacht bonus needs a yacht box")
    if forced_order and joker != "none":
        raise RuleError(source, "forced_order", f"boxes filled top to bottom leave no choice for the joker rule "
                                                f"{joker!r} to make: with forced_order, joker must be none")

    players = data.get("players", {"min": 1, "max": 8})
    if not isinstance(players, dict) or set(players) - {"min", "max"}:
        raise RuleError(source, "players", "a mapping {min: N, max: N} with 1 <= min <= max <= 8")
    lo = whole(source, "players.min", players.get("min", 1), 1, 8)
    hi = whole(source, "players.max", players.get("max", 8), 1, 8)
    if lo > hi:
        raise RuleError(source, "players", f"min ({lo}) is more than max ({hi})")
    teams = whole(source, "teams", data.get("teams", 0), 0, 4)
    if teams == 1:
        raise RuleError(source, "teams", "0 for no teams, or 2 to 4 teams")
    if teams and hi < 2 * teams:
        raise RuleError(source, "teams", f"{teams} teams need at least {2 * teams} players; players.max is {hi}")
    tiebreak = choice(source, "tiebreak", data.get("tiebreak", "share"), TIEBREAKS)
    first_player = choice(source, "first_player", data.get("first_player", "fixed"), FIRST_PLAYERS)
    name = text(source, "name", data.get("name") or Path(source).stem, max_len=100)
    description = data.get("description")
    description = "" if description in (None, "") else text(source, "description", description, 2000, lines=True)
    return RuleSet(
        name=name, boxes_spec=tuple(boxes), description=description, dice=dice,
        upper_bonus_threshold=threshold if ub_points else 0, upper_bonus=ub_points,
        extra_yacht_bonus=eyb, joker=joker, forced_order=forced_order,
        rolls_per_turn=whole(source, "rolls_per_turn", data.get("rolls_per_turn", 3), 1, 5),
        saved_rolls=whole(source, "saved_rolls", data.get("saved_rolls", 0), 0, MAX_SAVED_ROLLS),
        columns=whole(source, "columns", data.get("columns", 1), 1, 3),
        teams=teams, tiebreak=tiebreak, first_player=first_player, min_players=lo, max_players=hi, source=source)


def rules_hash(rules: RuleSet) -> str:
    """A short stable hash of what the rules mean (not of their name or file)."""
    d = rules.to_dict()
    d.pop("name"), d.pop("description")
    return hashlib.sha256(json.dumps(d, sort_keys=True).encode()).hexdigest()[:16]


def rules_block(rules: RuleSet, overrides: dict | None = None) -> dict:
    """How a result names the rules it ran: `{"name": ..., "set": {overrides}, "hash": rules_hash}`.

    Every `--json` result and run record carries this block, so two results with the same hash
    were played under the same rules whatever their names or overrides."""
    return {"name": rules.name, "set": dict(overrides or {}), "hash": rules_hash(rules)}


def command_args(rules: RuleSet) -> str:
    """How a command line names `rules`: `--rules SOURCE` (its preset or file) and a `--set key=value` for each
    key, or box field, in which the rules differ from that source (e.g. `--rules yatzy --set saved_rolls=2`).
    A rule set built from a dict (a web table's) is named by its name's preset. When no source can be read
    again or it differs in its boxes themselves, `--rules SOURCE` alone."""
    base = None
    for source in (rules.source, rules.name):     # its file or preset; a rule set made from a dict: its name's preset
        if source and not source.startswith("<"):
            try:
                base = load(source).to_dict()
                break
            except (RuleError, OSError):
                continue
    head = f"--rules {shlex.quote(source or rules.name)}"
    if base is None:
        return head
    mine = rules.to_dict()
    keys = [k for k in (*base, *(k for k in mine if k not in base)) if k not in ("name", "description", "boxes")]
    sets = [(k, mine.get(k, UNSET.get(k))) for k in keys if mine.get(k, UNSET.get(k)) != base.get(k, UNSET.get(k))]
    if [b["id"] for b in base["boxes"]] != [b["id"] for b in mine["boxes"]]:
        return head
    for old, new in zip(base["boxes"], mine["boxes"]):
        for f in sorted(set(old) | set(new)):
            if old.get(f) != new.get(f):
                if f not in new and not isinstance(old[f], bool):
                    return head
                sets.append((f"boxes.{new['id']}.{f}", new.get(f, False)))
    shown = " ".join("--set " + shlex.quote(f"{k}={v if isinstance(v, str) else json.dumps(v)}") for k, v in sets)
    return f"{head} {shown}" if shown else head


def rules_label(block: dict) -> str:
    """A rules block (`rules_block`) in words for text output: `yacht`, or `yacht with joker=free,
    rolls_per_turn=2` when `set` changed the rule set (values as `--set` takes them)."""
    sets = block.get("set") or {}
    shown = ", ".join(f"{key}={value if isinstance(value, str) else json.dumps(value)}" for key, value in sets.items())
    return f"{block['name']} with {shown}" if shown else str(block["name"])
