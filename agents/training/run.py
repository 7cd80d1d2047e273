"""`train(config)`: MaskablePPO on the batched Yacht env, with evaluation, checkpoints and resume.

Alone (`num_players: 1`) it trains on `yacht_env.integrations.sb3.YachtVecEnv` (with `rule_variants`, on several
rule sets side by side: `agents.training.variants`); at a table on
`yacht_env.integrations.sb3.YachtVsVecEnv`, the learner at one seat and the opponents (agent specs) at the
others, with the reward the config names (points, or win: +1 / 0 / -1 at the end).

Files written under the config's `out` folder:

    config.json         the checked config and the rule set, as trained
    run.json            seeds, library versions, and every start / resume: its step count, device, how it
                        ended (finished, interrupted: Ctrl-C or SIGTERM, failed: with the error) and the
                        curriculum stages it entered (`stages`: step and stage index, with a curriculum)
    tb/                 TensorBoard logs (SB3's train/* and rollout/*, plus eval/*)
    curve.csv, curve.png  evaluation results against env steps
    checkpoints/step_N.pt, last.pt   resumable checkpoints (weights + optimizer state)
    best.pt, best.json  the best-evaluated policy (play-only) and its evaluation
    final.pt            the policy at the end of training (play-only)
    stuck-after-sigterm.txt  only when a run did not exit within a minute of SIGTERM: where each thread stood
"""
import atexit
import faulthandler
import json
import os
import platform
import signal
import sys
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .threads import set_torch_threads  # first: the OpenMP settings come before torch loads

import torch

from yacht_env.core.actions import num_actions
from yacht_env.config import check_memory
from yacht_env.rules import load, rules_block
from yacht_env.safe_file import FileRefused, NoSuchFile, open_rw, read_text, write_atomic

from ..features import FEATURES, extra_size, observation_size
from ..provenance import check_unchanged, digests, rules_files, spec_files
from ..registry import make_agent
from .callbacks import TrainLoop
from .checkpoint import ModelFileError, load_checkpoint, model_record, policy_kwargs, save_checkpoint
from .config import ConfigError, TrainConfig, variant_rules
from .features import InputFeatures, beyond_env, env_options
from .league import League, LeagueCallback
from .reward import ScaleReward, UpperParShaping
from .variants import Curriculum, MixedRulesVecEnv, stage_weights
from .warm import warm_start


@dataclass(frozen=True)
class Trained:
    """What `train` returns: the model, its last evaluation and the run folder."""
    model: object
    evaluation: object
    out: Path


def make_vec_env(cfg: TrainConfig, rules, seed: int, start: int = 0, league: League | None = None):
    """The SB3 VecEnv a config trains on: the batched solitaire env (reward per step = points gained), its
    rule variants side by side as the curriculum shares them out at step `start` (`MixedRulesVecEnv`), or
    `cfg.n_envs` tables of `cfg.num_players` seats with the opponents inside the step (`opponents`, or the
    `league` at every other seat, bound to the env's tables), with the env options of the config
    (`features.env_options`)."""
    from yacht_env.integrations.sb3 import YachtVecEnv, YachtVsVecEnv   # imports SB3: only when a run trains
    options = env_options(cfg.to_dict())       # distinct holds, the dice one-hot, the rule knobs, when asked
    if cfg.rule_variants:
        return MixedRulesVecEnv(variant_rules(cfg), cfg.n_envs, stage_weights(cfg, start), seed, **options)
    if cfg.num_players == 1:
        return YachtVecEnv(cfg.n_envs, rules=rules, seed=seed, **options)
    try:
        venv = YachtVsVecEnv(cfg.n_envs, rules=rules, num_players=cfg.num_players,
                             opponents=league if league is not None else opponents(cfg, rules),
                             seat=cfg.seat, reward=cfg.reward, seed=seed, num_threads=cfg.env_threads, **options)
    except ConfigError:
        raise
    except ValueError as e:
        raise ConfigError(f"opponents: {e}") from None
    if league is not None:
        league.bind(venv.env.core)
    return venv


def opponents(cfg: TrainConfig, rules):
    """The opponents of a table config, prepared for its table (a model that cannot play it is refused
    here, with its one-line error): batched agents as agents -- one spec for every other seat is one
    agent, so a `strong` opponent plays in compiled code -- and per-game agents as their specs (one
    instance per table)."""
    out = []
    for spec in cfg.opponents:
        agent = make_agent(spec)
        if not agent.batched:
            agent.close()
            out.append(spec)
            continue
        try:
            agent.prepare(rules, cfg.num_players)
        except ValueError as e:
            raise ConfigError(f"opponents: {spec}: {e}") from None
        out.append(agent)
    return out[0] if len(out) == 1 else out


class LinearSchedule:
    """The learning rate as SB3 asks for it (`schedule(progress_remaining)`, progress_remaining = 1 - steps / total
    where total is the run's step total): `begin` at step `start`, linearly to `end` at step `total`, and `end`
    from there on (the last rollout may end past the total: the rate never passes its end value). A resumed run
    starts at the rate its checkpoint's optimizer was at, so the schedule continues, whatever the new total."""

    def __init__(self, begin: float, end: float, start: int, total: int):
        self.begin, self.end, self.start, self.total = float(begin), float(end), int(start), int(total)

    def __call__(self, progress_remaining: float) -> float:
        steps = (1.0 - progress_remaining) * self.total
        done = min(max((steps - self.start) / max(self.total - self.start, 1), 0.0), 1.0)
        return self.begin + (self.end - self.begin) * done


def _lr_schedule(ppo, total: int, start: int = 0, resumed_at: float | None = None):
    """A constant rate, or `LinearSchedule` to `final_learning_rate` (from the rate a resumed run was at)."""
    if ppo.final_learning_rate is None:
        return ppo.learning_rate
    begin = ppo.learning_rate if resumed_at is None else resumed_at
    return LinearSchedule(begin, ppo.final_learning_rate, start, total)


def _device(cfg: TrainConfig) -> str:
    """The torch device of `cfg.device`: auto is cuda when torch sees a GPU, else cpu; cuda without one is a
    ConfigError."""
    if cfg.device == "cuda" and not torch.cuda.is_available():
        raise ConfigError(f"device: cuda, but torch {torch.__version__} sees no GPU (write device: auto or cpu)")
    return "cuda" if cfg.device == "auto" and torch.cuda.is_available() else \
        "cpu" if cfg.device == "auto" else cfg.device


MAX_RUN_BYTES = 1 << 20


def read_run(path) -> dict | None:
    """A run folder's run.json (None when there is none), a regular file of at most MAX_RUN_BYTES holding
    an object with a list of `starts`; anything else is a `ConfigError` naming the file."""
    try:
        text = read_text(path, MAX_RUN_BYTES, "run.json")
    except NoSuchFile:
        return None
    try:
        run = json.loads(text)
    except (ValueError, RecursionError):
        run = None
    if not isinstance(run, dict) or not isinstance(run.get("starts"), list):
        raise ConfigError(str(path), "starts", "must be a list in a JSON object; the run record is damaged")
    return run


def _versions() -> dict:
    import sb3_contrib          # SB3 and its contrib: only when a run records its versions
    import stable_baselines3
    return {"python": platform.python_version(), "torch": torch.__version__, "numpy": np.__version__,
            "stable_baselines3": stable_baselines3.__version__, "sb3_contrib": sb3_contrib.__version__}


TERM_GRACE_SECONDS = 60            # after SIGTERM, the time a run has to write last.pt and exit
STUCK_FILE = "stuck-after-sigterm.txt"


@contextmanager
def _terminate_as_interrupt(out: Path):
    """While training in the main thread, SIGTERM (`kill`, `timeout`, a job scheduler; background jobs of
    a shell ignore Ctrl-C) stops the run as Ctrl-C does, so the last checkpoint is written first.

    SIGTERM still ends the process: a second one ends it at once (its default action restored), and a
    process still up TERM_GRACE_SECONDS later is ended by faulthandler's watchdog (exit status 1), which
    runs without the interpreter and first writes every thread's stack to `out/STUCK_FILE`. A process
    that exits in time removes that file, then empty but for its first line."""
    if threading.current_thread() is not threading.main_thread() or \
            signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
        yield
        return

    def interrupt(signum, frame):
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        _watch_the_exit(Path(out) / STUCK_FILE)
        raise KeyboardInterrupt

    old = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)


def _watch_the_exit(path: Path) -> None:
    """End the process in TERM_GRACE_SECONDS, writing the threads' stacks to `path` (stderr if it is refused)."""
    try:
        fd = open_rw(path, "note of a stuck exit")
    except (OSError, FileRefused):
        fd = None
    if fd is not None:
        head = (f"The run did not exit within {TERM_GRACE_SECONDS} s of SIGTERM and was ended; where each "
                f"thread stood:\n\n").encode()
        os.ftruncate(fd, 0)
        os.write(fd, head)
        atexit.register(_forget_stuck_note, path, fd, len(head))
    faulthandler.dump_traceback_later(TERM_GRACE_SECONDS, exit=True, file=fd if fd is not None else sys.stderr)


def _forget_stuck_note(path: Path, fd: int, head: int) -> None:
    """At a normal exit: the watchdog's file holds only its first line (`head` bytes), so it goes."""
    faulthandler.cancel_dump_traceback_later()
    if os.fstat(fd).st_size == head:
        try:
            os.unlink(path)
        except OSError:
            pass
    os.close(fd)


def _check_resume(doc: dict, cfg: TrainConfig, rules, path) -> None:
    if doc["config"]["policy"] != cfg.to_dict()["policy"]:
        raise ConfigError(f"cannot resume from {path}: it was trained with policy {doc['config']['policy']}, "
                          f"the config asks for {cfg.to_dict()['policy']}")
    asks = cfg.to_dict()
    for key, default in (("num_players", 1), ("opponents", []), ("reward", "points"), ("seat", "rotate"),
                         ("table_obs", "summary"), ("rule_variants", []), ("curriculum", []), ("league", None)):
        if doc["config"].get(key, default) != asks.get(key, default):   # a run without a league records none
            raise ConfigError(f"cannot resume from {path}: it was trained with {key} {doc['config'].get(key, default)}"
                              f", the config asks for {asks.get(key, default)}")
    for key in FEATURES:
        if doc["config"].get(key, False) != cfg.to_dict()[key]:
            raise ConfigError(f"cannot resume from {path}: it was trained with {key} "
                              f"{doc['config'].get(key, False)}, the config asks for {cfg.to_dict()[key]}")
    if load(doc["rules"]) != rules:
        raise ConfigError(f"cannot resume from {path}: it was trained on rules {doc['rules']['name']!r} "
                          f"with other settings than the config's {rules.name!r}")
    if "optimizer" not in doc:
        raise ConfigError(f"cannot resume from {path}: it is a play-only model file (no optimizer state); "
                          "resume from a checkpoint (last.pt or checkpoints/step_N.pt)")
    if doc["num_timesteps"] >= cfg.total_timesteps:
        raise ConfigError(f"nothing to do: {path} is at {doc['num_timesteps']} steps and the config's "
                          f"total_timesteps is {cfg.total_timesteps}")


RUN_FILES = ("run.json", "curve.csv", "best.json", "last.pt", "best.pt", "final.pt")


def check_run_folder(out: Path, resume=None, force: bool = False) -> None:
    """Refuse a fresh run (no `resume`) into a folder that holds another training run: its curve would be
    mixed with the new one's and its record forgotten. `force` starts afresh there knowingly: the old
    curve and best score are removed (its model files are replaced as the new run writes its own)."""
    out = Path(out)
    if resume is not None:
        return
    found = [n for n in RUN_FILES if (out / n).exists() or (out / n).is_symlink()]
    if not found:
        return
    if not force:
        more = f" and {len(found) - 1} more" if len(found) > 1 else ""
        raise ConfigError(str(out), f"holds another training run ({found[0]}{more}); a fresh run there would mix "
                                    f"its curve with that one's and forget it: resume it with --resume "
                                    f"{out / 'last.pt'}, give the config another out_dir, or rerun with --force to "
                                    f"start afresh in it (its curve and best score are replaced)")
    for name in ("curve.csv", "curve.png", "best.json", "run.json"):
        try:
            (out / name).unlink(missing_ok=True)
        except IsADirectoryError:
            raise ConfigError(str(out / name), "is a folder; a training run writes a file there") from None


BASE_BYTES = 768 << 20        # torch, Stable-Baselines3, the compiled env and the network
TABLE_BYTES = 16 << 10        # one table of the env or of the evaluation (the engine's arrays, per seat and more)


def memory_needed(cfg: TrainConfig, rules) -> int:
    """Bytes a training run needs at most, estimated before it starts: the program, one rollout as
    MaskablePPO keeps it (observations, action masks and a few numbers per step, float32, with the copy it
    makes to shuffle minibatches), the env's tables and the evaluation's."""
    sheets = 1 if cfg.num_players == 1 else rules.check_players(cfg.num_players)
    per_step = observation_size(rules, sheets) + extra_size(cfg.to_dict(), rules) + num_actions(rules) + 8
    rollout = cfg.ppo.n_steps * cfg.n_envs if cfg.algo == "ppo" else 0
    return (BASE_BYTES + 2 * rollout * per_step * 4
            + (cfg.n_envs + cfg.eval_games) * max(1, cfg.num_players) * TABLE_BYTES)


def run_files(cfg: TrainConfig) -> dict:
    """{file: sha256} of the files a training run depends on besides its config: its opponents' model files
    and bot scripts, the model it starts from and its rules file (`agents.provenance`)."""
    specs = list(cfg.opponents) + ([f"learned:{cfg.warm_start}"] if cfg.warm_start else []) + \
        (list(cfg.league.specs) if cfg.league is not None else [])
    return digests(spec_files(specs) + rules_files(cfg.rules))


def train(cfg: TrainConfig, resume=None, progress: bool = True, force: bool = False):
    """Train per `cfg` (resuming from checkpoint `resume` if given); returns a `Trained`.

    A fresh run into a folder that holds another run is refused (`check_run_folder`; `force` starts afresh).
    A resumed run is refused when a file it depends on (`run_files`) changed since it began, naming it,
    unless `force`. A run whose estimated memory (`memory_needed`) the machine does not have is refused
    before anything is built."""
    from sb3_contrib import MaskablePPO   # SB3's contrib: only when a run trains

    rules = cfg.ruleset
    out = cfg.out_dir
    check_run_folder(out, resume, force)
    check_memory("training config", "n_envs", memory_needed(cfg, rules),
                 f"{cfg.n_envs:,} envs x {cfg.ppo.n_steps:,} steps a rollout and {cfg.eval_games:,} evaluation games")
    doc = None
    if resume is not None:
        try:
            doc = load_checkpoint(resume)
        except ModelFileError as e:
            raise ConfigError(f"cannot resume: {e}") from e
        _check_resume(doc, cfg, rules, resume)
    run_file = out / "run.json"
    run = (read_run(run_file) if doc else None) or {"versions": _versions(), "starts": []}
    if doc and run.get("files") is not None:
        check_unchanged(run["files"], str(run_file), force)   # before anything is built or written
    run["files"] = run_files(cfg)
    device = _device(cfg)
    out.mkdir(parents=True, exist_ok=True)
    set_torch_threads(cfg.torch_threads)
    start = doc["num_timesteps"] if doc else 0
    wall0 = doc["extra"].get("wall_seconds", 0.0) if doc else 0.0
    env_seed = cfg.seed + start            # a resumed run deals fresh games, reproducibly
    league = League(cfg, rules, out, resume=doc is not None) if cfg.league is not None else None
    venv = make_vec_env(cfg, rules, env_seed, start, league)
    shared = venv                                   # what a curriculum shares out anew (under the wrappers)
    if cfg.upper_shaping:
        venv = UpperParShaping(venv, rules, cfg.upper_shaping)
    if cfg.reward_scale != 1.0:
        venv = ScaleReward(venv, cfg.reward_scale)
    trainer_side = beyond_env(cfg.to_dict())        # the env gives distinct holds and the dice one-hot itself
    if any(trainer_side[key] for key in FEATURES):
        venv = InputFeatures(venv, trainer_side, rules)
    p = cfg.ppo
    resumed_at = doc["optimizer"]["param_groups"][0].get("lr") if doc else None
    model = MaskablePPO(
        "MlpPolicy", venv, learning_rate=_lr_schedule(p, cfg.total_timesteps, start, resumed_at), n_steps=p.n_steps,
        batch_size=p.batch_size,
        n_epochs=p.n_epochs, gamma=p.gamma, gae_lambda=p.gae_lambda, clip_range=p.clip_range, ent_coef=p.ent_coef,
        vf_coef=p.vf_coef, max_grad_norm=p.max_grad_norm, normalize_advantage=p.normalize_advantage,
        policy_kwargs=policy_kwargs(cfg.to_dict()["policy"]), tensorboard_log=str(out / "tb"),
        seed=cfg.seed + start, verbose=0, device=device)
    warm = None
    if doc:
        model.policy.load_state_dict(doc["policy"])
        model.policy.optimizer.load_state_dict(doc["optimizer"])
        model.num_timesteps = start
    elif cfg.warm_start:
        warm = warm_start(model.policy, cfg.warm_start, cfg.to_dict(), rules)
    if league is not None:
        league.attach(model.policy, start)
    cfg_d, rules_d = model_record(cfg, rules)
    write_atomic(out / "config.json", json.dumps({"config": cfg_d, "rules": rules_d}, indent=2) + "\n", "config.json")
    run["starts"].append({"at_timesteps": start, "resumed_from": str(resume) if resume else None,
                          "rules": rules_block(rules, cfg.set),
                          "model_seed": cfg.seed + start, "env_seed": env_seed, "eval_seed": cfg.eval_seed,
                          "warm_start": warm, "device": device,
                          "started": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime())})
    write_atomic(run_file, json.dumps(run, indent=2) + "\n", "run.json")

    loop = TrainLoop(cfg, rules, out, total=cfg.total_timesteps, start=start, wall_offset=wall0,
                     progress=progress)
    curriculum = Curriculum(shared, cfg, cfg.seed, start) if cfg.curriculum else None
    callbacks = [loop] + ([curriculum] if curriculum else []) + ([LeagueCallback(league, start)] if league else [])
    ended, error = "failed", None
    try:
        with _terminate_as_interrupt(out):
            model.learn(cfg.total_timesteps - start, callback=callbacks, reset_num_timesteps=doc is None,
                        tb_log_name="ppo")
        if loop.last_eval_at != model.num_timesteps:
            loop.run_eval()
        extra = {**loop.extra(), "timesteps": model.num_timesteps, "eval": loop.last_eval.summary()}
        save_checkpoint(model.policy, model.num_timesteps, out / "last.pt", cfg_d, rules_d, extra=extra)
        save_checkpoint(model.policy, model.num_timesteps, out / "final.pt", cfg_d, rules_d, with_optimizer=False,
                        extra=extra)
        ended = "finished"
    except KeyboardInterrupt:
        ended = "interrupted"
        loop.save_checkpoint()           # Ctrl-C or SIGTERM keeps the work: resume from last.pt
        raise
    except BaseException as e:
        error = f"{type(e).__name__}: {str(e).splitlines()[0][:300] if str(e) else ''}"
        raise
    finally:
        run["starts"][-1].update({"ended": ended, "ended_at_timesteps": model.num_timesteps,
                                  "wall_seconds": round(loop.wall(), 1) if hasattr(loop, "t0") else 0.0,
                                  "torch_threads": torch.get_num_threads(),    # held from the start: threads.py
                                  **({"error": error} if error else {}),
                                  **({"stages": [{"at_timesteps": n, "stage": s} for n, s in curriculum.stages]}
                                     if curriculum else {}),
                                  "ended_at": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime())})
        write_atomic(run_file, json.dumps(run, indent=2) + "\n", "run.json")
        venv.close()
    return Trained(model, loop.last_eval, out)
