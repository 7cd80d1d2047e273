"""Move-by-move analysis of stored games against the exact solver.

For every decision of every seat (each hold and each box choice) the solver gives the value of the
move played and of the best move, in expected final points of the seat's sheet; the points lost
are best - played (0 for an optimal move, within `TOLERANCE`). From them, per agent: points lost per
game and per decision, accuracy, inaccuracies / mistakes / blunders, and where the points go.

    from agents.analysis import analyze, analyze_game
    result = analyze(records, rules)                   # every decision of every record, valued
    result.summary()                                   # the `yacht analyze --json` document
    analyze_game(records[0], rules)                    # one game, move by move

The records are game records as stored (`tournaments.gamelog`, which reads a folder of them with its
rules: `read_games`, and analyses it naming file and line: `analyze_file`).

Values (see `yacht_env.solver.values`): a hold is worth the expected value of keeping those dice
and re-rolling with the rolls that remain; a box its points + bonuses + the value of the state it
leads to. One column: exact. Several columns: the sheet is valued as the sum of its columns'
solitaire values, the approximation the strong agent plays by. Team games: a team's sheet is a
solitaire sheet, and each seat is charged for its own decisions on it.

Accuracy = 100 x (1 - points lost per game / optimal expected score of a sheet). The points a
policy loses along a game add up, in expectation, to the optimum minus its expected score, so
optimal expected score - loss per game estimates an agent's mean score without the luck of the dice.
Thresholds (expected points lost by one decision) are documented, with the distribution behind
them, in docs/analysis.md.
"""
import bisect
import json
import os
import reprlib
import tempfile
import time
from dataclasses import dataclass, field

import numpy as np

from yacht_env.core.actions import action_name, num_holds
from yacht_env.config import ConfigError
from yacht_env.rules import RuleSet, load, rules_block
from yacht_env.solver import (StateSpace, Unsolvable, check_distributions, check_saved_rolls, check_solvable,
                              solution_for)
from yacht_env.solver.values import (
    BONUS,
    DICE_WORDS,
    EVENT_WIDTH,
    POINTS,
    Logs,
    Replayed,
    Valued,
    problem_text,
    replay_logs,
    value_decisions,
)
from yacht_env.solver.saved import value_saved_decisions
from yacht_env.solver.widget import prepare
from yacht_env.solver.winning import Seats, WinDecisions, win_decisions

from .strong import StrongAgent, distribution_arrays, oracle_for, own_futures, risks_for, spread_for

TOLERANCE = 1e-9        # a move within this of the best counts as optimal (ties, rounding)
INACCURACY = 0.5        # expected points lost by one decision: inaccuracy >= 0.5 > ...
MISTAKE = 2.0           # ... mistake >= 2 > ...
BLUNDER = 5.0           # ... blunder >= 5
CLASSES = (("inaccuracies", INACCURACY, MISTAKE), ("mistakes", MISTAKE, BLUNDER), ("blunders", BLUNDER, np.inf))
MARKS = {"": "", "inaccuracy": "?!", "mistake": "?", "blunder": "??"}
HISTOGRAM = (0.0, TOLERANCE, 0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, np.inf)  # loss bins per decision

ROLL_KEYS = frozenset(("seat", "hold", "dice"))
SCORE_KEYS = frozenset(("seat", "box", "column", "points", "bonus"))


class AnalysisError(ConfigError):
    """Stored games that cannot be analysed: a missing or damaged log, impossible moves, rules out of reach."""


def figure(x, spec: str = ".2f") -> str:
    """A figure as text, "–" when there is none (an accuracy under rules whose optimum is 0 points)."""
    return "–" if x is None else format(x, spec)


# ---- the analysis --------------------------------------------------------------------------------

@dataclass
class Analysis:
    """Every decision of a list of records with its values (arrays, one entry per decision).

    replayed: the decisions as `yacht_env.solver.values.Replayed` holds them, read by its names: rec, move
    (record index and log index of the move), seat, sheet, turn (the sheet's turn, from 0), roll (index into
    `rules.dice_tables.rolls`), left (re-rolls left), state (the solver state of every column of the sheet at
    the turn's start), banked (the sheet's points before the turn), final (final[rec, sheet, 0]: the sheet's
    final total); `played` is its `action` (Game action encoding). best (Game action encoding),
    played_value / best_value (expected final points of the sheet), loss, own (False for every
    decision of a seat in a game it forfeited: from its fault on the harness played fallback moves
    for it, so that game is left out of the seat's figures).
    """
    rules: RuleSet
    records: list[dict]
    lines: list[int]
    exact: bool
    optimal: float             # optimal expected score of one sheet (sum over columns when approximate)
    replayed: Replayed
    best: np.ndarray
    played_value: np.ndarray
    best_value: np.ndarray
    loss: np.ndarray
    own: np.ndarray
    states: int = 0            # distinct sheet states valued (one turn widget each)
    seconds: float = 0.0
    source: dict = field(default_factory=dict)
    # the chance to win before and after each decision by the goal=win estimate (`add_win_chances`); NaN in
    # games of one sheet; None when not computed
    win_before: np.ndarray | None = None
    win_after: np.ndarray | None = None
    win_lost: np.ndarray | None = None

    def __getattr__(self, name: str):
        """The replayed decisions' arrays by `Replayed`'s names (`played`: its `action`); called only for names
        the instance lacks."""
        replayed = self.__dict__.get("replayed")
        if replayed is not None and (name == "played" or name in Replayed._fields):
            return getattr(replayed, "action" if name == "played" else name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    @property
    def values(self) -> str:
        return "exact" if self.exact else "column-additive"

    @property
    def note(self) -> str:
        if self.exact:
            return "exact values: the solver's optimal expected scores"
        return (f"column-additive values: with {self.rules.columns} columns each column is valued by the one-column "
                f"solitaire table and the sheet by their sum (the strong agent's approximation, not an optimum)")

    def key(self, i: int) -> str:
        """The record's key, or its line number when it has none."""
        return str(self.records[i].get("key", f"line {self.lines[i]}"))

    def agent_of(self) -> np.ndarray:
        """Agent name of every decision (object array)."""
        names = [r["agents"] for r in self.records]
        return np.array([names[r][s] for r, s in zip(self.rec.tolist(), self.seat.tolist())], dtype=object)

    def agents(self) -> list[str]:
        """Agent names in order of first appearance."""
        seen = {}
        for r in self.records:
            for a in r["agents"]:
                seen.setdefault(a, None)
        return list(seen)

    def move_name(self, roll: int, action: int) -> str:
        return action_name(self.rules, action, roll)

    def summary(self, agent: str | None = None, worst: int = 10, order=None) -> dict:
        """The `yacht analyze --json` document: per agent figures (in `order`, default: as they first appear;
        agents it leaves out follow) and the `worst` costliest moves."""
        names = self.agents()
        if order is not None:
            names = [n for n in order if n in names] + [n for n in names if n not in order]
        if agent is not None and agent not in names:
            raise AnalysisError(f"no agent {agent!r} in these games; agents: {', '.join(names)}")
        chosen = [agent] if agent is not None else names
        of = self.agent_of()
        per = {a: self._agent_figures(a, of, worst) for a in chosen}
        pick = self.own & np.isin(of, chosen)
        return {"rules": rules_block(self.rules), "values": self.values, "note": self.note,
                "optimal_expected_score": self.optimal, **self.source,
                "thresholds": {"tolerance": TOLERANCE, "inaccuracy": INACCURACY, "mistake": MISTAKE,
                               "blunder": BLUNDER},
                "games": len(self.records), "decisions": int(self.own.sum()), "states": self.states,
                "forfeited_decisions": int((~self.own).sum()), "seconds": self.seconds,
                "agents": per, "worst": self.worst_moves(pick, worst),
                **({"win_note": WIN_NOTE, "worst_win": self.worst_win_moves(pick, worst)}
                   if self.win_lost is not None else {})}

    def _agent_figures(self, name: str, of: np.ndarray, worst: int) -> dict:
        played_seats = [(i, s) for i, r in enumerate(self.records) for s, a in enumerate(r["agents"]) if a == name]
        seats = [(i, s) for i, s in played_seats if not _faulted(self.records[i], s)]
        games = len(seats)
        pick = self.own & (of == name)
        loss = self.loss[pick]
        played = self.played[pick]
        holds = num_holds(self.rules)
        hold = played < holds
        total = float(loss.sum())
        per_game = total / games if games else 0.0
        totals = [self.records[i]["totals"][s] for i, s in seats if "totals" in self.records[i]]
        nbox = len(self.rules.boxes)

        def part(mask) -> dict:
            n = int(mask.sum())
            lost = float(loss[mask].sum())
            return {"decisions": n, "loss": lost, "loss_per_game": lost / games if games else 0.0,
                    "loss_per_decision": lost / n if n else 0.0}

        box_of = (played - holds) % nbox
        turns = self.turn[pick]
        out = {"games": games, "forfeits": len(played_seats) - games, "decisions": int(pick.sum()),
               "loss": total, "loss_per_game": per_game,
               "loss_per_decision": total / len(loss) if len(loss) else 0.0,
               "accuracy": 100.0 * (1.0 - per_game / self.optimal) if self.optimal > 0 else None,
               "expected_score": self.optimal - per_game,
               "mean_score": float(np.mean(totals)) if totals else None,
               "optimal_decisions": float((loss == 0).mean()) if len(loss) else None}
        for cls, lo, hi in CLASSES:
            n = int(((loss >= lo) & (loss < hi)).sum())
            out[cls] = n
            out[cls + "_per_game"] = n / games if games else 0.0
        out["holds"] = part(hold)
        out["boxes"] = part(~hold)
        out["by_box"] = {b: part(~hold & (box_of == k)) for k, b in enumerate(self.rules.boxes)}
        out["by_turn"] = [{"turn": t + 1, **part(turns == t)} for t in range(self.rules.rounds)]
        counts, _ = np.histogram(loss, bins=np.array(HISTOGRAM))
        out["loss_histogram"] = [{"from": lo, "to": None if np.isinf(hi) else hi, "decisions": int(c)}
                                 for lo, hi, c in zip(HISTOGRAM[:-1], HISTOGRAM[1:], counts)]
        out["loss_quantiles"] = ({f"p{q}": float(np.quantile(loss, q / 100)) for q in (50, 90, 99)}
                                 if len(loss) else None)
        out["worst"] = self.worst_moves(pick, worst)
        if self.win_lost is not None:
            table_games = sum(1 for i, _ in seats if _sheets(self.rules, self.records[i]) > 1)
            out["win"] = self.win_figures(pick, table_games)
            out["worst_win"] = self.worst_win_moves(pick, worst)
        return out

    def worst_moves(self, pick: np.ndarray, n: int) -> list[dict]:
        """The n costliest decisions among `pick` (ties: the earlier game and move first)."""
        idx = np.flatnonzero(pick & (self.loss > 0))
        idx = idx[np.lexsort((self.move[idx], self.rec[idx], -self.loss[idx]))][:max(n, 0)]
        return [self.decision(int(d)) for d in idx]

    def decision(self, d: int) -> dict:
        """One decision as a plain dict, with its position: game, file line, agent, the boxes filled before."""
        i, s = int(self.rec[d]), int(self.seat[d])
        return {"game": self.key(i), "line": self.lines[i], "agent": self.records[i]["agents"][s], **self._row(d),
                "filled": filled_before(self.rules, self.records[i], int(self.sheet[d]), int(self.move[d]))}

    def game(self, i: int) -> list[dict]:
        """Every decision of record i, in the order played."""
        idx = np.flatnonzero(self.rec == i)
        return [{"move": int(self.move[d]), **self._row(d), "own": bool(self.own[d])}
                for d in idx[np.argsort(self.move[idx], kind="stable")].tolist()]

    def _row(self, d: int) -> dict:
        roll, played = int(self.roll[d]), int(self.played[d])
        best = played if self.loss[d] == 0 else int(self.best[d])  # a tie shows the move played
        dice = self.rules.dice_tables.rolls[roll].tolist()
        return {"seat": int(self.seat[d]), "turn": int(self.turn[d]) + 1,
                "roll": self.rules.rolls_per_turn + int(self.state[d, 0]) % (self.rules.saved_rolls + 1) -
                int(self.left[d]), "dice": dice,
                "rolls_left": int(self.left[d]), "played": self.move_name(roll, played),
                "best": self.move_name(roll, best), "played_value": float(self.played_value[d]),
                "best_value": float(self.best_value[d]), "loss": float(self.loss[d]),
                "class": classify(float(self.loss[d])), **self._win_row(d)}

    def _win_row(self, d: int) -> dict:
        """The decision's chance to win before and after it and what it gave up ({} when not computed)."""
        if self.win_lost is None or np.isnan(self.win_lost[d]):
            return {}
        return {"win_before": float(self.win_before[d]), "win_after": float(self.win_after[d]),
                "win_lost": float(self.win_lost[d])}

    def worst_win_moves(self, pick: np.ndarray, n: int) -> list[dict]:
        """The n decisions among `pick` that gave up the most chance to win (ties: the earlier game and move)."""
        if self.win_lost is None:
            return []
        lost = np.nan_to_num(self.win_lost, nan=0.0)
        idx = np.flatnonzero(pick & (lost > 0))
        idx = idx[np.lexsort((self.move[idx], self.rec[idx], -lost[idx]))][:max(n, 0)]
        return [self.decision(int(d)) for d in idx]

    def win_figures(self, pick: np.ndarray, games: int) -> dict | None:
        """Chance to win given up by the decisions `pick` of `games` games of 2+ sheets (None: not computed or
        no such decision)."""
        if self.win_lost is None:
            return None
        lost = self.win_lost[pick]
        lost = lost[~np.isnan(lost)]
        if not len(lost):
            return None
        return {"games": games, "decisions": int(len(lost)), "lost": float(lost.sum()),
                "lost_per_game": float(lost.sum()) / games if games else 0.0,
                "lost_per_decision": float(lost.mean()),
                "decisions_losing_1pct": int((lost >= 0.01).sum())}


def _sheets(rules: RuleSet, record: dict) -> int:
    """The number of sheets of a record's game (its teams, or one per seat)."""
    return rules.teams or len(record["agents"])


WIN_NOTE = ("chance to win by the estimate strong?goal=win plays by (docs/winning.md): every later turn, everyone's, "
            "played for expected points; before = after the best move, after = after the move played, lost = "
            "before - after")


def win_skipped(rules) -> str | None:
    """Why the chances to win are left out of an analysis under `rules` (None: they are not): several columns
    have no score distributions, and large one-column rules have them out of reach (`check_distributions`)."""
    if rules.columns > 1:
        return f"rules {rules.name!r} have {rules.columns} columns: no score distributions for several columns"
    try:
        check_distributions(rules)
    except Unsolvable as e:
        return str(e)
    return None


def add_win_chances(a: Analysis) -> None:
    """Fill `a.win_before`, `win_after` and `win_lost` (probabilities; NaN in games of one sheet) for every
    decision of games of 2+ sheets under one-column rules: the chance to finish first, by the estimate of
    `yacht_env.solver.winning` (the one `strong?goal=win` plays by), with every sheet as it stood at that
    decision. Several columns, rules whose score distributions are out of reach (`win_skipped`), or only games of
    one sheet: left as None."""
    if win_skipped(a.rules) or all(_sheets(a.rules, r) < 2 for r in a.records):
        return                     # no score distributions; no table in solitaire games
    n = len(a.rec)
    before, after = np.full(n, np.nan), np.full(n, np.nan)
    policy = StrongAgent().policy_for(a.rules)
    dist = distribution_arrays(a.rules)
    t0 = time.perf_counter()      # building or loading the tables is not the analysis
    sp = policy.solution.space
    full = (1 << len(a.rules.boxes)) - 1
    full_key = next(k for k in (sp.index(full, u, bool(f)) for u in range(sp.n_upper) for f in range(sp.n_flag))
                    if dist.offset[k] >= 0)   # a finished sheet: nothing still to come
    order = np.lexsort((a.move, a.rec))
    tables: dict[int, tuple[list, list, list, list]] = {}    # sheets -> per group: keys, totals, mine; decisions
    ends = np.r_[np.flatnonzero(np.diff(a.rec[order]) != 0) + 1, n] if n else np.zeros(0, np.int64)
    begin = 0
    for end in ends.tolist():
        idx = order[begin:end]
        begin = end
        i = int(a.rec[idx[0]])
        ns = _sheets(a.rules, a.records[i])
        if ns < 2:
            continue
        moves, sheet, turn = a.move[idx], a.sheet[idx], a.turn[idx]
        own = [np.flatnonzero(sheet == k) for k in range(ns)]
        head = np.flatnonzero(np.r_[True, (sheet[1:] != sheet[:-1]) | (turn[1:] != turn[:-1])])
        keys, totals, mine, groups = tables.setdefault(ns, ([], [], [], []))
        for g, h in enumerate(head.tolist()):
            row_k, row_t = [], []
            for k in range(ns):
                later = own[k][np.searchsorted(moves[own[k]], moves[h] if k != sheet[h] else moves[h] - 1,
                                               side="right"):]
                if len(later):
                    d = idx[later[0]]
                    row_k.append(int(a.state[d, 0]))
                    row_t.append(int(a.banked[d]))
                else:
                    row_k.append(full_key)
                    row_t.append(int(a.final[i, k, 0]))
            keys.append(row_k)
            totals.append(row_t)
            mine.append(int(sheet[h]))
            stop = head[g + 1] if g + 1 < len(head) else len(idx)
            groups.append(idx[h:stop])
    for ns, (keys, totals, mine, groups) in tables.items():
        at = np.concatenate(groups)
        starts = np.r_[0, np.cumsum([len(g) for g in groups])].astype(np.int64)
        b, f = np.empty(len(at)), np.empty(len(at))
        M = policy.model
        seats = Seats(keys=np.array(keys, np.int64), totals=np.array(totals, np.int64), mine=np.array(mine, np.int64),
                      targets=np.full(len(keys), -1, np.int64), spreads=spread_for(ns))
        win_decisions(M.T, M.D, M.space, M.L, policy.solution.values, dist,
                      own_futures(a.rules, risks_for(ns), oracle=oracle_for(ns)), seats, policy.n_stages,
                      WinDecisions(starts, a.roll[at], a.left[at], a.played[at], b, f))
        before[at], after[at] = b, f
    lost = before - after
    lost[lost < TOLERANCE] = 0.0
    # the tie-break term (1e-12 an expected point, below 1e-9) may carry a certain win a hair above 1
    before, after = np.clip(before, 0.0, 1.0), np.clip(after, 0.0, 1.0)
    a.win_before, a.win_after, a.win_lost = before, after, lost
    a.seconds += time.perf_counter() - t0


def _faulted(record: dict, seat: int) -> bool:
    """Whether `seat` forfeited the game (a fault is recorded for it)."""
    faults = record.get("faults")
    return bool(faults) and faults[seat] is not None


def classify(loss: float) -> str:
    """'' (fine), 'inaccuracy', 'mistake' or 'blunder' for the expected points one decision lost."""
    return "blunder" if loss >= BLUNDER else "mistake" if loss >= MISTAKE else \
        "inaccuracy" if loss >= INACCURACY else ""



def filled_before(rules: RuleSet, record: dict, sheet: int, move: int) -> dict:
    """The boxes of `sheet` filled before log index `move`: {box (or box@column): points}."""
    sheet_of = record.get("sheet_of") or list(range(len(record["agents"])))
    out = {}
    for e in record["log"][:move]:
        if "box" in e and sheet_of[e["seat"]] == sheet:
            out[e["box"] if rules.columns == 1 else f"{e['box']}@{e['column'] + 1}"] = e["points"]
    return out


def _check_reach(rules: RuleSet) -> RuleSet:
    """The one-column rules whose solved table values `rules` (several columns: one column's)."""
    try:
        column = load(rules, columns=1) if rules.columns > 1 else rules
        check_solvable(column)
        if rules.columns > 1:
            check_saved_rolls(rules, "several columns' additive play")
    except Unsolvable as e:
        raise AnalysisError(f"rules {rules.name!r} cannot be analysed: {e}") from None
    return column


def solution_of(rules: RuleSet, progress: bool = False):
    """The solved one-column table the analysis values `rules` with (from the solver's cache, else solved)."""
    return solution_for(_check_reach(rules), progress=progress)


def analyze(records, rules: RuleSet, solution=None, progress: bool = False, win: bool = False, lines=None,
            where: str | None = None) -> Analysis:
    """Replay and value every decision of `records` (game records as the store holds them); `win`: also the
    chance to win each decision gave up in games of 2+ sheets (`add_win_chances`). `where`, `lines`: the
    file the records were read from and each one's line number there (default: records counted from 1).

    Raises AnalysisError naming the record (or file and line) and move when a record is malformed or a
    move is impossible under `rules`, or when the rules are out of the solver's reach.
    """
    records = list(records)
    if not records:
        raise AnalysisError("no games to analyse")
    lines = [i + 1 for i in range(len(records))] if lines is None else list(lines)
    a = _analyze(records, lines, rules, solution, progress, where)
    if win:
        add_win_chances(a)
    return a


def compile_kernels(rules: RuleSet) -> None:
    """Compile (or load from numba's cache) the analysis's kernels for `rules`, by analysing no games:
    the arrays are the analysis's own, so the compiled versions are the ones a real analysis calls."""
    _analyze([], [], rules, None, False)


def analyze_game(record: dict, rules: RuleSet, solution=None) -> dict:
    """One game move by move: {"decisions": [...], "seats": [per-seat figures]}."""
    a = analyze([record], rules, solution)
    seats = []
    for s, name in enumerate(record["agents"]):
        pick = a.own & (a.seat == s)
        loss = a.loss[pick]
        seats.append({"seat": s, "agent": name, "forfeit": _faulted(record, s), "decisions": int(pick.sum()),
                      "loss": float(loss.sum()),
                      "accuracy": 100.0 * (1.0 - float(loss.sum()) / a.optimal) if a.optimal > 0 else None,
                      **{cls: int(((loss >= lo) & (loss < hi)).sum()) for cls, lo, hi in CLASSES}})
    return {"rules": rules_block(rules), "values": a.values, "optimal_expected_score": a.optimal,
            "decisions": a.game(0), "seats": seats}


def _analyze(records, lines, rules, solution, progress, where: str | None = None) -> Analysis:
    """The analysis; `where` names the file the records come from (None: records given by the caller).
    No records: nothing to value, every kernel still called (`compile_kernels`)."""
    _check_reach(rules)
    t0 = time.perf_counter()
    T = rules.tables
    sp = StateSpace.of(T)  # the solved table's shape, known before solving: bad logs fail first
    events, starts, players, sheets = _flatten(records, lines, rules, where)
    n_max = int((events[:, 0] == 0).sum())
    cols = rules.columns
    rec, move, seat, sheet, turn, roll, left, played = (np.zeros(n_max, dtype=np.int64) for _ in range(8))
    state = np.zeros((n_max, cols), dtype=np.int64)
    banked = np.zeros(n_max, dtype=np.int64)
    final = np.zeros((len(records), 8, 3 + cols * len(rules.boxes)), dtype=np.int64)
    error = np.zeros(4, dtype=np.int64)
    n = replay_logs(T, sp, cols, Logs(events, starts, players, sheets),
                    Replayed(rec, move, seat, sheet, turn, roll, left, played, state, banked, final, error))
    if error[2]:
        raise AnalysisError(_problem(records, lines, rules, where, error))
    _check_results(records, lines, rules, where, final)
    if solution is None:
        start = time.perf_counter()
        solution = solution_of(rules, progress)
        t0 += time.perf_counter() - start  # solving (or loading the table) is not the analysis
    if solution.space != sp:
        raise AnalysisError(f"the solution given is for other rules than {rules.name!r}")
    replayed = Replayed(*(x[:n] for x in (rec, move, seat, sheet, turn, roll, left, played, state, banked)), final,
                        error)
    state = replayed.state
    order = np.lexsort(state.T[::-1]) if cols > 1 else np.argsort(state[:, 0], kind="stable")
    ss = state[order]
    change = (ss[1:] != ss[:-1]).any(axis=1)
    group_starts = np.flatnonzero(np.r_[True, change, True]) if n else np.zeros(1, dtype=np.int64)
    best_value, played_value = np.empty(n), np.empty(n)
    best = np.empty(n, dtype=np.int64)
    M = prepare(T, sp)
    if sp.n_saved > 1:   # saved rolls (one column): turns of up to rolls_per_turn - 1 + the cap re-rolls
        value_saved_decisions(M.T, M.D, M.space, M.L, solution.values, rules.rolls_per_turn - 1 + sp.n_saved - 1,
                              order, group_starts, replayed, Valued(best_value, played_value, best))
    else:
        value_decisions(M.T, M.D, M.space, M.L, solution.values, rules.rolls_per_turn - 1, order, group_starts,
                        replayed, Valued(best_value, played_value, best))
    loss = best_value - played_value
    loss[loss < TOLERANCE] = 0.0
    forfeited = [i * 8 + s for i, r in enumerate(records) for s in range(len(r["agents"])) if _faulted(r, s)]
    own = ~np.isin(replayed.rec * 8 + replayed.seat, forfeited)
    return Analysis(rules=rules, records=records, lines=lines, exact=cols == 1,
                    optimal=float(solution.expected_score) * cols, replayed=replayed, best=best,
                    played_value=played_value + replayed.banked, best_value=best_value + replayed.banked, loss=loss,
                    own=own, states=len(group_starts) - 1, seconds=time.perf_counter() - t0)


def _where(records, lines, where, i) -> str:
    """'FILE line N (game KEY)' or 'record i (game KEY)', for messages."""
    key = records[i].get("key") if isinstance(records[i], dict) else None
    at = f"{where} line {lines[i]}" if where else f"record {i}"
    return at + (f" (game {key})" if key is not None else "")


def _flatten(records, lines, rules, where):
    """Events of every record as one int array (rows as `values.EVENT_WIDTH`), offsets and seat counts."""
    box = {b: k for k, b in enumerate(rules.boxes)}
    n_dice = rules.dice
    pad = (0,) * (EVENT_WIDTH - 3 - n_dice)      # roll rows hold the rules' dice, then zeros
    flat = []
    starts = [0]
    players = np.zeros(len(records), dtype=np.int64)
    sheets = np.zeros(len(records), dtype=np.int64)
    for i, r in enumerate(records):
        ok = isinstance(r, dict) and isinstance(r.get("log"), list) and isinstance(r.get("agents"), list) \
            and 1 <= len(r["agents"]) <= 8 and all(isinstance(a, str) for a in r["agents"])
        if not ok:
            raise AnalysisError(f"{_where(records, lines, where, i)}: a record needs 'agents' (1 to 8 agent names) "
                                f"and 'log' (the list of moves)")
        seats = len(r["agents"])
        try:
            sheets[i] = rules.check_players(seats)
        except ValueError as e:
            raise AnalysisError(f"{_where(records, lines, where, i)}: {seats} seats do not fit: {e}") from None
        players[i] = seats
        faults = r.get("faults")
        if faults is not None and not (isinstance(faults, list) and len(faults) == seats and all(
                f is None or (isinstance(f, dict) and type(f.get("move", 0)) is int and f.get("move", 0) >= 0)
                for f in faults)):
            raise AnalysisError(f"{_where(records, lines, where, i)}: faults must be a list with one entry per seat: "
                                f"null, or {{\"error\": ..., \"move\": log index}}")
        if "key" in r and not isinstance(r["key"], str):
            raise AnalysisError(f"{_where(records, lines, where, i)}: key must be a string, got {show_value(r['key'])}")
        sheet_of = r.get("sheet_of")
        if sheet_of is not None and sheet_of != [s % sheets[i] for s in range(seats)]:
            raise AnalysisError(f"{_where(records, lines, where, i)}: sheet_of {sheet_of!r} is not how rules "
                                f"{rules.name!r} seat {seats} players ({[s % sheets[i] for s in range(seats)]})")
        try:
            for e in r["log"]:
                keys = e.keys()
                if keys == ROLL_KEYS:
                    dice = e["dice"]
                    if type(dice) is not list or len(dice) != n_dice:
                        raise ValueError
                    flat += (0, e["seat"], e["hold"], *dice, *pad)
                elif keys == SCORE_KEYS:
                    flat += (1, e["seat"], box[e["box"]], e["column"], e["points"], e["bonus"], 0, 0, 0)
                else:
                    raise ValueError
        except (AttributeError, KeyError, TypeError, ValueError):
            raise AnalysisError(f"{_where(records, lines, where, i)}: {_event_problem(r['log'], box, n_dice)}") \
                from None
        starts.append(len(flat) // EVENT_WIDTH)
    if not set(map(type, flat)) <= {int}:  # a float, a string, a bool, null or a list where a number goes
        for i, r in enumerate(records):
            problem = _event_problem(r["log"], box, n_dice)
            if problem:
                raise AnalysisError(f"{_where(records, lines, where, i)}: {problem}")
    try:
        events = np.array(flat, dtype=np.int64).reshape(-1, EVENT_WIDTH)
        huge = np.abs(events).max(initial=0) >= 2 ** 31
    except OverflowError:  # beyond 64 bits
        huge = True
    if huge:
        bad = next(k for k, v in enumerate(flat) if abs(v) >= 2 ** 31) // EVENT_WIDTH
        i = bisect.bisect_right(starts, bad) - 1
        raise AnalysisError(f"{_where(records, lines, where, i)}: log[{bad - starts[i]}] "
                            f"{show_value(records[i]['log'][bad - starts[i]])}: a number out of range")
    return events, np.array(starts, dtype=np.int64), players, sheets


def _event_problem(log, box, n_dice: int) -> str:
    """Why the first malformed move of a log is malformed ('' when every move is well formed; rolls of `n_dice`
    dice)."""
    for j, e in enumerate(log):
        at = f"log[{j}] {show_value(e)}"
        if not isinstance(e, dict):
            return f"{at}: a move must be a JSON object"
        keys = set(e)
        if keys not in (ROLL_KEYS, SCORE_KEYS):
            return (f"{at}: a move is a roll {{{', '.join(sorted(ROLL_KEYS))}}} or a scoring "
                    f"{{{', '.join(sorted(SCORE_KEYS))}}}")
        for k in sorted(keys - {"dice", "box"}):
            if type(e[k]) is not int:
                return f"{at}: {k} must be a whole number"
        if keys == ROLL_KEYS:
            d = e["dice"]
            if not isinstance(d, list) or len(d) != n_dice or any(type(f) is not int for f in d):
                return f"{at}: dice must be a list of {DICE_WORDS.get(n_dice, n_dice)} whole numbers"
        elif e["box"] not in box:
            return f"{at}: no box {e['box']!r} in these rules; boxes: {', '.join(box)}"
    return ""


def show_value(e) -> str:
    """A short JSON rendering of a value from a record or a meta file, for messages (any value, cyclic ones too)."""
    try:
        text = json.dumps(e, default=str)
    except (ValueError, RecursionError):
        text = reprlib.repr(e)
    return text if len(text) <= 120 else text[:117] + "..."


def _problem(records, lines, rules, where, error) -> str:
    i, at, code, expected = (int(x) for x in error)
    log = records[i]["log"]
    move = f"log[{at}] {show_value(log[at])}" if at < len(log) else f"after log[{at - 1}]"
    text = problem_text(code, rules.dice)
    if code in (POINTS, BONUS):
        text += f" (expected {expected})"
    return f"{_where(records, lines, where, i)}: {move}: impossible under rules {rules.name!r}: {text}"


def _check_results(records, lines, rules, where, final) -> None:
    """The totals, sheets and bonuses a record states (when it states them) are those of its log."""
    nbox, cols = len(rules.boxes), rules.columns
    for i, r in enumerate(records):
        seats = len(r["agents"])
        sheet = [s % (rules.teams or seats) for s in range(seats)]
        got = {"totals": [int(final[i, k, 0]) for k in sheet],
               "upper_bonus": [int(final[i, k, 1]) for k in sheet],
               "extra_bonus": [int(final[i, k, 2]) for k in sheet],
               "sheets": [final[i, k, 3:].reshape(cols, nbox).tolist() for k in sheet]}
        for name, value in got.items():
            if name in r and r[name] != value:
                raise AnalysisError(f"{_where(records, lines, where, i)}: {name} {show_value(r[name])} are not what "
                                    f"its log gives under rules {rules.name!r} ({show_value(value)})")


# ---- the tournament report's section -------------------------------------------------------------

def report_section(records, rules: RuleSet, order=None) -> dict:
    """The analysis section of a tournament's results.json: per agent (in `order`, default: as they
    appear) accuracy, loss per game, counts by class, loss split holds / boxes; {"skipped": reason}
    when the games cannot be analysed (rules out of the solver's reach, a damaged record)."""
    tally = SectionTally(rules)
    tally.add(sorted(records, key=lambda r: str(r.get("key"))))  # the same sums whatever order the store holds
    return tally.section(order)


class LuckTerms:
    """Each sheet's luck in a game, as sums over its rolls of a value of the roll minus that value's exact
    expectation given what the sheet held before rolling (every roll of the rules' dice weighted by the
    `transition` of their `rules.dice_tables`). Each term therefore has mean zero whatever the agents do: a sum of
    martingale differences, any policy, any opponents. Per seat (`FEATURES` = 2 + boxes values):

    - `optimal`: the solver's value after the roll minus before it (with `loss`, exactly score −
      optimal expected score + decisions' loss: the split of `luck_effect`);
    - `best_now`: the most points the roll could score at once in a box still open, minus its
      expectation (the luck of an agent that scores what it sees);
    - one per box: the roll's points in that box minus their expectation, counted in rolls where the box
      is open (times the columns it is open in).

    The expectations of `best_now` depend on the open boxes and the dice kept; they are cached per set
    of open boxes (at most 2^boxes sets, each a vector over the kept multisets: 462 of five dice)."""

    BLOCK = 200        # records whose (rolls x boxes) arrays are made at once

    def __init__(self, rules: RuleSet):
        self.rules = rules
        self.dice = rules.dice_tables
        self.points = rules.tables.score.astype(float)              # (boxes, rolls)
        self.expected = self.dice.transition @ self.points.T         # (keeps, boxes)
        self.best_expected: dict[int, np.ndarray] = {}

    @property
    def width(self) -> int:
        return 2 + len(self.rules.boxes)

    def of(self, a: "Analysis", records) -> tuple[np.ndarray, np.ndarray]:
        """The luck terms of every seat of every record of the analysis `a`: (terms, starts), terms a
        (seats of all records, width) array whose rows starts[i] .. starts[i + 1] - 1 are record i's seats."""
        nb, cols = len(self.rules.boxes), self.rules.columns
        order = np.lexsort((a.move, a.seat, a.rec))                  # each seat's decisions in play order
        rec, seat, roll, left, played = a.rec[order], a.seat[order], a.roll[order], a.left[order], a.played[order]
        # the re-rolls left after a turn's first roll: rolls per turn - 1 plus the rolls its sheet had saved
        first = self.rules.rolls_per_turn - 1 + a.state[order, 0] % (self.rules.saved_rolls + 1)
        start = np.r_[True, (rec[1:] != rec[:-1]) | (seat[1:] != seat[:-1])]
        before = np.r_[0.0, a.played_value[order][:-1]]
        before[start] = a.optimal
        optimal = a.best_value[order] - before
        prev = np.r_[0, np.arange(len(order) - 1)]
        keep = np.where(left == first, 0, self.dice.hold_keep[roll[prev], played[prev] % self.dice.n_holds])  # 0: none
        holds = num_holds(self.rules)
        keep[start] = 0
        starts = np.cumsum([0] + [len(r["agents"]) for r in records])
        sums = np.zeros((starts[-1], self.width))
        np.add.at(sums[:, 0], starts[rec] + seat, optimal)
        # the rest a block of records at a time (its arrays are rows x boxes: bounded by the block, not the chunk)
        edges = np.searchsorted(rec, np.arange(0, len(records) + self.BLOCK, self.BLOCK))
        for lo, hi in zip(edges[:-1].tolist(), edges[1:].tolist()):
            if lo == hi:
                continue
            b_start, b_roll, b_played, b_keep = start[lo:hi], roll[lo:hi], played[lo:hi], keep[lo:hi]
            # boxes open before each roll: the seat's scoring moves so far, per column
            scored = np.zeros((hi - lo, cols * nb), dtype=np.int32)
            boxes = b_played >= holds
            scored[np.flatnonzero(boxes), b_played[boxes] - holds] = 1
            group = np.cumsum(b_start) - 1
            before = np.cumsum(scored, axis=0) - scored                 # scored before each row, in the block
            before -= before[np.flatnonzero(b_start)][group]            # ... and in the row's own seat
            open_count = (1 - before).reshape(-1, cols, nb).sum(axis=1)  # columns each box is open in
            here = self.points[:, b_roll].T                              # (rows, boxes): the roll's points per box
            per_box = open_count * (here - self.expected[b_keep])
            is_open = open_count > 0
            mask = is_open @ (1 << np.arange(nb))
            best = np.where(is_open, here, -np.inf).max(axis=1)
            best_exp = np.array([self._best_expected(m)[k] for m, k in zip(mask.tolist(), b_keep.tolist())])
            np.add.at(sums[:, 1], starts[rec[lo:hi]] + seat[lo:hi], np.where(mask > 0, best - best_exp, 0.0))
            np.add.at(sums[:, 2:], starts[rec[lo:hi]] + seat[lo:hi], per_box)
        return sums, starts

    def _best_expected(self, mask: int) -> np.ndarray:
        """E[most points in an open box] after each kept multiset, for the open boxes of `mask`."""
        got = self.best_expected.get(mask)
        if got is None:
            open_ = [(mask >> b) & 1 == 1 for b in range(len(self.rules.boxes))]
            transition = self.dice.transition
            got = transition @ self.points[open_].max(axis=0) if any(open_) else np.zeros(len(transition))
            self.best_expected[mask] = got
        return got


class Spill:
    """Arrays written, a group at a time, to an anonymous temporary file (no name: the system deletes it
    when it is closed or this process ends) and read back group by group in the order written, as often
    as asked, by any number of readers at once (each reads at its own offsets): figures a report needs
    for every game in two passes are not held in memory. Memory: a few numbers per group."""

    def __init__(self):
        self.file = None
        self.groups: list[list[tuple[int, str, tuple]]] = []     # per group, per array: (offset, dtype, shape)
        self.size = 0

    def add(self, *arrays) -> None:
        if self.file is None:
            self.file = tempfile.TemporaryFile()
        group = []
        for a in arrays:
            a = np.ascontiguousarray(a)
            data = a.tobytes()
            self.file.seek(self.size)
            self.file.write(data)
            group.append((self.size, a.dtype.str, a.shape))
            self.size += len(data)
        self.file.flush()
        self.groups.append(group)

    def __iter__(self):
        for group in self.groups:
            yield tuple(np.frombuffer(os.pread(self.file.fileno(), int(np.prod(shape)) * np.dtype(dtype).itemsize,
                                               at), dtype=dtype).reshape(shape)
                        for at, dtype, shape in group)

    def close(self) -> None:
        if self.file is not None:
            self.file.close()
            self.file, self.groups = None, []


class _SeatLoss:
    """`SectionTally.seat_loss`: per game, per seat, the points lost, read back from the spill."""

    def __init__(self, spilled: Spill):
        self.spilled = spilled

    def __iter__(self):
        for per, seats, _, _ in self.spilled:
            for row, k in zip(per, seats.tolist()):
                yield row[:k].tolist()


class SectionTally:
    """`report_section` over games given in chunks (`add` each; the logs of one chunk at a time are in
    memory), so a tournament of any size is analysed in bounded memory. The sums depend on the order
    of the chunks and games: give them in a fixed order (the report gives them by game)."""

    COUNTS = ("games", "decisions") + tuple(cls for cls, _, _ in CLASSES)
    SUMS = ("loss", "holds_loss", "boxes_loss")

    def __init__(self, rules: RuleSet):
        self.rules, self.solution, self.skipped = rules, None, None
        self.head: dict | None = None
        self.agents: dict[str, dict] = {}
        self.spilled = Spill()         # per chunk added: seat losses, seats a game, `LuckTerms.of`
        self.luck = LuckTerms(rules)

    def add(self, records) -> None:
        """Analyse one chunk of records and add its figures."""
        if self.skipped is not None or not records:
            return
        try:
            if self.solution is None:
                self.solution = solution_of(self.rules)
            a = analyze(records, self.rules, self.solution)
        except AnalysisError as e:
            self.skipped = str(e)
            return
        if self.head is None:
            self.head = {"values": a.values, "note": a.note, "optimal_expected_score": a.optimal}
        of = a.agent_of()
        hold = a.played < num_holds(self.rules)
        for name in a.agents():
            d = self.agents.setdefault(name, dict.fromkeys(self.COUNTS + self.SUMS, 0))
            d["games"] += sum(1 for r in records for s, x in enumerate(r["agents"]) if x == name and not _faulted(r, s))
            pick = a.own & (of == name)
            loss = a.loss[pick]
            d["decisions"] += int(pick.sum())
            d["loss"] += float(loss.sum())
            d["holds_loss"] += float(a.loss[pick & hold].sum())
            d["boxes_loss"] += float(a.loss[pick & ~hold].sum())
            for cls, lo, hi in CLASSES:
                d[cls] += int(((loss >= lo) & (loss < hi)).sum())
        per = np.zeros((len(records), 8))
        np.add.at(per, (a.rec, a.seat), a.loss)
        seats = np.array([len(r["agents"]) for r in records], dtype=np.int64)
        self.spilled.add(per[:, :int(seats.max())], seats, *self.luck.of(a, records))

    @property
    def seat_loss(self):
        """Per game added, in order, per seat: the points its decisions lost (a list); iterable again and
        again, read back a chunk at a time."""
        return _SeatLoss(self.spilled)

    def seat_luck(self):
        """Per game added, in order: its (seats, LuckTerms.width) luck terms (views of a chunk's arrays, read
        back a chunk at a time)."""
        for _, _, terms, starts in self.spilled:
            for lo, hi in zip(starts[:-1].tolist(), starts[1:].tolist()):
                yield terms[lo:hi]

    def section(self, order=None) -> dict:
        """The figures of every game added, as `report_section` gives them."""
        if self.skipped is not None:
            return {"skipped": self.skipped}
        if self.head is None:
            return {"skipped": "no games to analyse"}
        optimal = self.head["optimal_expected_score"]
        names = [n for n in (order or self.agents) if n in self.agents]
        out = {}
        for n in names:
            d = self.agents[n]
            g, dec = d["games"], d["decisions"]
            per_game = d["loss"] / g if g else 0.0
            out[n] = {"games": g, "decisions": dec, "loss_per_game": per_game,
                      "loss_per_decision": d["loss"] / dec if dec else 0.0,
                      "accuracy": 100.0 * (1.0 - per_game / optimal) if optimal > 0 else None,
                      "expected_score": optimal - per_game,
                      **{f"{cls}_per_game": d[cls] / g if g else 0.0 for cls, _, _ in CLASSES},
                      "holds_loss_per_game": d["holds_loss"] / g if g else 0.0,
                      "boxes_loss_per_game": d["boxes_loss"] / g if g else 0.0}
        return {**self.head, "thresholds": {"tolerance": TOLERANCE, "inaccuracy": INACCURACY, "mistake": MISTAKE,
                                            "blunder": BLUNDER}, "agents": out}


def report_blocks(section: dict) -> tuple[list[str], tuple | None]:
    """The report's text for `report_section`'s result: (paragraphs, (head, rows, align) or None)."""
    if "skipped" in section:
        return [f"Skipped: {section['skipped']}"], None
    t = section["thresholds"]
    text = [f"Expected points each decision lost against the best move ({section['note']}). Accuracy = 100 × "
            f"(1 − points lost per game / {section['optimal_expected_score']:.2f}, the optimal expected score of a "
            f"sheet); optimum − lost estimates the mean score without the luck of the dice. Inaccuracy ≥ "
            f"{t['inaccuracy']:g}, mistake ≥ {t['mistake']:g}, blunder ≥ {t['blunder']:g} expected points "
            f"(docs/analysis.md; yacht analyze DIR says where the points go and lists the costliest moves)."]
    head = ["agent", "decisions", "accuracy %", "lost / game", "in holds", "in boxes", "inaccuracies / game",
            "mistakes / game", "blunders / game", "optimum − lost"]
    rows = [[name, str(f["decisions"]), figure(f["accuracy"]), f"{f['loss_per_game']:.2f}",
             f"{f['holds_loss_per_game']:.2f}", f"{f['boxes_loss_per_game']:.2f}", f"{f['inaccuracies_per_game']:.2f}",
             f"{f['mistakes_per_game']:.2f}", f"{f['blunders_per_game']:.2f}", f"{f['expected_score']:.1f}"]
            for name, f in section["agents"].items()]
    return text, (head, rows, "l" + "r" * (len(head) - 1))
