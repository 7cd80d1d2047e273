"""`yacht tournament`: a round robin with duplicate dice, resumable, with a report in the output folder."""
import os

from yacht_env.cli_common import add_common, emit_json

from ..config import load_config
from ..executors import EXECUTORS
from ..report import terminal_table
from ..run import run_tournament


def add_parser(sub):
    p = sub.add_parser("tournament", help="round-robin tournament between agents (duplicate dice, resumable)",
                       description="Play every table of a round robin and write report.md, results.json and "
                                   "histograms to the output folder. Rerun the same command to resume.")
    p.add_argument("config", nargs="?", default=None, metavar="CONFIG",
                   help="tournament YAML (default: the embedded configs/tournament/default.yaml)")
    p.add_argument("--games", type=int, default=None, metavar="N", help="deals per table (overrides the config)")
    p.add_argument("--workers", type=int, default=os.cpu_count() or 1, metavar="W",
                   help="worker processes (default: one per CPU)")
    p.add_argument("--executor", choices=EXECUTORS, default="local",
                   help="local process pool (default) or ray")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--no-analysis", action="store_true", help="leave the move analysis out of the report")
    add_common(p, rules=False, seed=False)
    p.add_argument("--out", default=None, metavar="DIR",
                   help="tournament folder (default: runs/<name>-<config hash>); rerun to resume")
    p.add_argument("--seed", type=int, default=None, help="tournament seed (overrides the config)")


def run(args):
    config = load_config(args.config, games=args.games, seed=args.seed)
    res = run_tournament(config, out=args.out, workers=args.workers, executor=args.executor,
                         progress=not (args.quiet or args.json), analysis=not args.no_analysis)
    if args.json:
        emit_json(res)
        return 0
    print(terminal_table(res))
    run_ = res["run"]
    rate = f", {run_['games_per_second']:.1f} games/s" if run_["games_per_second"] else ""
    print(f"{run_['games_run']} games played in {run_['seconds']:.1f} s{rate}; report: {run_['folder']}/report.md")
    return 0
