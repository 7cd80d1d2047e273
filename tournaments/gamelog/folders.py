"""Folders of stored games as a whole: read one for the move analysis, store a web table's game in one.

`read_games` reads any folder of stored games (or a bare games log) with the rules its meta file names;
`analyze_file` is the move analysis (`agents.analysis`) of what it read, errors naming file and line.
`write_evaluation` writes an evaluation's folder whole.

A web table's finished game is kept in a folder of its own (`layout`): `table_meta` makes its meta file
from the table's seats, `table_record` its record from the table's game (seat order and places as the
table has them), and `store_table_game` writes both -- the meta file once, then the record appended to
the log once, so storing a game twice (a server killed between storing it and saying so) keeps one.
"""
import json
from dataclasses import dataclass, field
from pathlib import Path

from agents.analysis import AnalysisError, analyze, show_value
from yacht_env.config import ConfigError
from yacht_env.rules import RuleSet, load, rules_block, rules_hash
from yacht_env.safe_file import FileRefused, NoSuchFile, ensure_folder, read_bytes, read_text, write_atomic

from ..config import parse_config
from ..schedule import game_key
from ..seating import balanced_splits
from . import log
from .layout import EVALUATION_META, GAMES, MAX_META_BYTES, METAS, TOURNAMENT_META
from .records import MAX_RECORD_BYTES, first_of_each_key, record_of_game
from .schema import Schema, check_record


# ---- reading a folder for the analysis -----------------------------------------------------------

@dataclass
class GameFile:
    """The records of a games log, their line numbers, and the rules they were played under."""
    path: Path                 # the games.jsonl read
    records: list[dict]
    lines: list[int]           # line number of each record in the file (1-based)
    rules: RuleSet
    rules_from: str            # where the rules came from: tournament.json, evaluate.json, --rules, default
    overrides: dict = field(default_factory=dict)   # the rule overrides that named them (for the rules block)

    @property
    def rules_block(self) -> dict:
        """`{"name", "set", "hash"}` of the rules, as every `--json` result names its rules."""
        return rules_block(self.rules, self.overrides)


def read_games(path, rules=None, rules_from: str = "--rules", overrides: dict | None = None) -> GameFile:
    """Read a folder of stored games (a tournament, an `evaluate --out` run, a web game) or a games.jsonl file.

    The rules come from the meta file beside the log (`layout.METAS`); `rules` (a RuleSet) is for a log
    with none, and is refused when one names the rules. A torn last line (a write cut short) is ignored
    and a repeated game key keeps its first record, as the store does; records that all have keys are
    sorted by key, so the figures do not depend on the order the games were appended in.
    """
    path = Path(path)
    if path.is_dir():
        folder, games = path, path / GAMES
        if not games.is_file():
            raise AnalysisError(f"{path}: no {GAMES} in this folder (a tournament or `evaluate --out` folder "
                                f"holds one)")
    elif path.exists() or path.is_symlink():
        folder, games = path.parent, path          # a FIFO, a device: refused as not a regular file when read
    else:
        raise AnalysisError(f"{path}: no such file or folder")
    meta = next((folder / m for m in METAS if (folder / m).is_file()), None) if games.name == GAMES else None
    if meta is not None:
        if rules is not None:
            raise AnalysisError(f"{meta} names the rules these games were played under; drop --rules/--set")
        (rules, overrides), rules_from = rules_of_meta(meta), meta.name
    elif rules is None:
        rules, rules_from = load("yacht"), "default"
    records, lines = _read_lines(games)
    if all(isinstance(r.get("key"), str) for r in records):  # by key: the same figures whatever order games were
        pairs = sorted(zip(records, lines), key=lambda rl: rl[0]["key"])  # appended in (worker count, resumes)
        records, lines = [r for r, _ in pairs], [n for _, n in pairs]
    return GameFile(games, records, lines, rules, rules_from, dict(overrides or {}))


def rules_of_meta(meta: Path) -> tuple[RuleSet, dict]:
    """The rules a tournament.json or an evaluate.json names, and the overrides that named them.

    Read, in this order: `resolved_rules` (the rule set as data, as tournament.json records it); or
    `rules` as a rules block `{"name", "set", "hash"}`, a preset name or rules path (with `set`:
    overrides), or a rule mapping. Both files may nest these under `config`. A hash given (the
    block's `hash` or `rules_hash`) must be that of the rules read.
    """
    try:
        doc = json.loads(read_text(meta, MAX_META_BYTES, meta.name))
    except FileRefused as e:
        raise AnalysisError(str(e)) from None
    except (json.JSONDecodeError, RecursionError) as e:
        raise AnalysisError(f"{meta}: not valid JSON ({getattr(e, 'msg', 'too deeply nested')})") from None
    body = doc.get("config", doc) if isinstance(doc, dict) else None
    if not isinstance(body, dict):
        raise AnalysisError(f"{meta}: expected a JSON object naming the rules")
    rules, sets, want = body.get("resolved_rules"), body.get("set") or {}, body.get("rules_hash")
    if rules is None:
        rules = body.get("rules", "yacht")
        if isinstance(rules, dict) and set(rules) <= {"name", "set", "hash"}:   # a rules block
            rules, sets, want = rules.get("name"), rules.get("set") or {}, rules.get("hash", want)
    if not isinstance(rules, (str, dict)):
        raise AnalysisError(f"{meta}: rules: expected a preset name, a rules path, a rules block or a rule mapping, "
                            f"got {show_value(rules)}")
    if not isinstance(sets, dict):
        raise AnalysisError(f"{meta}: set: expected a mapping of rule overrides, got {show_value(sets)}")
    try:
        ruleset = load(rules) if "resolved_rules" in body else load(rules, **sets)
    except ConfigError as e:
        raise AnalysisError(f"{meta}: rules: {e}") from None
    if want is not None and want != rules_hash(ruleset):
        raise AnalysisError(f"{meta}: the rules hash {show_value(want)} is not the hash of the rules it names "
                            f"({rules_hash(ruleset)}); the rule file changed since the games were played")
    return ruleset, sets


def _read_lines(path: Path) -> tuple[list[dict], list[int]]:
    """The game records of a games log with their line numbers, streamed a line at a time (each at most
    MAX_RECORD_BYTES) by `log.read` (a torn last line ends it, a last line of valid JSON without its newline
    counts, the first record of a key wins); a regular file only (a FIFO, a device or a folder is refused)."""
    def bad(number, problem):
        if problem == "too long":
            raise AnalysisError(f"{path}: line {number}: longer than {MAX_RECORD_BYTES >> 20} MiB; a game record "
                                "has at most that")
        raise AnalysisError(f"{path}: line {number} is not valid JSON; not a games log")

    records, numbers = [], []
    try:
        for number, _, rec in first_of_each_key(log.read(path, bad, unterminated=True, what="games log")):
            if not isinstance(rec, dict) or not isinstance(rec.get("log"), list) or \
                    not isinstance(rec.get("agents"), list):
                raise AnalysisError(f"{path}: line {number} is not a game record (a JSON object with 'agents' "
                                    f"and 'log', as `yacht tournament` and `yacht evaluate --out` write); not a "
                                    f"games log")
            records.append(rec)
            numbers.append(number)
    except NoSuchFile:
        raise AnalysisError(f"{path}: no such file or folder") from None
    except FileRefused as e:
        raise AnalysisError(str(e)) from None
    return records, numbers


def analyze_file(games: GameFile, solution=None, progress: bool = False, win: bool = False):
    """`agents.analysis.analyze` over a `read_games` result (errors name the file and line of a bad record)."""
    if not games.records:
        raise AnalysisError(f"{games.path}: no games to analyse")
    return analyze(games.records, games.rules, solution, progress, win, lines=games.lines, where=str(games.path))


# ---- an evaluation's folder ----------------------------------------------------------------------

def write_evaluation(folder: Path, records, meta: dict) -> None:
    """An evaluation's folder (`yacht evaluate --out`, created when missing): its games log written whole from
    `records` (replacing the run the folder held), then `evaluate.json` holding `meta`, each in one rename.
    Disk errors stay `OSError`."""
    log.write(folder / GAMES, records)
    write_atomic(folder / EVALUATION_META, json.dumps(meta, indent=2) + "\n", EVALUATION_META)


# ---- a web table's game --------------------------------------------------------------------------

@dataclass(frozen=True)
class TableMeta:
    """The meta file of a web game's folder (`layout`): its name, its document, and the schema its record
    is checked against (`config_hash`: what the record carries, None for one seat)."""
    name: str
    doc: dict
    schema: Schema


def table_meta(table: str, number: int, rules_name: str, sets: dict, rules: RuleSet, names: list[str],
               specs: list[str], config_seed: int, seed: int, daily: str = "") -> TableMeta:
    """The meta file of game `number` of web table `table`: `names` and agent `specs` per seat, rules
    `rules_name` with overrides `sets` (loaded as `rules`), dice `seed` (the game's, drawn from
    `config_seed` as a tournament draws the seed of its game t0-d0).

    One seat: `evaluate.json` as `yacht evaluate --out` writes it, with `web` (table, game, spec, and the
    `daily` deal's day, YYYY-MM-DD, when the game played one). Several:
    `tournament.json` of the one-game tournament whose game t0-d0-r0 seats `names` in seat order, so
    `yacht report` reads the folder as a tournament's."""
    if len(names) == 1:
        doc = {"agent": names[0], "rules": rules_block(rules, sets), "seed": seed,
               "web": {"table": table, "game": number, "spec": specs[0], **({"daily": daily} if daily else {})}}
        return TableMeta(EVALUATION_META, doc, Schema(rules, 1))
    k, teams = len(names), rules.teams
    t = teams or k
    split = balanced_splits(k, teams)[0]        # rotation 0 of the first split seats at seat i the entrant
    order = [0] * k                             # split[i % t][i // t] (`tournaments.seating.arrangements`)
    for i in range(k):
        order[split[i % t][i // t]] = i
    config = parse_config({"name": f"web-{table}-{number}", "rules": rules_name, "set": sets,
                           "entrants": [{"name": names[i], "agent": specs[i]} for i in order],
                           "seats": k, "games": 1, "seed": config_seed, "move_timeout": None})
    return TableMeta(TOURNAMENT_META, {"config_hash": config.hash, "config": config.to_dict()},
                     Schema(rules, k, config.hash))


def table_record(game, names: list[str], seed: int) -> dict:
    """The record of a web table's finished `game` (a `Game`; nobody faults at a table): game t0-d0-r0 of its
    folder, `names` in seat order, places as the table ranks them."""
    return record_of_game(game, [None] * len(names), game_key(0, 0, 0), 0, 0, 0, seed, names)


def daily_folders(games: Path, day: str, rules_name: str) -> list[Path]:
    """The folders under `games` (a server's `DATA/games`) of the solo web games a person played on the daily
    deal of `day` under preset `rules_name` without overrides (`evaluate.json`'s `web.daily`), in name order.
    A meta file that cannot be read or is not such a game is passed over."""
    found = []
    for meta_path in sorted(games.glob(f"*/{EVALUATION_META}")):
        try:
            meta = json.loads(read_text(meta_path, MAX_META_BYTES, meta_path.name))
        except (FileRefused, ValueError, RecursionError):
            continue
        web = meta.get("web") if isinstance(meta, dict) else None
        rules = meta.get("rules") if isinstance(meta, dict) else None
        if not isinstance(web, dict) or not isinstance(rules, dict):
            continue
        if web.get("daily") == day and web.get("spec") == "human" and rules.get("name") == rules_name \
                and not rules.get("set"):
            found.append(meta_path.parent)
    return found


def table_specs(folder: Path, record: dict) -> list[str | None]:
    """The agent spec of every seat of a stored web game's `record` ("human" for a person), from its folder's
    meta file (`table_meta`); None for a seat the meta file does not name (an unreadable or foreign file)."""
    names = record.get("agents") if isinstance(record, dict) else None
    if not isinstance(names, list):
        return []
    specs = {}
    for meta_path in (folder / m for m in METAS):
        try:
            doc = json.loads(read_text(meta_path, MAX_META_BYTES, meta_path.name))
        except (FileRefused, OSError, ValueError, RecursionError):
            continue
        if not isinstance(doc, dict):
            continue
        web = doc.get("web")
        if isinstance(web, dict) and isinstance(doc.get("agent"), str) and isinstance(web.get("spec"), str):
            specs[doc["agent"]] = web["spec"]
        config = doc.get("config")
        entrants = config.get("entrants") if isinstance(config, dict) else None   # {name: spec}
        for name, spec in entrants.items() if isinstance(entrants, dict) else ():
            if isinstance(spec, str):
                specs[name] = spec
        break
    return [specs.get(n) if isinstance(n, str) else None for n in names]


def store_table_game(folder: Path, meta: TableMeta, record: dict) -> bool:
    """Store a web game in `folder` (created when missing): its meta file when there is none yet, then its
    record (stamped with the meta's config hash, checked against its schema) appended to the log unless the
    log already holds the game. True when the record was appended. A meta file other than this one, or a
    record that fails its check: `ConfigError`, nothing appended; a link, FIFO or device where the meta file
    or the log goes: `FileRefused`."""
    ensure_folder(folder, "game folder")
    text = (json.dumps(meta.doc, indent=2) + "\n").encode()
    try:
        held = read_bytes(folder / meta.name, MAX_META_BYTES, meta.name)
    except NoSuchFile:
        write_atomic(folder / meta.name, text, meta.name, create_folder=False)
    else:
        if held != text:
            raise ConfigError(f"{folder / meta.name}: holds another game than this table's; its game is not stored "
                              f"over it")
    if meta.schema.config_hash is not None:
        record = {**record, "config_hash": meta.schema.config_hash}
    problem = check_record(record, meta.schema)
    if problem:
        raise ConfigError(f"{folder}: game {record.get('key')!r}: record refused ({problem})")
    return log.append(folder / GAMES, [record], once=True)
