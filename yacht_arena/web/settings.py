"""The operator's side of `yacht serve`: the serve config (`--config FILE`), the server's limits and the menu of
CPU players a table may seat. A client names a menu entry, never a spec to run."""
from dataclasses import dataclass, field
from pathlib import Path

from agents.registry import AgentSpecError, make_agent
from yacht_env.config import ConfigError, flag, mapping, number, read_yaml, text, whole

from .bots import ArenaConfig
from .tables import TableError

LEVELS = (("easy", "Easy", "easy"), ("normal", "Normal", "normal"), ("strong", "Strong", "strong"),
          ("strong-win", "Strong, playing to win", "strong?goal=win"), ("greedy", "Greedy", "greedy"))


@dataclass
class Limits:
    """What the server holds at most, and how long it waits on a client."""
    tables: int = 1000
    connections: int = 4000        # WebSocket connections (also bounded by the process's file limit)
    queue: int = 32                # messages waiting to be sent to one connection
    send_timeout: float = 10.0     # seconds one message may take to send
    request_timeout: float = 10.0  # seconds for a request's head, and then for its body
    tables_per_address: int = 100  # open tables opened from one client address (as the server sees it)


@dataclass
class Menu:
    """The CPU players a table may seat: id -> (label, spec). `dial` adds strong?strength=S. Greedy (the
    best score of each roll, no plan) plays any rule set, those the solver cannot reach too."""
    entries: dict = field(default_factory=dict)

    @classmethod
    def of(cls, extra: dict | None = None, allow_external: bool = False) -> "Menu":
        """The levels the agent registry accepts (so `strong?goal=win` appears once it exists), then the
        operator's entries (learned models; external bots only with `allow_external`)."""
        entries = {}
        for key, label, spec in LEVELS:
            if accepted(spec):
                entries[key] = (label, spec)
        for label, spec in (extra or {}).items():
            if spec.split("?")[0].split(":")[0] == "external" and not allow_external:
                raise ConfigError("serve config", f"cpus.{label}", "an external bot needs allow_external: true")
            if spec.split("?")[0].split(":")[0] == "human":
                raise ConfigError("serve config", f"cpus.{label}", "people sit down themselves; list CPU specs")
            try:
                make_agent(spec).close()
            except AgentSpecError as e:
                raise ConfigError("serve config", f"cpus.{label}", str(e)) from None
            entries[f"op-{len(entries)}"] = (label, spec)
        return cls(entries)

    def spec(self, choice) -> tuple[str, str]:
        """(spec, label) of a client's CPU choice: a menu id, or {"dial": S} with S in [0, 1]."""
        if isinstance(choice, str) and choice in self.entries:
            label, spec = self.entries[choice]
            return spec, label
        if isinstance(choice, dict) and set(choice) == {"dial"}:
            s = choice["dial"]
            if isinstance(s, bool) or not isinstance(s, (int, float)) or not 0 <= s <= 1:
                raise TableError("the strength dial takes a number from 0 to 1")
            s = round(float(s), 2)
            return (f"strong?strength={s:g}", f"Dial {s:g}") if s < 1 else ("strong", "Strong")
        raise TableError(f"unknown CPU {str(choice)[:40]!r}; choose one of {', '.join(self.entries)} or the dial")

    def label(self, spec: str) -> str:
        """What people read for a CPU of `spec`: its menu label, the dial's, else the spec's name ("Greedy")."""
        for label, s in self.entries.values():
            if s == spec:
                return label
        if spec.startswith("strong?strength="):
            return f"Dial {spec.partition('=')[2]}"
        return spec.split("?")[0].split(":")[0].capitalize()

    def offers(self, spec: str) -> bool:
        """Whether `spec` is on this menu (a level, the dial, or an operator's entry)."""
        return spec.startswith("strong?strength=") or any(s == spec for _, s in self.entries.values())

    def to_json(self) -> list:
        return [{"id": k, "label": label} for k, (label, _) in self.entries.items()]


def accepted(spec: str) -> bool:
    """Whether the agent registry builds `spec` (without playing it)."""
    try:
        make_agent(spec).close()
    except (AgentSpecError, ValueError):
        return False
    return True


@dataclass
class ServeConfig:
    """`yacht serve --config FILE`: cpus (label -> spec), allow_external, tournaments (folders to show),
    max_tables, max_tables_per_address, max_connections, send_timeout, request_timeout, origins (the pages
    allowed to change tables, for a server behind a proxy or on a public name)."""
    cpus: dict = field(default_factory=dict)
    allow_external: bool = False
    tournaments: list = field(default_factory=list)
    limits: Limits = field(default_factory=Limits)
    origins: list = field(default_factory=list)
    arena: ArenaConfig = field(default_factory=ArenaConfig)   # remote bots and the rating list (bots.py)

    @classmethod
    def read(cls, path) -> "ServeConfig":
        src = str(path)
        doc = mapping(src, "top level", read_yaml(path, "serve config") or {},
                      ("cpus", "allow_external", "tournaments", "max_tables", "max_tables_per_address",
                       "max_connections", "origins",
                       "send_timeout", "request_timeout", *ArenaConfig.KEYS))
        cpus = {text(src, f"cpus.{k}", k, 40): text(src, f"cpus.{k}", v, 1000)
                for k, v in mapping(src, "cpus", doc.get("cpus") or {}).items()}
        folders = doc.get("tournaments") or []
        if not isinstance(folders, list):
            raise ConfigError(src, "tournaments", "must be a list of tournament folders")
        origins = doc.get("origins") or []
        if not isinstance(origins, list) or len(origins) > 64:
            raise ConfigError(src, "origins", "must be a list of at most 64 origins like https://yacht.example.org")
        base = Path(path).parent
        return cls(cpus, flag(src, "allow_external", doc.get("allow_external", False)),
                   [base / text(src, "tournaments", f, 1000) for f in folders],
                   Limits(whole(src, "max_tables", doc.get("max_tables", 1000), 1, 100_000),
                          whole(src, "max_connections", doc.get("max_connections", 4000), 1, 100_000),
                          tables_per_address=whole(src, "max_tables_per_address",
                                                   doc.get("max_tables_per_address", Limits.tables_per_address),
                                                   1, 100_000),
                          send_timeout=number(src, "send_timeout", doc.get("send_timeout", 10.0), 0.1, 300),
                          request_timeout=number(src, "request_timeout", doc.get("request_timeout", 10.0), 0.1, 300)),
                   [origin_of(src, text(src, "origins", o, 300)) for o in origins],
                   ArenaConfig.read(src, doc))


def origin_of(src: str, value: str) -> str:
    """An origin as browsers send it (scheme://host[:port], lower case, no path); ConfigError otherwise."""
    scheme, sep, rest = value.strip().lower().partition("://")
    if scheme not in ("http", "https") or not sep or not rest or "/" in rest.rstrip("/") or "@" in rest:
        raise ConfigError(src, "origins", f"{value[:80]!r} is not an origin like https://yacht.example.org")
    return f"{scheme}://{rest.rstrip('/')}"

