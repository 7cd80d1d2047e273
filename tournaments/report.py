"""The tournament report, derived from the store only: `results.json`, `report.md`, `report.html` (the
same report as one self-contained page), one score histogram PNG per agent and `scores.png`, and a
short table for the terminal. Rendering twice from the same store gives the same files.

`results` gathers every figure as plain data, agents in standings order. The report is a list of
sections (`SECTIONS`: functions from the results to a `document.Section`, or None to leave it out),
rendered to Markdown and to HTML from the same document; a new section is one more function there.
"""
import json
from io import BytesIO
from pathlib import Path

import numpy as np

from agents.analysis import SectionTally, report_blocks
from yacht_env.config import ConfigError, slug
from yacht_env.rules import rules_hash, rules_label
from yacht_env.safe_file import write_atomic

from . import document as doc
from . import games as compact_games
from .document import Cell, Code, Image, Section, Strong, Grid
from .html import page
from .formats import RoundReplay, format_of, kind_of, replay_of
from .ratings import elo, elo_unavailable, openskill, plackett_luce
from .seating import balanced_splits
from .stats import (agent_stats, duplicate_effect, luck_effect, ordered, pair_results, scores_by_agent,
                    standings, team_stats, win_share_explained)
from .store import Store

RESULTS = "results.json"
REPORT = "report.md"
REPORT_HTML = "report.html"
SCORES_PNG = "scores.png"
MAX_PLOTTED = 32     # entrants up to which each gets a histogram and the head-to-head matrix is drawn


def table_members(config, records) -> tuple[dict[int, tuple[str, ...]], RoundReplay | None, list[dict] | None]:
    """The entrants of every table that has stored games, by table number; for a format paired round by
    round its replay, with every game counted, and its rounds ({round, tables, byes}) re-paired from them
    (a store whose tables do not follow the pairings is refused, as `RoundReplay.check` does)."""
    played = sorted({r["table"] for r in records})
    replay = replay_of(config)
    if replay is None:
        fmt = format_of(config)
        return {t: fmt.members(t) for t in played}, None, None
    for r in records:
        replay.add(r)
    members, rounds = {}, []
    last = max((replay.fmt.round_of(t) for t in played), default=-1)
    try:
        for rnd, tables, byes in replay.pairings(last + 1):
            members.update(tables)
            rounds.append({"round": rnd + 1, "tables": [t for t, _ in tables], "byes": byes})
    except ValueError as e:
        raise ConfigError(f"{e}: the store was written by another version of the pairing; play the tournament "
                          f"into a new folder") from None
    return {t: members[t] for t in played}, replay, rounds


def results(store: Store, records=None, analysis: bool = True) -> dict:
    """Everything the report shows, as plain data (records: the store's games as `tournaments.games.read`
    gives them, if already read; analysis: with the move analysis of every seat, the logs read again
    from the store in chunks, `agents.analysis.SectionTally`)."""
    config = store.config()
    records = compact_games.read(store) if records is None else records
    members, replay, rounds = table_members(config, records)
    planned = config.total_games
    rules = config.ruleset
    table = standings(records, list(config.entrants))
    order = [x["agent"] for x in table]
    for x in table:
        x["spec"] = config.entrants[x["agent"]]
    rank = {name: i for i, name in enumerate(order)}
    faults = [{"key": r["key"], "seat": s, "agent": r["agents"][s], **f}
              for r in ordered(records) for s, f in enumerate(r["faults"]) if f is not None]
    faults.sort(key=lambda f: rank[f["agent"]])          # stable: game order within an agent
    ratings_ = {"elo": elo(records, order, seed=config.seed), "openskill": openskill(records, order),
                "plackett_luce": plackett_luce(records, order, seed=config.seed,
                                               boot=100 if len(order) <= 100 else 20)}
    if ratings_["elo"] is None:
        ratings_["elo_unavailable"] = elo_unavailable(config.seats, rules.teams) or "no two-seat games played yet"
    splits = balanced_splits(config.seats, rules.teams)
    out = {
        "rules": config.rules_block,
        "tournament": {"name": config.name, "rules": rules.name, "set": config.set,
                       "rules_hash": rules_hash(rules), "entrants": config.entrants, "seats": config.seats,
                       "teams": rules.teams, "format": config.format, "candidates": config.candidates,
                       "rounds": config.rounds, "schedule": config.schedule, "confidence": config.confidence,
                       "tables": format_of(config).table_count,
                       "deals_per_table": config.games,
                       "partnership_splits": len(splits) if rules.teams else None,
                       "arrangements_per_deal": len(splits) * config.seats, "seed": config.seed,
                       "config_hash": config.hash, "games_planned": planned, "games_played": len(records),
                       "complete": replay.complete(len(records), planned) if replay else len(records) == planned},
        **(replay.results(rounds, records, order) if replay else {}),
        "standings": table,
        "agents": agent_stats(records, order, list(rules.boxes)),
        "teams": team_stats(records, order),
        "head_to_head": pair_results(records, order),
        "win_share": win_share_explained(records, order) if config.seats > 1 else None,
        "duplicate_dice": duplicate_effect(records, order),
        "ratings": ratings_,
        "faults": faults,
        "game_ids": {"format": "t{table}-d{deal}-r{arrangement}",
                     "tables": {f"t{t}": list(m) for t, m in members.items()},
                     "splits": [[list(team) for team in s] for s in splits] if rules.teams else None},
    }
    if analysis and records:
        out["analysis"], out["luck"] = analysis_of(store, records, rules, order)
    return out


def forfeit_counts(res: dict) -> dict[str, dict]:
    """Per entrant of a tournament's results: its games, the games it forfeited ("faulted") and its forfeits
    by kind (the stored error's text up to its first colon: timeout, crash, garbage, illegal, ...)."""
    kinds: dict[str, dict[str, int]] = {}
    for f in res["faults"]:
        kind = str(f.get("error", "")).split(":", 1)[0].strip() or "error"
        by = kinds.setdefault(f["agent"], {})
        by[kind] = by.get(kind, 0) + 1
    return {name: {"games": a["games"], "faulted": a["forfeits"], "kinds": dict(sorted(kinds.get(name, {}).items()))}
            for name, a in res["agents"].items()}


def analysis_of(store: Store, games, rules, order) -> tuple[dict, dict | None]:
    """The move analysis of every stored game, read from the store a chunk at a time in game order, and
    the luck-removed score differences it gives (`stats.luck_effect`; None when it was skipped)."""
    tally = SectionTally(rules)
    if isinstance(games[0], dict):              # full records given by the caller
        tally.add(sorted(games, key=lambda r: (r["table"], r["deal"], r["rotation"])))
    for chunk in [] if isinstance(games[0], dict) else compact_games.chunks(store, games):
        tally.add(chunk)
    try:
        section = tally.section(order)
        if "skipped" in section:
            return section, None
        return section, luck_effect(games, tally.seat_loss, order, section["optimal_expected_score"],
                                    section["values"] == "exact", tally.seat_luck)
    finally:
        tally.spilled.close()


# ---- figures -----------------------------------------------------------------------------------

def histogram_name(agent: str) -> str:
    """`hist_<slug>.png`; tournament configs refuse entrants whose slugs (`yacht_env.config.slug`) are
    the same, so two entrants never share a file, on case-insensitive file systems too."""
    return f"hist_{slug(agent)}.png"


def _label(name: str) -> str:
    """An agent name as matplotlib text (a `$` would start mathematical notation)."""
    return name.replace("$", r"\$")


def _png(fig) -> bytes:
    buf = BytesIO()
    fig.savefig(buf, format="png", metadata={"Software": None})
    return buf.getvalue()


def histograms(records, agents) -> dict[str, bytes]:
    """PNG bytes by file name: one score histogram per agent (games its sheet finished without a fault),
    and all agents in `scores.png` (more than MAX_PLOTTED: no histogram per agent, the first MAX_PLOTTED in
    `scores.png`)."""
    from matplotlib.figure import Figure  # no pyplot: leaves the caller's backend alone

    scores = scores_by_agent(records)
    top = max((max(v) for v in scores.values() if v), default=100)
    bins = np.arange(0, top + 10, 10)
    out = {}
    agents = list(agents)
    own = len(agents) <= MAX_PLOTTED        # a larger field: no histogram of its own, scores.png the first ones
    agents = agents[:MAX_PLOTTED]
    for agent in agents if own else []:
        values = np.asarray(scores.get(agent, []), dtype=np.int64)
        fig = Figure(figsize=(6, 3.5))
        fig.subplots_adjust(left=0.11, right=0.97, bottom=0.15, top=0.9)
        ax = fig.subplots()
        ax.hist(values, bins=bins, histtype="stepfilled", color="tab:blue", edgecolor="white")
        if len(values):
            ax.axvline(float(np.mean(values)), color="tab:red", label=f"mean {np.mean(values):.1f}")
            ax.legend()
        ax.set(title=f"{_label(agent)}: final scores ({len(values)} games)", xlabel="score", ylabel="games")
        out[histogram_name(agent)] = _png(fig)
    fig = Figure(figsize=(7, 4))
    fig.subplots_adjust(left=0.1, right=0.97, bottom=0.13, top=0.92)
    ax = fig.subplots()
    for agent in agents:
        if scores.get(agent):
            ax.hist(np.asarray(scores[agent], dtype=np.int64), bins=bins, histtype="step", linewidth=1.5,
                    label=_label(agent))
    ax.set(title="final scores, all agents", xlabel="score", ylabel="games")
    if any(scores.get(agent) for agent in agents):
        ax.legend()
    out[SCORES_PNG] = _png(fig)
    return out


# ---- sections ----------------------------------------------------------------------------------

def _f(x, nd=1) -> str:
    return "–" if x is None else f"{x:.{nd}f}"


def _ci(ci, nd=1) -> str:
    return f"[{ci[0]:.{nd}f}, {ci[1]:.{nd}f}]"


def _num(x, nd=1) -> Cell:
    return Cell(_f(x, nd), x)


def _ci_cell(ci, nd=1) -> Cell:
    return Cell(_ci(ci, nd), ci[0]) if ci else Cell("–")


def _pair(res, a, b) -> dict | None:
    """The head-to-head entry of a against b, turned to a's side."""
    for h in res["head_to_head"]:
        if (h["a"], h["b"]) == (a, b):
            return h
        if (h["a"], h["b"]) == (b, a):
            lo, hi = h["ci95"]
            return {**h, "a": a, "b": b, "wins": h["losses"], "losses": h["wins"], "score_rate": 1 - h["score_rate"],
                    "ci95": [1 - hi, 1 - lo]}
    return None


def winner_line(res) -> tuple:
    t, table = res["tournament"], res["standings"]
    if not table or table[0]["score_rate"] is None:
        return ("No results yet.",)
    top = [x for x in table if x["rank"] == 1]
    lead = "Winner" if t["complete"] else "Leading so far"
    if len(top) > 1:
        return (Strong(f"Shared first place: {doc.listed(x['agent'] for x in top)}"),
                f" (score rate {top[0]['score_rate']:.3f} each).")
    first = top[0]
    text = [Strong(f"{lead}: {first['agent']}"), f", score rate {first['score_rate']:.3f} against every opponent"]
    runner = next((x for x in table if x["rank"] > 1), None)
    h = _pair(res, first["agent"], runner["agent"]) if runner else None
    if h:
        clear = "clearly ahead" if h["ci95"][0] > 0.5 else "not clearly ahead: the interval includes 0.5"
        text.append(f"; against the runner-up {runner['agent']} {h['score_rate']:.3f} "
                    f"{_ci(h['ci95'], 3)} over {h['games']} games ({clear})")
    return tuple(text) + (".",)


def standings_section(res) -> Section:
    t = res["tournament"]
    elo_ = res["ratings"]["elo"]
    os_ = res["ratings"]["openskill"]
    head = ["rank", "agent", "spec", "W-D-L", "score rate", "mean score", "mean place"]
    align = "rllrrrr"
    if elo_:
        head.append("Elo")
        align += "r"
    pl = (res["ratings"].get("plackett_luce") or {}).get("ratings", {})
    if pl:
        head.append("PL rating")
        align += "r"
    if "error" not in os_:
        head.append("OpenSkill")
        align += "r"
    rows = []
    for x in res["standings"]:
        a = res["agents"][x["agent"]]
        row = [Cell(str(x["rank"]), x["rank"]), x["agent"], Code(x["spec"]),
               Cell(f"{x['wins']}-{x['draws']}-{x['losses']}", x["wins"]), _num(x["score_rate"], 3),
               _num(x["mean"]), _num(a.get("mean_place"), 2)]
        if elo_:
            row.append(_num(elo_.get(x["agent"], {}).get("elo"), 0))
        if pl:
            row.append(_num(pl.get(x["agent"], {}).get("rating"), 0))
        if "error" not in os_:
            row.append(_num(os_[x["agent"]]["ordinal"], 2))
        rows.append(row)
    team = " (under team rules, its team's place)" if t["teams"] else ""
    return Section("Standings", [
        winner_line(res),
        Grid(head, rows, align),
        "Ranked by score rate: (wins + draws / 2) / results, counting one result against every opponent in "
        f"every game, by place{team}; equal score rates are ranked by mean score. W-D-L are those results; "
        "mean score is over the games finished without a forfeit on the agent's sheet."])


def tournament_section(res) -> Section:
    t = res["tournament"]
    kind = kind_of(t["format"], t["schedule"])
    k, n = t["seats"], t["arrangements_per_deal"]
    if t["teams"] and t["partnership_splits"] and n > k:
        how = (f"{n} arrangements ({t['partnership_splits']} partnership splits × {k} seat rotations; every pair "
               f"of entrants is partnered equally often)")
    else:
        how = f"{n} seat rotations"
    teams = f", {t['teams']} teams sharing sheets (seat i plays for team i mod {t['teams']})" if t["teams"] else ""
    label = rules_label({"name": t["rules"], "set": t["set"]})
    blocks = [("Rules ", Code(t["rules"]), label[len(t["rules"]):], " (rules hash ",
               Code(t["rules_hash"]), f"){teams}; {k} seats per table, {t['tables']} tables, "
               f"{t['deals_per_table']} deals per table, every deal played in its {how} with the same dice; "
               f"seed {t['seed']}; config hash ", Code(t["config_hash"]), "."),
              f"Games played: {t['games_played']} of {'at most ' if kind.until else ''}{t['games_planned']}"
              + ("." if t["complete"] else " (incomplete: rerun the same command to finish)."),
              kind.describe(t), *kind.report_blocks(res)]
    return Section("Tournament", blocks)


def format_section(res) -> Section | None:
    """The format's own section, where it has one (a Swiss's standings and pairings)."""
    t = res["tournament"]
    return kind_of(t["format"], t["schedule"]).report_section(res)


def teams_section(res) -> Section | None:
    teams = res["teams"]
    if not teams:
        return None
    rows = [[" + ".join(p["team"]), Cell(str(p["games"]), p["games"]),
             Cell(f"{p['wins']}-{p['draws']}-{p['losses']}", p["wins"]), _num(p["score_rate"], 3),
             _ci_cell(p["ci95_score_rate"], 3), _num(p.get("mean")), _ci_cell(p.get("ci95")),
             _num(p["mean_place"], 2)] for p in teams["partnerships"]]
    blocks = ["Partnerships: every set of entrants that wrote one sheet, best score rate first. W-D-L counts "
              "one result against each opposing sheet per game.",
              Grid(["partnership", "games", "W-D-L", "score rate", "95% CI", "team score", "95% CI",
                     "mean place"], rows, "lrrrrrrr")]
    blocks += ["Per agent: its own share of the team sheet, the boxes it scored itself (the move log records "
               "who scored each box) and the bonuses those boxes earned; a team's shares add up to its total.",
               Grid(["agent", "games", "turns per game", "box points per game", "bonus per game",
                      "own points per game", "95% CI", "points per turn", "share of team total"],
                     [[name, Cell(str(c["games"]), c["games"]), _num(c.get("turns_per_game")),
                       _num(c.get("box_points_per_game")), _num(c.get("bonus_per_game")), _num(c.get("mean")),
                       _ci_cell(c.get("ci95")), _num(c.get("points_per_turn"), 2),
                       _num(c.get("share_of_team_total"), 3)] for name, c in teams["contributions"].items()],
                     "lrrrrrrrr")]
    blocks += ["Sheet positions (sheet 1 plays the first turn):",
               Grid(["sheet", "games", "mean score", "first places"],
                     [[Cell(str(s["sheet"]), s["sheet"]), Cell(str(s["games"]), s["games"]), _num(s["mean"]),
                       Cell(str(s["first_places"]), s["first_places"])] for s in teams["sheets"]], "rrrr")]
    blocks += ["How often each pair of entrants were partners and opponents:",
               Grid(["a", "b", "partnered", "opposed"],
                     [[p["a"], p["b"], Cell(str(p["partnered"]), p["partnered"]),
                       Cell(str(p["opposed"]), p["opposed"])] for p in teams["pairs"]], "llrr")]
    return Section("Teams", blocks)


def scores_section(res) -> Section:
    rows = []
    for name, a in res["agents"].items():
        if "mean" not in a:
            rows.append([name, Cell(str(a["games"]), a["games"]), Cell(str(a["forfeits"]), a["forfeits"])]
                        + ["–"] * 10)
            continue
        q = a["quantiles"]
        rows.append([name, Cell(str(a["games"]), a["games"]), Cell(str(a["forfeits"]), a["forfeits"]),
                     _num(a["mean"]), _ci_cell(a["ci95"]), _num(a["std"]), _num(q["p5"], 0), _num(q["p25"], 0),
                     _num(a["median"], 0), _num(q["p75"], 0), _num(q["p95"], 0), _num(a["mean_place"], 2),
                     Image(histogram_name(name), name) if len(res["agents"]) <= MAX_PLOTTED else "–"])
    team = " (its team's sheet under team rules)" if res["tournament"]["teams"] else ""
    return Section("Scores", [
        f"Final scores of the sheet each agent wrote on{team}, over the games finished without a forfeit on it.",
        Grid(["agent", "games", "forfeits", "mean", "95% CI", "sd", "p5", "p25", "median", "p75", "p95",
               "mean place", "histogram"], rows, "lrrrlrrrrrrrl"),
        Image(SCORES_PNG, "score distributions")])


def head_to_head_section(res) -> Section:
    names = list(res["agents"])
    matrix = []
    for a in names if len(names) <= MAX_PLOTTED else []:
        row = [Strong(a)]
        for b in names:
            h = _pair(res, a, b) if a != b else None
            row.append(Cell(f"{h['wins']}-{h['draws']}-{h['losses']}: {h['score_rate']:.2f} {_ci(h['ci95'], 2)}",
                            h["score_rate"]) if h else Cell(""))
        matrix.append(row)
    pairs = [[h["a"], h["b"], Cell(str(h["games"]), h["games"]), Cell(str(h["wins"]), h["wins"]),
              Cell(str(h["draws"]), h["draws"]), Cell(str(h["losses"]), h["losses"]), _num(h["score_rate"], 3),
              _ci_cell(h["ci95"], 3)] for h in res["head_to_head"]]
    return Section("Head to head", [
        "Wins, draws and losses of a against b at the same table (by place); score rate = (wins + draws / 2)"
        " / games, with a 95% Wilson interval. The matrix gives the row agent's score rate against the "
        "column agent.",
        Grid(["W-D-L: rate [95% CI]"] + names, matrix, "l" * (len(names) + 1)) if matrix else
        f"(No matrix for more than {MAX_PLOTTED} entrants: the pairs that met follow.)",
        Grid(["a", "b", "games", "W", "D", "L", "score rate", "95% CI"], pairs, "llrrrrrl")])


def _pct_ci(ci) -> Cell:
    return Cell(f"[{100 * ci[0]:.2f}, {100 * ci[1]:.2f}]", ci[0])


def win_share_section(res) -> Section | None:
    ws = res.get("win_share")
    if not ws:
        return None
    blocks = ["Win share: 1/k for a first place shared by k sheets, else 0 (an entrant as good as the rest of a "
              f"{res['tournament']['seats']}-seat table gets {100 / res['tournament']['seats']:.1f}%). Expected: "
              "the share its own scores give against the field's if nobody looked at anyone (each game's final "
              "score against the score lists of the entrants on the other sheets, independent, ties shared). "
              "Gained by playing the table: observed − expected. Means over deals, 95% intervals over deals "
              "(the field's score lists taken as known)."]
    rows = [[name, Cell(str(w["games"]), w["games"]), _num(100 * w["observed"], 2), _pct_ci(w["observed_ci95"]),
             _num(100 * w["expected"], 2), _pct_ci(w["expected_ci95"]), _num(100 * w["gain"], 2),
             _pct_ci(w["gain_ci95"])] for name, w in ws.items()]
    blocks.append(Grid(["agent", "games", "win share %", "95% CI", "expected %", "95% CI", "gained %", "95% CI"],
                        rows, "lrrlrlrl"))
    return Section("Win share explained", blocks)


def duplicate_section(res) -> Section:
    dup = res["duplicate_dice"]
    s = dup["summary"]
    blocks = ["Mean score difference a − b with its 95% CI from duplicate deals (every arrangement of a deal "
              "has the same dice), against the CI the same number of games would give with independent dice "
              "(variance var(a) + var(b) per game)."]
    if s["width_ratio"] is not None:
        worth = (f", as precise as {s['games_factor']:.2f} times as many independent games"
                 if s["games_factor"] is not None else ", and leave no doubt: the duplicate variance is zero")
        blocks.append(f"Over the {s['pairs']} pairs, duplicate dice leave {s['variance_per_game_duplicate']:.0f} "
                      f"of the {s['variance_per_game_independent']:.0f} points² of variance per game that "
                      f"independent dice would: confidence intervals {100 * s['width_ratio']:.0f}% as wide"
                      f"{worth} (1 / {s['width_ratio']:.3f}²).")
    rows = [[p["a"], p["b"], Cell(str(p["deals"]), p["deals"]), Cell(str(p["games"]), p["games"]),
             _num(p["mean_diff"]), _ci_cell(p["ci95_duplicate"]), _ci_cell(p["ci95_independent"]),
             _num(p["width_ratio"], 2)] for p in dup["pairs"]]
    blocks.append(Grid(["a", "b", "deals", "games", "mean diff", "95% CI duplicate", "95% CI independent",
                         "width ratio"], rows, "llrrrllr"))
    return Section("Duplicate dice", blocks)


def luck_section(res) -> Section | None:
    luck = res.get("luck")
    if not luck or not luck["pairs"]:
        return None
    how = ("exact: the solver's optimal values" if luck["exact"] else
           "approximate: several columns are valued as the sum of one-column values")
    blocks = [f"Every game's score splits into the optimal expected score ({luck['optimal_expected_score']:.2f}), "
              f"the dice's luck and the points the decisions lost ({how}). Luck has mean zero whatever an agent "
              "plays, so the difference of the points two agents' decisions lost in the same game estimates "
              "their mean score difference without the dice's noise (a control variate: method \"split\"). "
              "With enough deals (method \"fitted\") every roll's luck is also measured as the points it "
              "offers at once and in each open box, each against its exact expectation given the dice kept, "
              f"and the plain difference is adjusted by both seats' luck terms with coefficients fitted on the "
              f"other {luck.get('folds', 10)} − 1 folds of deals (cross-fitting). Exact: the split, and the zero "
              "mean of every luck term, so the estimate is unbiased; estimated: the coefficients and the "
              "intervals (normal, from the spread of the deal means, like the plain ones). \"games ×\" is how "
              "many times the games the plain estimate would need for the same interval.",
              Grid(["a", "b", "games", "mean diff", "95% CI plain", "luck removed", "95% CI luck removed",
                     "method", "width ratio", "games ×"],
                    [[p["a"], p["b"], Cell(str(p["games"]), p["games"]), _num(p["mean_diff"], 2),
                      _ci_cell(p["ci95_plain"], 2), _num(p["luck_removed"], 2), _ci_cell(p["ci95_luck_removed"], 2),
                      p.get("method", "split"), _num(p["width_ratio"], 3), _num(p["games_factor"], 1)]
                     for p in luck["pairs"]], "llrrlrllrr"),
              "Per agent: mean luck per game (about zero) and the luck-removed score, optimum − points lost:",
              Grid(["agent", "games", "luck / game", "95% CI", "luck-removed score", "95% CI"],
                    [[n, Cell(str(a["games"]), a["games"]), _num(a["luck"], 2), _ci_cell(a["ci95_luck"], 2),
                      _num(a["luck_removed_score"], 2), _ci_cell(a["ci95_luck_removed_score"], 2)]
                     for n, a in luck["agents"].items()], "lrrlrl")]
    return Section("Luck removed", blocks)


def ratings_section(res) -> Section:
    r = res["ratings"]
    blocks = []
    if r["elo"]:
        blocks += ["Elo (Bradley–Terry fit of the two-seat games, mean 1500, bootstrap 95% CI over deals):",
                   Grid(["agent", "Elo", "95% CI"], [[n, _num(e["elo"], 0), _ci_cell(e["ci95"], 0)]
                                                     for n, e in r["elo"].items()], "lrl")]
    else:
        blocks.append(r["elo_unavailable"])
    pl = r.get("plackett_luce")
    if pl:
        blocks += ["Plackett–Luce ratings fitted to every game's places at once (maximum a posteriori, one "
                   "virtual win each; every place of a multi-seat table counts; teammates share their sheet's "
                   "place), on the Elo scale with mean 1500 (for two seats this is Bradley–Terry), bootstrap "
                   "95% CI over deals:",
                   Grid(["agent", "rating", "95% CI"], [[n, _num(x["rating"], 0), _ci_cell(x["ci95"], 0)]
                                                         for n, x in pl["ratings"].items()], "lrl"),
                   "The win matrix the fit predicts (P(a placed above b) = g_a / (g_a + g_b) at any table size) "
                   "beside the one observed (score rate of a against b):",
                   Grid(["a", "b", "games", "observed", "predicted"],
                         [[h["a"], h["b"], Cell(str(h["games"]), h["games"]), _num(h["score_rate"], 3),
                           _num(pl["predicted"].get(h["a"], {}).get(h["b"]), 3)] for h in res["head_to_head"]],
                         "llrrr")]
    blocks += ["OpenSkill Plackett–Luce, updated game by game in game order, every sheet a team of the agents "
               "that wrote it (ordinal = mu − 3 sigma); sequential updates depend on the order and number of "
               "games, so on many games it can disagree with the fitted ratings above, which it does not "
               "replace:",
               Grid(["agent", "mu", "sigma", "ordinal"], [[n, _num(o["mu"], 2), _num(o["sigma"], 2),
                                                           _num(o["ordinal"], 2)] for n, o in r["openskill"].items()],
                    "lrrr")]
    return Section("Ratings", blocks)


def boxes_section(res) -> Section | None:
    agents = res["agents"]
    boxes = next((list(a["per_box_mean"]) for a in agents.values() if "per_box_mean" in a), [])
    if not boxes:
        return None
    rows = [[Code(b)] + [_num(a.get("per_box_mean", {}).get(b)) for a in agents.values()] for b in boxes]
    rows.append(["upper bonus"] + [_num(a.get("upper_bonus_mean")) for a in agents.values()])
    rows.append(["extra-Yacht bonus"] + [_num(a.get("extra_bonus_mean")) for a in agents.values()])
    rows.append([Strong("total (mean score)")] + [_num(a.get("mean")) for a in agents.values()])
    rows.append(["upper bonus rate"] + [_num(a.get("upper_bonus_rate"), 2) for a in agents.values()])
    return Section("Mean points per box", [
        "Mean points of each box on the agent's sheet, then the bonuses: the lines add up to the mean score.",
        Grid(["box"] + list(agents), rows, "l" + "r" * len(agents))])


def faults_section(res) -> Section:
    if not res["faults"]:
        return Section("Faults", ["None: every agent finished every game."])
    rows = [[Code(f["key"]), Cell(str(f["seat"]), f["seat"]), f["agent"], Cell(str(f["move"]), f["move"]),
             f["error"]] for f in res["faults"]]
    return Section("Faults", ["Every forfeit, by agent in standings order, then by game (game ids: see below).",
                              Grid(["game", "seat", "agent", "move", "error"], rows, "lrlrl")])


def analysis_section(res) -> Section | None:
    if "analysis" not in res:
        return None
    paragraphs, table = report_blocks(res["analysis"])
    return Section("Move analysis", paragraphs + ([Grid(*table)] if table else []))


def _nth(i: int) -> str:
    """1st, 2nd, 3rd, 4th, ... for position i (from 0)."""
    return f"{i + 1}{ {0: 'st', 1: 'nd', 2: 'rd'}.get(i, 'th')}"


def game_ids_section(res) -> Section:
    t, ids = res["tournament"], res["game_ids"]
    k = t["seats"]
    blocks = [("A game id such as ", Code("t3-d12-r1"), " is table 3 (its entrants below), deal 12 (0 to "
               f"{t['deals_per_table'] - 1}: every game of a deal has the same dice, seed game_seed({t['seed']}, "
               f"table, deal)) and arrangement 1 (0 to {t['arrangements_per_deal'] - 1}: who sits where).")]
    if ids["splits"] and len(ids["splits"]) > 1:
        splits = "; ".join(f"{s * k}–{s * k + k - 1}: " + " vs ".join("+".join(_nth(i) for i in team) for team in split)
                           for s, split in enumerate(ids["splits"]))
        blocks.append(f"Arrangement r plays partnership split r div {k} in seat rotation r mod {k}. The splits, "
                      f"with the table's entrants numbered in the order listed below: {splits}. A split's "
                      f"seating puts member j of its team t at seat t + {t['teams']} × j; rotation q then "
                      f"seats that seating's player (i + q) mod {k} at seat i.")
    else:
        blocks.append(f"Arrangement r is a seat rotation: seat i holds the table's entrant (i + r) mod {k}, "
                      "numbering the entrants from 0 in the order listed below.")
    blocks.append(Grid(["table", "entrants"], [[Code(name), ", ".join(members)]
                                                 for name, members in ids["tables"].items()], "ll"))
    return Section("Game ids", blocks)


SECTIONS = [standings_section, format_section, tournament_section, teams_section, scores_section, win_share_section,
            head_to_head_section, duplicate_section, luck_section, ratings_section, boxes_section, analysis_section,
            faults_section,
            game_ids_section]


def sections(res: dict) -> list[Section]:
    """The report's sections for these results, in order."""
    return [s for s in (make(res) for make in SECTIONS) if s is not None]


def title(res: dict) -> str:
    return f"Tournament {res['tournament']['name']!r}"


def markdown(res: dict) -> str:
    return doc.markdown(title(res), sections(res))


def terminal_table(res: dict) -> str:
    """A few lines for the terminal: one per agent, in standings order, then the winner."""
    t = res["tournament"]
    elo_ = res["ratings"]["elo"] or {}
    os_ = res["ratings"]["openskill"]
    out = [f"{t['name']}: {t['games_played']}/{t['games_planned']} games, rules {rules_label(res['rules'])}, "
           f"{t['seats']} seats"
           + (f", {t['teams']} teams" if t["teams"] else ""),
           f"{'rank':>4}  {'agent':<16}{'games':>7}{'score':>7}{'mean':>8}{'95% CI':>18}{'sd':>7}{'place':>7}"
           f"{'Elo':>7}{'OpenSkill':>11}"]
    for x in res["standings"]:
        name = x["agent"]
        a = res["agents"][name]
        ci = _ci(a["ci95"]) if "ci95" in a else "–"
        rating = elo_.get(name, {}).get("elo")
        ordinal = os_.get(name, {}).get("ordinal") if "error" not in os_ else None
        out.append(f"{x['rank']:>4}  {name:<16}{a['games']:>7}{_f(x['score_rate'], 3):>7}{_f(a.get('mean')):>8}"
                   f"{ci:>18}{_f(a.get('std')):>7}{_f(a.get('mean_place'), 2):>7}{_f(rating, 0):>7}"
                   f"{_f(ordinal, 2):>11}")
    out.append(doc.plain(winner_line(res)))
    s = res["duplicate_dice"]["summary"]
    if s["width_ratio"] is not None:
        worth = f", worth {s['games_factor']:.2f}x as many independent games" if s["games_factor"] else ""
        out.append(f"duplicate dice: score-difference CIs {100 * s['width_ratio']:.0f}% as wide as with "
                   f"independent dice{worth}")
    if res["faults"]:
        out.append(f"faults: {len(res['faults'])} forfeits (see report.md)")
    return "\n".join(out)


def render(folder, analysis: bool = True, store: Store | None = None) -> dict:
    """Write results.json, report.md, report.html and the histograms into `folder` from its store; return
    the results (analysis=False: without the move analysis). store: the run's own `Store` of `folder`, whose
    lines it wrote or read and checked are not checked again (see `tournaments.store`)."""
    store = store if store is not None else Store(folder)
    records = compact_games.read(store)
    res = results(store, records, analysis)
    folder = Path(folder)
    images = histograms(records, list(res["agents"]))
    parts = sections(res)
    files = {RESULTS: json.dumps(res, indent=2) + "\n", REPORT: doc.markdown(title(res), parts),
             REPORT_HTML: page(title(res), parts, images), **images}
    try:
        for name, content in files.items():
            write_atomic(folder / name, content, "report file", create_folder=False)   # never through a link
    except OSError as e:
        raise ConfigError(f"{folder}: cannot write the report ({e.strerror}: {e.filename})") from None
    return res
