"""`yacht report DIR`: re-render a tournament's report from its store."""
from pathlib import Path

from yacht_env.cli_common import CommandError, add_common, emit_json

from ..report import render, terminal_table


def add_parser(sub):
    p = sub.add_parser("report", help="re-render a tournament report from its folder")
    p.add_argument("folder", metavar="DIR", help="a folder written by `yacht tournament`")
    p.add_argument("--no-analysis", action="store_true", help="leave the move analysis out of the report")
    add_common(p, rules=False, seed=False)


def run(args):
    if not Path(args.folder).is_dir():
        raise CommandError(f"{args.folder}: no such folder")
    res = render(args.folder, analysis=not args.no_analysis)
    if args.json:
        emit_json(res)
        return 0
    print(terminal_table(res))
    print(f"report: {args.folder}/report.md")
    return 0
