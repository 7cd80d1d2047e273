"""Behaviour cloning (`algo: bc`): a policy that imitates a teacher agent, e.g. `strong`.

This is supervised learning from the teacher's moves, not reinforcement learning: its
models are labelled `bc` in their config and in reports, apart from the MaskablePPO agents.
The teacher plays `bc.games` solitaire games (seeds `game_seed(seed, k)`); every decision
is recorded as (observation, legal mask, teacher action, points still to come). The
network (the same actor-critic as PPO's, so `learned:PATH` plays it) is fit by masked
cross-entropy, its value head by squared error on the points to come x `reward_scale`.
Evaluation, curve, TensorBoard and model files are as for `yacht train` with PPO.
"""
import json
import sys
import time

import numpy as np

from .threads import set_torch_threads  # first: the OpenMP settings come before torch loads

import torch
from tqdm import tqdm

from yacht_env import Game
from yacht_env.core.actions import num_holds
from yacht_env.core.dice_source import game_seed
from yacht_env.envs.obs import dice_of_obs, observe_game
from yacht_env.envs.options import distinct, narrow_masks
from yacht_env.rules import rules_block
from yacht_env.safe_file import write_atomic

from ..base import View
from .checkpoint import model_record, new_policy, save_checkpoint
from .curve import append_row, plot_curve
from .evaluate import evaluate
from ..features import policy_input
from ..registry import make_agent
from .run import Trained, _lr_schedule, _versions, check_run_folder


def canonical_hold(rules, dice, hold: int) -> int:
    """The smallest hold pattern that keeps the same of `dice` (the rules' n dice) as `hold` (what
    distinct-hold masks allow)."""
    D = rules.dice_tables
    r = D.index(dice)
    keep = D.hold_keep[r, hold]
    for h in np.flatnonzero(distinct(D.n)[r]):
        if D.hold_keep[r, h] == keep:
            return int(h)
    raise ValueError(f"hold {hold} of dice {list(dice)} keeps nothing a hold action can keep")


def record_teacher(cfg, rules, progress: bool = True):
    """Play the teacher's games; returns (obs, masks, actions, to_come) arrays over all decisions."""
    teacher = make_agent(cfg.bc.teacher)
    obs, rolls, masks, actions, to_come = [], [], [], [], []
    holds, dice = num_holds(rules), rules.dice_tables
    for k in tqdm(range(cfg.bc.games), desc=f"teacher {cfg.bc.teacher}", unit="game", disable=not progress):
        game = Game(rules, 1, seed=game_seed(cfg.seed, k))
        teacher.reset(rules, 0, 1, seed=k)
        gains = []
        while not game.is_over:
            if game.phase == "roll":
                game.roll()
                continue
            view = View.of(game)
            a = int(teacher.act(view))
            if a < holds and cfg.distinct_holds:
                a = canonical_hold(rules, game.dice, a)
            obs.append(observe_game(game))
            rolls.append(dice.index(game.dice))
            masks.append(view.mask.astype(bool))
            actions.append(a)
            before = game.totals()[0]
            game.apply(a)
            gains.append(game.totals()[0] - before)
        to_come.extend(np.cumsum(gains[::-1])[::-1])     # points from each decision to the end
    masks = np.stack(masks)
    obs = np.stack(obs)
    if cfg.distinct_holds:
        masks = narrow_masks(masks, np.array(rolls), dice.n)
    return obs, masks, np.array(actions, np.int64), np.array(to_come, np.float32)


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
    obs, masks, actions, to_come = record_teacher(cfg, rules, progress)
    obs = policy_input(obs, dice_of_obs(obs, rules.dice), cfg_d, rules)
    policy = new_policy(cfg_d, rules, cfg.bc.learning_rate)
    writer = SummaryWriter(str(out / "tb" / "bc"))
    rng = np.random.default_rng(cfg.seed)
    n = len(actions)
    tensors = [torch.as_tensor(x) for x in (obs, masks, actions, to_come * cfg.reward_scale)]
    best, res, seen = -np.inf, None, 0
    total = n * cfg.bc.epochs
    rate = _lr_schedule(cfg.bc, total)
    for epoch in tqdm(range(1, cfg.bc.epochs + 1), desc="bc epochs", unit="epoch", disable=not progress):
        policy.set_training_mode(True)
        order = torch.as_tensor(rng.permutation(n))
        for s in range(0, n, cfg.bc.batch_size):
            o, m, a, v = (t[order[s:s + cfg.bc.batch_size]] for t in tensors)
            if callable(rate):
                for group in policy.optimizer.param_groups:
                    group["lr"] = rate(1.0 - seen / total)
            values, log_prob, _ = policy.evaluate_actions(o, a, action_masks=m.numpy())
            loss = -log_prob.mean() + cfg.bc.value_coef * torch.nn.functional.mse_loss(values.flatten(), v)
            policy.optimizer.zero_grad()
            loss.backward()
            policy.optimizer.step()
            seen += len(a)
        policy.set_training_mode(False)
        res = evaluate(policy, cfg, rules)
        for key, value in (("mean", res.mean), ("bonus_rate", res.bonus_rate), ("yacht_rate", res.yacht_rate),
                           ("gap_to_optimal", res.gap), ("loss", loss.item())):
            if value is not None:
                writer.add_scalar(f"eval/{key}" if key != "loss" else "train/loss", value, seen)
        append_row(out / "curve.csv", {"timesteps": seen, "wall_seconds": round(time.time() - t0, 1),
                                       "eval_mean": res.mean, "eval_ci95": res.ci95, "bonus_rate": res.bonus_rate,
                                       "yacht_rate": res.yacht_rate, "pct_of_optimal": res.pct_of_optimal})
        plot_curve(out / "curve.csv", out / "curve.png", f"Behaviour cloning of {cfg.bc.teacher!r} on "
                   f"{rules.name!r}: {cfg.name}", res.optimum, xlabel="training samples (millions)")
        tqdm.write(f"[epoch {epoch}, {time.time() - t0:.0f}s] eval: {res.line()}", file=sys.stderr)
        extra = {"wall_seconds": round(time.time() - t0, 1), "teacher_decisions": n, "epoch": epoch,
                 "eval": res.summary()}
        if res.mean > best:
            best = res.mean
            save_checkpoint(policy, seen, out / "best.pt", cfg_d, rules_d, with_optimizer=False, extra=extra)
            write_atomic(out / "best.json", json.dumps({"epoch": epoch, **res.summary()}, indent=2) + "\n", "best.json")
    save_checkpoint(policy, seen, out / "final.pt", cfg_d, rules_d, with_optimizer=False, extra=extra)
    writer.close()
    write_atomic(out / "run.json", json.dumps({
        "versions": _versions(), "algo": "bc", "rules": rules_block(rules, cfg.set), "teacher": cfg.bc.teacher,
        "teacher_game_seeds": f"game_seed({cfg.seed}, k)", "torch_seed": cfg.seed, "eval_seed": cfg.eval_seed,
        "teacher_decisions": n, "samples_seen": seen,
        "wall_seconds": round(time.time() - t0, 1)}, indent=2) + "\n", "run.json")
    return Trained(policy, res, out)
