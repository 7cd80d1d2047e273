"""Win shares of a tournament's agents, with 95% confidence intervals, from its folder's games.

The report has them (`yacht report DIR`, section "Win share explained", and `--json` "win_share", from
`tournaments.stats.win_share_explained`, which this script prints); what this script adds is `--minus`,
one agent's share in two tournament folders with the same dice, compared deal by deal.

    python scripts/win_share.py runs/win4-t4                    # every agent of the tournament
    python scripts/win_share.py runs/win4-t4 --agent learner --json
    python scripts/win_share.py runs/win4-t4 --agent learner --minus runs/solo-t4   # paired, deal by deal

An agent's win share is the mean over its games of 1/k when its sheet is one of k sheets in first
place, else 0; at a table of n seats an agent as strong as the others gets 1/n. The tournament plays
each deal in every seat rotation (duplicate dice), so the games of one deal are not independent: the
interval is the normal 95% interval of the mean over deals of the agent's mean share in that deal's
games (`agents.stats.mean_ci`). Forfeited games count as played (a forfeit scores what its sheet holds).
With `--minus OTHER`, the agent's share (and mean score) minus those of the agent of the same name in
tournament folder OTHER, deal by deal (the deals must be the same dice: same seed, seats and entrant
names).
"""
import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agents.stats import mean_ci
from tournaments import games as compact_games
from tournaments.stats import win_share_explained
from tournaments.store import Store


def deal_shares(folder, what: str = "share"):
    """(agent -> (table, deal) -> [sum, games] of its win shares (what="share") or its sheet's totals
    (what="total") in that deal's games, (table, deal) -> dice seed, agent -> first places) of a tournament
    folder, read from the store as a stream: what is kept grows with the deals, not with the games."""
    by_deal = defaultdict(dict)
    seeds, firsts = {}, defaultdict(int)
    for rec in Store(folder).stream():
        places = rec["places"]
        top = sum(1 for p in places if p == 1)
        deal = (rec["table"], rec["deal"])
        seeds[deal] = rec["seed"]                 # one seed a deal: every arrangement has the same dice
        for seat, agent in enumerate(rec["agents"]):
            won = places[rec["sheet_of"][seat]] == 1
            firsts[agent] += won
            value = (1.0 / top if won else 0.0) if what == "share" else rec["totals"][rec["sheet_of"][seat]]
            acc = by_deal[agent].setdefault(deal, [0.0, 0])
            acc[0] += value
            acc[1] += 1
    return by_deal, seeds, firsts


def win_shares(folder) -> dict[str, dict]:
    """Agent name -> {games, deals, observed, expected, gain and their ci95} (`win_share_explained`, over the
    store's games held compactly as the report holds them: `tournaments.games.read`)."""
    store = Store(folder)
    return win_share_explained(compact_games.read(store), list(store.config().entrants)) or {}


def paired(folder, other, agent: str, what: str = "share") -> dict:
    """{deals, difference, ci95}: the agent's win share (or, what="total", its mean score) in `folder` minus
    in `other`, over the deals both played with the same dice (ValueError when their dice differ)."""
    a, seeds_a, _ = deal_shares(folder, what)
    b, seeds_b, _ = deal_shares(other, what)
    if agent not in a or agent not in b:
        raise ValueError(f"agent {agent!r} is not in both folders")
    if any(seeds_b.get(k, s) != s for k, s in seeds_a.items()):
        raise ValueError(f"{folder} and {other} did not deal the same dice")
    common = sorted(k for k in a[agent] if k in b[agent])
    diffs = [a[agent][k][0] / a[agent][k][1] - b[agent][k][0] / b[agent][k][1] for k in common]
    diff, ci, _ = mean_ci(diffs)
    return {"deals": len(common), "difference": diff, "ci95": ci}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("folder", help="a tournament folder (yacht tournament --out)")
    p.add_argument("--agent", default=None, help="only this agent")
    p.add_argument("--minus", metavar="OTHER", default=None,
                   help="with --agent: its share minus its share in tournament folder OTHER, deal by deal")
    p.add_argument("--json", action="store_true", help="one JSON document on stdout")
    args = p.parse_args(argv)
    if args.minus is not None:
        if args.agent is None:
            p.error("--minus needs --agent")
        try:
            d = paired(args.folder, args.minus, args.agent)
        except ValueError as e:
            p.error(str(e))
        t = paired(args.folder, args.minus, args.agent, "total")
        if args.json:
            print(json.dumps({"win_share": d, "mean_score": t}, indent=2))
            return 0
        lo, hi = d["ci95"]
        print(f"{args.agent}: win share in {args.folder} minus in {args.minus}: {100 * d['difference']:+.2f} "
              f"points, 95% CI [{100 * lo:+.2f}, {100 * hi:+.2f}] over {d['deals']} deals")
        lo, hi = t["ci95"]
        print(f"{args.agent}: mean score in {args.folder} minus in {args.minus}: {t['difference']:+.2f}, "
              f"95% CI [{lo:+.2f}, {hi:+.2f}]")
        return 0
    shares = win_shares(args.folder)
    if args.agent is not None:
        if args.agent not in shares:
            print(f"win_share.py: error: no agent {args.agent!r} in {args.folder} (agents: {', '.join(shares)})",
                  file=sys.stderr)
            return 2
        shares = {args.agent: shares[args.agent]}
    if args.json:
        print(json.dumps(shares, indent=2))
        return 0
    for agent, s in shares.items():
        lo, hi = s["observed_ci95"]
        elo, ehi = s["expected_ci95"]
        print(f"{agent:20s} win share {100 * s['observed']:6.2f}%  95% CI [{100 * lo:.2f}, {100 * hi:.2f}]  "
              f"expected {100 * s['expected']:6.2f}% [{100 * elo:.2f}, {100 * ehi:.2f}]  "
              f"over {s['games']} games ({s['deals']} deals)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
