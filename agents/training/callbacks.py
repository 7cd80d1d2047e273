"""SB3 callbacks for `yacht train`: progress bar, periodic evaluation, checkpoints."""
import json
import sys
import time
from pathlib import Path

import numpy as np
from stable_baselines3.common.callbacks import BaseCallback
from tqdm import tqdm

from yacht_env.config import ConfigError
from yacht_env.safe_file import NoSuchFile, read_text, write_atomic

from .checkpoint import model_record, save_checkpoint
from .curve import append_row, plot_curve
from .evaluate import evaluate

MAX_BEST_BYTES = 1 << 16


def read_best(path) -> float:
    """The best evaluation score kept in a run folder's best.json (-inf when there is none). A file that
    is not a regular file, too large, or not such a record is a `ConfigError` naming it."""
    try:
        text = read_text(path, MAX_BEST_BYTES, "best.json")
    except NoSuchFile:
        return -np.inf
    try:
        best = json.loads(text)
        score = best.get("score", best.get("mean"))
    except (ValueError, RecursionError, AttributeError):
        score = None
    if isinstance(score, bool) or not isinstance(score, (int, float)) or not np.isfinite(score):
        raise ConfigError(str(path), "score", "must be a finite number; the file is damaged (delete it to start "
                                              "the best model afresh)")
    return float(score)


class TrainLoop(BaseCallback):
    """Tracks training episode returns (= game scores), evaluates and saves on a step schedule.

    Every `eval_every` env steps (and at step 0 of a warm-started run) it plays the fixed evaluation
    games, logs the results to TensorBoard (`eval/*`), the CSV log and the PNG curve, and keeps the
    best model as `best.pt` (by mean score alone, by win share at a table); every `checkpoint_every`
    steps it writes `checkpoints/step_N.pt` and `last.pt`. At a table with `reward: win` the training
    returns are the games' outcomes (+1 / 0 / -1), not scores.
    """

    def __init__(self, cfg, rules, out: Path, total: int, start: int = 0, wall_offset: float = 0.0,
                 progress: bool = True):
        super().__init__()
        self.cfg, self.rules, self.out = cfg, rules, Path(out)
        self.total, self.start, self.wall_offset = total, start, wall_offset
        self.show = progress
        self.returns: list[float] = []
        self.next_eval = (start // cfg.eval_every + 1) * cfg.eval_every
        self.next_ckpt = (start // cfg.checkpoint_every + 1) * cfg.checkpoint_every
        self.best = -np.inf
        self.best = read_best(self.out / "best.json")
        self.last_eval = None
        self.last_eval_at = -1

    # ---- SB3 hooks ------------------------------------------------------------------------
    def _on_training_start(self) -> None:
        self.t0 = time.time()
        self.bar = tqdm(total=self.total, initial=self.start, unit="step", unit_scale=True, desc="train",
                        disable=not self.show, dynamic_ncols=True)
        if self.cfg.warm_start and self.start == 0:
            self.run_eval()              # where the starting weights stand

    def _on_step(self) -> bool:
        for info in self.locals["infos"]:
            if "episode" in info:
                self.returns.append(float(info["episode"]["r"]))
        self.bar.update(self.training_env.num_envs)
        if self.returns and self.n_calls % 50 == 0:
            mean = np.mean(self.returns[-500:])
            shown = {"outcome": f"{mean:.3f}"} if self.cfg.reward == "win" else {"score": f"{mean:.1f}"}
            self.bar.set_postfix(shown, refresh=False)
        if self.num_timesteps >= self.next_eval:
            self.next_eval += self.cfg.eval_every
            self.run_eval()
        if self.num_timesteps >= self.next_ckpt:
            self.next_ckpt += self.cfg.checkpoint_every
            self.save_checkpoint()
        return True

    def _on_rollout_end(self) -> None:
        if self.returns:
            what = "game_outcome" if self.cfg.reward == "win" else "game_score"
            self.logger.record(f"rollout/{what}", float(np.mean(self.returns[-500:])))

    def _on_training_end(self) -> None:
        self.bar.close()

    # ---- work -----------------------------------------------------------------------------
    def wall(self) -> float:
        return self.wall_offset + time.time() - self.t0

    def extra(self) -> dict:
        return {"wall_seconds": round(self.wall(), 1), "games": len(self.returns)}

    def save_checkpoint(self) -> Path:
        cfg_d, rules_d = model_record(self.cfg, self.rules)
        pol, n = self.model.policy, self.num_timesteps
        path = save_checkpoint(pol, n, self.out / "checkpoints" / f"step_{n}.pt", cfg_d, rules_d, extra=self.extra())
        save_checkpoint(pol, n, self.out / "last.pt", cfg_d, rules_d, extra=self.extra())
        return path

    def run_eval(self):
        res = evaluate(self.model.policy, self.cfg, self.rules)
        self.last_eval, self.last_eval_at = res, self.num_timesteps
        train_mean = float(np.mean(self.returns[-1000:])) if self.returns else None
        win = getattr(res, "win_share", None)
        for key, value in (("mean", res.mean), ("ci95", res.ci95), ("bonus_rate", res.bonus_rate),
                           ("yacht_rate", res.yacht_rate), ("gap_to_optimal", res.gap),
                           ("pct_of_optimal", res.pct_of_optimal), ("win_share", win)):
            if value is not None:
                self.logger.record(f"eval/{key}", value)
        self.logger.dump(self.num_timesteps)
        append_row(self.out / "curve.csv", {
            "timesteps": self.num_timesteps, "wall_seconds": round(self.wall(), 1), "train_mean": train_mean,
            "eval_mean": res.mean, "eval_ci95": res.ci95, "bonus_rate": res.bonus_rate,
            "yacht_rate": res.yacht_rate, "pct_of_optimal": res.pct_of_optimal,
            "win_share": win, "win_ci95": getattr(res, "win_ci95", None)})
        where = f", {self.cfg.num_players} seats vs {', '.join(self.cfg.opponents)}" if self.cfg.num_players > 1 else ""
        plot_curve(self.out / "curve.csv", self.out / "curve.png", f"MaskablePPO on {self.rules.name!r}: "
                   f"{self.cfg.name}{where}", res.optimum, equal_share=1 / self.cfg.num_players if win is not None
                   else None)
        self.bar.write(f"[{self.num_timesteps} steps, {self.wall():.0f}s] eval: {res.line()}", file=sys.stderr)
        if res.score > self.best:
            self.best = res.score
            cfg_d, rules_d = model_record(self.cfg, self.rules)
            save_checkpoint(self.model.policy, self.num_timesteps, self.out / "best.pt", cfg_d, rules_d,
                            with_optimizer=False,
                            extra={**self.extra(), "timesteps": self.num_timesteps, "eval": res.summary()})
            write_atomic(self.out / "best.json", json.dumps({"timesteps": self.num_timesteps, "score": res.score,
                                                              **res.summary()}, indent=2) + "\n", "best.json")
        return res
