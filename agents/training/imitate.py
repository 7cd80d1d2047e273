"""Behaviour cloning (`algo: bc`): a policy that imitates a teacher agent, e.g. `strong`.

This is supervised learning from the teacher's moves, not reinforcement learning: its
models are labelled `bc` in their config and in reports, apart from the MaskablePPO agents.
The teacher plays `bc.games` games (seeds `game_seed(seed, k)`), alone or, with `num_players` > 1, at
seat k % num_players of a table against the config's `opponents` (`record_teacher`); every decision is
recorded as (the policy's input, legal mask, teacher action, value target), and with `bc.soft_temperature`
the teacher's rated moves (`soft_targets`). The network (the same actor-critic as PPO's, so `learned:PATH`
plays it) is fit by masked cross-entropy (against the teacher's move, or the mix of it and the rated moves
by `bc.soft_weight`), its value head by
squared error on the target x `reward_scale`: the points still to come, or at a table with `reward: win`
the game's outcome. The rate falls linearly to `bc.final_learning_rate` when it is set. Evaluation
(alone: the mean score; at a table: the win share against the opponents), curve, TensorBoard and model
files are as for `yacht train` with PPO.
"""
import json
import sys
import time

import numpy as np

from .threads import set_torch_threads  # first: the OpenMP settings come before torch loads

import torch
from tqdm import tqdm

from yacht_env.core.actions import num_holds
from yacht_env.core.dice_source import game_seeds
from yacht_env.core.lockstep import win_shares
from yacht_env.core.players import PerGame
from yacht_env.envs.options import distinct, narrow_masks
from yacht_env.rules import rules_block
from yacht_env.solver.winning import DECIDED
from yacht_env.safe_file import write_atomic

from .checkpoint import model_record, new_policy, save_checkpoint
from .curve import append_row, plot_curve
from .evaluate import PER_GAME_TABLES, evaluate, play_table
from ..features import trained_sheets, view_input
from ..registry import make_agent
from .run import Trained, _lr_schedule, _versions, check_run_folder
from .warm import warm_start


CHUNK_GAMES = 2048   # teacher games played at once, per seat of the table (`record_teacher`)


def _canonical_row(keep: np.ndarray, allowed: np.ndarray) -> list[int]:
    """For one sorted roll: each hold pattern's smallest pattern keeping the same dice (`keep`: the keep of
    every pattern; `allowed`: the patterns distinct-hold masks allow)."""
    first: dict = {}
    for h in np.flatnonzero(allowed):
        first.setdefault(int(keep[h]), int(h))
    return [first[int(k)] for k in keep]


def canonical_holds(rules) -> np.ndarray:
    """(rolls, holds) int64: for each sorted roll of the rules' dice and hold pattern, the smallest hold
    pattern that keeps the same dice (what distinct-hold masks allow)."""
    D, holds = rules.dice_tables, num_holds(rules)
    keep, allowed = D.hold_keep[:, :holds], distinct(D.n)
    return np.array([_canonical_row(keep[r], allowed[r]) for r in range(len(keep))], np.int64)


def canonical_hold(rules, dice, hold: int) -> int:
    """The smallest hold pattern that keeps the same of `dice` (the rules' n dice) as `hold`."""
    D = rules.dice_tables
    r = D.index(dice)
    return _canonical_row(D.hold_keep[r, :num_holds(rules)], distinct(D.n)[r])[hold]


class Recorder:
    """The teacher at the learner's seat: it plays the teacher's moves, or those of `player` when one is given
    (the teacher still labels each), and keeps, for each decision, what the learner is trained on: the
    policy's input as `learned:` builds it (`agents.features.view_input`), the legal actions (one hold per
    keep when the config has `distinct_holds`), the teacher's action (its hold as the canonical pattern),
    the table, the sheet, that sheet's total before the move, and whether the teacher departs there from
    `contrast` (keeps other dice or fills another box; False for every decision without a contrast)."""

    def __init__(self, teacher, config: dict, rules, player=None, contrast=None):
        self.teacher, self.player, self.contrast, self.config = teacher, player, contrast, config
        self.soft = config.get("bc", {}).get("soft_temperature")
        self.sheets = trained_sheets(rules, config)
        self.canon = canonical_holds(rules) if config.get("distinct_holds", False) else None
        self.holds = num_holds(rules)
        self.parts: list[tuple] = []

    def _agents(self):
        return [a for a in (self.teacher, self.player, self.contrast) if a is not None]

    def prepare(self, rules, num_players) -> None:
        for agent in self._agents():
            if hasattr(agent, "prepare"):
                agent.prepare(rules, num_players)

    def start(self, state, rows) -> None:
        for agent in self._agents():
            if hasattr(agent, "start"):
                agent.start(state, rows)

    def close(self) -> None:
        for agent in self._agents():
            if hasattr(agent, "close"):
                agent.close()

    def act_batch(self, view) -> np.ndarray:
        taught = np.asarray(self.teacher.act_batch(view))
        played = taught if self.player is None else np.asarray(self.player.act_batch(view))
        actions = taught.astype(np.int64)
        masks = view.mask.astype(bool)
        if self.canon is not None:
            masks = narrow_masks(masks, view.roll, view.rules.dice)
            hold = actions < self.holds
            actions[hold] = self.canon[view.roll[hold], actions[hold]]
        x = view_input(view, self.config, self.sheets)
        departs = np.zeros(len(actions), bool) if self.contrast is None else \
            keeps_of(view, taught) != keeps_of(view, np.asarray(self.contrast.act_batch(view)))
        targets = np.zeros((len(actions), 0), np.float32) if self.soft is None else \
            soft_targets(self.teacher.move_chances(view), masks, actions, self.soft)
        self.parts.append((x, masks, actions, view.rows.copy(), view.sheet.copy(),
                           view.state.totals[view.rows, view.sheet].astype(np.float32), departs, targets))
        return played


def soft_targets(chances: np.ndarray, masks: np.ndarray, actions: np.ndarray, temperature: float) -> np.ndarray:
    """(decisions, actions) float32: the teacher's rated moves as a distribution, the softmax of each legal move's
    chance (`chances`, the teacher's `move_chances`) at `temperature`; one-hot on the teacher's move (`actions`)
    where the legal moves' chances all lie within `DECIDED` of each other (a won or lost position, where the
    teacher plays for points)."""
    legal = np.where(masks, chances, -np.inf)
    top = legal.max(axis=1, keepdims=True)
    low = np.where(masks, chances, np.inf).min(axis=1, keepdims=True)
    p = np.exp((legal - top) / temperature)
    p /= p.sum(axis=1, keepdims=True)
    decided = (top - low)[:, 0] < DECIDED
    p[decided] = 0.0
    p[decided, actions[decided]] = 1.0
    return p.astype(np.float32)


def keeps_of(view, actions) -> np.ndarray:
    """What each action does, comparable across hold patterns: a hold as the keep it leaves (negative), a box
    as its number."""
    actions = np.asarray(actions, np.int64)
    hold = actions < num_holds(view.rules)
    out = actions.copy()
    out[hold] = -1 - view.rules.dice_tables.hold_keep[view.roll[hold], actions[hold]]
    return out


def seat_agent(agent, spec: str, chunk: int):
    """`agent` (made from `spec`) for one seat of `chunk` tables: itself when it plays batches, else one
    instance per table (`PerGame`)."""
    if getattr(agent, "batched", False):
        return agent
    if hasattr(agent, "close"):
        agent.close()
    return PerGame(lambda: make_agent(spec), chunk, 0, chunk)


def record_teacher(cfg, rules, progress: bool = True):
    """Play the teacher's games (game k: dice seed `game_seed(cfg.seed, k)`; at a table the teacher sits at
    seat k % num_players, the config's opponents at the others, as `evaluate_table` seats them), a chunk of
    games at once; with `bc.player` that agent plays the teacher's seat and the teacher labels its decisions.
    Returns (inputs, masks, actions, targets, departs, soft) over every teacher decision, game by game and in
    each game in order: the policy's inputs, the legal actions, the teacher's actions, the value head's targets
    before `reward_scale` -- the points the teacher's sheet still gained (reward points), or
    the game's outcome for it (reward win: +1 outright win, 0 shared first place, -1 loss) --, whether the
    teacher departs there from `bc.contrast` (`Recorder`), and with `bc.soft_temperature` the teacher's rated
    moves as a distribution over the actions (`soft_targets`; without it, no columns)."""
    config = cfg.to_dict()
    players = cfg.num_players
    specs = {"teacher": cfg.bc.teacher, "player": cfg.bc.player, "contrast": cfg.bc.contrast}
    specs = {role: spec for role, spec in specs.items() if spec}
    made = {role: make_agent(spec) for role, spec in specs.items()}
    # a whole number of seat rotations; per-game agents (an external bot: a process per table) a few at a time
    chunk = CHUNK_GAMES * players if all(getattr(a, "batched", False) for a in made.values()) else \
        PER_GAME_TABLES // players * players
    seated = {role: seat_agent(made[role], spec, chunk) for role, spec in specs.items()}
    recorder = Recorder(seated["teacher"], config, rules, seated.get("player"), seated.get("contrast"))
    seeds = game_seeds(cfg.seed, last=np.arange(cfg.bc.games))
    out = []
    bar = tqdm(total=cfg.bc.games, desc=f"teacher {cfg.bc.teacher}", unit="game", disable=not progress)
    try:
        for lo in range(0, cfg.bc.games, chunk):
            state, _, _, _ = play_table(recorder, rules, players, cfg.opponents, seeds[lo:lo + chunk],
                                        "the teacher's games")
            x, masks, actions, rows, sheets, before, departs, soft = (np.concatenate(a) for a in zip(*recorder.parts))
            if cfg.reward == "win":
                share = win_shares(state, rows, sheets)
                target = np.where(share == 1.0, 1.0, np.where(share > 0, 0.0, -1.0))
            else:
                target = state.totals[rows, sheets] - before
            order = np.argsort(rows, kind="stable")   # game by game, each game's moves in order
            out.append([a[order] for a in (x, masks, actions, target.astype(np.float32), departs, soft)])
            recorder.parts = []                       # this chunk's decisions are kept in order in `out`
            bar.update(state.num_tables)
    finally:
        bar.close()
        recorder.close()
    return tuple(_join(out, i) for i in range(6))


def _join(chunks: list[list[np.ndarray]], i: int) -> np.ndarray:
    """The chunks' i-th arrays end to end, each chunk's part released once copied (the recording's peak memory
    stays near one copy of the decisions)."""
    first = chunks[0][i]
    whole = np.empty((sum(len(c[i]) for c in chunks),) + first.shape[1:], first.dtype)
    lo = 0
    for c in chunks:
        whole[lo:lo + len(c[i])] = c[i]
        lo += len(c[i])
        c[i] = None
    return whole


def imitate(cfg, progress: bool = True, force: bool = False):
    """Fit a policy to the teacher's moves; writes the run folder like `train`, and, like it, refuses a
    folder that holds another run unless `force` (`check_run_folder`). Returns a `Trained`."""
    from torch.utils.tensorboard import SummaryWriter   # tensorboard (the rl extra) only when a run writes its log
    rules = cfg.ruleset
    out = cfg.out_dir
    check_run_folder(out, None, force)
    out.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(cfg.seed)
    set_torch_threads(cfg.torch_threads)
    cfg_d, rules_d = model_record(cfg, rules)
    write_atomic(out / "config.json", json.dumps({"config": cfg_d, "rules": rules_d}, indent=2) + "\n", "config.json")
    t0 = time.time()
    obs, masks, actions, to_come, departs, soft = record_teacher(cfg, rules, progress)
    weight = np.where(departs, cfg.bc.contrast_weight, 1.0).astype(np.float32)
    if cfg.bc.soft_temperature is not None:    # the policy's target: the teacher's move and its rated moves
        soft *= cfg.bc.soft_weight
        soft[np.arange(len(actions)), actions] += 1.0 - cfg.bc.soft_weight
    policy = new_policy(cfg_d, rules, cfg.bc.learning_rate)
    warm = warm_start(policy, cfg.warm_start, cfg_d, rules) if cfg.warm_start else None
    writer = SummaryWriter(str(out / "tb" / "bc"))
    rng = np.random.default_rng(cfg.seed)
    n = len(actions)
    tensors = [torch.as_tensor(x) for x in (obs, masks, actions, to_come * cfg.reward_scale, weight, soft)]
    best, res, seen = -np.inf, None, 0
    total = n * cfg.bc.epochs
    rate = _lr_schedule(cfg.bc, total)
    for epoch in tqdm(range(1, cfg.bc.epochs + 1), desc="bc epochs", unit="epoch", disable=not progress):
        policy.set_training_mode(True)
        order = torch.as_tensor(rng.permutation(n))
        for s in range(0, n, cfg.bc.batch_size):
            o, m, a, v, w, p = (t[order[s:s + cfg.bc.batch_size]] for t in tensors)
            if callable(rate):
                for group in policy.optimizer.param_groups:
                    group["lr"] = rate(1.0 - seen / total)
            if p.shape[1]:      # cross-entropy against the target distribution
                values = policy.predict_values(o)
                log_prob = (p * policy.get_distribution(o, action_masks=m.numpy()).distribution.logits).sum(dim=1)
            else:
                values, log_prob, _ = policy.evaluate_actions(o, a, action_masks=m.numpy())
            value_loss = torch.nn.functional.mse_loss(values.flatten(), v)
            loss = -(w * log_prob).sum() / w.sum() + cfg.bc.value_coef * value_loss
            policy.optimizer.zero_grad()
            loss.backward()
            policy.optimizer.step()
            seen += len(a)
        policy.set_training_mode(False)
        res = evaluate(policy, cfg, rules)
        win = getattr(res, "win_share", None)
        for key, value in (("mean", res.mean), ("bonus_rate", res.bonus_rate), ("yacht_rate", res.yacht_rate),
                           ("gap_to_optimal", res.gap), ("win_share", win)):
            if value is not None:
                writer.add_scalar(f"eval/{key}", value, seen)
        writer.add_scalar("train/loss", loss.item(), seen)
        append_row(out / "curve.csv", {"timesteps": seen, "wall_seconds": round(time.time() - t0, 1),
                                       "eval_mean": res.mean, "eval_ci95": res.ci95, "bonus_rate": res.bonus_rate,
                                       "yacht_rate": res.yacht_rate, "pct_of_optimal": res.pct_of_optimal,
                                       "win_share": win, "win_ci95": getattr(res, "win_ci95", None)})
        where = f", {cfg.num_players} seats vs {', '.join(cfg.opponents)}" if cfg.num_players > 1 else ""
        plot_curve(out / "curve.csv", out / "curve.png", f"Behaviour cloning of {cfg.bc.teacher!r} on "
                   f"{rules.name!r}: {cfg.name}{where}", res.optimum, xlabel="training samples (millions)",
                   equal_share=1 / cfg.num_players if win is not None else None)
        tqdm.write(f"[epoch {epoch}, {time.time() - t0:.0f}s] eval: {res.line()}", file=sys.stderr)
        extra = {"wall_seconds": round(time.time() - t0, 1), "teacher_decisions": n, "epoch": epoch,
                 "eval": res.summary()}
        if res.score > best:
            best = res.score
            save_checkpoint(policy, seen, out / "best.pt", cfg_d, rules_d, with_optimizer=False, extra=extra)
            write_atomic(out / "best.json", json.dumps({"epoch": epoch, "score": res.score, **res.summary()}, indent=2)
                         + "\n", "best.json")
    save_checkpoint(policy, seen, out / "final.pt", cfg_d, rules_d, with_optimizer=False, extra=extra)
    writer.close()
    write_atomic(out / "run.json", json.dumps({
        "versions": _versions(), "algo": "bc", "rules": rules_block(rules, cfg.set), "teacher": cfg.bc.teacher,
        "teacher_game_seeds": f"game_seed({cfg.seed}, k)",
        "teacher_seat": "k % num_players" if cfg.num_players > 1 else 0, "torch_seed": cfg.seed,
        "eval_seed": cfg.eval_seed,
        "player": cfg.bc.player, "contrast": cfg.bc.contrast, "contrast_weight": cfg.bc.contrast_weight,
        "departures": int(departs.sum()) if cfg.bc.contrast else None,
        "soft_temperature": cfg.bc.soft_temperature,
        "soft_weight": cfg.bc.soft_weight if cfg.bc.soft_temperature is not None else None,
        "warm_start": warm, "teacher_decisions": n, "samples_seen": seen,
        "wall_seconds": round(time.time() - t0, 1)}, indent=2) + "\n", "run.json")
    return Trained(policy, res, out)
