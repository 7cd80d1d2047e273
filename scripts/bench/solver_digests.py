"""`bench.py solver_digests`: SHA-256 digests of everything the exact solver computes, for a few rule sets, as
JSON: values and summary figures, score distributions (lane and one-state builds, a risk policy's), risk
values, turn plans and stage values (one state at a time and in parallel), move values and the strength dial
(serial and parallel), the widget, simulated scores, win-chance plans / tables / dial moves through
`strong?goal=win`, and the analysis (log replay, decision values, win chances). Two runs of the same code give
the same JSON; a change to the solver's kernels that keeps every figure bit-identical keeps it too (compare the
output before and after: `diff`).
"""
import hashlib
import json
import os
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))     # the checkout: the tests' `mini` rule set
from tests.mini_rules import MINI


def digest(*arrays) -> str:
    h = hashlib.sha256()
    for a in arrays:
        a = np.ascontiguousarray(a)
        h.update(str((a.dtype.str, a.shape)).encode())
        h.update(a.tobytes())
    return h.hexdigest()[:16]


def of_rules(rules, full: bool) -> dict:
    """The digests of one one-column rule set (`full`: also the distributions, games and analysis)."""
    from agents.analysis import analyze
    from agents.base import play_game
    from agents.registry import make_agent
    from yacht_env.core.dice import NUM_ROLLS
    from yacht_env.core.engine import State
    from yacht_env.core.game import Game
    from yacht_env.core.lockstep import Record, play
    from yacht_env.solver import solution_for
    from yacht_env.solver.distribution import build
    from yacht_env.solver.lanes import LANES
    from yacht_env.solver.policy import Policy
    from yacht_env.solver.risk import risk_values
    from yacht_env.solver.simulate import simulate
    from yacht_env.solver.space import reachable_upper

    out = {}
    sol = solution_for(rules, progress=False)
    out["values"] = digest(sol.values)
    out["summary"] = {k: v for k, v in sol.summary().items() if k != "seconds"}
    sp = sol.space
    reach = reachable_upper(rules.tables, sp)
    masks, uppers = np.nonzero(reach)
    open_ = masks != (1 << len(rules.boxes)) - 1          # states with a box still to fill (a decision to make)
    masks, uppers = masks[open_], uppers[open_]
    flags = np.zeros_like(masks)
    keys = ((masks * sp.n_upper + uppers) * sp.n_flag + flags)[np.random.default_rng(1).permutation(len(masks))]
    rng = np.random.default_rng(2)
    n_stages = rules.rolls_per_turn - 1
    for name, k in (("few", 5), ("many", 60)):
        pol = Policy(rules, sol)
        pick = keys[:k, None]
        rows = pol.plan_rows(pick)
        out[f"plans_{name}"] = digest(pol.plans[rows])
        if n_stages > 0:
            srows = pol.stage_rows(pick)
            out[f"stages_{name}"] = digest(pol._stages.data[srows])
    pol = Policy(rules, sol)
    for name, n in (("serial", 300), ("parallel", 2500)):
        dk = keys[rng.integers(0, min(len(keys), 200), n)][:, None]
        rolls = rng.integers(0, NUM_ROLLS, n)
        lefts = rng.integers(0, n_stages + 1, n)
        uni = rng.random(n)
        out[f"move_values_{name}"] = digest(pol.move_values(dk, rolls, lefts))
        out[f"dial_{name}"] = digest(*pol.sampled_actions(dk, rolls, lefts, 2.0, uni))
    m, u, f = pol._split(keys[:1])
    S, best, choice = pol.widget(m, u, f, n_stages)
    out["widget"] = digest(S, best[1:], choice)      # best[0] is never written (no keep with no re-roll left)
    out["alternatives"] = digest(np.array(pol.alternatives(np.full((1, len(rules.boxes)), -1), [0], 17, n_stages)))
    out["simulate"] = digest(simulate(rules, sol, np.arange(300, dtype=np.uint64)))
    out["risk_values"] = digest(risk_values(rules, sp, 0.05))
    if not full:
        return out
    for name, kw in (("dist", {}), ("dist_one_state", {"min_lanes": LANES + 1}), ("dist_risk", {"risk": 0.05})):
        d = build(rules, sol, **kw)
        out[name] = digest(d.offset, d.length, d.lo, d.lost, d.data)
    specs = ["strong?goal=win", "strong", "strong?strength=0.7&goal=win", "strong?goal=target&score=120"]
    players = [make_agent(s) for s in specs]
    seeds = np.arange(6, dtype=np.uint64)
    state = State(rules, len(seeds), len(specs))
    state.reset(seeds)
    record = Record(len(seeds))
    play(state, players, np.tile(np.arange(len(specs)), (len(seeds), 1)), record=record)
    out["win_games"] = digest(state.totals, state.scores, np.array([len(x) for x in record.logs(rules)]))
    records = []
    for i in range(3):
        g = play_game(Game(rules, num_players=3, seed=100 + i), [make_agent(s) for s in specs[:3]])
        records.append({"key": f"g{i}", "seed": g.seed, "agents": specs[:3], "faults": [None] * 3,
                        "sheet_of": [g.sheet_of(s) for s in range(3)], "totals": [int(t) for t in g.totals()],
                        "sheets": [g.sheets[g.sheet_of(s)].scores.tolist() for s in range(3)],
                        "upper_bonus": [int(g.sheets[g.sheet_of(s)].upper_bonus.sum()) for s in range(3)],
                        "extra_bonus": [int(g.sheets[g.sheet_of(s)].extra_bonus.sum()) for s in range(3)],
                        "log": [dict(e) for e in g.log]})
    a = analyze(records, rules, sol, win=True)
    out["analysis"] = digest(a.rec, a.move, a.seat, a.turn, a.roll, a.left, a.played, a.best, a.played_value,
                             a.best_value, a.state, a.banked)
    out["analysis_win"] = digest(*[np.asarray(v) for k, v in sorted(vars(a).items())
                                   if k.startswith("win") and isinstance(v, np.ndarray)])
    return out


def add_parser(sub):
    p = sub.add_parser("solver_digests", help="digests of every figure the exact solver computes",
                       description=__doc__)
    p.add_argument("--rules", nargs="*", default=["mini", "classic", "mini:rolls_per_turn=2", "cheerio",
                                                   "yacht:values"],
                   help="rule sets: NAME[:KEY=VALUE,...][:values] (values: only the solve's and the policy's)")
    return p


def run(args) -> int:
    from yacht_env.rules import load
    os.environ["YACHT_CACHE_DIR"] = tempfile.mkdtemp(prefix="solver-digests-")
    mini = os.path.join(os.environ["YACHT_CACHE_DIR"], "mini.yaml")
    with open(mini, "w") as f:
        f.write(MINI)
    result = {}
    for spec in args.rules:
        parts = spec.split(":")
        full = parts[-1] != "values"
        overrides = {}
        for part in parts[1:]:
            for kv in filter(None, part.split(",")):
                if "=" in kv:
                    k, v = kv.split("=", 1)
                    overrides[k] = int(v) if v.isdigit() else v
        rules = load(mini if parts[0] == "mini" else parts[0], **overrides)
        result[spec] = of_rules(rules, full)
        print(spec, "done", file=sys.stderr, flush=True)
    print(json.dumps(result, indent=1, sort_keys=True))
    return 0
