"""Options every `yacht` command shares (declared once, here), and how a command reports a clean error.

Library code raises `yacht_env.config.ConfigError` (bad input: rule files, configs, stores, model files,
values) or `tournaments.errors.RunError` (a run that cannot go on); command modules raise `CommandError`
(a command-line problem). `yacht_arena.cli.main` alone prints them, as one line `yacht CMD: error: ...`,
and exits with status 2.
"""
import argparse
import json
import sys

import numpy as np

from yacht_env.config import MAX_SEED, ConfigError
from yacht_env.errors import printable
from yacht_env.rules import load, parse_sets, rules_block

from tournaments.errors import RunError

RULES_HELP = ("rule set: a preset name (yacht, classic, ...: `yacht rules --list`) or a rules file named "
              "with a path or a .yaml suffix (./mine.yaml)")


class CommandError(Exception):
    """A user-facing error: printed as one line, exit status 2, no traceback."""


USER_ERRORS = (CommandError, ConfigError, RunError)


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose usage errors are one line: `yacht CMD: error: ...`, exit status 2."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def seed_arg(text: str) -> int:
    """A `--seed` value: a whole number 0 .. 2^63 - 1."""
    try:
        value = int(text)
    except ValueError:
        value = None
    if value is None or not 0 <= value <= MAX_SEED:
        raise argparse.ArgumentTypeError(f"must be a whole number from 0 to {MAX_SEED}, got {text!r}")
    return value


def add_common(parser: argparse.ArgumentParser, rules=True, seed=True, out=False, config=False,
               set_help: str | None = None) -> None:
    """Add --rules/--set (rules=True), --seed (seed=True), --json and --out (out=True, or the help text).

    config=True: the command reads a config file, and --rules/--set/--seed change its values
    (their defaults are the config's). set_help: the command's own help for --set."""
    if rules:
        if config:
            parser.add_argument("--rules", default=None, metavar="NAME|PATH",
                                help=RULES_HELP + "; replaces the config's rules")
        else:
            parser.add_argument("--rules", default="yacht", metavar="NAME|PATH", help=RULES_HELP + " (default: yacht)")
        parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", dest="overrides",
                            help=set_help or "override a rule key, e.g. --set joker=free (repeatable)"
                                 + ("; adds to the config's set:" if config else ""))
    if seed:
        if config:
            parser.add_argument("--seed", type=seed_arg, default=None, help="seed (replaces the config's)")
        else:
            parser.add_argument("--seed", type=seed_arg, default=0, help="random seed (default: 0)")
    parser.add_argument("--json", action="store_true", help="print one JSON document on stdout")
    if out:
        parser.add_argument("--out", default=None, metavar="DIR",
                            help=out if isinstance(out, str) else "folder for files written")


def rules_from_args(args):
    """The RuleSet named by --rules with every --set applied."""
    return load(args.rules, **parse_sets(args.overrides))


def rules_block_from_args(args) -> dict:
    """`{"name", "set", "hash"}` of the rules named by --rules/--set, for a command's --json result."""
    return rules_block(rules_from_args(args), parse_sets(args.overrides))


class InertOutput:
    """A text stream that writes to `stream` with every control or escape character escaped (see
    `yacht_env.errors.printable`; newlines and tabs are kept), so no name, spec, file or bot text can move
    the cursor, recolour, retitle or clear the terminal. Everything else is the stream's own."""

    def __init__(self, stream):
        self._stream = stream

    def write(self, text: str) -> int:
        self._stream.write(printable(text, keep="\n\t"))
        return len(text)

    def writelines(self, lines) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name):
        return getattr(self._stream, name)


def emit_json(doc) -> None:
    json.dump(doc, sys.stdout, indent=2, default=_plain)
    sys.stdout.write("\n")


def _plain(x):
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, np.ndarray):
        return x.tolist()
    raise TypeError(f"cannot write {type(x).__name__} as JSON")
