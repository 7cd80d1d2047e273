"""`yacht levels`: the ladder random < easy < normal < strong on identical dice, and the dial settings behind it.

Without --calibrate: solitaire score distributions of every agent, two-player head-to-head for every
pair (each deal played twice, seats swapped; ties count half), the points each agent's decisions lose
per game against the solver (`agents.analysis`), and the dial settings of the named levels under the
rules (found on first use and kept in the solver's cache folder). With --seats N (3 to 8) every pair
plays at a table of N: the upper agent at one seat, the lower at all the others, each deal played N
times with the upper agent in every seat; its share of first places is compared with 1/N.

With --calibrate [TARGET ...]: find the dial settings that hit the targets (mean=POINTS, pct=PERCENT of
the optimum, win=RATE against strong, or a level name; default: the named levels), keep them, and check
each on the --seed's dice (--games games).

levels.json and calibration.json record `sources`, the content hash of every file the run depends on (model
files, bot scripts, a rules file: `agents.provenance`); an --out folder that holds another run is not
written over without --force.

Exit status 3 (after the usual output) when an agent faulted in more than --max-fault-rate of its games
(default: in every one of them); 2 is a usage or input error. An agent's figures made partly of fallback
moves are marked so.
"""
import json
import sys
from itertools import combinations
from pathlib import Path

import numpy as np

from agents.analysis import AnalysisError, analyze
from agents.evaluation import fault_note, fault_summary, head_to_head, recorded_faults, solitaire, table_share
from agents.calibration import calibration_rules, check_reach, optimum
from agents.dial import DialAgent
from agents.level_settings import settings_path
from agents.levels import level, settings_with
from agents.targets import LEVELS, Target, level_target
from agents.base import check_playable
from agents.provenance import check_replace, digests, rules_files, spec_files
from agents.registry import AgentSpecError, make_agent
from agents.stats import mean_ci
from yacht_env.config import ConfigError, check_memory
from yacht_env.safe_file import atomic_writer, ensure_folder, folder_lock, write_atomic

from .evaluate import LOGGED_GAME_BYTES, MAX_GAMES
from .faults import add_fault_option, gate, headline
from .options import CommandError, add_common, emit_json, rules_block_from_args, rules_from_args

LADDER = ("random", "easy", "normal", "strong")
STEP = 0.60     # each step of the ladder: the upper level wins at least this share of the games
LOCK = "levels.lock"       # held in an --out folder while a run writes its files


def add_parser(sub):
    p = sub.add_parser("levels", help="the agent ladder on identical dice, and the strength dial's settings",
                       description=" ".join(__doc__.split("\n\n")[1:]).replace("\n", " "))
    p.add_argument("--games", type=int, default=1000,
                   help="solitaire games per agent, and games per pair (seats swapped on each deal); with "
                        "--calibrate, games of each check (default: 1000)")
    p.add_argument("--agent", nargs="+", action="extend", default=[], metavar="SPEC",
                   help="more agents to put on the ladder (after the built-in levels)")
    p.add_argument("--only", nargs="+", default=None, metavar="SPEC",
                   help="evaluate exactly these agents instead of the built-in ladder")
    p.add_argument("--calibrate", nargs="*", default=None, metavar="TARGET",
                   help="find the dial settings that hit these targets under the rules and keep them where the "
                        "levels find them: mean=POINTS (expected score), pct=PERCENT (of the optimum), win=RATE "
                        "(win rate against strong, in (0, 0.5]), or a level name (easy, normal); no TARGET: "
                        "the named levels")
    p.add_argument("--seats", type=int, default=2, metavar="N",
                   help="table size of the pairs' games (default 2, head-to-head): at N > 2 the upper agent plays "
                        "one seat against N - 1 of the lower, in every seat of each deal")
    add_fault_option(p)
    add_common(p, out=True)
    p.add_argument("--no-progress", action="store_true", help="no progress bars")
    p.add_argument("--force", action="store_true",
                   help="with --out: replace the run the folder holds although it is another one (other agents, "
                        "seed or rules, or a model file, bot script or rules file that changed since)")


def _build(specs, required):
    agents = {}
    for spec in specs:
        if spec in agents:
            raise CommandError(f"agent {spec!r} is listed twice")
        try:
            agents[spec] = make_agent(spec)
        except (AgentSpecError, ImportError) as e:
            if spec in required:
                raise
            print(f"yacht levels: warning: skipping {spec!r}: {e}", file=sys.stderr)
    return agents


def _targets(texts) -> list[tuple[str, Target]]:
    """(name, Target) for every --calibrate argument (a level name or KIND=VALUE), in order, no repeats."""
    out = {}
    for text in texts or list(LEVELS)[::-1]:
        try:
            target = level_target(text) if "=" not in text else Target.parse(text)
        except ValueError as e:
            raise CommandError(f"--calibrate {text}: {e}") from None
        out.setdefault(text if "=" not in text else target.key, target)
    return list(out.items())


def run(args) -> int:
    if args.games < 2 or args.games % 2 or args.games > MAX_GAMES:
        raise CommandError(f"--games must be an even number from 2 to {MAX_GAMES:,}, got {args.games}")
    rules = rules_from_args(args)
    if args.calibrate is not None:
        if args.seats != 2:
            raise CommandError("--calibrate finds settings on two-player games; --seats goes with the ladder")
        return _calibrate(args, rules)
    if rules.max_players < 2:
        raise CommandError(f"rules {rules.name!r} allow at most {rules.max_players} player; head-to-head needs 2")
    if not 2 <= args.seats <= min(8, rules.max_players):
        raise CommandError(f"--seats must be 2..{min(8, rules.max_players)} under rules {rules.name!r}, got "
                           f"{args.seats}")
    if args.games < args.seats:
        raise CommandError(f"--games must be at least --seats ({args.seats}): each deal is played once per seat")
    played_as = None
    if rules.teams:        # solitaire and two-player games: every seat on its own sheet, as a team's sheet plays
        played_as = f"teams={rules.teams}: measured with every seat on its own sheet (a team's sheet plays as one)"
        rules = calibration_rules(rules)
    specs = list(args.only) if args.only else [*LADDER, *args.agent]
    agents = _build(specs, required=set(args.only or ()) | set(args.agent))
    if len(agents) < 2:
        raise CommandError("need at least two agents to compare")
    try:
        for seats in (1, 2):                      # solitaire games, then head-to-head
            check_playable(agents, rules, seats)
    except ConfigError:
        for a in agents.values():
            a.close()
        raise
    check_memory("command line", "--games", args.games * len(agents) * LOGGED_GAME_BYTES,
                 f"{args.games:,} logged games for each of {len(agents)} agents")
    sources = digests(spec_files(agents) + rules_files(args.rules))
    identity = {"rules": rules_block_from_args(args), "seed": args.seed, "specs": list(agents)}
    if args.out:
        check_replace(Path(args.out) / "levels.json", identity, sources, args.force, "sources")
    progress = not args.no_progress and not args.json
    named = [n for n, a in agents.items() if isinstance(getattr(a, "target", None), Target)]   # the levels
    settings, wrote = {}, None
    if named:
        _check_reach(rules)
        settings, wrote = settings_with(rules, [(n, agents[n].target) for n in named], progress=progress)
    try:
        runs = {n: solitaire(a, rules, args.games, args.seed, progress=not args.no_progress, desc=n, logs=True)
                for n, a in agents.items()}
        pairs = []
        for lower, upper in combinations(agents, 2):          # a = the later (higher) level
            if args.seats == 2:
                h = head_to_head(agents[upper], agents[lower], rules, args.games // 2, args.seed,
                                 progress=not args.no_progress, desc=f"{upper} v {lower}")
            else:
                h = table_share(agents[upper], agents[lower], rules, args.games // args.seats, args.seats,
                                args.seed, progress=not args.no_progress, desc=f"{upper} v {args.seats - 1} {lower}")
            pairs.append({"a": upper, "b": lower, **h})
    finally:
        for a in agents.values():
            a.close()
    faults = {n: fault_summary(recorded_faults(a)) for n, a in agents.items()}
    for n, f in faults.items():
        note = fault_note(n, f, getattr(agents[n], "games", args.games))
        if note:
            print(f"yacht levels: warning: {note}", file=sys.stderr)
    fault_gate = gate({n: {"games": getattr(a, "games", 2 * args.games), "faulted": faults[n]["games"],
                           "kinds": faults[n]["by_kind"]} for n, a in agents.items()}, args.max_fault_rate)
    doc = {"rules": rules_block_from_args(args), "note": played_as, "fault_gate": fault_gate, "games": args.games,
           "seed": args.seed,
           "specs": list(agents), "sources": sources, "seats": args.seats, "agents": {}, "head_to_head": pairs,
           "ladder": _ladder(list(agents), pairs, args.seats),
           "settings": {n: c.to_json() for n, c in settings.items()}, "analysis": _analysis(runs, rules)}
    for n, r in runs.items():
        mean, ci, sd = mean_ci(r["totals"])
        strength = getattr(agents[n], "strength", None)
        strength = settings[n].strength if n in settings else strength
        doc["agents"][n] = {"spec": n, "mean": mean, "ci95": ci, "std": sd, "strength": strength, "faults": faults[n],
                            **{k: v for k, v in doc["analysis"].get("agents", {}).get(n, {}).items()
                               if k in ("loss_per_game", "loss_per_decision", "accuracy")}}
    files = []
    if wrote is not None:
        files.append(str(wrote))
    if args.out:
        with _locked(args.out):       # checked again: another run may have written the folder meanwhile
            check_replace(Path(args.out) / "levels.json", identity, sources, args.force, "sources")
            files += _write_files(Path(args.out), rules, runs, doc, args)
    doc["files"] = files
    if args.json:
        emit_json(doc)
        return fault_gate["exit"]
    _print(doc, runs, rules, args, wrote)
    return fault_gate["exit"]


def _locked(out):
    """The --out folder's lock, held while a run writes its files (created with the folder)."""
    ensure_folder(out, "--out folder")
    return folder_lock(Path(out) / LOCK, "yacht levels")


def _check_reach(rules) -> None:
    try:
        check_reach(rules)
    except ValueError as e:
        raise CommandError(f"rules {rules.name!r}: {e}") from None


def _ladder(names, pairs, seats: int = 2) -> list[dict]:
    """Each step of the ladder as listed (a level against the one listed before it). Two seats: a step holds
    at a win rate >= STEP with the interval above 1/2; N seats: with the interval above the equal share 1/N."""
    by = {(h["a"], h["b"]): h for h in pairs}
    steps = []
    for lower, upper in zip(names, names[1:]):
        h = by[(upper, lower)]
        holds = h["win_rate_a"] >= STEP and h["ci95"][0] > 0.5 if seats == 2 else h["ci95"][0] > 1 / seats
        steps.append({"upper": upper, "lower": lower, "win_rate": h["win_rate_a"], "ci95": h["ci95"],
                      "holds": holds})
    return steps


def _analysis(runs, rules) -> dict:
    """Points lost per game and per decision of every agent's solitaire games (`agents.analysis`), with the
    distribution of the points lost per decision; {"skipped": why} when the solver cannot value them."""
    records = [{"agents": [n], "log": log} for n, r in runs.items() for log in r["logs"]]
    try:
        a = analyze(records, rules)
    except AnalysisError as e:
        return {"skipped": str(e)}
    doc = a.summary(worst=0)
    keep = ("loss_per_game", "loss_per_decision", "accuracy", "expected_score", "optimal_decisions",
            "inaccuracies_per_game", "mistakes_per_game", "blunders_per_game", "loss_histogram", "loss_quantiles")
    return {"values": doc["values"], "note": doc["note"], "optimal_expected_score": doc["optimal_expected_score"],
            "thresholds": doc["thresholds"], "agents": {n: {k: f[k] for k in keep} for n, f in doc["agents"].items()}}


def _print(doc, runs, rules, args, wrote):
    first = headline(doc["fault_gate"])
    if first:
        print(first)
    print(f"ladder under {rules.name}: {args.games} solitaire games per agent, {args.games} games per pair, "
          f"seed {args.seed}; identical dice for all" + (f" ({doc['note']})" if doc["note"] else ""))
    w = max(len(n) for n in doc["agents"])
    lost = "analysis" in doc and "skipped" not in doc["analysis"]
    print(f"  {'agent':<{w}}  strength   mean   95% CI          sd   p5  p50  p95" + ("   lost/game  accuracy"
                                                                                          if lost else ""))
    for n, s in doc["agents"].items():
        p5, p50, p95 = np.quantile(runs[n]["totals"], [0.05, 0.5, 0.95])
        strength = "" if s["strength"] is None else f"{s['strength']:.3f}"
        fallback = s["faults"]["count"] > 0
        line = (f"  {n:<{w}}  {strength:>8}  {s['mean']:6.1f}  {s['ci95'][0]:6.1f}..{s['ci95'][1]:<6.1f} "
                f"{s['std']:5.1f}  {p5:4.0f} {p50:4.0f} {p95:4.0f}")
        if lost:
            line += f"  {s['loss_per_game']:10.2f}  " + (f"{s['accuracy']:7.2f}%" if s["accuracy"] is not None
                                                         else f"{'–':>8}")
        print(line + ("  * with fallback moves" if fallback else ""))
    if any(s["faults"]["count"] for s in doc["agents"].values()):
        print("  * faulted: its figures here and its head-to-head results include the fallback's moves, not "
              "only its own")
    seats = doc.get("seats", 2)
    if seats == 2:
        print("  ladder (each level against the one below; a step holds at >= "
              f"{100 * STEP:.0f}% with the 95% CI above 50%):")
    else:
        print(f"  ladder at tables of {seats} (each level at one seat against {seats - 1} of the one below, in every "
              f"seat; share of first places, ties shared; a step holds with the 95% CI above {100 / seats:.1f}%):")
    for st in doc["ladder"]:
        lo, hi = st["ci95"]
        print(f"    {st['upper']} beats {st['lower']} in {100 * st['win_rate']:.1f}% (95% CI {100 * lo:.1f}.."
              f"{100 * hi:.1f}) {'holds' if st['holds'] else 'DOES NOT HOLD'}")
    print("  head-to-head (ties count half):" if seats == 2 else
          f"  every pair at tables of {seats} (the first at one seat, the second at the others):")
    for h in doc["head_to_head"]:
        lo, hi = h["ci95"]
        verb = f"beats {h['b']} in" if seats == 2 else f"against {seats - 1} {h['b']}:"
        print(f"    {h['a']} {verb} {100 * h['win_rate_a']:.1f}% of {h['games']} games "
              f"(95% CI {100 * lo:.1f}..{100 * hi:.1f})")
    if lost:
        _print_losses(doc["analysis"])
    elif "analysis" in doc:
        print(f"  points lost: {doc['analysis']['skipped']}")
    if doc["settings"]:
        print("  dial settings of the named levels (calibrated on their own dice):")
        for n, c in doc["settings"].items():
            print(f"    {n:<8} strength {c['strength']:.4f}: {_figure(c)}")
    print("  " + _files_line(doc["files"], wrote))


def _print_losses(analysis) -> None:
    t = analysis["thresholds"]
    print(f"  expected points lost per decision ({analysis['values']} values): share of decisions")
    edges = [h["from"] for h in next(iter(analysis["agents"].values()))["loss_histogram"]]
    heads = ["0"] + [f"<{b:g}" for b in edges[2:]] + [f">={edges[-1]:g}"]
    print("    " + " " * 10 + "".join(f"{h:>8}" for h in heads))
    for n, f in analysis["agents"].items():
        counts = np.array([h["decisions"] for h in f["loss_histogram"]], float)
        share = counts / max(counts.sum(), 1)
        print(f"    {n:<10}" + "".join(f"{100 * x:7.1f}%" for x in share))
    print(f"    (inaccuracy >= {t['inaccuracy']:g}, mistake >= {t['mistake']:g}, blunder >= {t['blunder']:g} "
          f"points: docs/analysis.md)")


def _figure(c: dict) -> str:
    """A calibration's figure with its CI, in words."""
    lo, hi = c["ci95"]
    kind = c["target"].split("=")[0]
    if kind == "win":
        against = c["target"].partition("@")[2] or "strong"
        return (f"wins {100 * c['measured']:.1f}% against {against} (95% CI {100 * lo:.1f}..{100 * hi:.1f}; "
                f"target {c['target']}, {c['games']} games)")
    unit = "%" if kind == "pct" else " points"
    return (f"{c['measured']:.2f}{unit} (95% CI {lo:.2f}..{hi:.2f}; target {c['target']}, {c['games']} games: "
            f"{c['estimate']})")


def _files_line(files, wrote) -> str:
    if not files:
        return "wrote no files (the dial settings were already kept)"
    return "wrote " + ", ".join(files)


def _calibrate(args, rules) -> int:
    if args.only or args.agent:
        raise CommandError("--calibrate takes targets, not --only/--agent (run the ladder without --calibrate)")
    targets = _targets(args.calibrate)
    _check_reach(rules)
    sources = digests(rules_files(args.rules))
    if args.out:
        check_replace(Path(args.out) / "calibration.json", {"rules": rules_block_from_args(args)}, sources,
                      args.force, "sources")
    progress = not args.no_progress and not args.json
    try:
        settings, wrote = settings_with(rules, targets, progress=progress)
    except ValueError as e:
        raise CommandError(str(e)) from None
    checks = {name: _check(rules, settings[name], target, args) for name, target in targets}
    doc = {"rules": rules_block_from_args(args), "settings_file": str(settings_path(rules)),
           "calibrated_under": calibration_rules(rules).name, "check": {"games": args.games, "seed": args.seed},
           "settings": {n: {**c.to_json(), "check": checks[n]} for n, c in settings.items()},
           "sources": sources, "files": [str(wrote)] if wrote is not None else []}
    if args.out:
        out = Path(args.out)
        with _locked(out):
            check_replace(out / "calibration.json", {"rules": rules_block_from_args(args)}, sources, args.force,
                          "sources")
            try:
                write_atomic(out / "calibration.json", json.dumps(doc, indent=2) + "\n", "calibration.json")
            except OSError as e:
                raise CommandError(f"cannot write to --out folder {str(out)!r}: {e.strerror}") from None
        doc["files"].append(str(out / "calibration.json"))
    if args.json:
        emit_json(doc)
        return 0
    print(f"dial settings under {rules.name} (calibrated on their own dice; checked on seed {args.seed}, "
          f"{args.games} games):")
    w = max(len(n) for n in doc["settings"])
    for n, c in doc["settings"].items():
        ck = c["check"]
        lo, hi = ck["ci95"]
        if ck["kind"] == "win":
            against = c["target"].partition("@")[2] or "strong"
            check = f"wins {100 * ck['measured']:.1f}% against {against} (95% CI {100 * lo:.1f}..{100 * hi:.1f})"
        else:
            unit = "% of the optimum" if ck["kind"] == "pct" else " points"
            check = f"mean score {ck['measured']:.2f}{unit} (95% CI {lo:.2f}..{hi:.2f})"
        print(f"  {n:<{w}}  strength {c['strength']:.4f}: {_figure(c)}")
        print(f"  {'':<{w}}  check: {check}")
    print(_files_line(doc["files"], wrote))
    return 0


def _check(rules, cal, target: Target, args) -> dict:
    """The target's figure at the calibrated strength on other dice (--seed, --games): a win rate, or the
    mean score with its CI."""
    agent = DialAgent(cal.strength)
    crules = calibration_rules(rules)
    if target.kind == "win":
        opponent = make_agent("strong") if target.against == "strong" else level(target.against, crules)
        h = head_to_head(agent, opponent, crules, args.games // 2, args.seed, progress=False)
        return {"kind": "win", "measured": h["win_rate_a"], "ci95": h["ci95"], "games": h["games"]}
    run = solitaire(agent, crules, args.games, args.seed, progress=False)
    mean, ci, _ = mean_ci(run["totals"])
    if target.kind == "pct":
        best = optimum(crules) if crules.columns == 1 else None
        if best is not None:
            return {"kind": "pct", "measured": 100 * mean / best, "ci95": [100 * x / best for x in ci],
                    "games": args.games, "mean": mean}
    return {"kind": "mean", "measured": mean, "ci95": ci, "games": args.games}


def _write_files(out: Path, rules, runs, doc, args) -> list[str]:
    import matplotlib   # drawing only: its import costs about half a second
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt   # after the Agg backend: no window
    ensure_folder(out, "--out folder")
    hi = max(int(r["totals"].max()) for r in runs.values())
    bins = np.arange(0, hi + 10, 10)
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for n, r in runs.items():
        ax.hist(r["totals"], bins=bins, histtype="step", linewidth=1.5,
                label=f"{n} (mean {r['totals'].mean():.1f})")
    ax.set_xlabel("final score")
    ax.set_ylabel("games")
    ax.set_title(f"Solitaire scores under {rules.name!r}, {args.games} games each, identical dice")
    ax.legend()
    fig.tight_layout()
    with atomic_writer(out / "levels_hist.png", "levels plot") as f:
        fig.savefig(f, format="png", dpi=100)
    plt.close(fig)
    write_atomic(out / "levels.json", json.dumps(doc, indent=2) + "\n", "levels.json")
    return [str(out / "levels.json"), str(out / "levels_hist.png")]
