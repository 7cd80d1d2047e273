"""Tournament formats: which entrants meet at which table. One module per format, each a small class on
`base.Format` carrying its table layout, replay, table count, config checks and report lines; the registry
below is the one list of them (a new format is its module and one line there).

- `RoundRobin` (`round_robin`): every combination of `seats` entrants is a table.
- `Gauntlet` (`gauntlet`): every candidate against the rest.
- `Swiss` (`swiss`): rounds paired by standings, avoiding repeat meetings.
- `Adaptive` (`schedule: adaptive`): a round robin's field ranked in rounds, tables of neighbours in the
  ranking where its order is least certain, until a chosen confidence.

A config chooses its format by two keys, `format` and `schedule` (fixed unless a schedule over another
format's field, as the adaptive one is over a round robin's). The schedule (`tournaments.schedule`) turns
a table into its games; the seating of a table is `tournaments.seating`'s.
"""
from yacht_env.config import ConfigError

from .adaptive import Adaptive, AdaptiveReplay
from .base import Format, RoundReplay
from .gauntlet import Gauntlet
from .round_robin import RoundRobin
from .swiss import Swiss, SwissReplay

REGISTRY: tuple[type[Format], ...] = (RoundRobin, Gauntlet, Swiss, Adaptive)

__all__ = ["REGISTRY", "Adaptive", "AdaptiveReplay", "Format", "Gauntlet", "RoundReplay", "RoundRobin", "Swiss",
           "SwissReplay", "check_format", "format_of", "kind_of", "replay_of"]


def _names(attr: str) -> list[str]:
    return list(dict.fromkeys(getattr(f, attr) for f in REGISTRY))


def kind_of(fmt: str, schedule: str = "fixed") -> type[Format]:
    """The format a config's `format` and `schedule` choose (KeyError for a pair the registry lacks)."""
    for f in REGISTRY:
        if (f.format, f.schedule) == (fmt, schedule):
            return f
    raise KeyError((fmt, schedule))


def format_of(config) -> Format:
    """The format object of a tournament config."""
    return kind_of(config.format, config.schedule).of(config)


def replay_of(config) -> RoundReplay | None:
    """The replay of a tournament whose tables depend on results, with no games counted yet; None for the
    formats that know every table in advance."""
    return kind_of(config.format, config.schedule).replay(config)


def check_format(source, data: dict, entrants: dict, seats: int) -> tuple[type[Format], dict]:
    """The format a config's `format` and `schedule` choose, and the values of the format keys (`candidates`,
    `rounds`, `confidence`: every key some format takes, None or [] where this one takes none), checked;
    `ConfigError` naming the file, key and what is allowed, a key of another format included."""
    chosen = {}
    for key, default in (("format", "round_robin"), ("schedule", "fixed")):
        value = data.get(key)
        value = default if value is None else value
        allowed = _names(key)
        if value not in allowed:
            raise ConfigError(source, key, f"must be one of {', '.join(allowed)}, got {str(value)[:60]!r}")
        chosen[key] = value
    fmt, schedule = chosen["format"], chosen["schedule"]
    try:
        kind = kind_of(fmt, schedule)
    except KeyError:
        owner = next(f for f in REGISTRY if f.schedule == schedule)
        raise ConfigError(source, "schedule", f"{owner.called} {owner.scope}; this is a {fmt}") from None
    values = kind.check(source, data, entrants, seats)
    takers = {key: [f for f in REGISTRY if key in f.keys] for f in REGISTRY for key in f.keys}
    for key, formats in takers.items():
        if key not in kind.keys and data.get(key) not in (None, []):
            who = " or ".join(f.called for f in formats)
            how = ", or ".join(f"format: {f.format}" if f.schedule == "fixed" else f"schedule: {f.schedule}"
                               for f in formats)
            raise ConfigError(source, key, f"only {who} {formats[0].keys[key]} ({how}); this is {kind.called}")
    return kind, {"candidates": [], "rounds": None, "confidence": None, **values}
