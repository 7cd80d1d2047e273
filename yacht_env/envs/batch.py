"""The one-seat kernel of the table core: N solitaire games stepped by one compiled loop.

`yacht_env.envs.solo.SoloStepper` runs the table core's one-seat case (`Yacht-v0`, its vector env, the SB3
adapter) on these entry points. The games are the tables of a one-seat `yacht_env.core.engine.State`,
changed by the engine's transition (`play_action`, `roll_seeded`); a step here also writes what an
environment needs around it in the same pass: the observation and mask, rewards, and (with autoreset)
the next episode of the game's stream. The two entry points are compiled without numba's reference
counting (`_nrt=False`: they allocate nothing and every array outlives the call); the tables come as
one `yacht_env.envs.board.Board`, the step's arrays as plain tuples laid out as a `SoloRows` and a `Finals`
(the one-seat stepper builds them at every fresh step, and a plain tuple is the cheaper to build).

Seeding: a game belongs to a *stream*; episode k of the stream seeded s deals the dice of
`yacht_env.core.dice_source.game_seed(s, k)`, i.e. the same dice as `Game(rules, seed=game_seed(s, k))`
given the same moves.

A step: an action of `yacht_env.core.actions` is played; after a scoring move the next turn's first roll is
made at once, so every state the agent sees has dice to decide on.
"""

from typing import NamedTuple

import numba as nb
import numpy as np

from ..core.actions import score_action_of
from ..core.engine import ALLOWED, ROLL, ROLLS_USED, TURN, play_action, roll_seeded
from ..core.kernels import SEED_START, seed_step
from .obs import write_obs
from .step_threads import post

# streams[i] columns
STREAM, EPISODE = 0, 1


class SoloRows(NamedTuple):
    """What a one-seat step writes for every game i (`step_games`), and `reset_games` the obs and mask of.

    rewards[i]       float32  the step's reward
    terminated[i]    bool     the game ended at this step
    illegal[i]       bool     the action was illegal (nothing was played)
    obs[i]           float32  the observation now (`yacht_env.envs.obs`)
    mask[i]          int8     the legal actions now (all 1 once the game is over)
    final_total[i]   int64    the score of the game that last ended
    """
    rewards: np.ndarray
    terminated: np.ndarray
    illegal: np.ndarray
    obs: np.ndarray
    mask: np.ndarray
    final_total: np.ndarray


class Finals(NamedTuple):
    """The rows of a one-seat step's info (`step_games`, written only with clear_final).

    final_obs[i]     float32  an ended game's last observation (with autoreset), else zeros
    final_mask[i]    int8     all 1 on an ended game's row, else zeros
    final_seed[i]    uint64   an ended game's dice seed, else 0
    final_score[i]   int64    an ended game's score, else 0
    total[i]         int64    game i's score after the step
    seed[i]          uint64   game i's dice seed after the step
    """
    final_obs: np.ndarray
    final_mask: np.ndarray
    final_seed: np.ndarray
    final_score: np.ndarray
    total: np.ndarray
    seed: np.ndarray


@nb.njit(cache=True)
def stream_seed(stream, k):
    """`dice_source.game_seed(stream, k)` in compiled code: the seed of episode k of a stream."""
    return seed_step(seed_step(SEED_START, stream), k)


@nb.njit(cache=True, inline="always")
def _new_game(B, i, streams):
    """Start episode streams[i, EPISODE] of stream streams[i, STREAM] and make its first roll."""
    E = B.E
    E.seeds[i] = stream_seed(streams[i, STREAM], streams[i, EPISODE])
    E.scores[i] = -1
    E.cols[i] = 0
    E.totals[i] = 0
    E.ints[i, TURN] = 0
    E.ints[i, ROLLS_USED] = 0
    roll_seeded(B.T, E, i, 0, 1, 0)


@nb.njit(cache=True, inline="always")
def _write(B, look, i, obs, mask):
    """Observation and action mask of game i (all actions marked legal once the game is over)."""
    E, T = B.E, B.T
    ints, preview = E.ints, E.preview
    write_obs(B, look, ints[i, ROLL], ints[i, ALLOWED] - ints[i, ROLLS_USED], ints[i, TURN], E.scores[i, 0], preview[i],
              E.cols[i, 0], obs[i])
    over = ints[i, TURN] == look.rounds
    hold = 1 if over or ints[i, ROLLS_USED] < ints[i, ALLOWED] else 0
    holds = T.dice.n_holds - 1                  # every hold pattern but all dice (score instead); a constant
    for h in range(holds):
        mask[i, h] = hold
    nbox = T.n_boxes
    for c in range(preview.shape[1]):
        for b in range(nbox):
            mask[i, score_action_of(nbox, c, b, holds)] = 1 if over or preview[i, c, b] >= 0 else 0


@nb.njit(cache=True, _nrt=False)
def reset_games(B, look, which, streams, obs, mask):
    """Start a new game in every slot i with which[i] (episode streams[i, EPISODE] of its stream) of a
    one-seat `Board` B; look: `obs.ObsArgs`."""
    for i in range(which.shape[0]):
        if which[i]:
            _new_game(B, i, streams)
            _write(B, look, i, obs, mask)


@nb.njit(cache=True, _nrt=False, nogil=True)
def step_games(lo, hi, ctrl, B, look, params, actions, streams, out, finals):
    """Step games lo..hi-1 of a one-seat `Board` B once (look: `obs.ObsArgs`; out: a `SoloRows`' arrays).

    ctrl: the `step_threads.SliceThreads` counters (the step runs as one of its slices).

    params = (terminal_reward, penalty, autoreset, clear_final): with terminal_reward the reward is
    the final total on the last move and 0 before; an illegal action gives -penalty and changes nothing;
    with autoreset a finished game's last observation goes to finals.final_obs[i] and episode + 1 starts
    at once. out.final_total[i] is set to the score of every game that ends.

    finals (a `Finals`' arrays): the rows of a step's info, written only with clear_final. The final info: a finished
    game's row has every action legal, its dice seed and its score (and, with autoreset, its last
    observation); the rows of the other games are zeros. The final arrays come in as an earlier step left
    them (zeros, or the final info of that step: a row with final_mask[i, 0] set is one it wrote), so only
    those rows are cleared.
    """
    post(ctrl)
    T, E = B.T, B.E
    final_obs, final_mask, final_seed, final_score, total, seed = finals
    rewards, terminated, illegal, obs, mask, final_total = out
    ints, totals = E.ints, E.totals
    rounds, holds = look.rounds, B.T.dice.n_holds - 1
    terminal_reward, penalty, autoreset, clear_final = params[0] != 0, params[1], params[2] != 0, params[3] != 0
    for i in range(lo, hi):
        a = actions[i]
        gain = play_action(T, E, B.ypts, 1, 1, i, a)
        legal = gain >= 0
        done = False
        if legal and a >= holds:
            if ints[i, TURN] == rounds:
                done = True
                ints[i, ROLLS_USED] = ints[i, ALLOWED]      # the last observation shows no rolls left
            else:
                roll_seeded(T, E, i, 0, 1, 0)
        illegal[i] = not legal
        terminated[i] = done
        if not legal:
            rewards[i] = -penalty
        elif terminal_reward:
            rewards[i] = totals[i, 0] if done else 0.0
        else:
            rewards[i] = gain
        if done:
            final_total[i] = totals[i, 0]
        dirty = clear_final and final_mask[i, 0] != 0     # the row of a game that ended when the arrays were last used
        if clear_final and done:
            final_mask[i] = 1
            final_seed[i] = E.seeds[i]
            final_score[i] = totals[i, 0]
        elif dirty:
            final_mask[i] = 0
            final_seed[i] = 0
            final_score[i] = 0
        if done and autoreset:
            _write(B, look, i, final_obs, mask)
            streams[i, EPISODE] += 1
            _new_game(B, i, streams)
        elif dirty:
            final_obs[i] = 0.0
        _write(B, look, i, obs, mask)
        if clear_final:
            total[i] = totals[i, 0]
            seed[i] = E.seeds[i]


@nb.njit(cache=True)
def random_legal(mask, u, out):
    """out[i] = the legal action of row i picked by the uniform number u[i] in [0, 1)."""
    for i in range(mask.shape[0]):
        n = 0
        for a in range(mask.shape[1]):
            n += mask[i, a]
        k = int(u[i] * n)
        for a in range(mask.shape[1]):
            if mask[i, a]:
                if k == 0:
                    out[i] = a
                    break
                k -= 1
