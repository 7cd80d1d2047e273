"""Read a rule set from YAML (by preset name or path), apply overrides, validate."""
import functools
import hashlib
import json
from pathlib import Path

import yaml

from .boxes import KINDS, SCORES, Box
from .errors import RuleError
from .ruleset import JOKERS, TIEBREAKS, RuleSet

TOP_KEYS = {"name", "description", "extends", "boxes", "upper_bonus", "extra_yacht_bonus", "joker",
            "rolls_per_turn", "columns", "teams", "tiebreak", "players", "full_house_flat"}
BOX_KEYS = {"id", "kind", "face", "count", "points", "runs", "length", "five_alike"}


def rules_dir() -> Path:
    """Folder of the preset rule files (`configs/rules`)."""
    return Path(__file__).resolve().parent.parent / "configs" / "rules"


def presets() -> list[str]:
    """Names of the preset rule sets."""
    return sorted(p.stem for p in rules_dir().glob("*.yaml"))


def _read(name_or_path: str) -> tuple[dict, str]:
    data, source = _read_file(str(name_or_path), _mtime(name_or_path))
    return json.loads(json.dumps(data)), source


def _mtime(name_or_path: str) -> float:
    for path in (Path(name_or_path), rules_dir() / f"{name_or_path}.yaml"):
        try:
            return path.stat().st_mtime
        except OSError:
            continue
    return 0.0


@functools.lru_cache(maxsize=256)
def _read_file(name_or_path: str, mtime: float) -> tuple[dict, str]:
    path = Path(name_or_path)
    if not (path.suffix in (".yaml", ".yml") or path.exists()):
        path = rules_dir() / f"{name_or_path}.yaml"
        if not path.exists():
            raise RuleError(str(name_or_path), "rules",
                            f"no such rule set; presets: {', '.join(presets())}, or a path to a .yaml file")
    if not path.exists():
        raise RuleError(str(path), "rules", "file not found")
    try:
        data = yaml.safe_load(path.read_text())
    except yaml.YAMLError as e:
        raise RuleError(str(path), "yaml", f"not valid YAML ({str(e).splitlines()[0]})") from None
    if not isinstance(data, dict):
        raise RuleError(str(path), "top level", "must be a mapping of rule keys")
    if "extends" in data:
        base, _ = _read(str(data["extends"]) if "/" in str(data["extends"]) else data["extends"])
        base.pop("name", None)
        base.pop("description", None)
        data = _merge(base, {k: v for k, v in data.items() if k != "extends"})
    return data, str(path)


def _merge(base: dict, top: dict) -> dict:
    out = dict(base)
    for k, v in top.items():
        out[k] = _merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def parse_value(text: str):
    """A `--set key=value` value: YAML scalars (true, 25, free, [1, 2])."""
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError:
        return text


def parse_sets(pairs) -> dict:
    """Turn `["key=value", ...]` into an overrides dict; dotted keys allowed."""
    out = {}
    for pair in pairs or []:
        if "=" not in pair:
            raise RuleError("--set", pair, "expected key=value, for example --set rolls_per_turn=2")
        key, value = pair.split("=", 1)
        out[key.strip()] = parse_value(value.strip())
    return out


def _apply_override(data: dict, key: str, value, source: str):
    parts = key.split(".")
    if parts[0] == "boxes" and len(parts) == 3:
        for b in data.get("boxes", []):
            if isinstance(b, dict) and b.get("id") == parts[1]:
                b[parts[2]] = value
                return
        raise RuleError(source, key, f"no box {parts[1]!r} to change")
    if parts[0] not in TOP_KEYS - {"boxes", "extends"}:
        raise RuleError(source, key, f"unknown key; allowed: {', '.join(sorted(TOP_KEYS - {'extends'}))}")
    target = data
    for p in parts[:-1]:
        target = target.setdefault(p, {})
        if not isinstance(target, dict):
            raise RuleError(source, key, "cannot set a part of a plain value")
    target[parts[-1]] = value


def load(name_or_path="yacht", **overrides) -> RuleSet:
    """Load a rule set by preset name or YAML path and apply overrides.

    Overrides use the rule file's keys (`joker="free"`, `rolls_per_turn=2`, `columns=2`);
    dotted keys reach inside (`{"upper_bonus.points": 50}`, `{"boxes.full_house.points": 25}`).
    """
    if isinstance(name_or_path, RuleSet):
        if not overrides:
            return name_or_path
        data, source = name_or_path.to_dict(), name_or_path.source or name_or_path.name
    elif isinstance(name_or_path, dict):
        data, source = json.loads(json.dumps(name_or_path)), "<dict>"
    elif not overrides:
        return _load_plain(str(name_or_path), _mtime(str(name_or_path)))
    else:
        data, source = _read(str(name_or_path))
    data = json.loads(json.dumps(data))  # deep copy
    for key, value in overrides.items():
        _apply_override(data, key, value, f"{source} (override)")
    return _build_cached(json.dumps(data, sort_keys=True), source)


@functools.lru_cache(maxsize=64)
def _load_plain(name_or_path: str, mtime: float) -> RuleSet:
    data, source = _read(name_or_path)
    return _build_cached(json.dumps(data, sort_keys=True), source)


@functools.lru_cache(maxsize=256)
def _build_cached(data_json: str, source: str) -> RuleSet:
    # one RuleSet object per distinct rule dict, so its compiled tables are built once
    return build(json.loads(data_json), source)


def _int(source, key, value, lo, hi):
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise RuleError(source, key, f"must be a whole number from {lo} to {hi}, got {value!r}")
    return value


def _box(source: str, i: int, spec) -> Box:
    where = f"boxes[{i}]"
    if not isinstance(spec, dict):
        raise RuleError(source, where, "each box is a mapping with id and kind")
    unknown = set(spec) - BOX_KEYS
    if unknown:
        raise RuleError(source, f"{where}.{sorted(unknown)[0]}", f"unknown box key; allowed: {', '.join(sorted(BOX_KEYS))}")
    bid = spec.get("id")
    if not isinstance(bid, str) or not bid.isidentifier() or bid.lower() != bid:
        raise RuleError(source, f"{where}.id", f"must be a snake_case name, got {bid!r}")
    where = f"boxes.{bid}"
    kind = spec.get("kind")
    if kind not in KINDS:
        raise RuleError(source, f"{where}.kind", f"must be one of {', '.join(KINDS)}, got {kind!r}")
    points = spec.get("points", "sum")
    if not (points in SCORES or (isinstance(points, int) and not isinstance(points, bool) and 0 <= points <= 1000)):
        raise RuleError(source, f"{where}.points", f"must be sum, matching or a number 0..1000, got {points!r}")
    face = count = 0
    runs = ()
    if kind == "upper":
        face = _int(source, f"{where}.face", spec.get("face"), 1, 6)
        points = "sum"
    if kind == "of_a_kind":
        count = _int(source, f"{where}.count", spec.get("count"), 2, 5)
    elif points == "matching":
        raise RuleError(source, f"{where}.points", "matching is only for of_a_kind boxes")
    if kind == "straight":
        if "length" in spec:
            n = _int(source, f"{where}.length", spec["length"], 2, 6)
            runs = tuple(tuple(range(s, s + n)) for s in range(1, 8 - n))
        else:
            raw = spec.get("runs")
            if not isinstance(raw, list) or not raw or not all(
                    isinstance(r, list) and r and all(isinstance(f, int) and 1 <= f <= 6 for f in r) for r in raw):
                raise RuleError(source, f"{where}.runs", "a straight needs length: N or runs: a list of face lists")
            runs = tuple(tuple(sorted(set(r))) for r in raw)
        if any(len(r) > 5 for r in runs):
            raise RuleError(source, f"{where}.runs", "a run longer than five dice can never be made")
    if kind in ("yacht",) and points in SCORES:
        raise RuleError(source, f"{where}.points", "a yacht box scores a fixed number of points")
    five = spec.get("five_alike", False)
    if not isinstance(five, bool) or (five and kind != "full_house"):
        raise RuleError(source, f"{where}.five_alike", "true or false, and only for full_house")
    return Box(id=bid, kind=kind, face=face, count=count, points=points, runs=runs, five_alike=five)


def build(data: dict, source: str = "<dict>") -> RuleSet:
    """Validate a rule dict and freeze it into a `RuleSet`."""
    unknown = set(data) - TOP_KEYS
    if unknown:
        raise RuleError(source, sorted(unknown)[0], f"unknown key; allowed: {', '.join(sorted(TOP_KEYS - {'extends'}))}")
    raw_boxes = data.get("boxes")
    if not isinstance(raw_boxes, list) or not 1 <= len(raw_boxes) <= 20:
        raise RuleError(source, "boxes", "a list of 1 to 20 boxes is required")
    boxes = [_box(source, i, b) for i, b in enumerate(raw_boxes)]
    ids = [b.id for b in boxes]
    dup = {i for i in ids if ids.count(i) > 1}
    if dup:
        raise RuleError(source, "boxes", f"box ids must be unique; repeated: {', '.join(sorted(dup))}")
    faces = [b.face for b in boxes if b.upper]
    if len(set(faces)) != len(faces):
        raise RuleError(source, "boxes", "two upper boxes count the same face")
    flat = data.get("full_house_flat")
    if flat is not None:
        flat = _int(source, "full_house_flat", flat, 0, 1000)
        fh = [i for i, b in enumerate(boxes) if b.kind == "full_house"]
        if not fh:
            raise RuleError(source, "full_house_flat", "there is no full_house box to score flat")
        for i in fh:
            boxes[i] = Box(**{**boxes[i].__dict__, "points": flat})
    if sum(b.kind == "yacht" for b in boxes) > 1:
        raise RuleError(source, "boxes", "at most one yacht box")

    ub = data.get("upper_bonus", {"threshold": 63, "points": 35})
    if ub in (None, False):
        ub = {"threshold": 0, "points": 0}
    if not isinstance(ub, dict) or set(ub) - {"threshold", "points"}:
        raise RuleError(source, "upper_bonus", "a mapping {threshold: N, points: N}, or false for none")
    threshold = _int(source, "upper_bonus.threshold", ub.get("threshold", 63), 0, 105)
    ub_points = _int(source, "upper_bonus.points", ub.get("points", 35), 0, 1000)
    if ub_points and not faces:
        raise RuleError(source, "upper_bonus", "an upper bonus needs upper boxes")

    joker = data.get("joker", "forced")
    eyb = data.get("extra_yacht_bonus", 100)
    if eyb is True:
        eyb = 100
    elif eyb is False:  # seed 000's switch: no bonus and no joker rule
        eyb, joker = 0, "none"
    eyb = _int(source, "extra_yacht_bonus", eyb, 0, 1000)
    if joker not in JOKERS:
        raise RuleError(source, "joker", f"must be one of {', '.join(JOKERS)}, got {joker!r}")
    if (joker != "none" or eyb) and not any(b.kind == "yacht" for b in boxes):
        raise RuleError(source, "joker", "a joker rule or extra-Yacht bonus needs a yacht box")

    players = data.get("players", {"min": 1, "max": 8})
    if not isinstance(players, dict) or set(players) - {"min", "max"}:
        raise RuleError(source, "players", "a mapping {min: N, max: N} with 1 <= min <= max <= 8")
    lo = _int(source, "players.min", players.get("min", 1), 1, 8)
    hi = _int(source, "players.max", players.get("max", 8), 1, 8)
    if lo > hi:
        raise RuleError(source, "players", f"min ({lo}) is more than max ({hi})")
    teams = _int(source, "teams", data.get("teams", 0), 0, 4)
    if teams == 1:
        raise RuleError(source, "teams", "0 for no teams, or 2 to 4 teams")
    if teams and hi < 2 * teams:
        raise RuleError(source, "teams", f"{teams} teams need at least {2 * teams} players; players.max is {hi}")
    tiebreak = data.get("tiebreak", "share")
    if tiebreak not in TIEBREAKS:
        raise RuleError(source, "tiebreak", f"must be one of {', '.join(TIEBREAKS)}, got {tiebreak!r}")
    name = data.get("name") or Path(source).stem
    return RuleSet(
        name=str(name), boxes_spec=tuple(boxes), description=str(data.get("description", "")),
        upper_bonus_threshold=threshold if ub_points else 0, upper_bonus=ub_points,
        extra_yacht_bonus=eyb, joker=joker,
        rolls_per_turn=_int(source, "rolls_per_turn", data.get("rolls_per_turn", 3), 1, 5),
        columns=_int(source, "columns", data.get("columns", 1), 1, 3),
        teams=teams, tiebreak=tiebreak, min_players=lo, max_players=hi, source=source)


def ruleset_to_dict(rules: RuleSet) -> dict:
    boxes = []
    for b in rules.boxes_spec:
        d = {"id": b.id, "kind": b.kind}
        if b.upper:
            d["face"] = b.face
        else:
            d["points"] = b.points
        if b.count:
            d["count"] = b.count
        if b.runs:
            d["runs"] = [list(r) for r in b.runs]
        if b.five_alike:
            d["five_alike"] = True
        boxes.append(d)
    return {"name": rules.name, "description": rules.description, "boxes": boxes,
            "upper_bonus": {"threshold": rules.upper_bonus_threshold, "points": rules.upper_bonus},
            "extra_yacht_bonus": rules.extra_yacht_bonus, "joker": rules.joker,
            "rolls_per_turn": rules.rolls_per_turn, "columns": rules.columns, "teams": rules.teams,
            "tiebreak": rules.tiebreak, "players": {"min": rules.min_players, "max": rules.max_players}}


def rules_hash(rules: RuleSet) -> str:
    """A short stable hash of what the rules mean (not of their name or file)."""
    d = ruleset_to_dict(rules)
    d.pop("name"), d.pop("description")
    return hashlib.sha256(json.dumps(d, sort_keys=True).encode()).hexdigest()[:16]
