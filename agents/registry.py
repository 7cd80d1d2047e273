"""Agent specs -> agents: the one place configs and every CLI command turn a string into a player.

Spec syntax: ``NAME[?KEY=VALUE[&KEY=VALUE...]][:ARGUMENT]``

    random                         uniform over legal actions
    greedy                         never re-rolls; best immediate box (bonuses included)
    easy                           the named levels: points on the strength dial (agents/levels.py)
    normal
    strong                         the exact solver's optimal play
    strong?strength=0.7            the strength dial: parameters after '?', joined by '&'
    strong?goal=win                plays for the chance of finishing first at the table
    normal?goal=win                a level (or strong?strength=S) playing for the chance of finishing first
    level?pct=90                   the dial setting that hits a target under the rules played
    learned:runs/ppo/model.pt      the argument is everything after the first ':'
    learned:model.zip              a stable-baselines3 model (`model.save`), read without unpickling
    learned?lookahead=3:PATH       the same policy looking one roll ahead with its critic
    external?timeout=2:python scripts/example_bot.py
    human

Parameters are given before the ':' so that an argument (a path or a command line) may contain
any character. Unknown names, unknown parameters and bad values raise `AgentSpecError` with a
message naming what was wrong and what is allowed.
"""
import importlib
import math
from dataclasses import dataclass, field

from yacht_env.config import ConfigError

from .lookahead import MAX_LOOKAHEAD
from .strong import GOALS, MAX_TARGET


class AgentSpecError(ConfigError):
    """An agent spec that cannot be turned into an agent."""


@dataclass(frozen=True)
class Entry:
    target: str              # "module:Class"
    help: str
    params: dict             # name -> type (float, int, str)
    argument: str = ""       # name of the ':' argument when required, else ""
    instead: dict = field(default_factory=dict)   # parameter not taken -> what to write instead


def _strength(value: float) -> float:
    if not 0.0 <= value <= 1.0:   # NaN too
        raise ValueError(f"must be in [0, 1] (1 = optimal, 0 = random-like), got {value:g}")
    return value


def _flag(value: float) -> bool:
    if value not in (0.0, 1.0):
        raise ValueError(f"must be 0 or 1, got {value:g}")
    return bool(value)


def _finite(value: float) -> float:
    if not math.isfinite(value):
        raise ValueError(f"must be a finite number, got {value:g}")
    return value


def _target(value: float) -> float:
    """A target score (strong?goal=target): what the agent can play for, 0 to MAX_TARGET points."""
    if not 0 <= value <= MAX_TARGET:      # NaN too
        raise ValueError(f"must be a final score from 0 to {MAX_TARGET:,} points, got {value:g}")
    return value


SKILL = ("the skill knob was replaced by the strength dial: write strong?strength=S (S in [0, 1], 1 = optimal, "
         "0 = random-like) for a setting, level?pct=P or level?win=W for a target, or a named level (easy, normal)")
POINT = ("it is a point on the strength dial, found for each rule set; for a setting of your own write "
         "strong?strength=S (S in [0, 1]), or level?pct=P / level?win=W for a target")


def _goal(value: str) -> str:
    if value not in GOALS:
        raise ValueError(f"must be one of {', '.join(GOALS)}, got {value!r}")
    return value


_goal.text = True   # takes the value as written, not as a number


def _lookahead(value: float) -> int:
    if not math.isfinite(value) or value != int(value) or not 0 <= value <= MAX_LOOKAHEAD:
        raise ValueError(f"must be a whole number of boxes from 0 (off) to {MAX_LOOKAHEAD}, got {value:g}")
    return int(value)


def _positive(value: float) -> float:
    if not value > 0:
        raise ValueError(f"must be > 0, got {value:g}")
    return value


AGENTS: dict[str, Entry] = {
    "random": Entry("agents.simple:RandomAgent", "uniformly random legal action", {}),
    "greedy": Entry("agents.simple:GreedyAgent", "never re-rolls; scores the box that pays most now", {}),
    "easy": Entry("agents.levels:easy", "the dial setting that wins 20% of its games against normal "
                  "(found per rule set); goal=win plays that strength for the chance of finishing first",
                  {"goal": _goal}, instead={"skill": SKILL, "strength": POINT}),
    "normal": Entry("agents.levels:normal", "the dial setting that wins 30% of its games against strong "
                    "(found per rule set); goal=win plays that strength for the chance of finishing first",
                    {"goal": _goal}, instead={"skill": SKILL, "strength": POINT}),
    "strong": Entry("agents.levels:strong", "the exact solver's optimal play; strength=S < 1 plays its values "
                    "with noise (the strength dial); goal=win plays for the chance of finishing first at the "
                    "table, goal=target&score=T for the chance of at least T points",
                    {"strength": _strength, "goal": _goal, "score": _target}, instead={"skill": SKILL}),
    "level": Entry("agents.levels:target_level", "the dial setting that hits one target under the rules played: "
                   "mean=POINTS, pct=PERCENT of the optimum, or win=RATE against strong; goal=win plays that "
                   "strength for the chance of finishing first",
                   {"mean": _finite, "pct": _finite, "win": _finite, "goal": _goal}),
    "learned": Entry("agents.learned:learned", "a policy trained by `yacht train` (a .pt model file) or a "
                     "stable-baselines3 / sb3-contrib model (a .zip: PPO, A2C, MaskablePPO, DQN); "
                     "insist=1 plays rules of the same shape it was not trained on; lookahead=K values every "
                     "hold and the policy's K likeliest boxes one roll ahead with the model's critic",
                     {"insist": _flag, "lookahead": _lookahead}, argument="PATH"),
    "external": Entry("agents.external:ExternalAgent", "a bot program speaking JSON lines on stdin/stdout",
                      {"timeout": _positive, "memory": float, "cpu": float, "files": float, "procs": float},
                      argument="COMMAND"),
    "human": Entry("agents.human:HumanAgent", "a person at the terminal", {}),
}


def parse_spec(spec: str) -> tuple[str, dict, str]:
    """Split a spec into (name, params, argument); params are still strings."""
    if not isinstance(spec, str) or not spec.strip():
        raise AgentSpecError(f"an agent spec must be a non-empty string, got {spec!r}; known: {known()}")
    head, colon, argument = spec.strip().partition(":")
    name, _, query = head.partition("?")
    params = {}
    for item in filter(None, query.split("&")):
        key, eq, value = item.partition("=")
        if not eq or not key:
            raise AgentSpecError(f"agent spec {spec!r}: parameter {item!r} is not KEY=VALUE")
        if key in params:
            raise AgentSpecError(f"agent spec {spec!r}: parameter {key!r} is given twice")
        params[key] = value
    if colon and not argument.strip():
        raise AgentSpecError(f"agent spec {spec!r}: nothing after ':'")
    return name, params, argument.strip()


def known() -> str:
    return ", ".join(f"{n}:{e.argument}" if e.argument else n for n, e in AGENTS.items())


def list_specs() -> list[tuple[str, str]]:
    """(spec pattern, description) for every registered agent, for help texts."""
    out = []
    for name, e in AGENTS.items():
        pattern = name + ("?" + "&".join(f"{p}=…" for p in e.params) if e.params else "")
        out.append((pattern + (f":{e.argument}" if e.argument else ""), e.help))
    return out


def make_agent(spec: str):
    """Build the agent a spec names (see the module docstring)."""
    name, raw, argument = parse_spec(spec)
    entry = AGENTS.get(name)
    if entry is None:
        raise AgentSpecError(f"unknown agent {name!r} in spec {spec!r}; known: {known()}")
    if entry.argument and not argument:
        raise AgentSpecError(f"agent spec {spec!r}: {name} needs an argument, as {name}:{entry.argument}")
    if argument and not entry.argument:
        raise AgentSpecError(f"agent spec {spec!r}: {name} takes no ':' argument")
    params = {}
    for key, value in raw.items():
        check = entry.params.get(key)
        if check is None and key in entry.instead:
            raise AgentSpecError(f"agent spec {spec!r}: {name} takes no {key!r}: {entry.instead[key]}")
        if check is None:
            allowed = ", ".join(entry.params) or "none"
            raise AgentSpecError(f"agent spec {spec!r}: unknown parameter {key!r} for {name} (allowed: {allowed})")
        try:
            params[key] = check(value) if getattr(check, "text", False) else check(float(value))
        except ValueError as e:
            msg = str(e) if "could not convert" not in str(e) else f"{value!r} is not a number"
            raise AgentSpecError(f"agent spec {spec!r}: {key}: {msg}") from None
    module, _, attr = entry.target.partition(":")
    try:
        factory = getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError) as e:
        raise AgentSpecError(f"agent {name!r} is not available: {e}") from None
    args = (argument,) if entry.argument else ()
    try:
        agent = factory(*args, **params)
    except ImportError as e:
        raise AgentSpecError(f"agent {name!r} is not available: {e}") from None
    except (ValueError, OSError) as e:
        raise AgentSpecError(f"agent spec {spec!r}: {e}") from None
    agent.spec = spec
    return agent
