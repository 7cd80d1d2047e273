"""The named levels `easy` and `normal`, targets on the strength dial found per rule set, and the registry's
dial factories.

**Levels by construction.** The named levels are targets (`agents.targets.LEVELS`), so they adapt to any
rule set without hand tuning: `normal` is the strength that wins `NORMAL_WIN` of its games against
strong, `easy` the strength that wins `EASY_WIN` against normal. Each step of random < easy < normal <
strong is therefore about 70-80% head-to-head under every rule set (random is far below easy).
`calibrate(rules, target)` finds a target's strength (`agents.calibration.search`), and
`setting(rules, target)` keeps the result in the solver's cache folder (`agents.level_settings`), so it
is found once per rule set and protocol.

The parts, one job per module:
- `agents.dial`: the strength dial (`DialAgent`, `temperature`, `LossMeter`);
- `agents.targets`: `Target` and the levels' targets (`LEVELS`, `level_target`);
- `agents.calibration`: the search (`Calibration`, `calibration_rules`, `check_reach`, `optimum`);
- `agents.level_settings`: the locked settings file (`settings_path`, `read_settings`, `write_settings`).

    from agents.levels import level, calibrate, Target
    normal = level("normal", rules)                 # a DialAgent at normal's strength for these rules
    calibrate(rules, Target("pct", 90))             # Calibration(strength=..., measured=..., ci95=...)
"""
import sys

from yacht_env.config import ConfigError
from yacht_env.rules import load, rules_hash
from yacht_env.solver import StateSpace

from .calibration import (CALIBRATION_SEED, DEALS, GAMES, Calibration, calibration_rules,
                          check_reach, search)
from .dial import DialAgent, check_strength
from .level_settings import (locked, protocol, read_settings, settings_path, shipped_settings, write_settings)
from .strong import StrongAgent, WinAgent
from .targets import Target, level_target

# The largest solver state space (of one column) a level is calibrated for on first use: a calibration plays
# thousands of games at each dial setting it tries. Larger rules (Maxi Yatzy: 89 million states) need a
# calibration shipped with the package or kept from an earlier run.
CALIBRATE_MAX_STATES = 1 << 22


def check_calibratable(rules) -> None:
    """ValueError when no level can be calibrated on first use under `rules` (`CALIBRATE_MAX_STATES`)."""
    column = load(rules, columns=1) if rules.columns > 1 else rules
    states = StateSpace.of(column.tables).size
    if states > CALIBRATE_MAX_STATES:
        raise ValueError(f"the named levels have no calibration for rules {rules.name!r}, and one is not found on "
                         f"first use for {states:,} solver states (at most {CALIBRATE_MAX_STATES:,}: a calibration "
                         f"plays thousands of games at each setting it tries); play the strength dial instead, e.g. "
                         f"strong?strength=0.8")


def calibrate(rules, target: Target, deals: int = DEALS, games: int = GAMES, seed: int = CALIBRATION_SEED,
              progress: bool = False) -> Calibration:
    """The strength whose figure is closest to `target` under `rules`, found by a bracketing search
    (`agents.calibration.search`: every run on the same games; a win rate in `deals` two-player deals
    against strong or the named level, a mean or percentage on `games` solitaire games). ValueError
    when the target is out of the dial's reach under these rules.
    """
    check_reach(rules)
    rules = calibration_rules(rules)
    shared = StrongAgent(progress=progress)      # one policy for every run: its kept stage values serve them all
    opponent = None
    if target.kind == "win":
        opponent = shared if target.against == "strong" else level(target.against, rules, progress, shared)
    return search(rules, target, shared, opponent, deals, games, seed, progress)


# ---- kept settings -------------------------------------------------------------------------------

_FOUND: dict = {}   # (rules hash, protocol key) -> Calibration found in this process


def setting(rules, target: Target, progress: bool | None = None) -> Calibration:
    """The calibration of `target` under `rules` with the standard protocol: kept, else found now and kept.

    progress: show a bar while calibrating (None: when stderr is a terminal).
    """
    return _setting(rules, target, progress)[0]


def settings_with(rules, targets, progress: bool | None = None):
    """({name: Calibration}, the settings file if this call wrote it, else None) for (name, Target) pairs.

    Warns on stderr when a new calibration cannot be kept (the folder is not writable)."""
    out, wrote = {}, None
    for name, target in targets:
        out[name], written = _setting(rules, target, progress)
        if written:
            wrote = settings_path(rules)
    return out, wrote


def _kept(rules, target: Target) -> Calibration | None:
    """The calibration of `target` under `rules` found earlier: in this process, kept in the cache folder or
    shipped with the package; None when there is none."""
    key = protocol(target)
    memo = (rules_hash(calibration_rules(rules)), key)
    found = _FOUND.get(memo) or read_settings(rules).get(key) or shipped_settings(rules).get(key)
    if found is not None:
        _FOUND[memo] = found
    return found


def check_level_reach(rules, target: Target) -> None:
    """ValueError when `target` has no strength under `rules`: the dial cannot play them (`check_reach`), or no
    calibration is kept and none is found on first use (`check_calibratable`). The opponent level of a win
    target is checked too."""
    check_reach(rules)
    if _kept(rules, target) is None:
        check_calibratable(rules)
    if target.kind == "win" and target.against != "strong":
        check_level_reach(rules, level_target(target.against))


def _setting(rules, target: Target, progress) -> tuple[Calibration, bool]:
    """(the calibration, whether this call wrote the settings file)."""
    key = protocol(target)
    memo = (rules_hash(calibration_rules(rules)), key)
    found = _kept(rules, target)
    if found is not None:
        return found, False
    check_calibratable(rules)
    if progress is None:
        progress = sys.stderr.isatty()
    wrote = False
    if target.kind == "win" and target.against != "strong":   # the opponent first, outside the lock
        wrote = _setting(rules, level_target(target.against), progress)[1]
    with locked(rules):
        found = read_settings(rules).get(key)         # another process may have found it meanwhile
        if found is None:
            found = calibrate(rules, target, progress=progress)
            settings = read_settings(rules)
            settings[key] = found
            wrote = write_settings(rules, settings)
            if not wrote:
                print(f"warning: cannot keep the dial setting for {target.key} in {settings_path(rules)} (the "
                      f"folder is not writable): it is found again by every process", file=sys.stderr)
    _FOUND[memo] = found
    return found, wrote


# ---- levels --------------------------------------------------------------------------------------

class LevelAgent(DialAgent):
    """A point on the dial defined by a target: its strength is found per rule set (`setting`); goal "win"
    plays that strength on the chance to win (`DialAgent`)."""

    def __init__(self, target: Target, name: str = "level", progress: bool | None = None,
                 strong: StrongAgent | None = None, goal: str = "points"):
        super().__init__(1.0, strong, goal)
        self.target, self.progress = target, progress
        self.name = name if goal == "points" else f"{name}?goal=win"
        self._strengths = {}

    def check_rules(self, rules, num_players) -> None:
        """The dial's checks, and a strength for the target under `rules` kept, shipped or found on first use
        (`check_level_reach`): refused before any game or solve."""
        super().check_rules(rules, num_players)
        check_level_reach(rules, self.target)

    def strength_for(self, rules) -> float:
        """The strength that hits the target under `rules` (found before the first game: `prepare`); a
        target out of the dial's reach there is a `ConfigError` naming the reachable range."""
        if rules not in self._strengths:
            try:
                check_reach(rules)
                self._strengths[rules] = setting(rules, self.target, self.progress).strength
            except ValueError as e:
                raise ConfigError(f"agent {self.name} ({self.target.key})", str(e)) from None
        return self._strengths[rules]


def level(name: str, rules=None, progress: bool | None = None, strong: StrongAgent | None = None,
          goal: str = "points") -> LevelAgent:
    """The named level (`easy`, `normal`) as an agent; with `rules`, its strength for them is found now;
    goal "win": that strength played for the chance to win."""
    agent = LevelAgent(level_target(name), name, progress, strong, goal)
    if rules is not None:
        agent.strength_for(rules)
    return agent


# ---- the registry's factories (agents.registry) -------------------------------------------------

def strong(strength: float = 1.0, goal: str = "points", score: float | None = None):
    """`strong` (the solver's optimal play), the dial at `strength` < 1; `goal=win` plays for the chance of
    finishing first, `goal=target&score=T` for the chance of at least T points (`WinAgent`)."""
    if goal == "points" and score is not None:
        raise ValueError("score=T goes with goal=target")
    if goal == "win" and score is not None:
        raise ValueError("score=T goes with goal=target only")
    if goal == "target" and check_strength(strength) != 1.0:
        raise ValueError("goal=target plays at full strength only (strength=1)")
    if goal != "points" and check_strength(strength) == 1.0:
        return WinAgent(goal, score)
    if goal == "win":
        return DialAgent(strength, goal="win")
    if check_strength(strength) == 1.0:
        return StrongAgent()
    return DialAgent(strength)


def _level_goal(goal: str) -> str:
    if goal not in ("points", "win"):
        raise ValueError(f"a level plays goal=points or goal=win, not {goal!r}")
    return goal


def easy(goal: str = "points") -> LevelAgent:
    return level("easy", goal=_level_goal(goal))


def normal(goal: str = "points") -> LevelAgent:
    return level("normal", goal=_level_goal(goal))


def target_level(mean: float | None = None, pct: float | None = None, win: float | None = None,
                 goal: str = "points") -> LevelAgent:
    """`level?mean=POINTS`, `level?pct=PERCENT` or `level?win=RATE`: the dial setting that hits one target."""
    given = {k: v for k, v in (("mean", mean), ("pct", pct), ("win", win)) if v is not None}
    if len(given) != 1:
        raise ValueError("level takes exactly one target: mean=POINTS, pct=PERCENT (of the optimum) or "
                         "win=RATE (against strong)")
    (kind, value), = given.items()
    return LevelAgent(Target(kind, value), name="level", goal=_level_goal(goal))
