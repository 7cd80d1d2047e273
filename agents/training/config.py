"""Training configs: a YAML file read into a checked `TrainConfig`.

A config names the rule set (`rules:` and `set:`, as in tournament configs), the seed, the step
budget, the batched env size, the table (`num_players`, `opponents`, `reward`, `seat`: alone by
default, else one seat of a multi-player table, `yacht_env.integrations.sb3.YachtVsVecEnv`), MaskablePPO's
hyperparameters, the network, a model to start from (`warm_start`), how often to evaluate and to
save. Every key is checked by the config layer (`yacht_env.config`): a bad one raises `ConfigError`
naming the file, the key and what is allowed. The bounds keep a run finite and its
memory in reach: at most `MAX_STEPS` env steps, a rollout of at most `MAX_ROLLOUT` steps, layers of
at most `MAX_WIDTH` units, seeds that numpy and torch accept.
"""
import string
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path

from yacht_env.config import (ConfigError, choice, flag, items, mapping, names_a_file, number,
                              read_yaml, text, whole)
from yacht_env.rules import RuleError, RuleSet, load

from ..registry import AGENTS, AgentSpecError, known, parse_spec

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
    epochs: int = 10
    batch_size: int = 1024
    learning_rate: float = 1e-3
    value_coef: float = 0.5            # the value head learns the points still to come (x reward_scale)


@dataclass(frozen=True)
class PolicyConfig:
    """The actor-critic network: hidden layer sizes for the policy and value heads."""
    pi: tuple[int, ...] = (256, 256)
    vf: tuple[int, ...] = (256, 256)
    activation: str = "relu"


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
    reward: str = "points"             # points, or win (+1 outright win, 0 shared first place, -1 loss; tables only)
    seat: int | str = "rotate"         # the learner's seat: rotate (seat k % num_players in a table's game k) or 0..
    env_threads: int = 1               # threads stepping a table env (one `strong` opponent plays in compiled code)
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
        d.pop("bc" if self.algo == "ppo" else "ppo")
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
    out = []
    for i, spec in enumerate(specs):
        at = key if isinstance(value, str) else f"{key}[{i}]"
        spec = text(source, at, spec, 1000)
        try:
            name = parse_spec(spec)[0]
        except AgentSpecError as e:
            raise ConfigError(source, at, str(e)) from None
        if name not in AGENTS:
            raise ConfigError(source, at, f"unknown agent {name!r}; known: {known()}")
        if name == "human":
            raise ConfigError(source, at, "human plays at a terminal; a training opponent must play by itself")
        out.append(spec)
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
        "rules": lambda s, k, v: text(s, k, v, 1000), "set": lambda s, k, v: dict(mapping(s, k, v)),
        "seed": _whole(0, MAX_TRAIN_SEED), "total_timesteps": _whole(1, MAX_STEPS), "n_envs": _whole(1, 65_536),
        "reward_scale": _number(0, 1e6, above=True), "distinct_holds": flag, "dice_onehot": flag,
        "upper_features": flag,
        "upper_shaping": _number(0, 1e6), "num_players": _whole(1, MAX_PLAYERS), "opponents": _opponents,
        "reward": lambda s, k, v: choice(s, k, v, REWARDS), "seat": _seat, "env_threads": _whole(1, 64),
        "warm_start": _or_null(lambda s, k, v: text(s, k, v, 1000)), "eval_every": _whole(1, MAX_STEPS),
        "eval_games": _whole(1, MAX_EVAL_GAMES), "eval_seed": _whole(0, MAX_EVAL_SEED),
        "checkpoint_every": _whole(1, MAX_STEPS), "torch_threads": _whole(1, 256),
        "device": lambda s, k, v: choice(s, k, v, DEVICES), "out": _out},
    PPOConfig: {
        "learning_rate": _number(0, 10, above=True), "final_learning_rate": _or_null(_number(0, 10)),
        "n_steps": _whole(1, MAX_ROLLOUT), "batch_size": _whole(1, MAX_ROLLOUT), "n_epochs": _whole(1, 1000),
        "gamma": _number(0, 1), "gae_lambda": _number(0, 1), "clip_range": _number(0, 10, above=True),
        "ent_coef": _number(0, 10), "vf_coef": _number(0, 1e6), "max_grad_norm": _number(0, 1e6, above=True),
        "normalize_advantage": flag},
    BCConfig: {
        "teacher": lambda s, k, v: text(s, k, v, 1000), "games": _whole(1, 100_000), "epochs": _whole(1, 10_000),
        "batch_size": _whole(1, 1 << 20), "learning_rate": _number(0, 10, above=True),
        "value_coef": _number(0, 1e6)},
    PolicyConfig: {
        "pi": _layers, "vf": _layers, "activation": lambda s, k, v: choice(s, k, v, ACTIVATIONS)},
}
SECTIONS = {"ppo": PPOConfig, "bc": BCConfig, "policy": PolicyConfig}


def split_sets(sets: dict) -> tuple[dict, dict]:
    """`--set KEY=VALUE` pairs (parsed) split into (training-config keys, rule keys): a top-level key of the
    config (`eval_every`, `n_envs`, `device`, ...) or SECTION.KEY of a section (`ppo.n_steps`,
    `policy.pi`) sets that config key; any other key is a rule override, as in every command."""
    top = {f.name for f in fields(TrainConfig)} - set(SECTIONS) - {"set"}
    config, rules = {}, {}
    for key, value in sets.items():
        is_config = key in top or key.partition(".")[0] in SECTIONS
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


def parse_config(raw, source: str = "<config>", folder=None, settings: dict | None = None,
                 **changes) -> TrainConfig:
    """A checked `TrainConfig` from a mapping (as read from YAML).

    `changes` are command-line values for top-level keys (None: not given); `set=` adds its keys
    over the config's `set`; `settings` are `--set` config keys (`split_sets`: KEY or SECTION.KEY),
    checked as the file's keys are and named as the command line's in errors. A relative rules
    path in the config is taken from `folder` (the config file's folder); one from the command line
    from the working folder.
    """
    mapping(source, "top level", raw)
    changes = {k: v for k, v in changes.items() if v is not None}
    in_sections = {}
    for key, value in (settings or {}).items():
        head, dot, rest = key.partition(".")
        if not dot:
            changes.setdefault(key, value)
            continue
        section = raw.get(head) if isinstance(raw.get(head), dict) else {}
        raw = {**raw, head: {**section, rest: value}}
        in_sections.setdefault(head, set()).add(rest)
    if "set" in changes:
        base = raw.get("set") if isinstance(raw.get("set"), dict) else {}
        changes["set"] = {**base, **mapping("command line", "--set", changes["set"])}
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
    _check_table(cfg, source)
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
    return cfg


def _check_table(cfg: TrainConfig, source) -> None:
    """The table keys agree with each other (the rules' own seat limits are checked when the env is built)."""
    others = cfg.num_players - 1
    if others == 0:
        for key, default in (("opponents", ()), ("reward", "points"), ("seat", "rotate")):
            if getattr(cfg, key) != default:
                raise ConfigError(source, key, f"needs a table: set num_players to 2 .. {MAX_PLAYERS} (it is 1, "
                                               "training alone)")
        return
    if cfg.algo != "ppo":
        raise ConfigError(source, "num_players", f"algo {cfg.algo!r} trains alone; tables need algo 'ppo'")
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
