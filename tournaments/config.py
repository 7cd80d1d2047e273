"""Tournament configs: a YAML file of entrants, rules, seats per table and games per table.

```yaml
name: default           # names the run folder runs/<name>-<config hash>
rules: yacht            # a preset name, or a rules file (./mine.yaml; relative to this file's folder)
set: {}                 # rule overrides, as `--set key=value`
entrants: [greedy, random, {name: lucky, agent: "random"}]   # or a mapping {name: spec}
seats: 2                # seats per table (2-8); every combination of entrants of that size plays
games: 20               # deals per table; each deal is played once in every seat rotation
seed: 0                 # 0 .. 2^63 - 1
move_timeout: 30        # seconds an in-process agent may think per move, up to 86400 (null: no limit)
format: round_robin     # round_robin (default) | gauntlet | swiss (see tournaments.formats)
candidates: [greedy]    # gauntlet only: the entrants that play against all the others
rounds: 9               # swiss: rounds of tables paired by standings; adaptive: at most this many rounds
schedule: fixed         # fixed (default) | adaptive: a round robin's field ranked where its order is least
                        # certain, stopping at `confidence` (see tournaments.formats.adaptive)
confidence: 0.95        # adaptive only: every pair of neighbours in the ranking ordered at least this surely
```

The presets (`default`, `four_seats`) are files of `tournaments/presets/`; a bare name is a preset,
a file is named with a path or a .yaml suffix. A tournament schedules tables x games x seats games,
at most `MAX_GAMES`. Entrant names must differ after `slug` (their plots are `hist_<slug>.png`).

`parse_config` also reads back the config a run folder records in `tournament.json`: that record has
every key, plus `resolved_rules` (the rule set it played, as data), so the folder alone says what
was played, whatever happens to the rules files later.
"""
import hashlib
import json
from dataclasses import asdict, dataclass, field
from importlib.resources import files
from pathlib import Path

from yacht_env.config import (MAX_SEED, ConfigError, find, mapping, names_a_file, number, overrides,
                              preset_names, read_yaml, slug, text, whole)
from yacht_env.rules import RuleError, RuleSet, load, rules_block, rules_hash

from .formats import check_format, kind_of
from .seating import games_per_deal

KEYS = ("name", "rules", "set", "entrants", "seats", "games", "seed", "move_timeout", "format", "candidates",
        "rounds", "schedule", "confidence")
OPTIONAL = ("format", "candidates", "rounds", "schedule", "confidence")   # keys a recorded config may lack
                                                                          # (written before formats)
RECORD_KEYS = KEYS + ("resolved_rules",)
CHANGES = ("rules", "set", "games", "seed")      # what the command line may change
PRESETS = files("tournaments") / "presets"
DEFAULT = "default"
MAX_GAMES = 1_000_000          # games a tournament may schedule (every record is kept: ~4 KB each on disk)
MAX_ENTRANTS = 10_000         # a round robin is bounded by MAX_GAMES long before
MAX_MOVE_TIMEOUT = 86_400.0    # seconds
MAX_NAME = 64                  # characters of an entrant's name


def presets() -> list[str]:
    """Names of the preset tournament configs."""
    return preset_names(PRESETS)


@dataclass(frozen=True)
class TournamentConfig:
    """A validated tournament config. `entrants` maps each entrant's name to its agent spec;
    `resolved_rules` is the rule set that `rules` and `set` give, as data."""

    entrants: dict[str, str]
    resolved_rules: dict
    name: str = "tournament"
    rules: str = "yacht"
    set: dict = field(default_factory=dict)
    seats: int = 2
    games: int = 10
    seed: int = 0
    move_timeout: float | None = 30.0
    format: str = "round_robin"
    candidates: list = field(default_factory=list)   # gauntlet: the entrants that play all the others
    rounds: int | None = None                          # swiss: rounds; adaptive: at most this many
    schedule: str = "fixed"                            # fixed | adaptive (a round robin only)
    confidence: float | None = None                    # adaptive: the target confidence

    @property
    def ruleset(self) -> RuleSet:
        return load(self.resolved_rules)

    @property
    def rules_block(self) -> dict:
        """`{"name", "set", "hash"}` of the rules played (see `yacht_env.rules.rules_block`)."""
        return rules_block(self.ruleset, self.set)

    @property
    def kind(self):
        """Its format's class (`tournaments.formats`)."""
        return kind_of(self.format, self.schedule)

    @property
    def total_games(self) -> int:
        """Games the tournament schedules (for a format that may stop early, the most it may play): tables x
        deals x arrangements per deal."""
        return self.kind.of(self).table_count * self.games * games_per_deal(self.seats, self.ruleset.teams)

    def to_dict(self) -> dict:
        """Every field but those its format leaves out of the record (a fixed schedule: `schedule` and
        `confidence`, so the folders of round robins, gauntlets and Swiss tournaments read as they did before
        adaptive schedules)."""
        d = asdict(self)
        for key in self.kind.record_omits:
            del d[key]
        return d

    @property
    def hash(self) -> str:
        """Hash of everything that decides the games (the rules by meaning, not by file name)."""
        d = {"entrants": self.entrants, "rules": rules_hash(self.ruleset), "seats": self.seats,
             "games": self.games, "seed": self.seed, "move_timeout": self.move_timeout}
        d.update({key: getattr(self, key) for key in self.kind.hash_keys})   # a round robin adds none
        return hashlib.sha256(json.dumps(d, sort_keys=True).encode()).hexdigest()[:16]


def _entrant_name(source, where: str, value, from_spec: bool) -> str:
    if from_spec and isinstance(value, str) and len(value.strip()) > MAX_NAME:
        raise ConfigError(source, where, f"the spec {value.strip()!r} is too long to be the entrant's name; "
                                         f"write {{name: SHORT_NAME, agent: ...}}")
    return text(source, where, value, MAX_NAME)


def _entrants(source, value) -> dict[str, str]:
    if isinstance(value, dict):
        value = [{"name": k, "agent": v} for k, v in value.items()]
    if not isinstance(value, list) or not value:
        raise ConfigError(source, "entrants", "must be a non-empty list of agent specs (or {name, agent} mappings), "
                                              "or a mapping of name to spec")
    if len(value) > MAX_ENTRANTS:
        raise ConfigError(source, "entrants", f"at most {MAX_ENTRANTS} entrants, got {len(value)}")
    out: dict[str, str] = {}
    slugs: dict[str, str] = {}
    for i, item in enumerate(value):
        where = f"entrants[{i}]"
        if isinstance(item, str):
            spec = text(source, where, item, 1000)
            name = _entrant_name(source, where, item, from_spec=True)
        elif isinstance(item, dict):
            mapping(source, where, item, ("name", "agent"))
            spec = text(source, f"{where}.agent", item.get("agent"), 1000)
            name = _entrant_name(source, f"{where}.name", item.get("name", spec), from_spec="name" not in item)
        else:
            raise ConfigError(source, where, f"expected an agent spec string or {{name: ..., agent: ...}}, "
                                             f"got {item!r}")
        if name in out:
            raise ConfigError(source, where, f"duplicate entrant name {name!r}; give each a distinct `name`")
        s = slug(name)
        if s in slugs:
            raise ConfigError(source, where, f"entrant names {slugs[s]!r} and {name!r} would share the file "
                                             f"hist_{s}.png; names must differ in their letters or digits")
        out[name], slugs[s] = spec, name
    return out


def parse_config(data, source: str = "<config>", folder=None, **changes) -> TournamentConfig:
    """Validate a config mapping without playing; raise `ConfigError` naming the file, key and limits.

    `changes` are command-line values (None: not given): `rules=`, `games=`, `seed=` replace the
    config's, `set=` adds its keys over the config's `set`. A relative rules path in the config is
    taken from `folder` (the config file's folder); one from the command line from the working folder.
    A record (a mapping with `resolved_rules`, as `tournament.json` holds) must have every key.
    """
    mapping(source, "top level", data, RECORD_KEYS if isinstance(data, dict) and "resolved_rules" in data else KEYS)
    mapping("command line", "top level", changes, CHANGES)
    changes = {k: v for k, v in changes.items() if v is not None}
    record = "resolved_rules" in data
    if record:
        missing = [k for k in KEYS if k not in data and k not in OPTIONAL]
        if missing:
            raise ConfigError(source, missing[0], "missing; a recorded config has every key "
                                                  "(this folder was not written by `yacht tournament`)")

    def given(key, default):
        if key in changes:
            return "command line", changes[key]
        return source, data.get(key, default)

    if "entrants" not in data:
        raise ConfigError(source, "entrants", "missing; list the agents that play")
    entrants = _entrants(source, data["entrants"])
    name = text(source, "name", data.get("name", Path(source).stem if source != "<config>" else "tournament"), 100)
    if "/" in name or "\\" in name:
        raise ConfigError(source, "name", f"must not contain / or \\ (it names the run folder), got {name!r}")

    sets = data.get("set")
    sets = {} if sets is None else dict(overrides(source, "set", sets))
    if "set" in changes:
        sets.update(overrides("command line", "--set", changes["set"]))
    rules_source, rules = given("rules", "yacht")
    rules = text(rules_source, "rules", rules, 1000)
    if names_a_file(rules) and rules_source == source and folder is not None and not Path(rules).is_absolute():
        rules = str(Path(folder) / rules)
    try:
        if record:
            ruleset = load(mapping(source, "resolved_rules", data["resolved_rules"]))
        else:
            ruleset = load(rules, **sets)
    except RuleError as e:
        raise ConfigError(source if record else rules_source, "resolved_rules" if record else "rules", str(e)) from None

    seats = whole(source, "seats", data.get("seats", 2), 2, 8)
    try:
        ruleset.check_players(seats)
    except ValueError as e:
        raise ConfigError(source, "seats", str(e)) from None
    if seats > len(entrants):
        raise ConfigError(source, "seats", f"{seats} seats per table need at least {seats} entrants, "
                                           f"got {len(entrants)}")
    kind, own = check_format(source, data, entrants, seats)
    games_source, games = given("games", 10)
    games = whole(games_source, "games", games, 1, MAX_GAMES)
    tables = kind(list(entrants), seats, **{k: own[k] for k in kind.keys}).table_count
    per_deal = games_per_deal(seats, ruleset.teams)
    if tables * games * per_deal > MAX_GAMES:
        raise ConfigError(games_source, "games", f"{tables:,} tables x {games:,} deals x {per_deal} arrangements = "
                                                 f"{tables * games * per_deal:,} games; a tournament may schedule at "
                                                 f"most {MAX_GAMES:,} (split it into several, or play fewer deals)")
    seed_source, seed = given("seed", 0)
    seed = whole(seed_source, "seed", seed, 0, MAX_SEED)
    timeout = data.get("move_timeout", 30.0)
    if timeout is not None:
        timeout = number(source, "move_timeout", timeout, 0, MAX_MOVE_TIMEOUT, above=True)
    return TournamentConfig(entrants=entrants, resolved_rules=ruleset.to_dict(), name=name, rules=rules, set=sets,
                            seats=seats, games=games, seed=seed, move_timeout=timeout,
                            format=kind.format, schedule=kind.schedule, **own)


def load_config(spec=None, **changes) -> TournamentConfig:
    """Read and validate a tournament config: a preset name (default: `default`) or a YAML path.

    `changes` are the command line's values, as for `parse_config`."""
    spec = DEFAULT if spec is None else spec
    where = find(spec, PRESETS, "tournament config", key="config")
    preset = isinstance(spec, str) and not names_a_file(spec)
    data = read_yaml(where, "tournament config")
    return parse_config(data, spec if preset else str(where), folder=None if preset else Path(where).parent,
                        **changes)


def check_agents(config: TournamentConfig, make_agent) -> None:
    """Build every entrant once, so a bad spec fails before any game, refuse one that cannot play the rules
    at this table size (its `check_rules`: the solver's table out of reach, a model's inputs), and reset it
    once for the rules,
    so caches an agent fills on first use (the solver's tables) are filled here and not in every worker.
    A value out of the agent's reach under the rules (a `ConfigError` from its reset or `prepare`: a level
    target above the optimum) is refused here, naming the entrant; any other failing reset is left for the
    games, where it is a forfeit."""
    rules = config.ruleset
    for name, spec in config.entrants.items():
        try:
            agent = make_agent(spec)
        except Exception as e:  # noqa: BLE001 - the registry's message is the user's answer
            raise ConfigError(f"entrant {name!r}", f"cannot make agent {spec!r}: {' '.join(str(e).split())}") from None
        check = getattr(agent, "check_rules", None)
        try:
            if check is not None:
                check(rules, config.seats)
        except ValueError as e:
            close = getattr(agent, "close", None)
            if close is not None:
                close()
            raise ConfigError(f"entrant {name!r}", f"cannot play rules {rules.name!r} at {config.seats} seats: {e}") \
                from None
        try:
            agent.reset(rules, 0, config.seats, seed=0)
            prepare = getattr(agent, "prepare", None)
            if prepare is not None:
                prepare(rules, config.seats)
        except ConfigError as e:
            raise ConfigError(f"entrant {name!r}", str(e)) from None
        except Exception:  # noqa: BLE001, S110 - recorded as a forfeit when the games are played
            pass
        close = getattr(agent, "close", None)
        if close is not None:
            close()
