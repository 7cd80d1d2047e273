"""The tournament report, derived from the store only: `results.json`, `report.md`, one score histogram
PNG per agent, and a short table for the terminal. Rendering twice from the same store gives the same
files."""
import json
import re
from pathlib import Path

import numpy as np

from agents.analysis import report_markdown, report_section

from .ratings import elo, openskill
from .schedule import schedule, tables
from .stats import agent_stats, duplicate_effect, head_to_head
from .store import Store

RESULTS = "results.json"
REPORT = "report.md"
SCORES_PNG = "scores.png"


def results(store: Store, records=None, analysis: bool = True) -> dict:
    """Everything the report shows, as plain data (records: the store's, if already read; analysis:
    with the move analysis section, see `agents.analysis.report_section`)."""
    config = store.config()
    records = list(store.records().values()) if records is None else list(records)
    entrants = list(config.entrants)
    boxes = list(config.ruleset.boxes)
    planned = len(schedule(config))
    faults = [{"key": r["key"], "seat": s, "agent": r["agents"][s], **f}
              for r in sorted(records, key=lambda r: (r["table"], r["deal"], r["rotation"]))
              for s, f in enumerate(r["faults"]) if f is not None]
    return {
        "tournament": {"name": config.name, "rules": config.ruleset.name, "rule_overrides": config.set,
                       "entrants": config.entrants, "seats": config.seats, "tables": len(tables(config)),
                       "deals_per_table": config.games, "seed": config.seed, "config_hash": config.hash,
                       "games_planned": planned, "games_played": len(records), "complete": len(records) == planned},
        "agents": agent_stats(records, entrants, boxes),
        "head_to_head": head_to_head(records, entrants),
        "duplicate_dice": duplicate_effect(records, entrants),
        "ratings": {"elo": elo(records, entrants, seed=config.seed), "openskill": openskill(records, entrants)},
        "faults": faults,
        **({"analysis": report_section(records, config.ruleset)} if analysis and records else {}),
    }


def _f(x, nd=1) -> str:
    return "–" if x is None else f"{x:.{nd}f}"


def _ci(ci, nd=1) -> str:
    return f"[{ci[0]:.{nd}f}, {ci[1]:.{nd}f}]"


def _worth(summary) -> str:
    f = summary["mean_games_factor"]
    return f", worth {f:.1f}x as many independent games" if f is not None else ""


def histogram_name(agent: str) -> str:
    return "hist_" + re.sub(r"[^A-Za-z0-9_.-]+", "_", agent) + ".png"


def write_histograms(records, entrants, folder: Path) -> list[str]:
    """One score histogram PNG per agent (games it finished without a fault), and all agents in one."""
    from matplotlib.figure import Figure  # no pyplot: leaves the caller's backend alone

    from .stats import scores_by_agent
    scores = scores_by_agent(records)
    names = []
    top = max((max(v) for v in scores.values() if v), default=100)
    bins = np.arange(0, top + 10, 10)
    for agent in entrants:
        values = scores.get(agent, [])
        fig = Figure(figsize=(6, 3.5))
        ax = fig.subplots()
        ax.hist(values, bins=bins, color="tab:blue", edgecolor="white")
        if values:
            ax.axvline(float(np.mean(values)), color="tab:red", label=f"mean {np.mean(values):.1f}")
            ax.legend()
        ax.set(title=f"{agent}: final scores ({len(values)} games)", xlabel="score", ylabel="games")
        fig.tight_layout()
        name = histogram_name(agent)
        fig.savefig(folder / name, metadata={"Software": None})
        names.append(name)
    fig = Figure(figsize=(7, 4))
    ax = fig.subplots()
    for agent in entrants:
        if scores.get(agent):
            ax.hist(scores[agent], bins=bins, histtype="step", linewidth=1.5, label=agent)
    ax.set(title="final scores, all agents", xlabel="score", ylabel="games")
    if any(scores.get(agent) for agent in entrants):
        ax.legend()
    fig.tight_layout()
    fig.savefig(folder / SCORES_PNG, metadata={"Software": None})
    return names + [SCORES_PNG]


def _matrix(res: dict) -> list[str]:
    names = list(res["agents"])
    cell = {}
    for h in res["head_to_head"]:
        lo, hi = h["ci95"]
        cell[(h["a"], h["b"])] = f"{h['wins']}-{h['draws']}-{h['losses']}: {h['score_rate']:.2f} [{lo:.2f}, {hi:.2f}]"
        cell[(h["b"], h["a"])] = (f"{h['losses']}-{h['draws']}-{h['wins']}: {1 - h['score_rate']:.2f} "
                                  f"[{1 - hi:.2f}, {1 - lo:.2f}]")
    out = ["| W-D-L: rate [95% CI] | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
    for a in names:
        out.append(f"| **{a}** | " + " | ".join(cell.get((a, b), "") for b in names) + " |")
    return out


def markdown(res: dict) -> str:
    t = res["tournament"]
    lines = [f"# Tournament {t['name']!r}", "",
             f"Rules `{t['rules']}`" + (f" with {t['rule_overrides']}" if t["rule_overrides"] else "") +
             f"; {t['seats']} seats per table, {t['tables']} tables, {t['deals_per_table']} deals per table, "
             f"every deal played in each of the {t['seats']} seat rotations with the same dice; seed {t['seed']}; "
             f"config hash `{t['config_hash']}`.", "",
             f"Games played: {t['games_played']} of {t['games_planned']}" +
             ("" if t["complete"] else " (incomplete: rerun the same command to finish)") + ".", "",
             "## Scores", "",
             "| agent | games | forfeits | mean | 95% CI | sd | p5 | p25 | median | p75 | p95 | mean place | histogram |",
             "|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---|"]
    for name, a in res["agents"].items():
        if "mean" not in a:
            lines.append(f"| {name} | {a['games']} | {a['forfeits']} | – | – | – | – | – | – | – | – | – | – |")
            continue
        q = a["quantiles"]
        lines.append(f"| {name} | {a['games']} | {a['forfeits']} | {a['mean']:.1f} | {_ci(a['ci95'])} | "
                     f"{a['std']:.1f} | {q['p5']:.0f} | {q['p25']:.0f} | {a['median']:.0f} | {q['p75']:.0f} | "
                     f"{q['p95']:.0f} | {a['mean_place']:.2f} | ![{name}]({histogram_name(name)}) |")
    lines += ["", f"![score distributions]({SCORES_PNG})"]
    lines += ["", "## Head to head", "",
              "Wins, draws and losses of a against b at the same table (by place); score rate = (wins + draws / 2)"
              " / games, with a 95% Wilson interval. The matrix gives the row agent's score rate against the "
              "column agent.", ""]
    lines += _matrix(res)
    lines += ["", "| a | b | games | W | D | L | score rate | 95% CI |", "|---|---|---:|---:|---:|---:|---:|---|"]
    for h in res["head_to_head"]:
        lines.append(f"| {h['a']} | {h['b']} | {h['games']} | {h['wins']} | {h['draws']} | {h['losses']} | "
                     f"{h['score_rate']:.3f} | {_ci(h['ci95'], 3)} |")
    dup = res["duplicate_dice"]
    s = dup["summary"]
    lines += ["", "## Duplicate dice", "",
              "Mean score difference a − b with its 95% CI from duplicate deals (the rotations of a deal share "
              "the dice), against the CI the same number of games would give with independent dice "
              "(variance var(a) + var(b) per game)."]
    if s["mean_width_ratio"] is not None:
        lines += ["", f"On average the duplicate CI is {100 * s['mean_width_ratio']:.0f}% as wide as with "
                      f"independent dice{_worth(s)}."]
    lines += ["", "| a | b | deals | games | mean diff | 95% CI duplicate | 95% CI independent | width ratio |",
              "|---|---|---:|---:|---:|---|---|---:|"]
    for p in dup["pairs"]:
        lines.append(f"| {p['a']} | {p['b']} | {p['deals']} | {p['games']} | {p['mean_diff']:.1f} | "
                     f"{_ci(p['ci95_duplicate'])} | {_ci(p['ci95_independent'])} | {_f(p['width_ratio'], 2)} |")
    lines += ["", "## Ratings", ""]
    if res["ratings"]["elo"]:
        lines += ["Elo (Bradley–Terry fit of the two-seat games, mean 1500, bootstrap 95% CI over deals):", "",
                  "| agent | Elo | 95% CI |", "|---|---:|---|"]
        lines += [f"| {n} | {e['elo']:.0f} | {_ci(e['ci95'], 0)} |" for n, e in res["ratings"]["elo"].items()]
        lines.append("")
    os_ = res["ratings"]["openskill"]
    if "error" in os_:
        lines.append(f"OpenSkill: {os_['error']}")
    else:
        lines += ["OpenSkill Plackett–Luce (ordinal = mu − 3 sigma):", "",
                  "| agent | mu | sigma | ordinal |", "|---|---:|---:|---:|"]
        lines += [f"| {n} | {o['mu']:.2f} | {o['sigma']:.2f} | {o['ordinal']:.2f} |" for n, o in os_.items()]
    boxes = next((list(a["per_box_mean"]) for a in res["agents"].values() if "per_box_mean" in a), [])
    if boxes:
        lines += ["", "## Mean points per box", "",
                  "| box | " + " | ".join(res["agents"]) + " |", "|---|" + "---:|" * len(res["agents"])]
        for b in boxes:
            lines.append(f"| {b} | " + " | ".join(_f(a.get("per_box_mean", {}).get(b)) for a in res["agents"].values())
                         + " |")
        lines.append("| upper bonus rate | " + " | ".join(_f(a.get("upper_bonus_rate"), 2)
                                                       for a in res["agents"].values()) + " |")
        lines.append("| extra-Yacht bonus | " + " | ".join(_f(a.get("extra_bonus_mean"))
                                                        for a in res["agents"].values()) + " |")
    lines += report_markdown(res.get("analysis"))
    lines += ["", "## Faults", ""]
    if res["faults"]:
        lines += ["| game | seat | agent | move | error |", "|---|---:|---|---:|---|"]
        lines += [f"| {f['key']} | {f['seat']} | {f['agent']} | {f['move']} | {f['error'].replace('|', '/')} |"
                  for f in res["faults"]]
    else:
        lines.append("None: every agent finished every game.")
    return "\n".join(lines) + "\n"


def terminal_table(res: dict) -> str:
    """A few lines for the terminal: one per agent, best mean first."""
    t = res["tournament"]
    elo_ = res["ratings"]["elo"] or {}
    os_ = res["ratings"]["openskill"]
    rows = sorted(res["agents"].items(), key=lambda kv: -kv[1].get("mean", -1))
    out = [f"{t['name']}: {t['games_played']}/{t['games_planned']} games, rules {t['rules']}, {t['seats']} seats",
           f"{'agent':<16}{'games':>7}{'mean':>8}{'95% CI':>18}{'sd':>7}{'place':>7}{'Elo':>7}{'OpenSkill':>11}"]
    for name, a in rows:
        ci = _ci(a["ci95"]) if "ci95" in a else "–"
        rating = elo_.get(name, {}).get("elo")
        ordinal = os_.get(name, {}).get("ordinal") if "error" not in os_ else None
        out.append(f"{name:<16}{a['games']:>7}{_f(a.get('mean')):>8}{ci:>18}{_f(a.get('std')):>7}"
                   f"{_f(a.get('mean_place'), 2):>7}{_f(rating, 0):>7}{_f(ordinal, 2):>11}")
    s = res["duplicate_dice"]["summary"]
    if s["mean_width_ratio"] is not None:
        out.append(f"duplicate dice: score-difference CIs {100 * s['mean_width_ratio']:.0f}% as wide as with "
                   f"independent dice{_worth(s)}")
    if res["faults"]:
        out.append(f"faults: {len(res['faults'])} forfeits (see report.md)")
    return "\n".join(out)


def render(folder, analysis: bool = True) -> dict:
    """Write results.json, report.md and the histograms into `folder` from its store; return the results."""
    store = Store(folder)
    records = list(store.records().values())
    res = results(store, records, analysis)
    folder = Path(folder)
    (folder / RESULTS).write_text(json.dumps(res, indent=2) + "\n")
    (folder / REPORT).write_text(markdown(res))
    write_histograms(records, list(res["agents"]), folder)
    return res
