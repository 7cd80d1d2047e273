"""`yacht report DIR`: re-render a tournament's report from its store."""
from pathlib import Path

from yacht_env.cli_common import CommandError, add_common, emit_json

from ..report import terminal_table
from ..run import render_report


def add_parser(sub):
    p = sub.add_parser("report", help="re-render a tournament report from its folder")
    p.add_argument("folder", metavar="DIR", help="a folder written by `yacht tournament`")
    add_common(p, rules=False, seed=False)


def run(args):
    if not Path(args.folder).is_dir():
        raise CommandError(f"{args.folder}: no such folder")
    res = render_report(args.folder)
    if args.json:
        emit_json(res)
        return 0
    print(terminal_table(res))
    print(f"report: {args.folder}/report.md")
    return 0
