"""Provenance: the content hashes of the files a run's agents depend on, recorded when the run begins and
checked when it resumes, so a run never silently plays its remaining games with a changed model file or
bot script under the same entrant name.

    files = spec_files(["learned:runs/a/best.pt", "external:python bots/mine.py", "strong"])
    recorded = digests(files)                        # {"runs/a/best.pt": "<sha256>", "bots/mine.py": ...}
    check_unchanged(recorded, "runs/t1/tournament.json", force=False)   # ConfigError naming a changed file

Runs also record their rules by meaning (the rule set itself and its hash), so an edited rules file is
already another run; its hash is recorded too (`rules_files`), so the refusal can name the file.

    check_replace("out/evaluate.json", {"agent": spec, "seed": 0, ...}, files, force=False)

refuses to write a command's run over another one that a folder holds (another agent, seed or rules, or
the same names with a changed file), as a fresh `yacht train` refuses another run's folder.
"""
import json
import shlex
from pathlib import Path

from yacht_env.config import ConfigError, names_a_file
from yacht_env.safe_file import FileRefused, NoSuchFile, file_digest, read_bytes

from .model_file import MAX_FILE_BYTES
from .registry import parse_spec


def spec_files(specs) -> list[str]:
    """The files the agent specs depend on, in order, each once: a `learned:` spec's model file (for every
    learned agent, also one inside a look-ahead), and every word of an `external:` command that names an
    existing regular file by a path (the script a bot runs, a program given by its path)."""
    out: list[str] = []
    for spec in specs:
        try:
            name, _, argument = parse_spec(spec)
        except ValueError:
            continue             # refused where the agent is made, with its own message
        if name == "learned" and argument:
            out.append(argument)
        elif name == "external" and argument:
            try:
                words = shlex.split(argument)
            except ValueError:
                continue
            out += [w for w in words if ("/" in w or "." in w) and Path(w).is_file()]
    return list(dict.fromkeys(out))


def rules_files(rules) -> list[str]:
    """The rules file a --rules value or a config's `rules:` names ([] for a preset or a rule set)."""
    return [rules] if isinstance(rules, str) and names_a_file(rules) and Path(rules).is_file() else []


def digests(files) -> dict[str, str]:
    """{file: SHA-256 of its content}; a file that cannot be read is left out (making its agent fails with
    its own message)."""
    out = {}
    for f in files:
        try:
            out[f] = file_digest(f, MAX_FILE_BYTES, "agent file")   # a model file's bound serves a bot's script
        except FileRefused:
            continue
    return out


def changed(recorded: dict, now: dict | None = None) -> list[str]:
    """Lines naming each recorded file whose content is not what it was (or that is gone)."""
    now = digests(recorded) if now is None else now
    lines = []
    for f, was in recorded.items():
        if f not in now:
            lines.append(f"{f} is gone or unreadable (it was sha256 {was[:12]})")
        elif now[f] != was:
            lines.append(f"{f} changed since the run began (sha256 {was[:12]} then, {now[f][:12]} now)")
    return lines


def check_unchanged(recorded, where: str, force: bool = False) -> None:
    """Refuse to resume a run when a file its agents depend on changed: `ConfigError` naming the first
    such file, and how to go on. `recorded` is the {file: sha256} the run began with (from `where`);
    `force` goes on knowingly."""
    if not isinstance(recorded, dict) or not all(isinstance(k, str) and isinstance(v, str)
                                                 for k, v in recorded.items()):
        raise ConfigError(where, "files", "must be a mapping of file to its sha256; the file is damaged")
    if force:
        return
    problems = changed(recorded)
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise ConfigError(where, f"{problems[0]}{more}; the games still to play would use other agents under "
                                 f"the same names: restore the file, play into a new folder, or rerun with "
                                 f"--force to go on knowingly")



MAX_RUN_RECORD_BYTES = 16 << 20     # a command's run record (evaluate.json, levels.json) read back


def check_replace(record, identity: dict, files: dict, force: bool = False, key: str = "files") -> None:
    """Before a command writes its run over the one recorded in `record` (a JSON file in its --out folder):
    refuse when that is another run -- a value of `identity` (agent, seed, games, rules hash ...) differs,
    or a file it recorded (`digests`, under `key`) is gone or changed since (the same names, other agents)
    -- with one line naming the first difference and how to go on: another --out folder, or `force` to
    replace it."""
    record = Path(record)
    if force:
        return
    try:
        raw = read_bytes(record, MAX_RUN_RECORD_BYTES, record.name)     # a regular file, bounded
    except NoSuchFile:
        return
    except FileRefused as e:
        raise ConfigError(f"{e}; use another --out folder, or rerun with --force to replace it") from None
    try:
        doc = json.loads(raw)
    except (ValueError, RecursionError):
        doc = None
    if not isinstance(doc, dict):
        raise ConfigError(str(record), "is damaged (not a JSON object); use another --out folder, or rerun with "
                                       "--force to replace it")
    how = "use another --out folder, or rerun with --force to replace it"
    recorded = doc.get(key) or {}
    if not isinstance(recorded, dict) or not all(isinstance(k, str) and isinstance(v, str)
                                                 for k, v in recorded.items()):
        raise ConfigError(str(record), f"{key}: must be a mapping of file to its sha256; the file is damaged; {how}")
    problems = changed(recorded)
    if problems:
        raise ConfigError(str(record), f"holds a run whose files changed since: {problems[0]}; its results would be "
                                       f"replaced by another agent's or rules' under the same name: {how}")
    for name, value in identity.items():
        if doc.get(name) != value:
            raise ConfigError(str(record), f"holds another run ({name} {doc.get(name)!r}, this run {value!r}); {how}")
    new_files = [f for f in (files or {}) if f not in recorded]
    if key in doc and new_files:  # a record from before files were recorded is checked by its identity only
        raise ConfigError(str(record), f"holds another run ({new_files[0]} was not part of it); {how}")
