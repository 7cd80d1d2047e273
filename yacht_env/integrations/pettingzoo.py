"""PettingZoo AEC env: 1-8 players at one Yacht table, any rule set.

    from yacht_env.integrations.pettingzoo import env
    e = env(num_players=3, rules="yacht", render_mode="ansi")
    e.reset(seed=1)
    for agent in e.agent_iter():
        obs, reward, termination, truncation, info = e.last()
        action = None if termination else e.action_space(agent).sample(obs["action_mask"])
        e.step(action)

The environment is `raw_env` (its docstring has the Gymnasium sections); `env(...)` wraps it as
PettingZoo's classic games are wrapped. It is a facade over one table of the table core
(`yacht_env.envs.table_core.TableCore` with every seat deciding), the stepper of every env.
"""
import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from ..core.actions import action_name, as_action, legal_summary, num_actions
from ..envs.env import check_choice, check_render_mode, check_seed, resolve_rules
from ..envs.options import EnvOptions
from ..core.game import Game, IllegalMove
from ..envs.render import RENDER_MODES, last_move, renderer
from ..envs.table_core import ALL, TableCore
from ..envs.table_obs import render_table, seat_space
from ..envs.vs_env import VS_REWARDS


def env(**kwargs):
    """The AEC env wrapped as PettingZoo's classic games are (bounds and call-order checks)."""
    e = raw_env(**kwargs)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    return wrappers.OrderEnforcingWrapper(e)


class raw_env(AECEnv):
    """Multi-player Yacht as a PettingZoo AEC game: the seats of one table take turns.

    ## Description
    The Yacht of `yacht_env.envs.env.YachtEnv` for 1 to 8 players (the rules' `min_players` ..
    `max_players`) at one table, with every seat an agent: "player_0" .. "player_{n-1}", in seat
    order; seat 0 moves first and turns go round the seats. A turn is one seat's: the first roll is
    made for it, then it re-rolls while rolls remain and scores one box of its sheet. In team games
    (`teams` knob) the seats of a team write on the team's sheet, in turn. `env(...)` adds PettingZoo's
    `AssertOutOfBoundsWrapper` and `OrderEnforcingWrapper`; `raw_env(...)` is the bare game.

    ## Action Space
    `Discrete(31 + columns * n_boxes)` for every agent, the encoding of `yacht_env.core.actions`: 0 .. 30
    re-roll keeping the bit-marked sorted dice (legal while rolls remain), 31 + column * n_boxes + box
    scores that box (legal when open and allowed by the joker rule; with six dice 63 hold actions 0..62 come
    first). An illegal action, or one that is
    not an integer 0 .. n-1, raises `IllegalMove` naming the legal actions; agents whose game is over
    step `None`.

    ## Observation Space
    `Dict({"observation": Box(0, 1, (13 + columns * (2 * n_boxes + 2) + 4 * sheets - 3,), float32),
    "action_mask": Box(0, 1, (A,), int8)})` for every agent: the seat's flat view of
    `yacht_env.envs.table_obs` (its sheet in the layout of `yacht_env.envs.obs`, the dice on the table, then its
    total and each other sheet's total, progress, upper-bonus progress and open Yacht boxes) and the
    legal actions, all zero for every agent but the one to move.

    ## Rewards
    `reward="points"` (default): each agent gets the points its sheet gained on the step (teammates
    share a sheet, so they share its points), so an agent's return is its sheet's final total.
    `reward="win"`: 0 until the end, then +1 for an outright win, 0 for a first place shared with
    others and -1 for a loss (`tiebreak: sudden_death` rules break ties with dice rolls first).

    ## Starting State
    Empty sheets; seat 0 to move with its first roll made. After `reset(seed=s)` episode k plays
    `Game(rules, num_players, seed=yacht_env.core.dice_source.game_seed(s, k))`; each `reset()` without a seed
    plays the stream's next episode; the first reset without a seed draws the stream at random. Seeds
    are integers 0 .. 2**64 - 1; reset options are ignored (PettingZoo's `api_test` passes some).

    ## Episode End
    Every agent terminates when the last box of the last sheet is filled; nothing truncates. The final
    `infos` of every agent hold `totals` (per seat; teammates share their team's) and `winners` (the
    seats that won).

    ## Arguments
    ```python
    from yacht_env.integrations.pettingzoo import env, raw_env
    env(num_players=2, rules="yacht", reward="points", render_mode=None, action_set="all", dice_obs="scaled",
        table_obs="summary", rule_obs="none", **knobs)
    ```
    `num_players`: 1 to 8 within the rules' limits (and a multiple of `teams` in team games); `rules`
    and `**knobs` as `YachtEnv` (team rules allowed here); `reward`: `"points"` or `"win"`; `action_set`,
    `dice_obs`, `table_obs` and `rule_obs` as `YachtVs-v0` (`yacht_env.envs.options`; the entries follow the
    seat layout);
    `render_mode`: None, `"ansi"` (`render()` returns the table as text), `"rgb_array"` (the table as an
    (H, W, 3) uint8 picture: dice, held marks, whose turn, the last move, every sheet; `yacht_env.envs.render`,
    pygame) or `"human"` (that picture in a pygame window at every reset and step).

    ## Version History
    * v0: Initial version (`metadata["name"]` is "yacht_v0").
    """

    metadata = {"render_modes": list(RENDER_MODES), "name": "yacht_v0", "is_parallelizable": False, "render_fps": 4}

    def __init__(self, num_players: int = 2, rules="yacht", reward: str = "points", render_mode=None,
                 action_set: str = "all", dice_obs: str = "scaled", table_obs: str = "summary", rule_obs: str = "none",
                 **overrides):
        super().__init__()
        check_choice("reward", reward, VS_REWARDS)
        EnvOptions(action_set, dice_obs, table_obs=table_obs, rule_obs=rule_obs)   # checked before anything is built
        check_render_mode(render_mode, self.metadata["render_modes"])
        self.rules = resolve_rules(rules, overrides)
        r = self.rules
        r.check_players(num_players)
        self.num_players, self.reward_mode, self.render_mode = num_players, reward, render_mode
        self.possible_agents = [f"player_{i}" for i in range(num_players)]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        n_actions = num_actions(r)
        num_sheets = r.teams or num_players
        self.options = EnvOptions(action_set, dice_obs, table_obs=table_obs, rules=r, num_sheets=num_sheets,
                                  rule_obs=rule_obs)
        obs_space = spaces.Dict({"observation": self.options.space(seat_space(r, num_sheets)),
                                 "action_mask": spaces.Box(0, 1, (n_actions,), np.int8)})
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(n_actions) for a in self.possible_agents}
        self.core = TableCore(r, 1, num_players, seat=ALL, reward=reward)
        self._one = np.zeros(1, np.int64)
        self._renderer = renderer(render_mode, r, num_sheets, self.metadata["render_fps"], "yacht_v0")
        self._move = None

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def reset(self, seed=None, options=None):
        if seed is not None:
            check_seed(seed)
        self.core.reset_table(0, seed, lambda: int(seeding.np_random(None)[0].integers(2 ** 63)))
        self.game = Game.of_table(self.core.state, 0)
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self.game.current_seat]
        self._move = None
        if self.render_mode == "human":
            self.render()

    @property
    def _dice(self) -> np.ndarray:
        """The dice on the table: the last the seat deciding had in hand."""
        return self.core.shown[0]

    def observe(self, agent):
        seat = self._seat[agent]
        mask = self.core.mask[0].copy() if agent == self.agent_selection and not self.game.is_over else \
            np.zeros(self.action_spaces[agent].n, np.int8)
        obs = self.core.observations([0], [seat])
        shown = self.options.observe(obs, self.core.state, [0], [seat % self.core.num_sheets])[0]
        return {"observation": shown, "action_mask": self.options.masks(mask[None], obs)[0]}

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            return self._was_dead_step(action)
        g, core = self.game, self.core
        mask = core.mask[0]
        try:
            a = as_action(action, len(mask))
        except ValueError as e:
            raise IllegalMove(f"{agent}: {e}") from None
        if not mask[a]:
            raise IllegalMove(f"{agent}: action {a} ({action_name(self.rules, a)}) is not legal now; "
                              f"legal: {legal_summary(self.rules, mask)}")
        if self._renderer is not None:            # the last move, for the picture only
            self._move = last_move(self.rules, agent, self._dice, a)
        self._one[0] = a
        core.step(self._one)
        self._cumulative_rewards[agent] = 0.0
        for other in self.agents:
            self.rewards[other] = float(core.seat_rewards[0, self._seat[other]])
        if g.is_over:
            for other in self.agents:
                self.terminations[other] = True
                self.infos[other] = {"totals": g.totals(), "winners": g.winners()}
        else:
            self.agent_selection = self.possible_agents[g.current_seat]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self):
        if self.render_mode is None:
            return None

        def label(seats):
            return ", ".join(f"player_{s}" for s in seats)
        if self._renderer is not None:
            g = self.game
            labels = [label([s for s in range(self.num_players) if g.sheet_of(s) == sheet])
                      for sheet in range(g.num_sheets)]
            return self._renderer.render(g, self._dice, labels, self._move)
        return render_table(self.game, self._dice, label)

    def close(self):
        self.core.close()
        if self._renderer is not None:
            self._renderer.close()
