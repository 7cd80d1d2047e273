"""`yacht report DIR`: re-render a tournament's report from its store, and optionally open it."""
import sys
import webbrowser
from pathlib import Path


from tournaments.report import REPORT, REPORT_HTML, render, terminal_table
from .options import CommandError, add_common, emit_json


# Each command module builds its own parser (`yacht COMMAND` imports only that module); the
# add_parser functions share their shape, not their options.
def add_parser(sub):
    p = sub.add_parser("report", help="re-render a tournament report from its folder",
                       description="Rebuild report.md, report.html, results.json and the plots of a tournament "
                                   "folder. Everything comes from the folder: the rules (with their overrides), "
                                   "entrants and games are the ones tournament.json and games.jsonl record, so "
                                   "report takes no --rules/--set.")
    p.add_argument("folder", metavar="DIR", help="a folder written by `yacht tournament`")
    p.add_argument("--open", action="store_true", help="open report.html in the web browser")
    p.add_argument("--no-analysis", action="store_true", help="leave the move analysis out of the report")
    add_common(p, rules=False, seed=False)


def open_report(path: Path) -> str:
    """Ask the web browser to show `path`; the line to print about it."""
    try:
        opened = webbrowser.open(path.resolve().as_uri())
    except Exception:  # noqa: BLE001 - any failure to start a browser means the same to the user
        opened = False
    return f"opened {path} in the web browser" if opened else f"no web browser could be opened; the report is {path}"


def run(args):
    folder = Path(args.folder)
    if not folder.is_dir():
        raise CommandError(f"{args.folder}: no such folder")
    res = render(folder, analysis=not args.no_analysis)
    if args.json:
        emit_json(res)
    else:
        print(terminal_table(res))
        print(f"report: {folder / REPORT}, {folder / REPORT_HTML}")
    if args.open:
        print(open_report(folder / REPORT_HTML), file=sys.stderr if args.json else sys.stdout)
    return 0
