"""Training configs: a YAML file read into a checked `TrainConfig`.

A config names the rule set, the seed, the step budget, the batched env size,
MaskablePPO's hyperparameters, the network, how often to evaluate and to save.
Every key is checked; a bad one raises `ConfigError` with the key and the reason.
"""
from dataclasses import MISSING, asdict, dataclass, field
from pathlib import Path

import yaml

ACTIVATIONS = ("tanh", "relu")
ALGOS = ("ppo", "bc")


class ConfigError(ValueError):
    """A training config that cannot be used; the message names the key."""


@dataclass(frozen=True)
class PPOConfig:
    """MaskablePPO hyperparameters (the names SB3 uses)."""
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
    rules: str = "yacht"
    overrides: dict = field(default_factory=dict)
    seed: int = 0
    total_timesteps: int = 1_000_000
    n_envs: int = 64
    reward_scale: float = 1.0          # rewards x this in training (the return stays proportional to the score)
    distinct_holds: bool = False       # one hold pattern per keep (agents.training.holds)
    dice_onehot: bool = False          # the policy also sees the sorted dice one-hot (agents.training.features)
    upper_shaping: float = 0.0         # weight of the upper-par potential (agents.training.reward); 0 = off
    ppo: PPOConfig = field(default_factory=PPOConfig)
    bc: BCConfig = field(default_factory=BCConfig)
    policy: PolicyConfig = field(default_factory=PolicyConfig)
    eval_every: int = 100_000          # env steps between evaluations
    eval_games: int = 1000
    eval_seed: int = 1_000_000         # evaluation games use seeds eval_seed .. eval_seed + eval_games - 1
    checkpoint_every: int = 250_000    # env steps between checkpoints
    torch_threads: int = 1
    out: str = "runs/{name}"

    @property
    def out_dir(self) -> Path:
        return Path(self.out.format(name=self.name))

    def to_dict(self) -> dict:
        d = asdict(self)
        d["policy"]["pi"] = list(self.policy.pi)
        d["policy"]["vf"] = list(self.policy.vf)
        d.pop("bc" if self.algo == "ppo" else "ppo")
        return d


def _check_section(cls, raw, where: str):
    if not isinstance(raw, dict):
        raise ConfigError(f"{where}: expected a mapping, got {type(raw).__name__}")
    known = cls.__dataclass_fields__
    unknown = sorted(set(raw) - set(known))
    if unknown:
        raise ConfigError(f"{where}: unknown key {unknown[0]!r}; known keys: {', '.join(known)}")
    out = {}
    for key, value in raw.items():
        default = known[key].default
        kind = str if default is MISSING else float if default is None else type(default)
        name = f"{where}.{key}" if where != "config" else key
        if key in ("pi", "vf"):
            if (not isinstance(value, list) or not value
                    or not all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in value)):
                raise ConfigError(f"{name}: expected a non-empty list of positive layer sizes, got {value!r}")
            value = tuple(value)
        elif key == "overrides":
            if not isinstance(value, dict):
                raise ConfigError(f"{name}: expected a mapping of rule keys to values, got {value!r}")
        elif kind is bool:
            if not isinstance(value, bool):
                raise ConfigError(f"{name}: expected true or false, got {value!r}")
        elif kind is int:
            if not isinstance(value, int) or isinstance(value, bool):
                raise ConfigError(f"{name}: expected an integer, got {value!r}")
        elif kind is float:
            if value is None and default is None:
                pass
            elif isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ConfigError(f"{name}: expected a number, got {value!r}")
            else:
                value = float(value)
        elif kind is str:
            if not isinstance(value, str) or not value:
                raise ConfigError(f"{name}: expected a non-empty string, got {value!r}")
        out[key] = value
    return out


def _positive(name, value):
    if value <= 0:
        raise ConfigError(f"{name}: must be positive, got {value}")


def parse_config(raw: dict) -> TrainConfig:
    """A checked `TrainConfig` from a mapping (as read from YAML)."""
    if not isinstance(raw, dict):
        raise ConfigError(f"a training config is a mapping of keys to values, got {type(raw).__name__}")
    if "name" not in raw:
        raise ConfigError("name: missing (every config names its run)")
    top = _check_section(TrainConfig, {k: v for k, v in raw.items() if k not in ("ppo", "bc", "policy")}, "config")
    algo = top.get("algo", "ppo")
    if algo not in ALGOS:
        raise ConfigError(f"algo: must be one of {', '.join(ALGOS)}, got {algo!r}")
    unused = "bc" if algo == "ppo" else "ppo"
    if unused in raw:
        raise ConfigError(f"{unused}: this section is not used by algo {algo!r}")
    for key in ("ppo", "bc", "policy"):
        if key in raw and not isinstance(raw[key], dict):
            raise ConfigError(f"{key}: expected a mapping, got {raw[key]!r}")
    ppo = PPOConfig(**_check_section(PPOConfig, raw.get("ppo", {}), "ppo"))
    bc = BCConfig(**_check_section(BCConfig, raw.get("bc", {}), "bc"))
    policy = PolicyConfig(**_check_section(PolicyConfig, raw.get("policy", {}), "policy"))
    cfg = TrainConfig(**top, ppo=ppo, bc=bc, policy=policy)
    for name in ("total_timesteps", "n_envs", "reward_scale", "eval_every", "eval_games", "checkpoint_every",
                 "torch_threads"):
        _positive(name, getattr(cfg, name))
    for name in ("learning_rate", "n_steps", "batch_size", "n_epochs", "clip_range"):
        _positive(f"ppo.{name}", getattr(ppo, name))
    for name in ("gamma", "gae_lambda"):
        if not 0.0 <= getattr(ppo, name) <= 1.0:
            raise ConfigError(f"ppo.{name}: must be in [0, 1], got {getattr(ppo, name)}")
    if cfg.upper_shaping < 0:
        raise ConfigError(f"upper_shaping: must be >= 0, got {cfg.upper_shaping}")
    for name in ("games", "epochs", "batch_size", "learning_rate"):
        _positive(f"bc.{name}", getattr(bc, name))
    if ppo.final_learning_rate is not None and ppo.final_learning_rate < 0:
        raise ConfigError(f"ppo.final_learning_rate: must be >= 0, got {ppo.final_learning_rate}")
    if algo == "ppo" and ppo.batch_size > ppo.n_steps * cfg.n_envs:
        raise ConfigError(f"ppo.batch_size: {ppo.batch_size} is larger than one rollout "
                          f"(n_steps x n_envs = {ppo.n_steps * cfg.n_envs})")
    if policy.activation not in ACTIVATIONS:
        raise ConfigError(f"policy.activation: must be one of {', '.join(ACTIVATIONS)}, got {policy.activation!r}")
    try:
        cfg.out.format(name=cfg.name)
    except (KeyError, IndexError, ValueError) as e:
        raise ConfigError(f"out: only {{name}} may be used in the path, got {cfg.out!r}") from e
    return cfg


def load_config(path, **changes) -> TrainConfig:
    """Read and check a YAML training config; `changes` replace top-level keys (e.g. total_timesteps)."""
    p = Path(path)
    if not p.is_file():
        raise ConfigError(f"no training config at {str(path)!r}")
    try:
        raw = yaml.safe_load(p.read_text())
    except yaml.YAMLError as e:
        raise ConfigError(f"{path}: not valid YAML: {e}") from e
    if isinstance(raw, dict):
        raw = {**raw, **{k: v for k, v in changes.items() if v is not None}}
    return parse_config(raw)
