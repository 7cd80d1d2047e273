"""`YachtVs-v0`: the learner takes one seat of a 2-8 player game; opponents play the others inside the step.

    env = gymnasium.make("YachtVs-v0", num_players=3, opponents=["strong", "normal"], reward="win")
    envs = gymnasium.make_vec("YachtVs-v0", num_envs=1024, vectorization_mode="vector_entry_point",
                              num_players=2, opponents=["strong"])          # `yacht_env.vs_vector`

## Description
A table of `num_players` seats under any rule set; the learner plays one seat, the opponents the others
(in team games, teammates are opponents' players too and the learner's sheet is its team's). Opponents
move inside `step`, in the table's exact turn order, every opponent deciding for all the tables where
it is to move at once, so the batched env trains against the CPU levels at engine speed.

## Opponents
`opponents`: one entry for every other seat (in seat order, skipping the learner's) or one for all;
each an agent spec (`"strong"`, `"strong?strength=0.5"`, `"learned:PATH"`, `"external:CMD"`), an agent
object, or a callable `policy(game) -> action` (`yacht_env.players`). The default plays uniformly
random legal actions. An opponent that answers with an illegal action raises `IllegalMove`.

## Action Space
`Discrete(31 + columns * boxes)`, the encoding of `yacht_env.actions`: 0..30 re-roll holding the dice
whose bits are set (legal while rolls remain), 31 + column * boxes + box scores that box.

## Observation Space
`obs_mode="flat"`: a float32 `Box` in [0, 1], the learner's sheet in the layout of `yacht_env.obs` plus
the other sheets' totals and progress (`yacht_env.table_obs`); `obs_mode="dict"`: the same state unscaled.
Once the game is over the dice shown are the last the learner decided on, with no rolls left.

## Rewards
`reward="points"`: the points the learner's sheet gained since its last step (its own moves and its
teammates'), so the return is its final total; `reward="win"`: at the end +1 for an outright win, 0 for
a first place shared with others (ties under `tiebreak: share`) and -1 for a loss (`tiebreak:
sudden_death` breaks ties with dice rolls first). An illegal action gives `-illegal_penalty` and
changes nothing (or raises `IllegalMove` with `illegal_action="raise"`).

## Starting State
Episode k after `reset(seed=s)` plays the dice of `Game(seed=dice_source.game_seed(s, k))`; the
opponents before the learner's seat have moved and the learner's first roll is made.

## Episode End
When every sheet is full (`terminated`); episodes never truncate. `info["winners"]` names the winning
seats; the mask is all true once the game is over (never all false).

## Arguments
`rules` (a preset, a rules file or a RuleSet) and any rules knob as a keyword; `num_players`;
`opponents`; `seat` (an int, or "rotate": seat k % num_players in episode k); `reward`; `obs_mode`;
`illegal_action`; `illegal_penalty`; `render_mode` ("ansi").

## Version History
v0: opponents as agent specs, agents or callables, played through the engine's lockstep runner.
"""
import gymnasium as gym
import numpy as np

from .actions import NUM_HOLDS, action_name, as_action, legal_summary, num_actions
from .dice_source import game_seeds
from .engine import State
from .env import ILLEGAL, OBS_MODES, check_choice, resolve_rules
from .game import Game, IllegalMove
from .lockstep import PlayerError, play, sheet_ranks
from .players import Uniform, batched_player
from .table_obs import render_table, seat_dict_obs, seat_dict_space, seat_observations, seat_space

VS_REWARDS = ("points", "win")


class SeatTables:
    """N tables of one rule set seen from the learner's seat (the core of both `YachtVs-v0` forms).

    `start(rows)` begins the next episode at those tables and plays up to the learner's first decision;
    `step(actions)` plays the learner's decision at every table, then the opponents up to the learner's
    next one. The learner's seat of table i is `seat[i]`.
    """

    def __init__(self, rules, num_tables: int, num_players: int, opponents, seat, reward: str):
        if not isinstance(num_players, int) or isinstance(num_players, bool) or num_players < 2:
            raise ValueError(f"YachtVs-v0 needs {max(2, rules.min_players)} to {rules.max_players} players under "
                             f"rules {rules.name!r}, got {num_players!r}")
        rules.check_players(num_players)
        if not (seat == "rotate" or isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < num_players):
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
        self.players = [None] + [self._player(o, num_tables, k) for k, o in enumerate(opponents)]
        self.streams = np.zeros(num_tables, np.uint64)
        self.episodes = np.zeros(num_tables, np.int64)
        self.seat = np.zeros(num_tables, np.int64)
        self.seating = np.zeros((num_tables, num_players), np.int64)
        self.banked = np.zeros(num_tables, np.int64)
        self.shown = np.ones((num_tables, 5), np.int8)
        self.rows = np.arange(num_tables)

    def _player(self, opponent, num_tables, k):
        try:
            return batched_player(opponent, num_tables, k)
        except ValueError as e:
            raise ValueError(f"opponent {k + 1}: {e}") from None

    def start(self, rows) -> None:
        """The next episode (episodes[i]) of stream streams[i] at tables `rows`, up to the learner's decision."""
        rows = np.asarray(rows, np.int64)
        seeds = np.array([game_seeds(int(self.streams[i]), last=[int(self.episodes[i])])[0] for i in rows], np.uint64)
        self.state.reset(seeds, 0, rows)
        P = self.num_players
        self.seat[rows] = self.episodes[rows] % P if self.seat_rule == "rotate" else self.seat_rule
        for i in rows:
            others = [s for s in range(P) if s != self.seat[i]]
            self.seating[i, self.seat[i]] = 0
            self.seating[i, others] = np.arange(1, P)
        for p in self.players[1:]:
            if hasattr(p, "start"):
                p.start(self.state, rows)
        self._advance(rows)
        self.banked[rows] = self.learner_totals(rows)

    def _advance(self, rows) -> None:
        try:
            play(self.state, self.players, self.seating, rows=rows, until=self.seat)
        except PlayerError as e:
            i = int(e.rows[0])
            seat = int(self.state.seat_to_move([i])[0])
            mask = self.state.masks([i])[0]
            what = f"chose illegal action {e.action}" if e.action is not None else f"failed ({e})"
            raise IllegalMove(f"opponent at seat {seat} {what}; legal: {legal_summary(self.rules, mask)}") from None
        waiting = ~self.state.over(rows)
        self.shown[rows[waiting]] = self.state.dice[rows[waiting]]

    def learner_totals(self, rows=slice(None)) -> np.ndarray:
        return self.state.totals[rows][np.arange(len(self.seat[rows])), self.seat[rows] % self.state.num_sheets]

    def step(self, actions, rows=None):
        """Play actions[j] at table rows[j] (default: all); returns (rewards, terminated, illegal)."""
        rows = self.rows if rows is None else np.asarray(rows, np.int64)
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

    def outcomes(self, rows) -> np.ndarray:
        """+1 outright win, 0 shared first place, -1 loss, for finished tables."""
        ranks = sheet_ranks(self.state, rows)
        mine = ranks[np.arange(len(rows)), self.seat[rows] % self.state.num_sheets]
        firsts = (ranks == 1).sum(axis=1)
        return np.where(mine != 1, -1.0, np.where(firsts == 1, 1.0, 0.0)).astype(np.float32)

    def observations(self, rows=None) -> np.ndarray:
        rows = self.rows if rows is None else np.asarray(rows, np.int64)
        return seat_observations(self.state, rows, self.seat[rows], self.shown[rows])

    def masks(self, rows=None) -> np.ndarray:
        """Legal actions of the learner; all marked legal once a table's game is over."""
        rows = self.rows if rows is None else np.asarray(rows, np.int64)
        masks = self.state.masks(rows)
        masks[self.state.over(rows)] = 1
        return masks

    def close(self) -> None:
        for p in self.players[1:]:
            if hasattr(p, "close"):
                p.close()


class YachtVsEnv(gym.Env):
    """A seat at a multi-player Yacht table (see the module docstring)."""

    metadata = {"render_modes": ["ansi"], "render_fps": 4}

    def __init__(self, rules="yacht", num_players: int = 2, opponents=None, seat=0, reward: str = "points",
                 obs_mode: str = "flat", illegal_action: str = "penalize", illegal_penalty: float = 1.0,
                 render_mode=None, **overrides):
        check_choice("obs_mode", obs_mode, OBS_MODES)
        check_choice("reward", reward, VS_REWARDS)
        check_choice("illegal_action", illegal_action, ILLEGAL)
        check_choice("render_mode", render_mode, (None, "ansi"))
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

    @property
    def seat(self) -> int:
        return int(self.tables.seat[0])

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        t = self.tables
        if seed is not None or self.game is None:
            t.streams[0] = (seed if seed is not None else int(self.np_random.integers(2 ** 63))) & 0xFFFFFFFFFFFFFFFF
            t.episodes[0] = 0
        else:
            t.episodes[0] += 1
        t.start([0])
        self.game = Game.of_table(t.state, 0)
        return self._obs(), self._info(False)

    def step(self, action):
        if self.game is None or self.game.is_over:
            raise RuntimeError("the episode is over; call reset() before step()")
        a = as_action(action, self.action_space.n)
        mask = self.game.legal_mask()
        if not mask[a]:
            if self.illegal_action == "raise":
                raise IllegalMove(f"action {a} ({action_name(self.rules, a)}) is not legal now; "
                                  f"legal: {legal_summary(self.rules, mask)}")
            return self._obs(), -self.illegal_penalty, False, False, self._info(True)
        self._one[0] = a
        rewards, over, _ = self.tables.step(self._one)
        return self._obs(), float(rewards[0]), bool(over[0]), False, self._info(False)

    def action_masks(self) -> np.ndarray:
        """Legal actions now, as bool; all true once the game is over (never all false)."""
        return self.tables.masks()[0].astype(bool)

    def _obs(self):
        if self.obs_mode == "flat":
            return self.tables.observations()[0]
        return seat_dict_obs(self.game, self.seat, self.tables.shown[0])

    def _info(self, illegal: bool) -> dict:
        g = self.game
        info = {"action_mask": self.tables.masks()[0], "seat": self.seat, "totals": g.totals(), "game_seed": g.seed,
                "illegal_action": illegal}
        if g.is_over:
            info["winners"] = g.winners()
        return info

    def render(self):
        if self.render_mode != "ansi":
            return None
        return render_table(self.game, self.tables.shown[0],
                            lambda seats: "you" if self.seat in seats else "seat " + ",".join(map(str, seats)))

    def close(self):
        self.tables.close()
