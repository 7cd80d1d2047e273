"""`YachtVs-v0`: the learner takes one seat of a 2-8 player game; opponent policies play the others.

    env = gymnasium.make("YachtVs-v0", rules="yacht", num_players=3, opponents=[policy_a, policy_b])

Opponents are callables `policy(game: yacht_env.Game) -> int`: called with the live game in phase
"decide" for the seat to move (`game.current_seat`), they return a legal action of the joint
encoding (`game.legal_mask()` marks them; see `yacht_env.game`) and must not modify the game.
Pass one callable per other seat (in seat order, skipping the learner) or one for all; the default
plays uniformly random legal actions. The agents package wraps its players this way
(`lambda game: agent.act(View.of(game))`; a wrapper that must reset per game can watch for a new
`game` object); this module imports nothing from it.

Actions, mask, dice and illegal-action handling are those of `Yacht-v0`; the first roll of every
turn is automatic and opponents move between the learner's steps. Observation: the learner's sheet
plus the other sheets' totals and progress (`yacht_env.table_obs`); the dice shown are the last the
learner decided on once its turn is over. In team games (`teams` knob) teammates are opponents'
callables too, and the learner's sheet is its team's.

Reward: `reward="points"` pays the points the learner's sheet gained since its last step (its own
moves and its teammates'), so the return is its final total; `reward="win"` pays at the end +1 for
an outright win, 0 for a first place shared with others (ties under `tiebreak: share`) and -1 for
a loss (`tiebreak: sudden_death` breaks ties with dice rolls first).

Seeding: as `Yacht-v0`: episode k after `reset(seed=s)` plays `Game(seed=dice_source.game_seed(s, k))`;
seat: the learner's seat, an int or "rotate" (seat k % num_players in episode k).
"""
import gymnasium as gym
import numpy as np

from .dice_source import game_seed
from .actions import action_name, as_action, legal_summary, num_actions
from .env import ILLEGAL, OBS_MODES, check_choice, resolve_rules
from .game import Game, IllegalMove
from .table_obs import render_table, seat_dict_obs, seat_dict_space, seat_obs, seat_space

VS_REWARDS = ("points", "win")


class RandomPolicy:
    """Uniformly random legal actions from a seeded generator (the default opponent)."""

    def __init__(self, rng: np.random.Generator):
        self.rng = rng

    def __call__(self, game: Game) -> int:
        legal = np.flatnonzero(game.legal_mask())
        return int(legal[self.rng.integers(len(legal))])


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
        r = self.rules
        if not isinstance(num_players, int) or num_players < 2:
            raise ValueError(f"YachtVs-v0 needs {max(2, r.min_players)} to {r.max_players} players under rules "
                             f"{r.name!r}, got {num_players!r}")
        r.check_players(num_players)
        if not (seat == "rotate" or isinstance(seat, int) and 0 <= seat < num_players):
            raise ValueError(f"seat must be 0..{num_players - 1} or 'rotate', got {seat!r}")
        if opponents is not None and not callable(opponents):
            opponents = list(opponents)
            if len(opponents) != num_players - 1 or not all(callable(p) for p in opponents):
                raise ValueError(f"opponents must be one callable or {num_players - 1} callables "
                                 f"(one per other seat), got {opponents!r}")
        self.num_players, self.seat_rule, self.opponents = num_players, seat, opponents
        self.reward_mode, self.obs_mode, self.illegal_action = reward, obs_mode, illegal_action
        self.illegal_penalty, self.render_mode = float(illegal_penalty), render_mode
        self.num_sheets = r.teams or num_players
        self.action_space = gym.spaces.Discrete(num_actions(r))
        self.observation_space = (seat_space(r, self.num_sheets) if obs_mode == "flat"
                                  else seat_dict_space(r, self.num_sheets))
        self.game: Game | None = None
        self._stream, self._episode = None, 0

    # ---- episode -----------------------------------------------------------------------------
    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        if seed is not None or self._stream is None:
            self._stream = seed if seed is not None else int(self.np_random.integers(2 ** 63))
            self._episode = 0
            self._default = RandomPolicy(np.random.default_rng(game_seed(self._stream, 0x0990)))
        else:
            self._episode += 1
        self.seat = self._episode % self.num_players if self.seat_rule == "rotate" else self.seat_rule
        self.game = Game(self.rules, self.num_players, seed=game_seed(self._stream, self._episode))
        self._dice = (1, 1, 1, 1, 1)
        self._advance()
        self._banked = self._my_total()
        return self._obs(), self._info(False)

    def step(self, action):
        g = self.game
        if g is None or g.is_over:
            raise RuntimeError("the episode is over; call reset() before step()")
        a = as_action(action, self.action_space.n)
        mask = g.legal_mask()
        if not mask[a]:
            if self.illegal_action == "raise":
                raise IllegalMove(f"action {a} ({action_name(self.rules, a)}) is not legal now; "
                                  f"legal: {legal_summary(self.rules, mask)}")
            return self._obs(), -self.illegal_penalty, False, False, self._info(True)
        g.apply(a)
        self._advance()
        over = g.is_over
        if self.reward_mode == "points":
            total = self._my_total()
            reward, self._banked = float(total - self._banked), total
        else:
            reward = float(self._outcome()) if over else 0.0
        return self._obs(), reward, over, False, self._info(False)

    def _advance(self) -> None:
        """Roll and let opponents move until the learner must decide or the game ends."""
        g = self.game
        while not g.is_over:
            if g.phase == "roll":
                g.roll()
            elif g.current_seat == self.seat:
                self._dice = g.dice
                return
            else:
                seat = g.current_seat
                a = int(self._policy(seat)(g))
                if not 0 <= a < g.num_actions or not g.legal_mask()[a]:
                    raise IllegalMove(f"opponent at seat {seat} chose illegal action {a}; "
                                      f"legal: {legal_summary(self.rules, g.legal_mask())}")
                g.apply(a)

    def _policy(self, seat: int):
        if self.opponents is None:
            return self._default
        if callable(self.opponents):
            return self.opponents
        return self.opponents[seat - (seat > self.seat)]

    def _my_total(self) -> int:
        return self.game.sheet_totals()[self.game.sheet_of(self.seat)]

    def _outcome(self) -> int:
        """+1 outright win, 0 shared first place, -1 loss."""
        ranks = self.game.sheet_ranks()
        mine = self.game.sheet_of(self.seat)
        if ranks[mine] != 1:
            return -1
        return 1 if sum(1 for r in ranks if r == 1) == 1 else 0

    # ---- views -------------------------------------------------------------------------------
    def action_masks(self) -> np.ndarray:
        """Legal actions now, as bool; all true once the game is over (never all false)."""
        return self._mask().astype(bool)

    def _mask(self) -> np.ndarray:
        if self.game.is_over:
            return np.ones(self.action_space.n, np.int8)
        return self.game.legal_mask()

    def _obs(self):
        if self.obs_mode == "flat":
            return seat_obs(self.game, self.seat, self._dice)
        return seat_dict_obs(self.game, self.seat, self._dice)

    def _info(self, illegal: bool) -> dict:
        g = self.game
        info = {"action_mask": self._mask(), "seat": self.seat, "totals": g.totals(), "game_seed": g.seed,
                "illegal_action": illegal}
        if g.is_over:
            info["winners"] = g.winners()
        return info

    def render(self):
        if self.render_mode != "ansi":
            return None
        return render_table(self.game, self._dice,
                            lambda seats: "you" if self.seat in seats else "seat " + ",".join(map(str, seats)))
