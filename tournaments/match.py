"""`yacht match`: a candidate against one entrant (or a field), deal by deal, until a test decides.

A match is a tournament (its folder, store, resume, workers and executors are a tournament's): two
entrants are a round robin of one table, a candidate against several a gauntlet, two seats a table.
Deals are played in windows of `batch` deals (every table, every seat rotation), and after each window
the SPRT (`tournaments.sprt`) looks at all deals so far, in deal order; it stops the match when it
decides, or at the config's number of deals. The test sees the same deals at the same points whatever
the worker count or executor and across a resume, so a match stops at the same deal and stores the
same games.

The match's own figures keep a few numbers per deal (the candidate's results and score difference),
not the games.
"""
import json
import time
from pathlib import Path

import numpy as np
from tqdm import tqdm

from agents.provenance import changed, digests, rules_files, spec_files
from yacht_env.config import ConfigError, check_memory
from yacht_env.safe_file import write_atomic

from .config import TournamentConfig, check_agents, parse_config
from .executors import DEFAULT_FACTORY, Setup, check_executor, resolve_factory
from .formats import format_of
from .report import forfeit_counts, render
from .run import _play, memory_needed
from .schedule import table_jobs
from .seating import games_per_deal
from .sprt import SPRT, estimates
from .stats import opponents, score
from .store import Store

MATCH = "match.json"
BATCH = 100           # deals per window between two looks of the test


def match_config(candidate: str, others: list[str], max_games: int, seed: int = 0, rules: str = "yacht",
                 sets: dict | None = None, name: str = "match", move_timeout: float | None = 30.0,
                 seats: int = 2) -> TournamentConfig:
    """The tournament config of a match: tables of `seats` seats, deals enough for `max_games` games. With
    `seats - 1` opponents one table; with more, a gauntlet (the candidate against every choice of
    `seats - 1` of them). Entrants are named by their specs; a spec given again is named `SPEC#2`,
    `SPEC#3`, ... (a version against itself, or a table of several copies of one opponent)."""
    entrants, seen = [], {}
    for spec in [candidate, *others]:
        seen[spec] = seen.get(spec, 0) + 1
        entrants.append({"name": spec if seen[spec] == 1 else f"{spec}#{seen[spec]}", "agent": spec})
    data = {"name": name, "rules": rules, "set": sets or {}, "entrants": entrants, "seats": seats, "games": 1,
            "seed": seed, "move_timeout": move_timeout}
    if len(others) > seats - 1:
        data.update(format="gauntlet", candidates=[entrants[0]["name"]])
    per_deal = parse_config(data, "command line").total_games
    return parse_config({**data, "games": max(1, max_games // per_deal)}, "command line")


class MatchTally:
    """Per deal: the candidate's summed results and score differences, its points in half points (2 a win,
    1 a draw against each opponent met), wins, draws and losses, and the games counted; per entrant the
    places of every game counted."""

    def __init__(self, config: TournamentConfig):
        self.candidate = next(iter(config.candidates), None) or list(config.entrants)[0]
        self.per_deal = format_of(config).table_count * games_per_deal(config.seats, config.ruleset.teams)
        self.seats = config.seats
        n = config.games
        self.result, self.diff = np.zeros(n), np.zeros(n)
        self.count = np.zeros(n, dtype=np.int64)
        self.half, self.most = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64)
        self.wdl = np.zeros((n, 3), dtype=np.int64)
        self.places = {name: np.zeros(config.seats, dtype=np.int64) for name in config.entrants}

    def add_batch(self, records) -> None:
        for r in records:
            self.add(r)

    def add(self, record) -> None:
        """Count one game (a record, or its JSON line)."""
        r = record if isinstance(record, dict) else json.loads(record)
        a = r["agents"].index(self.candidate)
        won, diff, met = 0.0, 0.0, 0
        d = r["deal"]
        for i, j in opponents(r):
            if a not in (i, j):
                continue
            o = j if i == a else i
            pa, po = r["places"][a], r["places"][o]
            outcome = 0 if pa < po else 1 if pa == po else 2
            won += score(pa, po)
            self.half[d] += 2 - outcome
            self.wdl[d, outcome] += 1
            diff += r["totals"][a] - r["totals"][o]
            met += 1
        self.result[d] += won / met
        self.diff[d] += diff / met
        self.most[d] += 2 * met
        self.count[d] += 1
        for name, place in zip(r["agents"], r["places"]):
            self.places[name][place - 1] += 1

    def deals(self, upto: int) -> tuple[np.ndarray, np.ndarray]:
        """Mean result and score difference of deals 0 .. upto - 1 (all complete)."""
        return self.result[:upto] / self.per_deal, self.diff[:upto] / self.per_deal

    def grid(self, upto: int) -> int:
        """Twice the most points a deal can give the candidate (the same for every deal of a match)."""
        return int(self.most[:upto].max()) if upto else 0

    def points(self, upto: int) -> np.ndarray:
        """Deals 0 .. upto - 1 per half points the candidate made in them: counts[k] deals gave k / 2 points.
        With two seats and one opponent the pentanomial: deals (pairs) of 0, 1/2, 1, 3/2 and 2 points."""
        return np.bincount(self.half[:upto], minlength=self.grid(upto) + 1)

    def complete(self) -> int:
        """Deals complete from deal 0 on."""
        missing = np.flatnonzero(self.count != self.per_deal)
        return int(missing[0]) if len(missing) else len(self.count)


def look(tally: MatchTally, sprt: SPRT | None, deals: int, m: int) -> dict:
    """The test and the estimates over the first `deals` deals (m: games per deal, every table's)."""
    results, diffs = tally.deals(deals)
    grid = tally.grid(deals)
    w, d, l = (int(x) for x in tally.wdl[:deals].sum(axis=0))
    out = {"deals": deals, "games": deals * tally.per_deal, **estimates(results, diffs, m),
           "wdl": {"wins": w, "draws": d, "losses": l}, "deal_points": tally.points(deals).tolist()}
    if tally.seats == 2 and grid == 4:          # one opponent: the pentanomial, with its 1-point pairs split
        counts = out["deal_points"]
        wl = int(np.count_nonzero((tally.half[:deals] == 2) & (tally.wdl[:deals, 1] == 0)))
        out["pentanomial"] = {"counts": counts, "one_point_draws": counts[2] - wl, "one_point_win_loss": wl}
    if sprt is not None:
        llr = sprt.llr(results if sprt.kind == "elo" else diffs, m, grid)
        out.update(llr=llr, lower=sprt.lower, upper=sprt.upper, decision=sprt.decide(llr))
    return out


def run_match(config: TournamentConfig, sprt: SPRT | None = None, out=None, batch: int = BATCH, workers: int = 1,
              executor: str = "local", progress: bool = True, factory: str = DEFAULT_FACTORY,
              analysis: bool = True) -> dict:
    """Play the match in windows of `batch` deals until the test decides or the deals run out; write the
    tournament report and `match.json` into the folder; return the match's figures."""
    check_executor(workers, executor)
    check_memory("match", "max games", memory_needed(config, workers),
                 f"{config.total_games:,} games of {config.seats} seats on {workers} worker(s)")
    check_agents(config, resolve_factory(factory))
    setup = Setup(config, factory)
    fmt, teams = format_of(config), config.ruleset.teams
    m = fmt.table_count * games_per_deal(config.seats, teams)      # games per deal, every table's
    folder = Path(out) if out is not None else Path("runs") / f"{config.name}-{config.hash[:8]}"
    files = digests(spec_files(config.entrants.values()) + rules_files(config.rules))
    with Store(folder).open(config, files) as store:
        tally, done = MatchTally(config), set()
        for rec in store.stream():
            tally.add(rec)
            done.add(rec["key"])
        start, played, deal, state = time.perf_counter(), 0, 0, None
        bar = tqdm(total=config.total_games, initial=len(done), unit="game", desc=config.name,
                   disable=not progress, dynamic_ncols=True)
        with bar:
            while deal < config.games:
                window = range(deal, min(deal + batch, config.games))
                todo = [j for t, members in fmt.tables() for j in table_jobs(config, t, members, teams, window)
                        if j.key not in done]
                if todo:
                    played += _play(setup, todo, store, workers, executor, bar, on_batch=tally.add_batch)
                deal = window.stop
                state = look(tally, sprt, deal, m)
                if sprt is not None:
                    bar.set_postfix_str(f"LLR {state['llr']:.2f} [{sprt.lower:.2f}, {sprt.upper:.2f}]")
                if state.get("decision"):
                    break
        seconds = time.perf_counter() - start
        moved = changed(files) if played else []
        if moved:       # as `run_tournament`: the games just played may mix two agents under one name
            raise ConfigError(str(store.meta_path), f"{moved[0]} while the games were played; they are kept, but "
                                                    f"some may be another agent's: restore the file and rerun, or "
                                                    f"play into a new folder")
    res = render(folder, analysis=analysis, store=store)
    doc = {"candidate": tally.candidate, "opponents": [e for e in config.entrants if e != tally.candidate],
           "seats": config.seats,
           "sprt": None if sprt is None else {**vars(sprt), "text": sprt.describe()}, "batch": batch,
           "max_deals": config.games, **state,
           "stopped": "decided" if state.get("decision") else "max games",
           "places": {name: c.tolist() for name, c in tally.places.items()},
           "forfeits": forfeit_counts(res), "luck": res.get("luck"), "rules": config.rules_block,
           "run": {"folder": str(folder), "games_run": played, "seconds": seconds}}
    write_atomic(folder / MATCH, json.dumps(doc, indent=2) + "\n", MATCH)     # never through a planted link
    return doc
