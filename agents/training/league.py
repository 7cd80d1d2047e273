"""Self-play at a table: the learner against a league of its own versions and other agents.

    league:                       # in a `yacht train` config with num_players 2..8 (`config.LeagueConfig`)
      current: 0.4                # the learner as it is now
      past: 0.3                   # one of its past versions
      specs: {"strong?goal=win": 0.3}
      snapshot_every: 500_000     # env steps between snapshots of the learner (the first: its starting weights)
      pool: 8                     # snapshots kept (the oldest dropped)

At the start of every training game each other seat is given one member, drawn with the weights (normalised
by their sum): `current` (the learner's weights as they were at the start of the rollout), `past` (a snapshot
from the pool, each as likely) or an agent spec. The draw is counter-based, as the dice are: two uniform
numbers hashed from (the game's dice seed, the seat, the run seed), so the same config and seed give the same
opponents at every table whatever the batch (`draws`, `pick`). The config's `opponents` still name the
evaluation's opponents (`best.pt` is picked against them).

The league is one batched player (`League`) sitting at every other seat of the training env
(`YachtVsVecEnv`): each call groups the tables by the member seated there and asks every member once for all
of its tables. Learned members are `agents.learned.NetPlayer`s (the policy's weights copied into numpy arrays,
played in compiled code, no torch and no gradients); agent specs play as agents (`strong?goal=win` in batches).

Files in the run folder:

    league.json         the weights, the members' labels, the pool now and every snapshot (step, file, when dropped)
    league.jsonl        one line a rollout: the steps, the pool, and the games started since the last line per
                        member label (`seats`: opponent seats) and per mix (`mixes`: the sorted labels of a table's
                        other seats, joined by " + ")
    league/step_N.pt    the snapshots in the pool (play-only model files; a dropped snapshot's file is removed)
"""
import json
import os
import re
from collections import Counter
from pathlib import Path

import numpy as np
from stable_baselines3.common.callbacks import BaseCallback

from yacht_env.config import ConfigError
from yacht_env.core.dice_source import stream_seeds
from yacht_env.core.view import BatchView
from yacht_env.safe_file import NoSuchFile, open_append, read_text, write_atomic

from ..learned import LearnedAgent, NetPlayer
from ..model_file import ModelFileError
from ..registry import make_agent
from .checkpoint import model_record, save_checkpoint
from .config import MAX_POOL
from .evaluate import net_of

CURRENT, PAST = "current", "past"
MAX_LEAGUE_BYTES = 1 << 20
SNAPSHOT = re.compile(r"step_[0-9]{1,19}")      # a snapshot's name, and its file league/<name>.pt


def draws(seed: int, game_seeds, seats) -> tuple[np.ndarray, np.ndarray]:
    """Two uniform numbers in [0, 1) per (game, seat): which kind of member, and which one of its kind;
    a hash of (game dice seed, seat, run seed), the same in any batch."""
    game_seeds = np.ascontiguousarray(game_seeds, np.uint64)
    n = len(game_seeds)
    at = stream_seeds(game_seeds, np.asarray(seats, np.int64))
    first = stream_seeds(at, np.full(n, seed, np.int64))
    second = stream_seeds(first, np.ones(n, np.int64))
    scale = 2.0 ** -53
    return (first >> np.uint64(11)).astype(np.float64) * scale, (second >> np.uint64(11)).astype(np.float64) * scale


def pick(weights, u) -> np.ndarray:
    """The index of the weight each uniform number u falls under (the cumulative weights, normalised)."""
    w = np.asarray(weights, np.float64)
    edges = np.cumsum(w) / w.sum()
    return np.minimum(np.searchsorted(edges, u, side="right"), len(w) - 1)


class League:
    """The league of a `TrainConfig` with `league`: the batched player at every other seat of its training env.

    `bind(core)` gives it the env's `TableCore` (the learner's seat of every table); `attach(policy, step)`
    the live SB3 policy (the current member's weights; the starting snapshot); `refresh(policy)` copies the
    weights again (every rollout); `snapshot(policy, step)` adds a version to the pool."""

    batched = True
    trusted = True              # library code: its members are library agents and the learner's own weights

    def __init__(self, cfg, rules, out: Path, resume: bool = False):
        lc = cfg.league
        self.cfg, self.rules, self.lc, self.seed = cfg, rules, lc, int(cfg.seed)
        self.out, self.folder = Path(out), Path(out) / "league"
        self.config = cfg.to_dict()
        self.kinds = [CURRENT, PAST, *lc.specs]
        self.weights = np.array([lc.current, lc.past, *lc.specs.values()], np.float64)
        self.players: dict[int, object] = {}     # member code -> batched player
        self.labels: dict[int, str] = {}         # member code -> label (current, past:step_N, a spec)
        self.next_code = 0
        self.current = NetPlayer(None, self.config, lc.deterministic, source="the learner")
        self.current_code = self._add(CURRENT, self.current)
        self.spec_codes = []
        for spec in lc.specs:
            agent = make_agent(spec)
            if not getattr(agent, "batched", False):
                if hasattr(agent, "close"):
                    agent.close()
                raise ConfigError(f"league.specs: {spec}: plays one game at a time; a league member plays every "
                                  f"table at once")
            try:
                agent.prepare(rules, cfg.num_players)
            except ValueError as e:
                raise ConfigError(f"league.specs: {spec}: {e}") from None
            self.spec_codes.append(self._add(spec, agent))
        self.pool: list[int] = []                 # member codes of the snapshots, oldest first
        self.history: list[dict] = []             # every snapshot: name, step, file, dropped
        self.core = None
        self.code = self.dealt = self.game_of = None
        self.seat_counts, self.mix_counts = Counter(), Counter()
        if resume:
            self._reload()
        else:
            self._clear()

    # ---- members ----------------------------------------------------------------------------------
    def _add(self, label: str, player) -> int:
        code = self.next_code
        self.next_code += 1
        self.players[code], self.labels[code] = player, label
        return code

    def _clear(self) -> None:
        """A fresh run: no snapshot of an earlier run in the folder, an empty mix log."""
        if self.folder.is_dir():
            for f in self.folder.glob("step_*.pt"):
                f.unlink()
        (self.out / "league.jsonl").unlink(missing_ok=True)

    def _reload(self) -> None:
        """A resumed run: the pool as league.json last recorded it (each snapshot's file league/step_N.pt)."""
        path = self.out / "league.json"
        try:
            doc = json.loads(read_text(path, MAX_LEAGUE_BYTES, "league.json"))
        except NoSuchFile:
            return
        except (ValueError, RecursionError):
            doc = None
        history = doc.get("snapshots") if isinstance(doc, dict) else None
        pool = doc.get("pool") if isinstance(doc, dict) else None
        if not (isinstance(history, list) and all(isinstance(h, dict) for h in history) and isinstance(pool, list)
                and all(isinstance(n, str) and SNAPSHOT.fullmatch(n) for n in pool) and len(pool) <= MAX_POOL):
            raise ConfigError(str(path), "pool", "must be a list of snapshot names step_N in a JSON object with "
                                                 "its snapshots; the league record is damaged")
        self.history = history
        for name in pool:
            try:
                player = LearnedAgent(self.folder / f"{name}.pt", deterministic=self.lc.deterministic)
            except ModelFileError as e:
                raise ConfigError(str(path), "pool", f"snapshot {name}: {e}") from None
            self.pool.append(self._add(f"{PAST}:{name}", player))

    def bind(self, core) -> None:
        """The training env's table core: its `seating` tells which seats are the learner's."""
        self.core = core
        n, p = core.num_tables, core.num_players
        self.code = np.full((n, p), -1, np.int64)
        self.dealt = np.zeros(n, np.bool_)
        self.game_of = np.zeros(n, np.uint64)

    def attach(self, policy, step: int) -> None:
        """The learner's live policy: the current member plays its weights; a pool with no snapshot yet
        gets one of them."""
        self.refresh(policy)
        if not self.pool:
            self.snapshot(policy, step)

    def refresh(self, policy) -> None:
        """The current member plays the policy's weights as they are now (copied: no gradient reaches it)."""
        self.current.net = net_of(policy, self.cfg.policy.activation)

    def snapshot(self, policy, step: int) -> str:
        """Add the policy's weights now to the pool as `step_N` (file league/step_N.pt); past `pool` entries
        the oldest is dropped and its file removed. Returns its name."""
        name = f"step_{step}"
        if any(self.labels[c] == f"{PAST}:{name}" for c in self.pool):
            return name
        cfg_d, rules_d = model_record(self.cfg, self.rules)
        path = save_checkpoint(policy, step, self.folder / f"{name}.pt", cfg_d, rules_d, with_optimizer=False,
                               extra={"league": name})
        player = NetPlayer(net_of(policy, self.cfg.policy.activation), self.config, self.lc.deterministic,
                           source=f"snapshot {name}")
        self.pool.append(self._add(f"{PAST}:{name}", player))
        self.history.append({"name": name, "step": int(step), "file": str(path.relative_to(self.out)),
                             "dropped": None})
        while len(self.pool) > self.lc.pool:
            old = self.pool.pop(0)
            label = self.labels[old].split(":", 1)[1]
            for h in self.history:
                if h["name"] == label and h["dropped"] is None:
                    h["dropped"] = int(step)
                    (self.out / h["file"]).unlink(missing_ok=True)
        self._forget()
        self.write()
        return name

    def _forget(self) -> None:
        """Drop dropped snapshots' players once no table still plays them (memory stays bounded)."""
        keep = {self.current_code, *self.spec_codes, *self.pool}
        if self.code is not None:
            keep |= set(np.unique(self.code[self.dealt]).tolist())
        for c in [c for c in self.players if c not in keep]:
            del self.players[c], self.labels[c]

    # ---- the batched player -------------------------------------------------------------------------
    def prepare(self, rules, num_players) -> None:
        """Prepared when built (its specs for this table)."""

    def start(self, state, rows) -> None:
        """Seat a member at every other seat of the tables whose game starts (`draws`, `pick`); the core calls
        this once per other seat, so a game already dealt is left as it is."""
        if self.core is None:
            raise RuntimeError("the league plays only in the training env it was bound to (League.bind)")
        if self.current.net is None:
            raise RuntimeError("the league has no weights for the learner yet (League.attach)")
        rows = np.asarray(rows, np.int64)
        rows = rows[~self.dealt[rows] | (self.game_of[rows] != state.seeds[rows])]
        if not len(rows):
            return
        self.dealt[rows], self.game_of[rows] = True, state.seeds[rows]
        p = state.num_players
        seats = np.tile(np.arange(p), len(rows))
        tables = np.repeat(rows, p)
        kind_u, member_u = draws(self.seed, state.seeds[tables], seats)
        kinds = pick(self.weights, kind_u)
        codes = np.empty(len(tables), np.int64)
        codes[kinds == 0] = self.current_code
        past = kinds == 1
        pool = np.array(self.pool, np.int64)
        codes[past] = pool[np.minimum((member_u[past] * len(pool)).astype(np.int64), len(pool) - 1)]
        for k, code in enumerate(self.spec_codes):
            codes[kinds == 2 + k] = code
        codes = codes.reshape(len(rows), p)
        codes[self.core.seating[rows] == 0] = -1          # the learner's own seat
        self.code[rows] = codes
        for row in codes:
            names = sorted(self.labels[c] for c in row if c >= 0)
            self.seat_counts.update(names)
            self.mix_counts[" + ".join(names)] += 1
        for c in np.unique(codes[codes >= 0]):
            member = self.players[int(c)]
            if hasattr(member, "start"):
                member.start(state, rows[(codes == c).any(axis=1)])

    def act_batch(self, view: BatchView) -> np.ndarray:
        rows = view.rows
        who = self.code[rows, view.seat]
        actions = np.empty(len(rows), np.int64)
        for c in np.unique(who):
            at = np.flatnonzero(who == c)
            actions[at] = self.players[int(c)].act_batch(BatchView(view.state, rows[at]))
        return actions

    def close(self) -> None:
        for c in self.spec_codes:
            agent = self.players.get(c)
            if agent is not None and hasattr(agent, "close"):
                agent.close()

    # ---- the record ---------------------------------------------------------------------------------
    def pool_names(self) -> list[str]:
        return [self.labels[c].split(":", 1)[1] for c in self.pool]

    def write(self) -> None:
        """league.json: the weights, the members, the pool and every snapshot."""
        total = self.weights.sum()
        doc = {"weights": {k: float(w) for k, w in zip(self.kinds, self.weights)},
               "shares": {k: float(w / total) for k, w in zip(self.kinds, self.weights)},
               "snapshot_every": self.lc.snapshot_every, "pool_size": self.lc.pool,
               "deterministic": self.lc.deterministic, "seed": self.seed,
               "pool": self.pool_names(), "snapshots": self.history}
        write_atomic(self.out / "league.json", json.dumps(doc, indent=2) + "\n", "league.json")

    def log(self, step: int) -> dict:
        """Append the games started since the last line to league.jsonl and start counting afresh."""
        row = {"timesteps": int(step), "pool": self.pool_names(), "seats": dict(sorted(self.seat_counts.items())),
               "mixes": dict(sorted(self.mix_counts.items()))}
        fd = open_append(self.out / "league.jsonl", "league log")     # never through a planted link
        try:
            os.write(fd, (json.dumps(row) + "\n").encode("utf-8"))
        finally:
            os.close(fd)
        self.seat_counts, self.mix_counts = Counter(), Counter()
        return row


class LeagueCallback(BaseCallback):
    """Keeps a `League` in step with training: at every rollout's start the current member takes the
    policy's weights and, once `snapshot_every` more steps are done, the pool a snapshot; at its end a line
    of league.jsonl."""

    def __init__(self, league: League, start: int = 0):
        super().__init__()
        self.league = league
        every = league.lc.snapshot_every
        self.next_snapshot = (start // every + 1) * every

    def _on_rollout_start(self) -> None:
        n = self.num_timesteps
        if n >= self.next_snapshot:
            self.league.snapshot(self.model.policy, n)
            self.next_snapshot = (n // self.league.lc.snapshot_every + 1) * self.league.lc.snapshot_every
        self.league.refresh(self.model.policy)

    def _on_step(self) -> bool:
        return True

    def _on_rollout_end(self) -> None:
        self.league.log(self.num_timesteps)
