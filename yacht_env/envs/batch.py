"""N solitaire games stepped by one compiled loop: the engine of `Yacht-v0`, its vector env and the SB3 adapter.

The games are the tables of a one-seat `yacht_env.core.engine.State`, changed by the engine's transition
(`play_action`, `roll_seeded`); this module adds what an environment needs around it: a stream of
episodes per game, the observation and mask after every step, rewards, and autoreset. The two entry
points are compiled without numba's reference counting (`_nrt=False`: they allocate nothing and every
array outlives the call), and the rule tables are passed field by field, which is much cheaper to
dispatch than the named tuple.

Seeding: a game belongs to a *stream*; episode k of the stream seeded s deals the dice of
`yacht_env.core.dice_source.game_seed(s, k)`, i.e. the same dice as `Game(rules, seed=game_seed(s, k))`
given the same moves.

A step: an action of `yacht_env.core.actions` is played; after a scoring move the next turn's first roll is
made at once, so every state the agent sees has dice to decide on.
"""

import numba as nb
import numpy as np

from ..core.actions import NUM_HOLDS, num_actions, score_action_of
from ..core.engine import ROLL, ROLLS_USED, TURN, UPPER, YACHT50, State, play_action, roll_seeded
from ..core.kernels import SEED_START, seed_step
from .obs import inv_box_scale, obs_size, write_obs
from ..rules.tables import Tables
from .step_threads import SliceThreads, post

# streams[i] columns
STREAM, EPISODE = 0, 1


@nb.njit(cache=True)
def stream_seed(stream, k):
    """`dice_source.game_seed(stream, k)` in compiled code: the seed of episode k of a stream."""
    return seed_step(seed_step(SEED_START, stream), k)


@nb.njit(cache=True, inline="always")
def _new_game(T, i, streams, seeds, ints, dice, faces, scores, cols, totals, preview, extra):
    """Start episode streams[i, EPISODE] of stream streams[i, STREAM] and make its first roll."""
    seeds[i] = stream_seed(streams[i, STREAM], streams[i, EPISODE])
    scores[i] = -1
    cols[i] = 0
    totals[i] = 0
    ints[i, TURN] = 0
    ints[i, ROLLS_USED] = 0
    roll_seeded(T, i, 0, 1, 0, seeds, ints, dice, faces, cols, preview, extra)


@nb.njit(cache=True, inline="always")
def _write(T, inv_scale, rounds, i, ints, scores, preview, cols, obs, mask):
    """Observation and action mask of game i (all actions marked legal once the game is over)."""
    write_obs(T, inv_scale, rounds, ints[i, ROLL], ints[i, ROLLS_USED], ints[i, TURN], scores[i, 0], preview[i],
              cols[i, 0, :, UPPER], cols[i, 0, :, YACHT50], obs[i])
    over = ints[i, TURN] == rounds
    hold = 1 if over or ints[i, ROLLS_USED] < T.rolls_per_turn else 0
    for h in range(NUM_HOLDS):
        mask[i, h] = hold
    nbox = T.n_boxes
    for c in range(preview.shape[1]):
        for b in range(nbox):
            mask[i, score_action_of(nbox, c, b)] = 1 if over or preview[i, c, b] >= 0 else 0


@nb.njit(cache=True, _nrt=False)
def reset_games(inv_scale, rounds, which, streams, seeds, ints, dice, faces, scores, cols, totals, preview, extra,
                obs, mask, *tables):
    """Start a new game in every slot i with which[i] (episode streams[i, EPISODE] of its stream).

    tables: the fields of the rule set's `Tables`, passed one by one (much faster to call than the tuple).
    """
    T = Tables(*tables)
    for i in range(which.shape[0]):
        if which[i]:
            _new_game(T, i, streams, seeds, ints, dice, faces, scores, cols, totals, preview, extra)
            _write(T, inv_scale, rounds, i, ints, scores, preview, cols, obs, mask)


@nb.njit(cache=True, _nrt=False, nogil=True)
def step_games(lo, hi, ctrl, inv_scale, ypts, rounds, params, actions, streams, seeds, ints, dice, faces, scores,
               cols, totals, preview, extra, rewards, terminated, illegal, obs, mask, final_obs, final_total, *tables):
    """Step games lo..hi-1 once (tables: the fields of the rule set's `Tables`, as for reset_games).

    ctrl: the `step_threads.SliceThreads` counters (the step runs as one of its slices).

    params = (terminal_reward, penalty, autoreset, clear_final): with terminal_reward the reward is
    the final total on the last move and 0 before; an illegal action gives -penalty and changes nothing;
    with autoreset a finished game's last observation goes to final_obs[i] and episode + 1 starts at
    once; with clear_final the final_obs rows of the other games are zeroed. final_total[i] is set to
    the score of every game that ends.
    """
    post(ctrl)
    T = Tables(*tables)
    terminal_reward, penalty, autoreset, clear_final = params[0] != 0, params[1], params[2] != 0, params[3] != 0
    for i in range(lo, hi):
        a = actions[i]
        gain = play_action(T, ypts, 1, 1, i, a, seeds, ints, dice, faces, scores, cols, totals, preview, extra)
        legal = gain >= 0
        done = False
        if legal and a >= NUM_HOLDS:
            if ints[i, TURN] == rounds:
                done = True
                ints[i, ROLLS_USED] = T.rolls_per_turn      # the last observation shows no rolls left
            else:
                roll_seeded(T, i, 0, 1, 0, seeds, ints, dice, faces, cols, preview, extra)
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
        if done and autoreset:
            _write(T, inv_scale, rounds, i, ints, scores, preview, cols, final_obs, mask)
            streams[i, EPISODE] += 1
            _new_game(T, i, streams, seeds, ints, dice, faces, scores, cols, totals, preview, extra)
        elif clear_final:
            final_obs[i] = 0.0
        _write(T, inv_scale, rounds, i, ints, scores, preview, cols, obs, mask)


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


class Batch:
    """N solitaire games of one rule set, as arrays (see the module docstring).

    reset(streams) starts episode 0 of each stream; step(actions) plays one action per game and
    fills rewards, terminated, illegal, obs and mask, and final_total (and final_obs, when autoreset)
    for games that ended. terminal_reward / penalty / autoreset are fixed at construction.
    num_threads > 1 steps slices of the games on that many threads at once (`step_threads`);
    the games are the same whatever the number of threads. `engine` holds the games' state
    (`yacht_env.core.engine.State`, one seat per table).
    """

    def __init__(self, rules, num_games: int, terminal_reward: bool = False, penalty: float = 1.0,
                 autoreset: bool = True, num_threads: int = 1):
        if rules.teams:
            raise ValueError(f"rules {rules.name!r} have teams={rules.teams}; a solitaire game has one sheet "
                             "(use YachtVs-v0 or yacht_env.integrations.pettingzoo for team games)")
        if rules.min_players > 1:
            raise ValueError(f"rules {rules.name!r} need at least {rules.min_players} players; "
                             "a solitaire game has one")
        n = int(num_games)
        self.rules, self.tables, self.num_games = rules, rules.tables, n
        self.engine = State(rules, n, 1)
        self.num_actions = num_actions(rules)
        self.rounds = rules.rounds
        self.inv_scale = inv_box_scale(rules)
        self.params = np.array([float(terminal_reward), float(penalty), float(autoreset), 0.0])
        self._fresh_params = self.params.copy()
        self._fresh_params[3] = 1.0   # fresh final_obs arrays come uninitialised: the step zeroes them
        self.streams = np.zeros((n, 2), np.uint64)
        self.obs = np.zeros((n, obs_size(rules)), np.float32)
        self.final_obs = np.zeros_like(self.obs)
        self.final_total = np.zeros(n, np.int64)
        self.mask = np.zeros((n, self.num_actions), np.int8)
        self.rewards = np.zeros(n, np.float32)
        self.terminated = np.zeros(n, np.bool_)
        self.illegal = np.zeros(n, np.bool_)
        self._all = np.ones(n, np.bool_)
        e = self.engine
        self._game = (self.streams, e.seeds, e.ints, e.dice, e.faces, e.scores, e.cols, e.totals, e.preview, e.extra)
        self._head = (self.inv_scale, e.ypts, self.rounds, self.params)
        self._fresh_head = (self.inv_scale, e.ypts, self.rounds, self._fresh_params)
        self.threads = SliceThreads(num_threads)
        self._bind()

    def _bind(self) -> None:
        self._tail = (*self._game, self.rewards, self.terminated, self.illegal, self.obs, self.mask, self.final_obs,
                      self.final_total, *self.tables)

    def _reset(self, which, fresh: bool) -> None:
        if fresh:
            self.obs, self.mask = self.obs.copy(), self.mask.copy()
            self._bind()
        reset_games(self.inv_scale, self.rounds, which, *self._game, self.obs, self.mask, *self.tables)

    def reset(self, streams, which=None, fresh: bool = False) -> None:
        """Start episode 0 of `streams[i]` in every game i (or only where which[i]).

        fresh: write the new games' rows into copies of obs and mask, so the arrays an earlier step
        returned keep their rows."""
        which = self._all if which is None else np.asarray(which, np.bool_)
        streams = np.asarray([int(s) & 0xFFFFFFFFFFFFFFFF for s in streams], dtype=np.uint64)
        self.streams[which, STREAM] = streams[which]
        self.streams[which, EPISODE] = 0
        self._reset(which, fresh)

    def next_episode(self, which=None, fresh: bool = False) -> None:
        """Start the next episode of their stream in every game i (or only where which[i]); fresh as `reset`."""
        which = self._all if which is None else np.asarray(which, np.bool_)
        self.streams[which, EPISODE] += np.uint64(1)
        self._reset(which, fresh)

    def step(self, actions, fresh: bool = False) -> None:
        """Play actions[i] in game i (int64 array of length N).

        fresh: write obs, mask and final_obs (zeros but for the games that ended) into new arrays,
        so the arrays of earlier steps stay as they were without being copied.
        """
        head = self._head
        if fresh:
            self.obs, self.mask = np.empty_like(self.obs), np.empty_like(self.mask)
            self.final_obs = np.empty_like(self.final_obs)
            self._bind()
            head = self._fresh_head
        self.threads.run(step_games, self.num_games, (*head, actions, *self._tail))

    def close(self) -> None:
        """Stop the stepping threads (if any); the batch keeps working on one thread."""
        self.threads.close()

    def rolls_left(self, i: int) -> int:
        return int(self.rules.rolls_per_turn - self.engine.ints[i, ROLLS_USED])

    def total(self, i: int) -> int:
        """Game i's score so far, bonuses included."""
        return int(self.engine.totals[i, 0])

    def game_seed(self, i: int) -> int:
        """The dice seed of game i's current episode (as `Game(seed=...)` takes it)."""
        return int(self.engine.seeds[i])
