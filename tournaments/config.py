"""Tournament configs: a YAML file of entrants, rules, seats per table and games per table.

```yaml
name: default
rules: yacht            # preset name or path to a rules YAML
set: {}                 # rule overrides, as `--set key=value`
entrants: [greedy, random, {name: lucky, agent: "random"}]   # or a mapping {name: spec}
seats: 2                # seats per table (2-8); every combination of entrants of that size plays
games: 20               # deals per table; each deal is played once in every seat rotation
seed: 0
move_timeout: 30        # seconds an in-process agent may think per move (null: no limit)
```
"""
import hashlib
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

import yaml

import yacht_env
from yacht_env.cli_common import CommandError
from yacht_env.rules import RuleError, RuleSet, load, rules_hash

KEYS = ("name", "rules", "set", "entrants", "seats", "games", "seed", "move_timeout")


def default_config_path() -> Path:
    """The embedded default config (`configs/tournament/default.yaml`)."""
    return Path(yacht_env.__file__).resolve().parent / "configs" / "tournament" / "default.yaml"


@dataclass(frozen=True)
class TournamentConfig:
    """A validated tournament config. `entrants` maps each entrant's name to its agent spec."""

    entrants: dict[str, str]
    name: str = "tournament"
    rules: str = "yacht"
    set: dict = field(default_factory=dict)
    seats: int = 2
    games: int = 10
    seed: int = 0
    move_timeout: float | None = 30.0

    @property
    def ruleset(self) -> RuleSet:
        return load(self.rules, **self.set)

    def to_dict(self) -> dict:
        return asdict(self)

    @property
    def hash(self) -> str:
        """Hash of everything that decides the games (the rules by meaning, not by file name)."""
        d = self.to_dict()
        d.pop("name")
        d["rules"] = rules_hash(self.ruleset)
        d.pop("set")
        return hashlib.sha256(json.dumps(d, sort_keys=True).encode()).hexdigest()[:16]


def _fail(source: str, key: str, problem: str):
    raise CommandError(f"{source}: {key}: {problem}")


def _whole(source, key, value, lo, hi=None):
    if isinstance(value, bool) or not isinstance(value, int) or value < lo or (hi is not None and value > hi):
        span = f"from {lo} to {hi}" if hi is not None else f"at least {lo}"
        _fail(source, key, f"must be a whole number {span}, got {value!r}")
    return value


def _entrants(source, value) -> dict[str, str]:
    if isinstance(value, dict):
        value = [{"name": k, "agent": v} for k, v in value.items()]
    if not isinstance(value, list) or not value:
        _fail(source, "entrants", "must be a non-empty list of agent specs (or {name, agent} mappings), or a mapping of name to spec")
    out: dict[str, str] = {}
    for i, item in enumerate(value):
        if isinstance(item, str) and item.strip():
            name, spec = item.strip(), item.strip()
        elif isinstance(item, dict) and set(item) <= {"name", "agent"} and isinstance(item.get("agent"), str):
            spec = item["agent"].strip()
            name = str(item.get("name", spec)).strip()
        else:
            _fail(source, f"entrants[{i}]", f"expected an agent spec string or {{name: ..., agent: ...}}, got {item!r}")
        if name in out:
            _fail(source, f"entrants[{i}]", f"duplicate entrant name {name!r}; give each a distinct `name`")
        out[name] = spec
    return out


def parse_config(data: dict, source: str = "<config>", **overrides) -> TournamentConfig:
    """Validate a config mapping (plus command-line overrides such as games=, seed=) without playing."""
    if not isinstance(data, dict):
        _fail(source, "top level", "must be a mapping of tournament keys")
    data = {**data, **{k: v for k, v in overrides.items() if v is not None}}
    unknown = sorted(set(data) - set(KEYS))
    if unknown:
        _fail(source, unknown[0], f"unknown key; allowed: {', '.join(KEYS)}")
    if "entrants" not in data:
        _fail(source, "entrants", "missing; list the agents that play")
    entrants = _entrants(source, data["entrants"])
    name = str(data.get("name", Path(source).stem if source != "<config>" else "tournament"))
    rules = data.get("rules", "yacht")
    if not isinstance(rules, str):
        _fail(source, "rules", f"must be a preset name or a path to a rules YAML, got {rules!r}")
    sets = data.get("set") or {}
    if not isinstance(sets, dict):
        _fail(source, "set", f"must be a mapping of rule overrides, got {sets!r}")
    try:
        ruleset = load(rules, **sets)
    except RuleError as e:
        _fail(source, "rules", str(e))
    seats = _whole(source, "seats", data.get("seats", 2), 2, 8)
    if not ruleset.min_players <= seats <= ruleset.max_players:
        _fail(source, "seats", f"rules {ruleset.name!r} allow {ruleset.min_players} to {ruleset.max_players} "
                               f"players, got {seats}")
    if ruleset.teams and seats % ruleset.teams:
        _fail(source, "seats", f"{seats} seats cannot split into {ruleset.teams} teams of equal size")
    if seats > len(entrants):
        _fail(source, "seats", f"{seats} seats per table need at least {seats} entrants, got {len(entrants)}")
    games = _whole(source, "games", data.get("games", 10), 1)
    seed = _whole(source, "seed", data.get("seed", 0), 0)
    timeout = data.get("move_timeout", 30.0)
    if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0):
        _fail(source, "move_timeout", f"must be a positive number of seconds or null, got {timeout!r}")
    return TournamentConfig(entrants=entrants, name=name, rules=rules, set=dict(sets), seats=seats, games=games,
                            seed=seed, move_timeout=None if timeout is None else float(timeout))


def load_config(path=None, **overrides) -> TournamentConfig:
    """Read a tournament config YAML (default: the embedded default) and validate it."""
    path = Path(path) if path is not None else default_config_path()
    if not path.is_file():
        raise CommandError(f"{path}: no such tournament config file")
    try:
        data = yaml.safe_load(path.read_text())
    except yaml.YAMLError as e:
        raise CommandError(f"{path}: not valid YAML ({str(e).splitlines()[0]})") from None
    return parse_config(data, str(path), **overrides)


def check_agents(config: TournamentConfig, make_agent) -> None:
    """Build every entrant once, so a bad spec fails before any game, and reset it once for the rules,
    so caches an agent fills on first use (the solver's tables) are filled here and not in every worker.
    A failing reset is left for the games, where it is a forfeit."""
    rules = config.ruleset
    for name, spec in config.entrants.items():
        try:
            agent = make_agent(spec)
        except Exception as e:  # noqa: BLE001 - the registry's message is the user's answer
            raise CommandError(f"entrant {name!r}: cannot make agent {spec!r}: {e}") from None
        try:
            agent.reset(rules, 0, config.seats, seed=0)
        except Exception:  # noqa: BLE001, S110 - recorded as a forfeit when the games are played
            pass
        close = getattr(agent, "close", None)
        if close is not None:
            close()
