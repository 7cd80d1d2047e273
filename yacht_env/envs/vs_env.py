"""`YachtVs-v0`: the learner takes one seat of a 2-8 player game; opponents play the others inside the step.

    env = gymnasium.make("YachtVs-v0", num_players=3, opponents=["strong", "normal"], reward="win")
    envs = gymnasium.make_vec("YachtVs-v0", num_envs=1024, vectorization_mode="vector_entry_point",
                              num_players=2, opponents=["strong"])          # `yacht_env.envs.vs_vector`

`SeatTables` holds N tables of the engine (`yacht_env.core.engine.State`) seen from the learner's seat and
moves the opponents with the lockstep runner (`yacht_env.core.lockstep`); `YachtVsEnv` is its one-table
form, `yacht_env.envs.vs_vector.YachtVsVectorEnv` its batched form.
"""
import gymnasium as gym
import numba as nb
import numpy as np

from ..core.actions import NUM_HOLDS, action_name, as_action, legal_summary, num_actions
from ..core.dice_source import stream_seeds
from ..core.engine import FIRST, ROLLS_USED, TURN, State, play_action, roll_seeded
from .env import ILLEGAL, OBS_MODES, check_choice, check_no_options, check_render_mode, check_seed, resolve_rules
from ..core.game import Game, IllegalMove
from ..core.lockstep import play, seating_around, sheet_ranks
from ..core.plan_source import planned
from ..core.players import Forfeiting, PerGame, Uniform, batched_player, guarded
from .render import RENDER_MODES, last_move, renderer
from ..rules.tables import Tables
from ..solver.play import advance_table
from .step_threads import SliceThreads, post
from .table_obs import render_table, seat_dict_obs, seat_dict_space, seat_observations, seat_space

VS_REWARDS = ("points", "win")


@nb.njit(cache=True, _nrt=False, nogil=True, inline="always")
def _opponents_then_roll(T, i, side, n_upper, n_flag, threshold, slot, plans, ypts, num_players, num_sheets, turns,
                         seeds, ints, dice, faces, scores, cols, totals, preview, extra):
    """The opponents' moves at table i from their kept plans (side[i, seat] = 1 at an opponent's seat:
    `advance_table`), then the learner's first roll of its turn. False: an opponent reached a state
    without a kept plan (its dice are rolled; nothing else is played)."""
    if not advance_table(T, i, 1, side, n_upper, n_flag, threshold, slot, plans, ypts, num_players, num_sheets,
                         turns, seeds, ints, dice, faces, scores, cols, totals, preview, extra):
        return False
    if ints[i, TURN] < turns and ints[i, ROLLS_USED] == 0:
        seat = (ints[i, FIRST] + ints[i, TURN]) % num_players
        roll_seeded(T, i, seat % num_sheets, num_sheets, 0, seeds, ints, dice, faces, cols, preview, extra)
    return True


@nb.njit(cache=True, _nrt=False, nogil=True)
def step_planned(lo, hi, ctrl, rows, actions, side, n_upper, n_flag, threshold, slot, plans, ypts, num_players,
                 num_sheets, turns, gains, stuck, seeds, ints, dice, faces, scores, cols, totals, preview, extra,
                 *tables):
    """The learner's action at tables rows[lo:hi], then, where its turn ended, the opponents' moves and
    the learner's next first roll (`_opponents_then_roll`). gains[j]: the learner's points (-1: illegal,
    nothing played); stuck[j]: an opponent reached a state without a kept plan. Runs as one slice of
    `step_threads.SliceThreads` (ctrl); every table touches only its own rows."""
    post(ctrl)
    T = Tables(*tables)
    for j in range(lo, hi):
        i = rows[j]
        a = actions[j]
        gains[j] = play_action(T, ypts, num_players, num_sheets, i, a, seeds, ints, dice, faces, scores, cols, totals,
                               preview, extra)
        stuck[j] = False
        if gains[j] < 0 or a < NUM_HOLDS:
            continue
        stuck[j] = not _opponents_then_roll(T, i, side, n_upper, n_flag, threshold, slot, plans, ypts, num_players,
                                            num_sheets, turns, seeds, ints, dice, faces, scores, cols, totals,
                                            preview, extra)


@nb.njit(cache=True, _nrt=False, nogil=True)
def advance_planned_seats(lo, hi, ctrl, rows, side, n_upper, n_flag, threshold, slot, plans, ypts, num_players,
                          num_sheets, turns, stuck, seeds, ints, dice, faces, scores, cols, totals, preview, extra,
                          *tables):
    """`_opponents_then_roll` at tables rows[lo:hi] (stuck[j] as in `step_planned`); one slice of
    `step_threads.SliceThreads` (ctrl)."""
    post(ctrl)
    T = Tables(*tables)
    for j in range(lo, hi):
        stuck[j] = not _opponents_then_roll(T, rows[j], side, n_upper, n_flag, threshold, slot, plans, ypts,
                                            num_players, num_sheets, turns, seeds, ints, dice, faces, scores, cols,
                                            totals, preview, extra)


class SeatTables:
    """N tables of one rule set seen from the learner's seat (the core of both `YachtVs-v0` forms).

    `start(rows)` begins the next episode at those tables and plays up to the learner's first decision;
    `step(actions)` plays the learner's decision at every table, then the opponents up to the learner's
    next one. The learner's seat of table i is `seat[i]`.
    """

    def __init__(self, rules, num_tables: int, num_players: int, opponents, seat, reward: str, num_threads: int = 1):
        if not isinstance(num_players, int) or isinstance(num_players, bool) or num_players < 2:
            raise ValueError(f"YachtVs-v0 needs {max(2, rules.min_players)} to {rules.max_players} players under "
                             f"rules {rules.name!r}, got {num_players!r}")
        rules.check_players(num_players)
        if not (seat == "rotate" or (isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < num_players)):
            raise ValueError(f"seat must be 0..{num_players - 1} or 'rotate', got {seat!r}")
        self.rules, self.num_tables, self.num_players = rules, num_tables, num_players
        self.seat_rule, self.reward_mode = seat, reward
        self.state = State(rules, num_tables, num_players)
        self.num_actions = num_actions(rules)
        others = num_players - 1
        if opponents is None:
            opponents = [Uniform()] * others
        elif not isinstance(opponents, (list, tuple)):
            opponents = [opponents] * others      # one opponent for every other seat
        elif len(opponents) != others:
            raise ValueError(f"opponents must be one opponent (for every other seat) or a list of {others}, one per "
                             f"other seat in seat order, got a list of {len(opponents)}")
        # players[0] stands for the learner (never asked); players[1 + k]: the k-th other seat's opponent
        self.players = [None]
        built = {}     # spec -> its batched agent: one object for every seat given the same spec
        for k, o in enumerate(opponents):
            player = built.get(o) if isinstance(o, str) else None
            if player is None:
                made = self._player(o, num_tables, k)
                player = guarded(made, o, num_tables)
                if isinstance(o, str) and not isinstance(made, PerGame):
                    built[o] = player
            self.players.append(player)
        self.guards = list({id(p): p for p in self.players[1:] if isinstance(p, Forfeiting)}.values())
        # one opponent playing from kept plans at every other seat: its moves are played in compiled code
        # inside the learner's step (`step_planned`)
        one = len({id(p) for p in self.players[1:]}) == 1
        self.planned = planned(self.players[1], rules) if one else None
        self.threads = SliceThreads(num_threads)
        self._gains = np.zeros(num_tables, np.int64)
        self._stuck = np.zeros(num_tables, np.bool_)
        self.streams = np.zeros(num_tables, np.uint64)
        self.episodes = np.zeros(num_tables, np.int64)
        self.seat = np.zeros(num_tables, np.int64)
        self.sheet = np.zeros(num_tables, np.int64)       # the learner's sheet
        self.seating = np.zeros((num_tables, num_players), np.int64)
        self.side = np.zeros((num_tables, num_players), np.int64)     # 1 at the opponents' seats
        self.banked = np.zeros(num_tables, np.int64)
        self.shown = np.ones((num_tables, 5), np.int8)
        self.rows = np.arange(num_tables)
        for g in self.guards:
            g.seating, g.index = self.seating, self.players.index(g)

    def _player(self, opponent, num_tables, k):
        try:
            return batched_player(opponent, num_tables, k)
        except ValueError as e:
            raise ValueError(f"opponent {k + 1}: {e}") from None

    def start(self, rows) -> None:
        """The next episode (episodes[i]) of stream streams[i] at tables `rows`, up to the learner's decision."""
        rows = np.asarray(rows, np.int64)
        self.state.reset(stream_seeds(self.streams[rows], self.episodes[rows]), rows=rows)
        P = self.num_players
        seat = self.episodes[rows] % P if self.seat_rule == "rotate" else np.full(len(rows), self.seat_rule)
        self.seat[rows] = seat
        self.sheet[rows] = seat % self.state.num_sheets
        self.seating[rows] = seating_around(seat, P)     # the learner is player 0, the opponents 1..P-1
        self.side[rows] = self.seating[rows] > 0
        for p in self.players[1:]:
            if hasattr(p, "start"):
                p.start(self.state, rows)
        self._advance(rows)
        self.banked[rows] = self.learner_totals(rows)

    def _advance(self, rows) -> None:
        """Play the opponents at tables `rows` up to the learner's next decision (or the end)."""
        if self.planned is not None:
            self._advance_planned(rows)
            return
        play(self.state, self.players, self.seating, rows=rows, until=self.seat)
        waiting = ~self.state.over(rows)
        self.shown[rows[waiting]] = self.state.dice[rows[waiting]]

    def _advance_planned(self, rows) -> None:
        """`_advance` for one planned opponent: its moves in compiled code; the plans it lacks are computed
        in one batch per round (each round plays every stuck table at least one decision further), the
        same moves as the lockstep runner plays."""
        st = self.state
        todo = np.asarray(rows, np.int64)
        while len(todo):
            slot, plans, n_upper, n_flag, threshold = self.planned.plan_tables(self.rules)
            stuck = self._stuck[:len(todo)]
            self.threads.run(advance_planned_seats, len(todo), (
                todo, self.side, n_upper, n_flag, threshold, slot, plans, st.ypts, st.num_players, st.num_sheets,
                st.turns, stuck, st.seeds, st.ints, st.dice, st.faces, st.scores, st.cols, st.totals, st.preview,
                st.extra, *st.tables))
            todo = todo[stuck]
            if len(todo):
                self.planned.plan_seats(st, todo)
        waiting = rows[~st.over(rows)]
        self.shown[waiting] = st.dice[waiting]

    def take_faults(self) -> list[dict]:
        """The opponents' faults since last taken (`yacht_env.core.players.Forfeiting`), in the order they happened
        per opponent."""
        return [f for g in self.guards for f in g.take_faults()]

    def learner_totals(self, rows=None) -> np.ndarray:
        rows = self.rows if rows is None else rows
        return self.state.totals[rows, self.sheet[rows]]

    def step(self, actions, rows=None):
        """Play actions[j] at table rows[j] (default: all); returns (rewards, terminated, illegal)."""
        rows = self.rows if rows is None else np.asarray(rows, np.int64)
        if self.planned is not None:
            st = self.state
            slot, plans, n_upper, n_flag, threshold = self.planned.plan_tables(self.rules)
            gains, stuck = self._gains[:len(rows)], self._stuck[:len(rows)]
            self.threads.run(step_planned, len(rows), (
                rows, np.ascontiguousarray(actions, np.int64), self.side, n_upper, n_flag, threshold, slot, plans,
                st.ypts, st.num_players, st.num_sheets, st.turns, gains, stuck, st.seeds, st.ints, st.dice, st.faces,
                st.scores, st.cols, st.totals, st.preview, st.extra, *st.tables))
            if stuck.any():
                self._advance(rows[stuck])
            waiting = rows[~st.over(rows)]
            self.shown[waiting] = st.dice[waiting]
            illegal = gains < 0
        else:
            gains = self.state.play(rows, actions)
            illegal = gains < 0
            ended = rows[~illegal & (actions >= NUM_HOLDS)]
            ended = ended[~self.state.over(ended)]
            if len(ended):
                self._advance(ended)
        over = self.state.over(rows)
        total = self.learner_totals(rows)
        if self.reward_mode == "points":
            rewards = (total - self.banked[rows]).astype(np.float32)
        else:
            rewards = np.zeros(len(rows), np.float32)
            if over.any():
                rewards[over] = self.outcomes(rows[over])
        self.banked[rows] = total
        return rewards, over, illegal

    def seat_totals(self, rows) -> np.ndarray:
        """(len(rows), num_players) int64: every seat's total (teammates share their sheet's)."""
        rows = np.asarray(rows, np.int64)
        return self.state.totals[rows][:, np.arange(self.num_players) % self.state.num_sheets].astype(np.int64)

    def winners(self, rows) -> np.ndarray:
        """(len(rows), num_players) bool: the seats in first place at finished tables `rows`."""
        ranks = sheet_ranks(self.state, np.asarray(rows, np.int64))
        return ranks[:, np.arange(self.num_players) % self.state.num_sheets] == 1

    def outcomes(self, rows) -> np.ndarray:
        """+1 outright win, 0 shared first place, -1 loss, for finished tables."""
        ranks = sheet_ranks(self.state, rows)
        mine = ranks[np.arange(len(rows)), self.sheet[rows]]
        firsts = (ranks == 1).sum(axis=1)
        return np.where(mine != 1, -1.0, np.where(firsts == 1, 1.0, 0.0)).astype(np.float32)

    def observations(self, rows=None) -> np.ndarray:
        rows = self.rows if rows is None else np.asarray(rows, np.int64)
        return seat_observations(self.state, rows, self.seat[rows], self.shown[rows], self.threads)

    def masks(self, rows=None) -> np.ndarray:
        """Legal actions of the learner; all marked legal once a table's game is over."""
        rows = self.rows if rows is None else np.asarray(rows, np.int64)
        masks = self.state.masks(rows)
        masks[self.state.over(rows)] = 1
        return masks

    def close(self) -> None:
        self.threads.close()
        for p in self.players[1:]:
            if hasattr(p, "close"):
                p.close()


class YachtVsEnv(gym.Env):
    """A seat at a multi-player Yacht table, opponents inside the step.

    ## Description
    A table of `num_players` seats under any rule set; the learner plays one seat, the opponents the
    others, in the table's exact turn order (in team games, teammates are opponents' players too and the
    learner's sheet is its team's: seat i plays for team i % teams).

    Opponents (`opponents`): one for every other seat, or a list of one per other seat in seat order;
    each an agent spec (`"strong"`, `"normal"`, `"learned:PATH"`, `"external:CMD"`: made by the factory
    registered as the `yacht_arena.agents` entry point), an agent object, or a callable
    `policy(game) -> action` (`yacht_env.core.players`). The default plays uniformly random legal actions.
    An opponent that fails (raises, answers with an illegal action, or, as an external bot, times out,
    crashes or replies with garbage) never stops the episode: a warning (`yacht_env.core.players.OpponentFault`)
    and an entry in `info["opponent_faults"]` report it, and its seat forfeits the rest of that game,
    playing the fallback (score the first legal box, as a tournament's forfeit does; an external bot's
    faulty decision itself is its own fallback, the best-paying box). The game is scored as played: the
    fallback's points count and places come from the totals. Built-in agents are not watched this way.

    ## Action Space
    `Discrete(31 + columns * n_boxes)`, the encoding of `yacht_env.core.actions`: 0..30 re-roll holding the
    dice whose bits are set (legal while rolls remain), 31 + column * n_boxes + box scores that box.

    ## Observation Space
    `obs_mode="flat"`: `Box(0, 1, (13 + columns * (2 * n_boxes + 2) + 1 + 4 * (sheets - 1),), float32)`,
    the learner's sheet in the layout of `yacht_env.envs.obs`, then its total and every other sheet's total,
    boxes filled, upper-bonus progress and open Yacht boxes (`yacht_env.envs.table_obs`); `obs_mode="dict"`:
    the same state unscaled. Once the game is over the dice shown are the last the learner decided on,
    with no rolls left.

    ## Rewards
    `reward="points"`: the points the learner's sheet gained since its last step (its own moves and its
    teammates'), so the return is its final total; `reward="win"`: at the end +1 for an outright win,
    0 for a first place shared with others (ties under `tiebreak: share`) and -1 for a loss
    (`tiebreak: sudden_death` breaks ties with dice rolls first). An illegal action gives
    `-illegal_penalty` and changes nothing, or raises `IllegalMove` with `illegal_action="raise"`.

    ## Starting State
    Episode k after `reset(seed=s)` plays the dice of `Game(seed=dice_source.game_seed(s, k))`; the
    opponents seated before the learner have moved and the learner's first roll is made.

    ## Episode End
    Termination: when every sheet is full; truncation: never. `info["winners"]` names the winning
    seats; the mask is all true once the game is over (never all false).

    ## Information
    `action_mask`, `seat` (the learner's), `totals` (every seat's), `game_seed`, `illegal_action`; once
    the game is over, `winners`; and, only when an opponent faulted since the last step or reset,
    `opponent_faults`: a list of {"table", "seat", "opponent", "kind", "cause", "game_seed"} (kind: error,
    illegal, or an external bot's timeout, crash or garbage).

    ## Arguments
    `rules` (a preset, a rules file or a RuleSet) and any rules knob as a keyword; `num_players`
    (2-8); `opponents`; `seat` (an int, or "rotate": seat k % num_players in episode k); `reward`
    ("points" or "win"); `obs_mode`; `illegal_action` ("penalize" or "raise"); `illegal_penalty`;
    `render_mode`: "ansi" (every sheet as text), "rgb_array" (the table as an (H, W, 3) uint8 picture: the
    dice, held marks, whose turn, the learner's last move, every sheet; `yacht_env.envs.render`, pygame) or
    "human" (that picture in a pygame window at every reset and step).

    ## Version History
    * v0: opponents as agent specs, agents or callables, played through the engine's lockstep
      runner; a batched form for `gymnasium.make_vec`.
    """

    metadata = {"render_modes": list(RENDER_MODES), "render_fps": 4}

    def __init__(self, rules="yacht", num_players: int = 2, opponents=None, seat=0, reward: str = "points",
                 obs_mode: str = "flat", illegal_action: str = "penalize", illegal_penalty: float = 1.0,
                 render_mode=None, **overrides):
        check_choice("obs_mode", obs_mode, OBS_MODES)
        check_choice("reward", reward, VS_REWARDS)
        check_choice("illegal_action", illegal_action, ILLEGAL)
        check_render_mode(render_mode, self.metadata["render_modes"])
        self.rules = resolve_rules(rules, overrides)
        self.tables = SeatTables(self.rules, 1, num_players, opponents, seat, reward)
        self.num_players, self.num_sheets = num_players, self.tables.state.num_sheets
        self.obs_mode, self.illegal_action = obs_mode, illegal_action
        self.illegal_penalty, self.render_mode = float(illegal_penalty), render_mode
        self.action_space = gym.spaces.Discrete(self.tables.num_actions)
        self.observation_space = (seat_space(self.rules, self.num_sheets) if obs_mode == "flat"
                                  else seat_dict_space(self.rules, self.num_sheets))
        self.game: Game | None = None
        self._one = np.zeros(1, np.int64)
        self._mask = np.ones(self.action_space.n, np.int8)
        self._renderer = renderer(render_mode, self.rules, self.num_sheets, self.metadata["render_fps"], "YachtVs-v0")
        self._move = None

    @property
    def seat(self) -> int:
        return int(self.tables.seat[0])

    def reset(self, *, seed=None, options=None):
        if seed is not None:
            seed = check_seed(seed)
        check_no_options(options, "YachtVs-v0")
        super().reset(seed=seed)
        t = self.tables
        if seed is not None or self.game is None:
            t.streams[0] = (seed if seed is not None else int(self.np_random.integers(2 ** 63))) & 0xFFFFFFFFFFFFFFFF
            t.episodes[0] = 0
        else:
            t.episodes[0] += 1
        t.start([0])
        self.game = Game.of_table(t.state, 0)
        self._move = None
        if self.render_mode == "human":
            self.render()
        return self._obs(), self._info(False)

    def step(self, action):
        if self.game is None or self.game.is_over:
            raise RuntimeError("the episode is over; call reset() before step()")
        a = as_action(action, self.action_space.n)
        mask = self._mask                         # the legal actions the last info showed (one per step)
        if not mask[a]:
            if self.illegal_action == "raise":
                raise IllegalMove(f"action {a} ({action_name(self.rules, a)}) is not legal now; "
                                  f"legal: {legal_summary(self.rules, mask)}")
            return self._obs(), -self.illegal_penalty, False, False, self._info(True)
        self._one[0] = a
        before = self.tables.shown[0].copy()
        rewards, over, _ = self.tables.step(self._one)
        self._move = last_move(self.rules, "you", before, a)
        if self.render_mode == "human":
            self.render()
        return self._obs(), float(rewards[0]), bool(over[0]), False, self._info(False)

    def action_masks(self) -> np.ndarray:
        """Legal actions now, as bool; all true once the game is over (never all false)."""
        return self._mask.astype(bool)

    def _obs(self):
        if self.obs_mode == "flat":
            return self.tables.observations()[0]
        return seat_dict_obs(self.game, self.seat, self.tables.shown[0])

    def _info(self, illegal: bool) -> dict:
        """The info of the state now; the legal-action mask is computed here once per step (an illegal
        action changes nothing, so it keeps the mask it had) and kept for `step` and `action_masks`."""
        g = self.game
        if not illegal:
            self._mask = self.tables.masks()[0]
        info = {"action_mask": self._mask.copy(), "seat": self.seat, "totals": g.totals(),
                "game_seed": np.uint64(g.seed), "illegal_action": illegal}
        faults = self.tables.take_faults()
        if faults:
            info["opponent_faults"] = faults
        if g.is_over:
            info["winners"] = g.winners()
        return info

    def render(self):
        if self.render_mode is None:
            return None
        if self.game is None:
            raise RuntimeError("no episode has started; call reset() before render()")

        def label(seats):
            return "you" if self.seat in seats else "seat " + ",".join(map(str, seats))
        if self._renderer is not None:
            labels = [label([s for s in range(self.num_players) if self.game.sheet_of(s) == sheet])
                      for sheet in range(self.num_sheets)]
            return self._renderer.render(self.game, self.tables.shown[0], labels, self._move)
        return render_table(self.game, self.tables.shown[0], label)

    def close(self):
        self.tables.close()
        if self._renderer is not None:
            self._renderer.close()
