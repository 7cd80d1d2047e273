"""Options every `yacht` command shares, and how a command reports a clean error."""
import argparse
import json
import sys

from .rules import RuleError, load, parse_sets


class CommandError(Exception):
    """A user-facing error: printed as one line, exit status 2, no traceback."""


def add_common(parser: argparse.ArgumentParser, rules=True, seed=True, out=False) -> None:
    """Add --rules/--set, --seed, --json and (optionally) --out."""
    if rules:
        parser.add_argument("--rules", default="yacht", metavar="NAME|PATH",
                            help="rule set: a preset name or a YAML file (default: yacht)")
        parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", dest="overrides",
                            help="override a rule key, e.g. --set joker=free (repeatable)")
    if seed:
        parser.add_argument("--seed", type=int, default=0, help="random seed (default: 0)")
    parser.add_argument("--json", action="store_true", help="print one JSON document on stdout")
    if out:
        parser.add_argument("--out", default=None, metavar="DIR", help="folder for files written")


def rules_from_args(args):
    """The RuleSet named by --rules with every --set applied."""
    return load(args.rules, **parse_sets(args.overrides))


def emit_json(doc) -> None:
    json.dump(doc, sys.stdout, indent=2, default=_plain)
    sys.stdout.write("\n")


def _plain(x):
    import numpy as np
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, np.ndarray):
        return x.tolist()
    raise TypeError(f"cannot write {type(x).__name__} as JSON")


USER_ERRORS = (CommandError, RuleError)
