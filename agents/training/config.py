"""Training configs: a YAML file read into a checked `TrainConfig`.

A config names the rule set (`rules:` and `set:`, as in tournament configs), the seed, the step
budget, the batched env size, the table (`num_players`, `opponents`, `reward`, `seat`, `table_obs`: alone by
default, else one seat of a multi-player table, `yacht_env.integrations.sb3.YachtVsVecEnv`), MaskablePPO's
hyperparameters, the network, a model to start from (`warm_start`), how often to evaluate and to
save, and a league of opponents for self-play at a table (`league`, `LeagueConfig`). Every key is checked
by the config layer (`yacht_env.config`): a bad one raises `ConfigError` naming the file, the key and what
is allowed. The bounds keep a run finite and its
memory in reach: at most `MAX_STEPS` env steps, a rollout of at most `MAX_ROLLOUT` steps, layers of
at most `MAX_WIDTH` units, seeds that numpy and torch accept.

Several rule sets (`agents.training.variants`): `rule_variants` lists rule overrides over `rules` and
`set`, one mapping per rule set trained on, all of one box layout (the same observation and action sizes);
the envs of the batched env are shared out among them by `curriculum`'s weights at each stage (equal
weights without one). `rule_knobs` lets the policy see which rule set it plays (the env option
`rule_obs="knobs"`).
"""
import string
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path

from yacht_env.config import (ConfigError, choice, flag, items, mapping, names_a_file, number,
                              overrides, read_yaml, text, whole)
from yacht_env.core.actions import num_actions
from yacht_env.envs.obs import obs_size
from yacht_env.envs.options import TABLE as TABLE_OBS   # the other sheets: summed up or in full
from yacht_env.rules import RuleError, RuleSet, load, rules_hash, solitaire_rules

from ..registry import AGENTS, AgentSpecError, known, make_agent, parse_spec

ACTIVATIONS = ("tanh", "relu")
DEVICES = ("auto", "cpu", "cuda")
ALGOS = ("ppo", "bc")
REWARDS = ("points", "win")      # points: each move's points (the return is the score); win: +1 / 0 / -1 at the end
MAX_PLAYERS = 8
MAX_STEPS = 2_000_000_000        # env steps of one run
MAX_TRAIN_SEED = 2**31 - 1       # seed + steps done stays below 2^32, the most numpy's seeding takes
MAX_EVAL_SEED = 2**62            # evaluation seeds eval_seed + j stay below 2^63
MAX_EVAL_GAMES = 1_000_000
MAX_ROLLOUT = 1 << 22            # n_steps x n_envs: one rollout's observations are held in memory
MAX_WIDTH = 4096                 # units of one hidden layer
MAX_LAYERS = 8
MAX_POOL = 64                    # past versions a league keeps (agents.training.league)
MAX_LEAGUE_SPECS = 16            # agent specs a league samples besides the learner's own versions
MAX_WEIGHT = 1e6                 # a league member's or a curriculum stage's sampling weight
MAX_VARIANTS = 16                # rule sets one run trains on
MAX_STAGES = 64                  # stages of a curriculum


@dataclass(frozen=True)
class PPOConfig:
    """MaskablePPO hyperparameters (the names SB3 uses). scripts/ppo_batched.py's `Args` lists its own under
    CleanRL's names, alike on purpose: that trainer is one file to read top to bottom."""
    learning_rate: float = 3e-4
    final_learning_rate: float | None = None   # linear decay to this value; None keeps it constant
    n_steps: int = 128
    batch_size: int = 2048
    n_epochs: int = 4
    gamma: float = 1.0
    gae_lambda: float = 0.95
    clip_range: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    normalize_advantage: bool = True


@dataclass(frozen=True)
class BCConfig:
    """Behaviour cloning (algo: bc): imitate a teacher agent's moves; not reinforcement learning."""
    teacher: str = "strong"            # an agent spec (agents.registry)
    games: int = 20_000                # teacher games recorded (seeds game_seed(seed, k))
    player: str | None = None          # who plays those games (an agent spec; None: the teacher): the teacher
    #                                    labels every decision of it (DAgger's data: the states a student reaches)
    epochs: int = 10
    batch_size: int = 1024
    learning_rate: float = 1e-3
    final_learning_rate: float | None = None   # linear decay to this value over every batch; None keeps it constant
    value_coef: float = 0.5            # the value head learns the points still to come (x reward_scale)
    contrast: str | None = None        # an agent spec: where the teacher's move keeps other dice or fills another
    #                                    box than this agent's would, the decision weighs contrast_weight
    contrast_weight: float = 1.0       # in the policy loss (a weighted mean); every other decision weighs 1
    soft_temperature: float | None = None   # in chance: the policy also learns the softmax of the teacher's chance
    #                                    of each legal move at this temperature (a teacher that rates its moves:
    #                                    strong?goal=win, strong?goal=target); None: the teacher's move alone
    soft_weight: float = 0.5           # that softmax's share of the policy's target (the teacher's move: the rest)


@dataclass(frozen=True)
class PolicyConfig:
    """The actor-critic network: hidden layer sizes for the policy and value heads."""
    pi: tuple[int, ...] = (256, 256)
    vf: tuple[int, ...] = (256, 256)
    activation: str = "relu"


@dataclass(frozen=True)
class LeagueConfig:
    """Self-play at a table (`agents.training.league`): every other seat of every training game is sampled with
    these weights (normalised by their sum) from the learner's current weights, one of its past versions
    (snapshots every `snapshot_every` env steps, the newest `pool` kept) and the agent specs of `specs`."""
    current: float = 0.0               # the learner as it is now (its weights at the rollout's start)
    past: float = 0.0                  # one of its past versions, uniformly from the pool
    specs: dict = field(default_factory=dict)   # agent spec -> weight, e.g. {"strong?goal=win": 1}
    snapshot_every: int = 500_000      # env steps between snapshots (the first: the starting weights)
    pool: int = 8                      # snapshots kept; the oldest is dropped (and its file removed)
    deterministic: bool = False        # learned opponents take their likeliest action (else they sample)


@dataclass(frozen=True)
class TrainConfig:
    """Everything `yacht train` needs; `out` is relative to the current folder."""
    name: str
    algo: str = "ppo"                  # ppo: MaskablePPO (reinforcement learning); bc: behaviour cloning
    rules: str = "yacht"               # a preset name or a rules file path
    set: dict = field(default_factory=dict)   # rule overrides, as `--set key=value`
    seed: int = 0
    total_timesteps: int = 1_000_000
    n_envs: int = 64
    reward_scale: float = 1.0          # rewards x this in training (the return stays proportional to the score)
    distinct_holds: bool = False       # one hold pattern per keep (agents.training.holds)
    dice_onehot: bool = False          # the policy also sees the sorted dice one-hot (agents.features)
    upper_features: bool = False       # the policy also sees the way to the upper bonus (agents.features)
    upper_shaping: float = 0.0         # weight of the upper-par potential (agents.training.reward); 0 = off
    num_players: int = 1               # 1: alone (Yacht-v0); 2-8: one seat of a table (YachtVs-v0)
    opponents: tuple[str, ...] = ()    # agent specs: one for every other seat, or one per other seat in order
    #                                    (with a `league`, the evaluation's opponents only)
    reward: str = "points"             # points, or win (+1 outright win, 0 shared first place, -1 loss; tables only)
    seat: int | str = "rotate"         # the learner's seat: rotate (seat k % num_players in a table's game k) or 0..
    env_threads: int = 1               # threads stepping a table env (one `strong` opponent plays in compiled code)
    table_obs: str = "summary"         # at a table: the other sheets summed up, or in full (env option table_obs)
    warm_start: str | None = None      # a model file whose weights the network starts from (agents.training.warm)
    ppo: PPOConfig = field(default_factory=PPOConfig)
    bc: BCConfig = field(default_factory=BCConfig)
    policy: PolicyConfig = field(default_factory=PolicyConfig)
    eval_every: int = 100_000          # env steps between evaluations
    eval_games: int = 1000
    eval_seed: int = 1_000_000         # evaluation games use seeds eval_seed .. eval_seed + eval_games - 1
    checkpoint_every: int = 250_000    # env steps between checkpoints
    torch_threads: int = 1
    device: str = "auto"               # torch device: auto (cuda when torch sees a GPU, else cpu), cpu or cuda
    out: str = "runs/{name}"
    league: LeagueConfig | None = None   # self-play at a table (agents.training.league); None: `opponents` play
    rule_knobs: bool = False           # the policy also sees the rule knobs (env option rule_obs="knobs")
    rule_variants: tuple[dict, ...] = ()   # rule overrides over rules + set: one mapping per rule set trained on
    curriculum: tuple[dict, ...] = ()  # stages {at: STEP, weights: [one per variant]} (agents.training.variants)

    @property
    def out_dir(self) -> Path:
        return Path(self.out.format(name=self.name))

    @property
    def ruleset(self) -> RuleSet:
        return load(self.rules, **self.set)

    def to_dict(self) -> dict:
        d = asdict(self)
        d["policy"]["pi"] = list(self.policy.pi)
        d["policy"]["vf"] = list(self.policy.vf)
        d["opponents"] = list(self.opponents)
        d["rule_variants"] = [dict(v) for v in self.rule_variants]
        d["curriculum"] = [{"at": s["at"], "weights": list(s["weights"])} for s in self.curriculum]
        d.pop("bc" if self.algo == "ppo" else "ppo")
        if self.league is None:
            d.pop("league")           # configs without a league record exactly what they always did
        return d


def _whole(lo, hi):
    return lambda source, key, value: whole(source, key, value, lo, hi)


def _number(lo, hi, above=False):
    return lambda source, key, value: number(source, key, value, lo, hi, above)


def _or_null(check):
    return lambda source, key, value: None if value is None else check(source, key, value)


def _layers(source, key, value) -> tuple[int, ...]:
    items(source, key, value, 1, MAX_LAYERS)
    return tuple(whole(source, f"{key}[{i}]", v, 1, MAX_WIDTH) for i, v in enumerate(value))


def _opponents(source, key, value) -> tuple[str, ...]:
    if not isinstance(value, (str, list)):
        raise ConfigError(source, key, f"must be an agent spec, or a list of one per other seat, got {value!r:.60}")
    specs = [value] if isinstance(value, str) else items(source, key, value, 1, MAX_PLAYERS - 1)
    return tuple(_agent_spec(source, key if isinstance(value, str) else f"{key}[{i}]", spec)
                 for i, spec in enumerate(specs))


def _agent_spec(source, at, spec) -> str:
    """One opponent's agent spec: known, and one that plays by itself."""
    spec = text(source, at, spec, 1000)
    try:
        name = parse_spec(spec)[0]
    except AgentSpecError as e:
        raise ConfigError(source, at, str(e)) from None
    if name not in AGENTS:
        raise ConfigError(source, at, f"unknown agent {name!r}; known: {known()}")
    if name == "human":
        raise ConfigError(source, at, "human plays at a terminal; a training opponent must play by itself")
    return spec


def _check_soft(bc: BCConfig, source) -> None:
    """Soft targets need a teacher that rates its moves (`move_chances`); a soft weight needs soft targets."""
    if bc.soft_temperature is None:
        if bc.soft_weight != BCConfig.soft_weight:
            raise ConfigError(source, "bc.soft_weight", "is the share of the teacher's rated moves in the target: "
                                                        "set bc.soft_temperature too")
        return
    try:
        teacher = make_agent(bc.teacher)
    except (AgentSpecError, ValueError) as e:
        raise ConfigError(source, "bc.teacher", str(e)) from None
    if not hasattr(teacher, "move_chances"):
        raise ConfigError(source, "bc.soft_temperature", f"learns the teacher's chance of each move; only "
                                                         f"strong?goal=win and strong?goal=target rate their moves, "
                                                         f"bc.teacher is {bc.teacher!r}")


LEAGUE_KEYS = [f.name for f in fields(LeagueConfig)]


def _league(source, key, value, part: bool = False) -> LeagueConfig | dict | None:
    """The `league` mapping: weights finite and >= 0 with a positive sum, specs known agents that play in
    batches (an external bot plays one game per process), a snapshot interval and a bounded pool. `part`
    checks some of its keys alone (`--set league.KEY=VALUE`) and gives them as a mapping."""
    if value is None:
        return None
    mapping(source, key, value, LEAGUE_KEYS)
    out = {}
    for name in ("current", "past"):
        if name in value:
            out[name] = number(source, f"{key}.{name}", value[name], 0, MAX_WEIGHT)
    if "specs" in value:
        specs = mapping(source, f"{key}.specs", value["specs"])
        if len(specs) > MAX_LEAGUE_SPECS:
            raise ConfigError(source, f"{key}.specs", f"at most {MAX_LEAGUE_SPECS} agent specs, got {len(specs)}")
        out["specs"] = {}
        for spec, weight in specs.items():
            at = f"{key}.specs[{spec!r:.60}]"
            spec = _agent_spec(source, at, spec)
            if parse_spec(spec)[0] == "external":
                raise ConfigError(source, at, "an external bot plays one game per process; a league's opponents "
                                              "play every table at once (use it in `opponents`)")
            out["specs"][spec] = number(source, at, weight, 0, MAX_WEIGHT)
    if "snapshot_every" in value:
        out["snapshot_every"] = whole(source, f"{key}.snapshot_every", value["snapshot_every"], 1, MAX_STEPS)
    if "pool" in value:
        out["pool"] = whole(source, f"{key}.pool", value["pool"], 1, MAX_POOL)
    if "deterministic" in value:
        out["deterministic"] = flag(source, f"{key}.deterministic", value["deterministic"])
    if part:
        return out
    league = LeagueConfig(**out)
    if league.current + league.past + sum(league.specs.values()) <= 0:
        raise ConfigError(source, key, "the weights (current, past and every spec's) sum to 0; give at least one "
                                       "a weight above 0")
    return league


def _variants(source, key, value) -> tuple[dict, ...]:
    """Rule overrides, one mapping per rule set (each loaded over the config's rules by `variant_rules`); an
    empty list trains on the config's rules alone."""
    items(source, key, value, 0, MAX_VARIANTS)
    out = []
    for i, variant in enumerate(value):
        out.append(dict(overrides(source, f"{key}[{i}]", variant)))
    return tuple(out)


def _stages(source, key, value) -> tuple[dict, ...]:
    """Curriculum stages: {at: first env step of the stage, weights: a weight 0 .. MAX_WEIGHT per rule variant}; an
    empty list gives every variant weight 1 throughout."""
    items(source, key, value, 0, MAX_STAGES)
    out = []
    for i, stage in enumerate(value):
        at = f"{key}[{i}]"
        mapping(source, at, stage, ("at", "weights"))
        for name in ("at", "weights"):
            if name not in stage:
                raise ConfigError(source, f"{at}.{name}", "missing (a stage is {at: STEP, weights: [...]})")
        weights = items(source, f"{at}.weights", stage["weights"], 1, MAX_VARIANTS)
        out.append({"at": whole(source, f"{at}.at", stage["at"], 0, MAX_STEPS),
                    "weights": tuple(number(source, f"{at}.weights[{j}]", w, 0, MAX_WEIGHT)
                                     for j, w in enumerate(weights))})
    return tuple(out)


def _seat(source, key, value):
    if value == "rotate":
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return whole(source, key, value, 0, MAX_PLAYERS - 1)
    raise ConfigError(source, key, f"must be rotate or a seat number 0 .. {MAX_PLAYERS - 1}, got {value!r}")


def _run_name(source, key, value) -> str:
    name = text(source, key, value, 100)
    if "/" in name or "\\" in name or name in (".", ".."):
        raise ConfigError(source, key, f"must be a plain name, not a path (it names the run folder), got {name!r}")
    return name


def _out(source, key, value) -> str:
    out = text(source, key, value, 1000)
    try:
        parts = list(string.Formatter().parse(out))
    except ValueError:
        parts = None
    if parts is None or any(f is not None and (f != "name" or spec or conv) for _, f, spec, conv in parts):
        raise ConfigError(source, key, f"a folder path in which only {{name}} may be used, got {out!r}")
    return out


CHECKS = {
    TrainConfig: {
        "name": _run_name, "algo": lambda s, k, v: choice(s, k, v, ALGOS),
        "rules": lambda s, k, v: text(s, k, v, 1000), "set": lambda s, k, v: dict(overrides(s, k, v)),
        "seed": _whole(0, MAX_TRAIN_SEED), "total_timesteps": _whole(1, MAX_STEPS), "n_envs": _whole(1, 65_536),
        "reward_scale": _number(0, 1e6, above=True), "distinct_holds": flag, "dice_onehot": flag,
        "upper_features": flag,
        "upper_shaping": _number(0, 1e6), "num_players": _whole(1, MAX_PLAYERS), "opponents": _opponents,
        "reward": lambda s, k, v: choice(s, k, v, REWARDS), "seat": _seat, "env_threads": _whole(1, 64),
        "table_obs": lambda s, k, v: choice(s, k, v, TABLE_OBS),
        "warm_start": _or_null(lambda s, k, v: text(s, k, v, 1000)), "eval_every": _whole(1, MAX_STEPS),
        "eval_games": _whole(1, MAX_EVAL_GAMES), "eval_seed": _whole(0, MAX_EVAL_SEED),
        "checkpoint_every": _whole(1, MAX_STEPS), "torch_threads": _whole(1, 256),
        "device": lambda s, k, v: choice(s, k, v, DEVICES), "out": _out, "league": _league,
        "rule_knobs": flag, "rule_variants": _variants, "curriculum": _stages},
    PPOConfig: {
        "learning_rate": _number(0, 10, above=True), "final_learning_rate": _or_null(_number(0, 10)),
        "n_steps": _whole(1, MAX_ROLLOUT), "batch_size": _whole(1, MAX_ROLLOUT), "n_epochs": _whole(1, 1000),
        "gamma": _number(0, 1), "gae_lambda": _number(0, 1), "clip_range": _number(0, 10, above=True),
        "ent_coef": _number(0, 10), "vf_coef": _number(0, 1e6), "max_grad_norm": _number(0, 1e6, above=True),
        "normalize_advantage": flag},
    BCConfig: {
        "teacher": _agent_spec, "player": _or_null(_agent_spec), "games": _whole(1, 500_000),
        "epochs": _whole(1, 10_000),
        "batch_size": _whole(1, 1 << 20), "learning_rate": _number(0, 10, above=True),
        "final_learning_rate": _or_null(_number(0, 10)), "value_coef": _number(0, 1e6),
        "contrast": _or_null(_agent_spec), "contrast_weight": _number(0, 1e6, above=True),
        "soft_temperature": _or_null(_number(0, 1, above=True)), "soft_weight": _number(0, 1)},
    PolicyConfig: {
        "pi": _layers, "vf": _layers, "activation": lambda s, k, v: choice(s, k, v, ACTIVATIONS)},
}
SECTIONS = {"ppo": PPOConfig, "bc": BCConfig, "policy": PolicyConfig}
LEAGUE = "league"      # an optional section: its keys are set one by one as SECTION.KEY too


def split_sets(sets: dict) -> tuple[dict, dict]:
    """`--set KEY=VALUE` pairs (parsed) split into (training-config keys, rule keys): a top-level key of the
    config (`eval_every`, `n_envs`, `device`, ...) or SECTION.KEY of a section (`ppo.n_steps`,
    `policy.pi`, `league.current`) sets that config key; any other key is a rule override, as in every command."""
    top = {f.name for f in fields(TrainConfig)} - set(SECTIONS) - {"set"}
    config, rules = {}, {}
    for key, value in sets.items():
        is_config = key in top or key.partition(".")[0] in (*SECTIONS, LEAGUE)
        (config if is_config else rules)[key] = value
    return config, rules


def _section(cls, raw: dict, source, where: str, changed=()) -> dict:
    """The checked values of one section's keys (`changed`: top-level keys from the command line)."""
    names = [f.name for f in fields(cls) if f.name not in SECTIONS]
    if where != "top level" and any(key not in names for key in changed):
        mapping("command line", where, {k: raw[k] for k in changed}, names)
    mapping(source, where, raw, names + (list(SECTIONS) if cls is TrainConfig else []))
    out = {}
    for key, value in raw.items():
        if key in SECTIONS and cls is TrainConfig:
            continue
        at = f"{where}.{key}" if where != "top level" else key
        out[key] = CHECKS[cls][key]("command line" if key in changed else source, at, value)
    return out


def _over(base, given: dict):
    """`given` keys set over the mapping `base` (None: none yet); another `base` is left for its own error."""
    if base is None:
        return given
    return {**base, **given} if isinstance(base, dict) else base


def parse_config(raw, source: str = "<config>", folder=None, settings: dict | None = None,
                 **changes) -> TrainConfig:
    """A checked `TrainConfig` from a mapping (as read from YAML).

    `changes` are command-line values for top-level keys (None: not given); `set=` adds its keys
    over the config's `set`; `settings` are `--set` config keys (`split_sets`: KEY or SECTION.KEY),
    checked as the file's keys are and named as the command line's in errors; `league.KEY` is set over
    the league the file (or `--set league=...`) gives, or makes one of that key alone. A relative rules
    path in the config is taken from `folder` (the config file's folder); one from the command line
    from the working folder.
    """
    mapping(source, "top level", raw)
    changes = {k: v for k, v in changes.items() if v is not None}
    in_sections, in_league = {}, {}
    for key, value in (settings or {}).items():
        head, dot, rest = key.partition(".")
        if not dot:
            changes.setdefault(key, value)
            continue
        if head == LEAGUE:
            in_league[rest] = value
            continue
        section = raw.get(head) if isinstance(raw.get(head), dict) else {}
        raw = {**raw, head: {**section, rest: value}}
        in_sections.setdefault(head, set()).add(rest)
    if "set" in changes:
        base = raw.get("set") if isinstance(raw.get("set"), dict) else {}
        changes["set"] = {**base, **overrides("command line", "--set", changes["set"])}
    if in_league:          # checked alone here, then as a whole with the keys it is set over
        given = _league("command line", LEAGUE, in_league, part=True)
        if LEAGUE in changes:
            changes[LEAGUE] = _over(changes[LEAGUE], given)
        else:
            raw = {**raw, LEAGUE: _over(raw.get(LEAGUE), given)}
    raw = {**raw, **changes}
    if "name" not in raw:
        raise ConfigError(source, "name", "missing (every config names its run)")
    top = _section(TrainConfig, raw, source, "top level", changed=changes)
    algo = top.get("algo", "ppo")
    unused = "bc" if algo == "ppo" else "ppo"
    if unused in raw:
        raise ConfigError(source, unused, f"this section is not used by algo {algo!r}")
    sections = {key: cls(**_section(cls, raw.get(key, {}), source, key, changed=in_sections.get(key, ())))
                for key, cls in SECTIONS.items()}
    cfg = TrainConfig(**top, **sections)
    ppo = cfg.ppo
    if algo == "ppo" and ppo.n_steps * cfg.n_envs > MAX_ROLLOUT:
        raise ConfigError(source, "ppo.n_steps", f"one rollout is n_steps x n_envs = {ppo.n_steps * cfg.n_envs:,} "
                                                 f"steps; at most {MAX_ROLLOUT:,}")
    if algo == "ppo" and ppo.batch_size > ppo.n_steps * cfg.n_envs:
        raise ConfigError(source, "ppo.batch_size", f"{ppo.batch_size} is larger than one rollout "
                                                    f"(n_steps x n_envs = {ppo.n_steps * cfg.n_envs})")
    if algo == "bc" and cfg.bc.contrast is None and cfg.bc.contrast_weight != 1.0:
        raise ConfigError(source, "bc.contrast_weight", "weighs the decisions where the teacher departs from "
                                                        "bc.contrast: set bc.contrast to an agent spec too")
    if algo == "bc":
        _check_soft(cfg.bc, source)
    _check_table(cfg, source)
    _check_curriculum(cfg, source)
    rules_source = "command line" if "rules" in changes else source
    if names_a_file(cfg.rules) and rules_source == source and folder is not None and not Path(cfg.rules).is_absolute():
        cfg = replace(cfg, rules=str(Path(folder) / cfg.rules))
    try:
        rules = cfg.ruleset
    except RuleError as e:
        raise ConfigError(rules_source, "rules", str(e)) from None
    if cfg.num_players > 1:
        try:
            rules.check_players(cfg.num_players)
        except ValueError as e:
            raise ConfigError("command line" if "num_players" in changes else source, "num_players", str(e)) from None
    variant_rules(cfg, "command line" if "rule_variants" in changes else source)
    return cfg


def variant_rules(cfg: TrainConfig, source: str = "<config>") -> list[RuleSet]:
    """The rule sets a config trains on: its rules (`rules` + `set`) alone, or each of `rule_variants` over
    them. ConfigError naming the variant when one is not a rule set, has another box layout than the
    config's rules (observation or action size), or repeats another."""
    base = cfg.ruleset
    if not cfg.rule_variants:
        return [base]
    shape = (obs_size(base), num_actions(base))
    out, seen = [], {}
    for i, variant in enumerate(cfg.rule_variants):
        key = f"rule_variants[{i}]"
        try:
            rules = load(cfg.rules, **{**cfg.set, **variant})
        except RuleError as e:
            raise ConfigError(source, key, str(e)) from None
        if (obs_size(rules), num_actions(rules)) != shape:
            raise ConfigError(source, key, f"has another box layout than the config's rules {base.name!r} (observation "
                                           f"{obs_size(rules)} and {num_actions(rules)} actions, not {shape[0]} and "
                                           f"{shape[1]}); one network plays rule sets of one layout")
        same = seen.get(rules_hash(solitaire_rules(rules)))
        if same is not None:
            raise ConfigError(source, key, f"plays the same rules as rule_variants[{same}]")
        seen[rules_hash(solitaire_rules(rules))] = i
        out.append(rules)
    return out


def _check_curriculum(cfg: TrainConfig, source) -> None:
    """The rule-variant keys agree with each other and with the rest of the config."""
    if not cfg.rule_variants:
        if cfg.curriculum:
            raise ConfigError(source, "curriculum", "weighs rule_variants: list the rule sets in rule_variants first")
        return
    for key, why in (("num_players", cfg.num_players != 1), ("algo", cfg.algo != "ppo"),
                     ("upper_features", cfg.upper_features), ("upper_shaping", cfg.upper_shaping != 0)):
        if why:
            raise ConfigError(source, "rule_variants", f"trains alone with algo ppo and without upper_features or "
                                                       f"upper_shaping (they read one rule set's upper bonus); "
                                                       f"{key} is {getattr(cfg, key)!r}")
    n = len(cfg.rule_variants)
    for i, stage in enumerate(cfg.curriculum):
        at = f"curriculum[{i}]"
        if len(stage["weights"]) != n:
            raise ConfigError(source, f"{at}.weights", f"must give one weight per rule variant ({n}), "
                                                       f"got {len(stage['weights'])}")
        if not any(stage["weights"]):
            raise ConfigError(source, f"{at}.weights", "must give at least one rule variant a weight above 0")
        if i == 0 and stage["at"] != 0:
            raise ConfigError(source, f"{at}.at", f"the first stage starts at step 0, got {stage['at']}")
        if i and stage["at"] <= cfg.curriculum[i - 1]["at"]:
            raise ConfigError(source, f"{at}.at", f"stages start in increasing order: {stage['at']} is not after "
                                                  f"{cfg.curriculum[i - 1]['at']}")


def _check_table(cfg: TrainConfig, source) -> None:
    """The table keys agree with each other (the rules' own seat limits are checked when the env is built)."""
    others = cfg.num_players - 1
    if others == 0:
        for key, default in (("opponents", ()), ("reward", "points"), ("seat", "rotate"), ("table_obs", "summary"),
                             ("league", None)):
            if getattr(cfg, key) != default:
                raise ConfigError(source, key, f"needs a table: set num_players to 2 .. {MAX_PLAYERS} (it is 1, "
                                               "training alone)")
        return
    if cfg.algo != "ppo" and cfg.league is not None:
        raise ConfigError(source, "league", f"self-play needs algo 'ppo'; algo {cfg.algo!r} learns from its teacher's "
                                            "games against the opponents")
    if cfg.algo != "ppo" and cfg.seat != "rotate":
        raise ConfigError(source, "seat", f"algo {cfg.algo!r} seats its teacher at seat k % num_players of game k, "
                                          f"as its evaluation seats the model: write seat: rotate")
    if not cfg.opponents:
        raise ConfigError(source, "opponents", f"missing: a table of {cfg.num_players} seats needs an agent spec for "
                                               f"the other seats (one for all, or a list of {others})")
    if len(cfg.opponents) not in (1, others):
        raise ConfigError(source, "opponents", f"one agent spec for every other seat, or a list of {others} (one per "
                                               f"other seat in seat order), got {len(cfg.opponents)}")
    if cfg.seat != "rotate" and cfg.seat >= cfg.num_players:
        raise ConfigError(source, "seat", f"must be rotate or 0 .. {others}, got {cfg.seat}")
    if cfg.upper_shaping and cfg.reward == "win":
        raise ConfigError(source, "upper_shaping", "pays points; with reward 'win' it must be 0")


def load_config(path, settings: dict | None = None, **changes) -> TrainConfig:
    """Read and check a YAML training config; `changes` replace top-level keys (e.g. total_timesteps) and
    `settings` any key (`--set`), as `parse_config` describes."""
    raw = read_yaml(path, "training config")
    return parse_config(raw, str(path), folder=Path(path).parent, settings=settings, **changes)
