"""The strength dial, targets on it, and the named levels `easy` and `normal`.

**The dial.** `DialAgent(strength)` (spec `strong?strength=S`) plays the solver's values with noise.
At every decision each legal move m has a value, the expected final points of the sheet after it with
optimal play from there (`yacht_env.solver.dial.move_values`), and a loss, best value - value of m.
The agent draws a move with probability proportional to exp(-loss / T), T = `temperature(strength)`:
strength 1 is T = 0, the strong agent itself (the same games); strength 0 is T = infinity, every
distinct move alike (holds that keep the same dice are one move). In between, a move that loses a
tenth of a point is played almost as often as the best one and one that loses twenty almost never:
cheap mistakes often, costly ones rarely. The draw takes the decision's number from `decision_uniforms`
(stream `DIAL_STREAM`), so a game is the same played alone or in a batch, and the same number at a
lower strength never picks a better move (the moves are drawn best first by inverse CDF).

One column: the values are exact. Several columns: the column-additive values the strong agent plays by
(each column valued by the one-column solitaire table, the sheet by their sum). Teams: the team's sheet.

**Targets.** A `Target` names a figure the dial can be set to hit under any rule set: `mean=POINTS`
(expected solitaire score), `pct=PERCENT` (of the optimal expected score) or `win=RATE` (win rate in
two-player games against strong, or against a named level). `calibrate(rules, target)` finds the
strength by a bracketing search on games with common dice and common decision numbers (the same deals
at every strength tried), and `setting(rules, target)` keeps the result in the solver's cache folder,
one small JSON file per rule set (`settings_path`), so it is found once per rule set and protocol.

**Levels by construction.** The named levels are targets, so they adapt to any rule set without hand
tuning: `normal` is the strength that wins `NORMAL_WIN` of its games against strong, `easy` the strength
that wins `EASY_WIN` against normal. Each step of random < easy < normal < strong is therefore about
70-80% head-to-head under every rule set (random is far below easy).

    from agents.levels import level, calibrate, Target
    normal = level("normal", rules)                 # a DialAgent at normal's strength for these rules
    calibrate(rules, Target("pct", 90))             # Calibration(strength=..., measured=..., ci95=...)
"""
import json
import math
import os
import sys
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from importlib.resources import files

import numpy as np
from tqdm import tqdm

from yacht_env.config import ConfigError
from yacht_env.core.dice_source import decision_uniforms, game_seeds
from yacht_env.rules import load, rules_hash
from yacht_env.safe_file import FileRefused, open_rw, read_text, write_atomic
from yacht_env.solver import SOLVER_VERSION, Unsolvable, cache_dir, check_solvable, solution_for

from .base import Agent, BatchView
from .evaluation import head_to_head, solitaire
from .stats import Z95, mean_ci
from .strong import StrongAgent, WinAgent

DIAL_STREAM = 1          # the dial's stream of decision_uniforms (the random agent's is 0)
SCALE = 5.0              # temperature at strength 1/2, in expected points
SHAPE = 1.0              # temperature = SCALE * ((1 - s) / s) ** SHAPE
WIN_POINTS = 200.0       # goal=win: a chance to win of 1 weighs as 200 expected points in the dial's temperature
DIAL_VERSION = 1         # bump when the dial's play changes: calibrations of another version are not reused
MAX_SETTINGS_BYTES = 1 << 20   # a calibration is a few hundred bytes

NORMAL_WIN = 0.30        # normal wins 30% of its games against strong
EASY_WIN = 0.20          # easy wins 20% of its games against normal
LEVELS = {"normal": ("win", NORMAL_WIN, "strong"), "easy": ("win", EASY_WIN, "normal")}

CALIBRATION_SEED = 1_000_012   # dice of every calibration (the ladder is measured on other dice)
DEALS = 500                    # deals per head-to-head of a win-rate search (2 games each)
GAMES = 2000                   # solitaire games per run of a mean or percentage search
MAX_RUNS = 14                  # runs of the search at most (two ends + interpolation steps)
TOLERANCE = {"win": 0.01, "mean": 0.25, "pct": 0.1}   # stop this close to the target (about a run's standard error)
SHIPPED = "calibrations"       # package data: the named levels' settings for every preset (scripts/ship_data.py)


def temperature(strength: float) -> float:
    """The softmax temperature, in expected points, of a strength in [0, 1] (inf at 0, 0 at 1)."""
    s = check_strength(strength)
    if s == 0.0:
        return math.inf
    return SCALE * ((1.0 - s) / s) ** SHAPE


def check_strength(strength) -> float:
    """A strength as a float in [0, 1]; ValueError (saying what is allowed) for anything else."""
    try:
        s = float(strength)
    except (TypeError, ValueError):
        raise ValueError(f"strength must be a number in [0, 1], got {strength!r}") from None
    if not 0.0 <= s <= 1.0:     # NaN fails both comparisons
        raise ValueError(f"strength must be in [0, 1] (1 = optimal, 0 = random-like), got {s:g}")
    return s


class DialAgent(Agent):
    """The solver's play at a strength in [0, 1] (see the module docstring); batched and trusted.

    `meter`, when set to a `LossMeter`, is told the expected points every decision lost. `strong`: the
    `StrongAgent` whose policies (solved tables, kept plans and stage values) it plays from; agents that
    share one share those caches.

    goal "win": the same dial on the chance to finish first (`WinAgent`'s estimate) instead of expected
    points: move m is drawn with probability proportional to exp(-WIN_POINTS * (best chance - chance of
    m) / T) -- a chance of 1 weighs as `WIN_POINTS` expected points (at the start of a two-player game one
    point of final score moves the chance to win by about 0.5%); strength 1 is `strong?goal=win` itself. A
    decided position (every move with the same chance: won, lost, or no other sheet) is played by the dial
    on expected points at the same strength, as `strong?goal=win` plays such positions as `strong`.
    """

    name = "dial"
    trusted = True

    def __init__(self, strength: float = 1.0, strong: StrongAgent | None = None, goal: str = "points"):
        if goal not in ("points", "win"):
            raise ValueError(f"the dial plays goal=points or goal=win, not {goal!r}")
        self.strength = check_strength(strength)
        self.strong = strong if strong is not None else StrongAgent()
        self.goal = goal
        self.win = WinAgent("win", strong=self.strong) if goal == "win" else None
        self.meter = None
        self.name = "strong" if self.strength == 1.0 else f"strong~{self.strength:g}"
        if goal == "win":
            self.name += "?goal=win"

    def check_rules(self, rules, num_players) -> None:
        self.strong.check_rules(rules, num_players)

    def prepare(self, rules, num_players) -> None:
        self.strong.prepare(rules, num_players)
        if self.win is not None:
            self.win.prepare(rules, num_players)
        self.strength_for(rules)

    def strength_for(self, rules) -> float:
        """The strength played under these rules (fixed here; a `LevelAgent` finds its own per rule set)."""
        return self.strength

    def act_batch(self, view: BatchView) -> np.ndarray:
        strength = self.strength_for(view.rules)
        if self.win is not None:
            return self._act_win(view, strength)
        policy = self.strong.policy_for(view.rules)
        keys = policy.state_keys(view.own_filled, view.own_upper, view.own_yacht50)
        if strength == 1.0:
            actions = policy.actions(keys, view.roll, view.rolls_left)
            if self.meter is not None:
                values = policy.move_values(keys, view.roll, view.rolls_left)
                self.meter.add(view.seeds, view.seat, values.max(axis=1) - values[np.arange(len(actions)), actions])
            return actions
        u = decision_uniforms(view.seeds, view.seat, view.round, view.rolls_used, DIAL_STREAM)
        actions, losses = policy.sampled_actions(keys, view.roll, view.rolls_left, temperature(strength), u)
        if self.meter is not None:
            self.meter.add(view.seeds, view.seat, losses)
        return actions

    def _act_win(self, view: BatchView, strength: float) -> np.ndarray:
        """goal=win: strength 1 plays `strong?goal=win`'s moves; below, the dial on its chances."""
        if strength == 1.0:
            return self.win.act_batch(view)
        u = decision_uniforms(view.seeds, view.seat, view.round, view.rolls_used, DIAL_STREAM)
        t = temperature(strength)
        actions, losses, decided = self.win.act_dial(view, t / WIN_POINTS, u)
        losses *= WIN_POINTS
        if decided.any():      # every move alike for the chance to win: the dial on expected points
            policy = self.strong.policy_for(view.rules)
            keys = policy.state_keys(view.own_filled, view.own_upper, view.own_yacht50)[decided]
            actions[decided], losses[decided] = policy.sampled_actions(keys, view.roll[decided],
                                                                       view.rolls_left[decided], t, u[decided])
        if self.meter is not None:
            self.meter.add(view.seeds, view.seat, losses)
        return actions


class LossMeter:
    """The expected points a dial agent's decisions lost, summed per (game seed, seat)."""

    def __init__(self):
        self._seeds, self._seats, self._losses = [], [], []

    def add(self, seeds, seats, losses) -> None:
        self._seeds.append(np.asarray(seeds, np.uint64).copy())
        self._seats.append(np.asarray(seats, np.int64).copy())
        self._losses.append(np.asarray(losses, np.float64).copy())

    def per_game(self, seeds, seat: int = 0) -> np.ndarray:
        """Points lost in each game of `seeds` (distinct game seeds) at `seat`."""
        seeds = np.asarray(seeds, np.uint64)
        out = np.zeros(len(seeds))
        if not self._seeds:
            return out
        s, t, x = (np.concatenate(a) for a in (self._seeds, self._seats, self._losses))
        order = np.argsort(seeds, kind="stable")
        at = np.minimum(np.searchsorted(seeds[order], s), len(seeds) - 1)
        hit = (t == seat) & (seeds[order][at] == s)
        np.add.at(out, order[at[hit]], x[hit])
        return out


# ---- targets -------------------------------------------------------------------------------------

KINDS = {"mean": "expected solitaire score (points)", "pct": "expected solitaire score as a % of the optimum",
         "win": "win rate in two-player games against strong (or the level named after @)"}


@dataclass(frozen=True)
class Target:
    """A figure the dial is set to hit: kind 'mean' (points), 'pct' (% of the optimum) or 'win' (rate
    in [0, 1] against `against`: 'strong' or a named level)."""
    kind: str
    value: float
    against: str = "strong"

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"unknown target {self.kind!r}; targets: "
                             + ", ".join(f"{k}= ({v})" for k, v in KINDS.items()))
        v = self.value
        if not isinstance(v, (int, float)) or isinstance(v, bool) or not math.isfinite(v):
            raise ValueError(f"target {self.kind}= must be a finite number, got {v!r}")
        if self.kind == "win":
            if self.against != "strong" and self.against not in LEVELS:
                raise ValueError(f"win rates are measured against strong or a named level ({', '.join(LEVELS)}), "
                                 f"not {self.against!r}")
            top = 0.5 if self.against == "strong" else 1.0
            if not 0.0 < v <= top:
                raise ValueError(f"target win={v:g}: a win rate against {self.against} is in (0, {top:g}]"
                                 + (" (strong against itself wins half its games)" if top == 0.5 else ""))
        elif self.kind == "pct" and not 0.0 < v <= 100.0:
            raise ValueError(f"target pct={v:g}: a percentage of the optimal expected score is in (0, 100]")
        elif self.kind == "mean" and not v > 0.0:
            raise ValueError(f"target mean={v:g}: an expected score is above 0 (and at most the optimum)")
        if self.kind != "win" and self.against != "strong":
            raise ValueError(f"target {self.kind}= is measured in solitaire games, against nobody")

    @classmethod
    def parse(cls, text: str) -> "Target":
        """'mean=200', 'pct=90', 'win=0.3' or 'win=0.2@normal'; ValueError saying what is allowed."""
        kind, eq, rest = str(text).partition("=")
        if not eq:
            raise ValueError(f"a target is KIND=VALUE with KIND one of {', '.join(KINDS)} (e.g. pct=90), "
                             f"or a level name ({', '.join(LEVELS)}); got {text!r}")
        value, _, against = rest.partition("@")
        try:
            number = float(value)
        except ValueError:
            raise ValueError(f"target {text!r}: {value!r} is not a number") from None
        return cls(kind.strip(), number, against.strip() or "strong")

    @property
    def key(self) -> str:
        """How the target reads ('win=0.3', 'win=0.2@normal', 'pct=90')."""
        return f"{self.kind}={self.value:g}" + (f"@{self.against}" if self.against != "strong" else "")


def level_target(name: str) -> Target:
    """The target that defines a named level; ValueError for an unknown name."""
    if name not in LEVELS:
        raise ValueError(f"unknown level {name!r}; levels: {', '.join(LEVELS)} (and strong, the optimum)")
    kind, value, against = LEVELS[name]
    return Target(kind, value, against)


# ---- calibration ---------------------------------------------------------------------------------

@dataclass
class Calibration:
    """The strength that hits a target under one rule set, with the figure measured there.

    measured / ci95: the target's figure at `strength` (win rate; expected score; % of the optimum)
    on the calibration's games; runs: every (strength, figure) the search measured, in order.
    """
    target: str
    strength: float
    measured: float
    ci95: list
    games: int
    seed: int
    estimate: str                  # how the figure was measured (see `_measure`)
    runs: list = field(default_factory=list)

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, doc) -> "Calibration":
        """A stored calibration; ValueError if the entry is damaged."""
        try:
            c = cls(**doc)
            ok = (isinstance(c.target, str) and isinstance(c.estimate, str) and type(c.games) is int
                  and type(c.seed) is int and isinstance(c.ci95, list) and len(c.ci95) == 2
                  and all(isinstance(x, (int, float)) and math.isfinite(x) for x in [c.measured, *c.ci95])
                  and isinstance(c.runs, list))
            check_strength(c.strength)
        except (TypeError, ValueError):
            ok = False
        if not ok:
            raise ValueError("damaged calibration entry")
        return c


def calibration_rules(rules):
    """The rules a level is calibrated under: the same game as two players on their own sheets (no teams;
    a team's sheet is played as a solitaire sheet)."""
    if rules.teams or (rules.min_players, rules.max_players) != (1, 8):
        rules = load(rules, teams=0, players={"min": 1, "max": 8})
    return rules


def check_reach(rules) -> None:
    """ValueError when the dial cannot play these rules (no solved table, exact or column-additive)."""
    column = load(rules, columns=1) if rules.columns > 1 else rules
    try:
        check_solvable(column)
    except Unsolvable as e:
        raise ValueError(f"the strength dial and the levels need the solver's table: {e}") from None


def optimum(rules, progress: bool = False) -> float:
    """The optimal expected solitaire score of a one-column rule set (the solver's)."""
    return float(solution_for(rules, progress=progress).expected_score)


def calibrate(rules, target: Target, deals: int = DEALS, games: int = GAMES, seed: int = CALIBRATION_SEED,
              progress: bool = False) -> Calibration:
    """The strength whose figure is closest to `target` under `rules`, found by a bracketing search.

    Every run plays the same games (seed): `deals` two-player deals for a win rate, `games` solitaire
    games for a mean or percentage. The figure is non-decreasing in strength up to the noise of a
    finite run (tests/test_levels.py), so the search brackets the target between strengths 0 and 1
    and narrows the bracket by interpolation (Illinois' rule), at most `MAX_RUNS` runs. ValueError
    when the target is out of the dial's reach under these rules.
    """
    check_reach(rules)
    rules = calibration_rules(rules)
    shared = StrongAgent(progress=progress)      # one policy for every run: its kept stage values serve them all
    opponent = None
    if target.kind == "win":
        opponent = shared if target.against == "strong" else level(target.against, rules, progress, shared)
    if rules.columns == 1:
        best_possible = optimum(rules, progress)
        if target.kind == "mean" and target.value > best_possible:
            raise ValueError(f"target mean={target.value:g} is above the optimal expected score under rules "
                             f"{rules.name!r} ({best_possible:.2f})")
    else:      # no exact optimum: strong's mean score on the calibration's games is the reference
        shared.prepare(rules, 1)
        best_possible = float(solitaire(shared, rules, games, seed, progress=False)["totals"].mean())
    runs = []
    bar = tqdm(desc=f"calibrate {target.key} under {rules.name}", unit="run", disable=not progress, leave=False)

    def run(s: float):
        exact = _exact_at_one(target, rules, best_possible) if s == 1.0 else None
        if exact is not None:      # known without playing
            figure, ci, n, how = exact, [exact, exact], 0, "exact (strength 1 is strong)"
        else:
            figure, ci, n, how = _measure(rules, DialAgent(s, shared), target, opponent, deals, games, seed,
                                          best_possible)
        runs.append((s, figure, ci, n, how))
        bar.update(1)
        bar.set_postfix(strength=f"{s:.3f}", figure=f"{figure:.4g}")
        return figure

    with bar:
        lo, hi = 0.0, 1.0
        f_lo, f_hi = run(lo) - target.value, run(hi) - target.value
        if f_lo > 0 or f_hi < 0:
            reach = f"{f_lo + target.value:.4g} .. {f_hi + target.value:.4g}"
            raise ValueError(f"target {target.key} is out of the dial's reach under rules {rules.name!r}: "
                             f"strengths 0 .. 1 give {reach}")
        side = 0
        while len(runs) < MAX_RUNS and hi - lo > 1e-4:
            if min(abs(f_lo), abs(f_hi)) <= TOLERANCE[target.kind]:
                break
            s = lo + (hi - lo) * f_lo / (f_lo - f_hi) if f_hi != f_lo else (lo + hi) / 2
            s = min(max(s, lo + 0.02 * (hi - lo)), hi - 0.02 * (hi - lo))   # keep clear of the ends
            f = run(s) - target.value
            if f < 0:
                lo, f_lo = s, f
                if side == -1:
                    f_hi /= 2          # Illinois: the end that stays twice in a row counts half
                side = -1
            else:
                hi, f_hi = s, f
                if side == 1:
                    f_lo /= 2
                side = 1
    s, figure, ci, n, how = min(runs, key=lambda r: (abs(r[1] - target.value), r[0]))
    return Calibration(target=target.key, strength=s, measured=figure, ci95=ci, games=n, seed=seed, estimate=how,
                       runs=[[a, b] for a, b, *_ in runs])


def _exact_at_one(target, rules, best_possible):
    """The figure at strength 1 when it is known without playing, else None: against strong, each deal's two
    games (seats swapped) mirror each other, so strong wins exactly half; with one column, strong loses
    nothing, so its expected score is the optimum."""
    if target.kind == "win":
        return 0.5 if target.against == "strong" else None
    if rules.columns == 1:
        return best_possible if target.kind == "mean" else 100.0
    return None


def _measure(rules, agent, target, opponent, deals, games, seed, best_possible):
    """(figure, ci95, games, how) of a dial agent for `target` on the calibration's games.

    win: head-to-head against the opponent, ties half (Wilson interval). mean / pct with one column:
    the optimum minus the points lost per game (the expected points the dial's decisions lost against
    the best moves, exact solver values: the same expectation as the mean score without the luck of
    the dice, so far fewer games pin it down); several columns: the mean score (the values are an
    approximation there). pct: the expected score as a % of `best_possible` (one column: the optimum;
    several columns: strong's mean score on the same games).
    """
    if target.kind == "win":
        h = head_to_head(agent, opponent, rules, deals, seed, progress=False)
        return h["win_rate_a"], h["ci95"], h["games"], "head-to-head win rate (ties half)"
    if rules.columns == 1:
        agent.meter = LossMeter()
        solitaire(agent, rules, games, seed, progress=False)
        lost = agent.meter.per_game(game_seeds(seed, last=np.arange(games)))
        mean = best_possible - float(lost.mean())
        half = Z95 * float(lost.std(ddof=1)) / math.sqrt(games) if games > 1 else 0.0
        ci, how = [mean - half, mean + half], "optimum - expected points lost per game"
    else:
        mean, ci, _ = mean_ci(solitaire(agent, rules, games, seed, progress=False)["totals"])
        how = "mean score"
    if target.kind == "pct":
        return 100 * mean / best_possible, [100 * x / best_possible for x in ci], games, how + " (% of the optimum)"
    return mean, ci, games, how


# ---- kept settings -------------------------------------------------------------------------------

def settings_path(rules):
    """The JSON file that keeps the calibrations of a rule set (in the solver's cache folder)."""
    return cache_dir() / f"levels-v{DIAL_VERSION}-{rules_hash(calibration_rules(rules))}.json"


def protocol(target: Target, deals: int = DEALS, games: int = GAMES, seed: int = CALIBRATION_SEED) -> str:
    """The key a calibration is kept under: the target and everything that decides its result."""
    budget = f"deals={deals}" if target.kind == "win" else f"games={games}"
    return f"{target.key};{budget};seed={seed};solver={SOLVER_VERSION}"


def read_settings(rules, path=None) -> dict:
    """{protocol key: Calibration} kept for a rule set (in `path`, default `settings_path(rules)`); a missing,
    unreadable or damaged file is empty (its calibrations are found again and the file is written anew), a
    damaged entry is left out."""
    path = settings_path(rules) if path is None else path
    try:
        text = read_text(path, MAX_SETTINGS_BYTES, "calibration settings") if isinstance(path, os.PathLike) \
            else path.read_text()          # package data inside an archive
        doc = json.loads(text)
    except (FileRefused, OSError, ValueError, RecursionError):   # missing, not a regular file, too large, not JSON
        return {}
    if not isinstance(doc, dict) or doc.get("rules_hash") != rules_hash(calibration_rules(rules)) \
            or not isinstance(doc.get("settings"), dict):
        return {}
    out = {}
    for key, entry in doc["settings"].items():
        try:
            out[key] = Calibration.from_json(entry)
        except ValueError:
            continue
    return out


def shipped_path(rules):
    """Where the package keeps the calibrations made for a preset (`SHIPPED`, package data; the same file
    name and format as `settings_path`): the same on every machine, so a first run need not find them."""
    return files(__package__) / SHIPPED / settings_path(rules).name


def shipped_settings(rules) -> dict:
    """{protocol key: Calibration} shipped with the package for a rule set ({} for rules that have none)."""
    return read_settings(rules, shipped_path(rules))


def write_settings(rules, settings: dict, path=None) -> bool:
    """Keep `settings` ({protocol key: Calibration}) for a rule set (in `path`, default `settings_path(rules)`);
    False when the folder is not writable or the file's name holds something other than a regular file
    (nothing is written through a link)."""
    path = settings_path(rules) if path is None else path
    crules = calibration_rules(rules)
    doc = {"version": DIAL_VERSION, "rules": crules.name, "rules_hash": rules_hash(crules),
           "settings": {k: c.to_json() for k, c in sorted(settings.items())}}
    try:
        write_atomic(path, json.dumps(doc, indent=1) + "\n", "calibration settings")
    except (OSError, FileRefused):
        return False
    return True


@contextmanager
def _locked(rules):
    """Hold the rule set's settings lock (one process calibrates, the others wait and read its result)."""
    path = settings_path(rules).with_suffix(".lock")
    try:
        import fcntl
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = open_rw(path, "calibration lock")      # never a planted link, FIFO or shared file
    except (ImportError, OSError, FileRefused):
        yield           # no lock to be had (read-only folder): calibrating twice only costs time
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


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


def _setting(rules, target: Target, progress) -> tuple[Calibration, bool]:
    """(the calibration, whether this call wrote the settings file)."""
    key = protocol(target)
    memo = (rules_hash(calibration_rules(rules)), key)
    found = _FOUND.get(memo) or read_settings(rules).get(key) or shipped_settings(rules).get(key)
    if found is not None:
        _FOUND[memo] = found
        return found, False
    if progress is None:
        progress = sys.stderr.isatty()
    wrote = False
    if target.kind == "win" and target.against != "strong":   # the opponent first, outside the lock
        wrote = _setting(rules, level_target(target.against), progress)[1]
    with _locked(rules):
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
