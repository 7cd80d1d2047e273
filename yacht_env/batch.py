"""N solitaire games held in arrays and stepped by one compiled loop: the engine of every Yacht env.

`Yacht-v0` runs one game of a `Batch`; the vector env and the SB3 adapter run many. Every rule is
read from the compiled `Tables` through `yacht_env.kernels` (box_options, reroll, upper_bonus_gain).
The two entry points are compiled without numba's reference counting (`_nrt=False`: they allocate
nothing and every array outlives the call), which removes an atomic incref/decref per array view and
nearly doubles the speed; the rule tables are passed field by field, which is much cheaper to
dispatch than the named tuple.

Seeding: a game belongs to a *stream*; episode k of the stream seeded s deals the dice of
`yacht_env.dice_source.game_seed(s, k)`, i.e. the same dice as `Game(rules, seed=game_seed(s, k))`
given the same moves. Dice are kept sorted after every roll.

A step: actions 0..30 re-roll the dice not held (bit i keeps sorted die i), legal while rolls
remain; 31 + column * n_boxes + box scores a box the rules allow now, then the next turn's first
roll is made at once, so every state the agent sees has dice to decide on.
"""
from pathlib import Path

import numba as nb
import numpy as np

from .dice import NUM_HOLDS
from .jit_cache import drop_stale
from .kernels import box_options, reroll, splitmix64, upper_bonus_gain
from .obs import inv_box_scale, obs_size, write_obs, yacht_points
from .rules.tables import Tables
from .step_threads import SliceThreads, post

# seeds[i] columns
STREAM, EPISODE, SEED = 0, 1, 2
# state[i] columns
ROLL, ROLLS_USED, TURN, TOTAL = 0, 1, 2, 3
# cols[i, c] columns
FILLED, UPPER, YACHT50, EXTRA = 0, 1, 2, 3


@nb.njit(cache=True)
def stream_seed(stream, k):
    """`dice_source.game_seed(stream, k)` in compiled code: the seed of episode k of a stream."""
    h = np.uint64(0x59A17E)
    h = splitmix64(h ^ splitmix64(np.uint64(stream)))
    return splitmix64(h ^ splitmix64(np.uint64(k)))


@nb.njit(cache=True, inline="always")
def _refresh(T, i, state, dice, cols, preview, roll):
    """Store the new roll and what every box of every column would score with it."""
    state[i, ROLL] = roll
    for c in range(cols.shape[1]):
        cols[i, c, EXTRA] = box_options(T, cols[i, c, FILLED], cols[i, c, YACHT50] != 0, roll, preview[i, c])


@nb.njit(cache=True, inline="always")
def _new_game(T, i, seeds, state, dice, scores, preview, cols):
    """Start episode seeds[i, EPISODE] of stream seeds[i, STREAM] and make its first roll."""
    seeds[i, SEED] = stream_seed(seeds[i, STREAM], seeds[i, EPISODE])
    scores[i] = -1
    cols[i] = 0
    state[i, TURN] = 0
    state[i, TOTAL] = 0
    state[i, ROLLS_USED] = 1
    _refresh(T, i, state, dice, cols, preview, reroll(dice[i], 0, seeds[i, SEED], 0, 0, 0))


@nb.njit(cache=True, inline="always")
def _apply(T, ypts, rounds, i, a, seeds, state, dice, scores, preview, cols):
    """Play action a in game i. Returns (points gained, game over, legal); illegal leaves no trace."""
    if a < 0:
        return 0, False, False
    if a < NUM_HOLDS:
        if state[i, ROLLS_USED] >= T.rolls_per_turn:
            return 0, False, False
        r = reroll(dice[i], a, seeds[i, SEED], 0, state[i, TURN], state[i, ROLLS_USED])
        state[i, ROLLS_USED] += 1
        _refresh(T, i, state, dice, cols, preview, r)
        return 0, False, True
    c = (a - NUM_HOLDS) // T.n_boxes
    b = (a - NUM_HOLDS) % T.n_boxes
    if c >= cols.shape[1] or preview[i, c, b] < 0:
        return 0, False, False
    pts = preview[i, c, b]
    gain = pts + upper_bonus_gain(T, cols[i, c, UPPER], pts, b) + cols[i, c, EXTRA]
    scores[i, c, b] = pts
    cols[i, c, FILLED] |= 1 << b
    if T.box_face[b] > 0:
        cols[i, c, UPPER] += pts
    if b == T.yacht_box and pts == ypts:
        cols[i, c, YACHT50] = 1
    state[i, TOTAL] += gain
    state[i, TURN] += 1
    if state[i, TURN] == rounds:
        state[i, ROLLS_USED] = T.rolls_per_turn
        for cc in range(cols.shape[1]):
            preview[i, cc] = -1
        return gain, True, True
    state[i, ROLLS_USED] = 1
    _refresh(T, i, state, dice, cols, preview, reroll(dice[i], 0, seeds[i, SEED], 0, state[i, TURN], 0))
    return gain, False, True


@nb.njit(cache=True, inline="always")
def _write(T, inv_scale, rounds, i, state, scores, preview, cols, obs, mask):
    """Observation and action mask of game i (all actions marked legal once the game is over)."""
    write_obs(T, inv_scale, rounds, state[i, ROLL], state[i, ROLLS_USED], state[i, TURN], scores[i], preview[i],
              cols[i, :, UPPER], cols[i, :, YACHT50], obs[i])
    over = state[i, TURN] == rounds
    hold = 1 if over or state[i, ROLLS_USED] < T.rolls_per_turn else 0
    for h in range(NUM_HOLDS):
        mask[i, h] = hold
    nbox = T.n_boxes
    for c in range(cols.shape[1]):
        for b in range(nbox):
            mask[i, NUM_HOLDS + c * nbox + b] = 1 if over or preview[i, c, b] >= 0 else 0


@nb.njit(cache=True, _nrt=False)
def reset_games(inv_scale, rounds, which, seeds, state, dice, scores, preview, cols, obs, mask, *tables):
    """Start a new game in every slot i with which[i] (episode seeds[i, EPISODE] of its stream).

    tables: the fields of the rule set's `Tables`, passed one by one (much faster to call than the tuple).
    """
    T = Tables(*tables)
    for i in range(which.shape[0]):
        if which[i]:
            _new_game(T, i, seeds, state, dice, scores, preview, cols)
            _write(T, inv_scale, rounds, i, state, scores, preview, cols, obs, mask)


@nb.njit(cache=True, _nrt=False, nogil=True)
def step_games(lo, hi, ctrl, inv_scale, ypts, rounds, params, actions, seeds, state, dice, scores, preview, cols,
               rewards, terminated, illegal, obs, mask, final_obs, final_total, *tables):
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
        gain, done, legal = _apply(T, ypts, rounds, i, actions[i], seeds, state, dice, scores, preview, cols)
        illegal[i] = not legal
        terminated[i] = done
        if not legal:
            rewards[i] = -penalty
        elif terminal_reward:
            rewards[i] = state[i, TOTAL] if done else 0.0
        else:
            rewards[i] = gain
        if done:
            final_total[i] = state[i, TOTAL]
        if done and autoreset:
            _write(T, inv_scale, rounds, i, state, scores, preview, cols, final_obs, mask)
            seeds[i, EPISODE] += 1
            _new_game(T, i, seeds, state, dice, scores, preview, cols)
        elif clear_final:
            final_obs[i] = 0.0
        _write(T, inv_scale, rounds, i, state, scores, preview, cols, obs, mask)


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


drop_stale([stream_seed, reset_games, step_games],
           [Path(__file__).with_name(f) for f in ("kernels.py", "obs.py", "dice.py", "step_threads.py")]
           + [Path(__file__).parent / "rules" / "tables.py"], tag="batch")


class Batch:
    """N solitaire games of one rule set, as arrays (see the module docstring).

    reset(streams) starts episode 0 of each stream; step(actions) plays one action per game and
    fills rewards, terminated, illegal, obs and mask, and final_total (and final_obs, when autoreset)
    for games that ended. terminal_reward / penalty / autoreset are fixed at construction.
    num_threads > 1 steps slices of the games on that many threads at once (`step_threads`);
    the games are the same whatever the number of threads.
    """

    def __init__(self, rules, num_games: int, terminal_reward: bool = False, penalty: float = 1.0,
                 autoreset: bool = True, num_threads: int = 1):
        if rules.teams:
            raise ValueError(f"rules {rules.name!r} have teams={rules.teams}; a solitaire game has one sheet "
                             "(use YachtVs-v0 or yacht_env.pettingzoo for team games)")
        if rules.min_players > 1:
            raise ValueError(f"rules {rules.name!r} need at least {rules.min_players} players; "
                             "a solitaire game has one")
        n, c, b = int(num_games), rules.columns, len(rules.boxes)
        self.rules, self.tables, self.num_games = rules, rules.tables, n
        self.num_actions = NUM_HOLDS + c * b
        self.rounds = rules.rounds
        self.inv_scale = inv_box_scale(rules)
        self.ypts = yacht_points(rules)
        self.params = np.array([float(terminal_reward), float(penalty), float(autoreset), 0.0])
        self._fresh_params = self.params.copy()
        self._fresh_params[3] = 1.0   # fresh final_obs arrays come uninitialised: the step zeroes them
        self.seeds = np.zeros((n, 3), np.uint64)
        self.state = np.zeros((n, 4), np.int64)
        self.dice = np.zeros((n, 5), np.int8)
        self.scores = np.full((n, c, b), -1, np.int32)
        self.preview = np.full((n, c, b), -1, np.int32)
        self.cols = np.zeros((n, c, 4), np.int64)
        self.obs = np.zeros((n, obs_size(rules)), np.float32)
        self.final_obs = np.zeros_like(self.obs)
        self.final_total = np.zeros(n, np.int64)
        self.mask = np.zeros((n, self.num_actions), np.int8)
        self.rewards = np.zeros(n, np.float32)
        self.terminated = np.zeros(n, np.bool_)
        self.illegal = np.zeros(n, np.bool_)
        self._all = np.ones(n, np.bool_)
        self._head = (self.inv_scale, self.ypts, self.rounds, self.params)
        self._fresh_head = (self.inv_scale, self.ypts, self.rounds, self._fresh_params)
        self.threads = SliceThreads(num_threads)
        self._bind()

    def _bind(self) -> None:
        self._tail = (self.seeds, self.state, self.dice, self.scores, self.preview, self.cols, self.rewards,
                      self.terminated, self.illegal, self.obs, self.mask, self.final_obs, self.final_total,
                      *self.tables)

    def reset(self, streams, which=None) -> None:
        """Start episode 0 of `streams[i]` in every game i (or only where which[i])."""
        which = self._all if which is None else np.asarray(which, np.bool_)
        streams = np.asarray([int(s) & 0xFFFFFFFFFFFFFFFF for s in streams], dtype=np.uint64)
        self.seeds[which, STREAM] = streams[which]
        self.seeds[which, EPISODE] = 0
        reset_games(self.inv_scale, self.rounds, which, self.seeds, self.state, self.dice,
                    self.scores, self.preview, self.cols, self.obs, self.mask, *self.tables)

    def next_episode(self, which=None) -> None:
        """Start the next episode of their stream in every game i (or only where which[i])."""
        which = self._all if which is None else np.asarray(which, np.bool_)
        self.seeds[which, EPISODE] += np.uint64(1)
        reset_games(self.inv_scale, self.rounds, which, self.seeds, self.state, self.dice,
                    self.scores, self.preview, self.cols, self.obs, self.mask, *self.tables)

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
        return int(self.rules.rolls_per_turn - self.state[i, ROLLS_USED])

    def total(self, i: int) -> int:
        """Game i's score so far, bonuses included."""
        return int(self.state[i, TOTAL])

    def game_seed(self, i: int) -> int:
        """The dice seed of game i's current episode (as `Game(seed=...)` takes it)."""
        return int(self.seeds[i, SEED])
