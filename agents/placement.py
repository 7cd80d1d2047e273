"""Where a person's play sits on the strength dial ("you played like strength 0.72").

**The dial's curve.** For a rule set, `strong?strength=S` (`agents.dial.DialAgent`) plays `GAMES` solitaire
games at every S of `GRID` (the same dice at every S), and the move analysis (`agents.analysis.analyze`,
the solver's values: the same figure the analysis board shows a person) values every decision. The curve
is, per S, the mean expected points lost per decision and the spread (standard deviation) of one decision's
loss. The mean falls as S rises (0 at S = 1); a running minimum from S = 0 up removes the noise of a
finite run where two neighbouring means are within it.

**The inverse.** A person who lost `loss` points in `decisions` decisions lost m = loss / decisions per
decision: their strength is the S whose curve mean is m (linear between grid points; m = 0 is strength 1,
m above the curve's top is strength 0). The interval is every S whose mean is within Z95 standard errors of
m, a standard error being the curve's spread at S over sqrt(decisions): the dial settings that would lose
m per decision in a game of that length 95% of the time (decisions taken as independent; one game of the
`yacht` preset is about 37 decisions: a game played like 0.7 is placed within about 0.57 .. 0.76, ten such
games within about 0.67 .. 0.72).

The curve is built once per rule set (`calibration_rules`, as the levels are) in a few seconds, kept as a
JSON file in the solver's cache folder (`curve_path`) and, for the presets in `SHIPPED_CURVES`, shipped
with the package (scripts/ship_data.py). `level_strengths` gives the named levels' strengths when they are
known without calibrating (kept or shipped), to say which levels a placement falls between.
"""
import json
import math
import os
from dataclasses import asdict, dataclass
from importlib.resources import files

import numpy as np

from yacht_env.rules import rules_hash
from yacht_env.safe_file import FileRefused, read_text, write_atomic
from yacht_env.solver import SOLVER_VERSION, cache_dir

from .analysis import analyze
from .calibration import calibration_rules
from .dial import DIAL_VERSION, DialAgent
from .evaluation import solitaire
from .level_settings import SHIPPED, protocol, read_settings, shipped_settings
from .stats import Z95
from .strong import StrongAgent
from .targets import LEVELS, level_target

CURVE_SEED = 1_000_014          # dice of the curve's games (the calibrations' are 1_000_012)
GAMES = 500                     # solitaire games per grid point
GRID = tuple(round(i / 20, 2) for i in range(21))   # strengths 0, 0.05, .., 1
FINE = 1001                     # points of the interpolated curve the inverse reads
MAX_CURVE_BYTES = 1 << 16
SHIPPED_CURVES = ("yacht", "yatzy")     # presets whose curve ships (scripts/ship_data.py)


@dataclass(frozen=True)
class Curve:
    """strengths (ascending, 0 .. 1), mean (expected points lost per decision, non-increasing) and sd (the
    spread of one decision's loss) per strength; made from `games` solitaire games per strength, `seed`."""
    strengths: tuple
    mean: tuple
    sd: tuple
    games: int
    seed: int

    def to_json(self) -> dict:
        return {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self).items()}

    @classmethod
    def from_json(cls, doc) -> "Curve":
        """A stored curve; ValueError if it is damaged."""
        try:
            c = cls(tuple(doc["strengths"]), tuple(doc["mean"]), tuple(doc["sd"]), doc["games"], doc["seed"])
            s, m, d = (np.array(x, dtype=np.float64) for x in (c.strengths, c.mean, c.sd))
            ok = (type(c.games) is int and type(c.seed) is int and len(s) >= 2 and len(s) == len(m) == len(d)
                  and np.isfinite(np.r_[s, m, d]).all() and s[0] == 0.0 and s[-1] == 1.0
                  and (np.diff(s) > 0).all() and (np.diff(m) <= 0).all() and (m >= 0).all() and (d >= 0).all())
        except (TypeError, KeyError, ValueError):
            ok = False
        if not ok:
            raise ValueError("damaged level curve")
        return c


def build_curve(rules, games: int = GAMES, seed: int = CURVE_SEED, grid=GRID,
                strong: StrongAgent | None = None) -> Curve:
    """The dial's curve under `rules` (see the module docstring): `games` solitaire games of the dial at every
    strength of `grid`, on the same dice, every decision valued by the move analysis."""
    rules = calibration_rules(rules)
    shared = strong if strong is not None else StrongAgent()
    means, sds = [], []
    for s in grid:
        logs = solitaire(DialAgent(s, shared), rules, games, seed, progress=False, logs=True)["logs"]
        a = analyze([{"agents": ["dial"], "log": log} for log in logs], rules)
        loss = a.loss[a.own]
        means.append(float(loss.mean()))
        sds.append(float(loss.std(ddof=1)))
    means = np.minimum.accumulate(np.array(means)).tolist()
    return Curve(tuple(float(s) for s in grid), tuple(means), tuple(sds), games, seed)


def curve_name(rules) -> str:
    """The file name of a rule set's curve (the same in the cache folder and in the package)."""
    return f"level-curve-v{DIAL_VERSION}-s{SOLVER_VERSION}-{rules_hash(calibration_rules(rules))}.json"


def curve_path(rules):
    """Where a rule set's curve is kept (the solver's cache folder)."""
    return cache_dir() / curve_name(rules)


def shipped_curve_path(rules):
    """Where the package keeps a preset's curve (package data beside the levels' calibrations)."""
    return files(__package__) / SHIPPED / curve_name(rules)


def read_curve(rules, path) -> Curve | None:
    """The curve kept in `path` for `rules`; None when missing, unreadable, damaged or another rule set's."""
    try:
        text = read_text(path, MAX_CURVE_BYTES, "level curve") if isinstance(path, os.PathLike) else path.read_text()
        doc = json.loads(text)
        if not isinstance(doc, dict) or doc.get("rules_hash") != rules_hash(calibration_rules(rules)) \
                or doc.get("games") != GAMES or doc.get("seed") != CURVE_SEED:
            return None
        return Curve.from_json(doc)
    except (FileRefused, OSError, ValueError, RecursionError):
        return None


def write_curve(rules, curve: Curve, path=None) -> bool:
    """Keep a rule set's curve (in `path`, default `curve_path(rules)`); False when it cannot be written."""
    crules = calibration_rules(rules)
    doc = {"rules": crules.name, "rules_hash": rules_hash(crules), **curve.to_json()}
    try:
        write_atomic(curve_path(rules) if path is None else path, json.dumps(doc, indent=1) + "\n", "level curve")
    except (OSError, FileRefused):
        return False
    return True


_CURVES: dict = {}


def curve_for(rules) -> Curve:
    """The rule set's curve: remembered, kept, shipped, or built now (a few seconds) and kept."""
    key = rules_hash(calibration_rules(rules))
    curve = _CURVES.get(key) or read_curve(rules, curve_path(rules)) or read_curve(rules, shipped_curve_path(rules))
    if curve is None:
        curve = build_curve(rules)
        write_curve(rules, curve)
    _CURVES[key] = curve
    return curve


def place(curve: Curve, loss_per_decision: float, decisions: int) -> dict:
    """{"strength", "low", "high"}: the dial setting whose expected loss per decision is `loss_per_decision`,
    and the 95% interval for a player of `decisions` decisions (module docstring)."""
    s = np.linspace(0.0, 1.0, FINE)
    mean = np.interp(s, curve.strengths, curve.mean)
    sd = np.interp(s, curve.strengths, curve.sd)
    m = max(0.0, float(loss_per_decision))
    if m <= mean[-1]:
        point = 1.0
    elif m >= mean[0]:
        point = 0.0
    else:
        i = int(np.flatnonzero(mean <= m)[0])        # the first fine point at or below m (mean non-increasing)
        a, b = mean[i - 1], mean[i]
        point = float(s[i - 1] + (s[i] - s[i - 1]) * ((a - m) / (a - b) if a > b else 1.0))
    half = Z95 * sd / math.sqrt(max(1, decisions))
    near = s[np.abs(mean - m) <= half + 1e-12]
    low = min(point, float(near.min())) if len(near) else point
    high = max(point, float(near.max())) if len(near) else point
    return {"strength": round(point, 3), "low": round(low, 3), "high": round(high, 3)}


def level_strengths(rules) -> dict:
    """{level name: strength} of the named levels known under `rules` without calibrating (kept in the cache
    folder or shipped), with strong at 1, in order of strength."""
    kept = {**shipped_settings(rules), **read_settings(rules)}
    out = {}
    for name in LEVELS:
        found = kept.get(protocol(level_target(name)))
        if found is not None:
            out[name] = found.strength
    out["strong"] = 1.0
    return dict(sorted(out.items(), key=lambda kv: kv[1]))


def placement(rules, loss: float, decisions: int) -> dict:
    """A person's game on the dial: {"strength", "low", "high", "decisions", "loss_per_decision", "levels"}
    (`place` on the rule set's curve; `levels`: `level_strengths`, for saying where it falls)."""
    per = loss / decisions if decisions else 0.0
    return {**place(curve_for(rules), per, decisions), "decisions": decisions, "loss_per_decision": per,
            "levels": level_strengths(rules)}
