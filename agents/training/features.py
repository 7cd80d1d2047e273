"""The extra policy inputs of a config (`dice_onehot`, `rule_knobs`, `upper_features`; layout in
`agents.features`) on a training VecEnv, and the env options (`yacht_env.envs.options`) that give some of them.

`distinct_holds`, `dice_onehot`, `table_obs` and `rule_knobs` are the env's own options (`action_set="distinct"`,
`dice_obs="onehot"`, `table_obs="full"`, `rule_obs="knobs"`, `env_options`): the env makes those masks and entries, and
`InputFeatures` adds only the rest (`upper_features`, `beyond_env`), after them, in the order
`agents.features.policy_input` feeds a policy."""
import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env import VecEnvWrapper

from yacht_env.envs.obs import dice_of_obs

from ..features import extra_size, policy_input

__all__ = ["InputFeatures", "add_features", "beyond_env", "env_options"]

ENV_GIVEN = ("dice_onehot", "rule_knobs")    # the input groups the env's options give (`dice_obs`, `rule_obs`)


def env_options(config: dict) -> dict:
    """The env options (`yacht_env.envs.options`) of a config (a dict): its `distinct_holds`, `dice_onehot`
    and `rule_knobs` as `action_set`, `dice_obs` and `rule_obs`, and at a table its `table_obs`."""
    options = {"action_set": "distinct" if config.get("distinct_holds", False) else "all",
               "dice_obs": "onehot" if config.get("dice_onehot", False) else "scaled"}
    if config.get("num_players", 1) > 1:
        options["table_obs"] = config.get("table_obs", "summary")
    if config.get("rule_knobs", False):
        options["rule_obs"] = "knobs"
    return options


def beyond_env(config: dict) -> dict:
    """The config (a dict) with the input groups the env gives switched off: what `InputFeatures` adds to
    an env made with `env_options(config)`."""
    return {**config, **{key: False for key in ENV_GIVEN}, "table_obs": "summary"}


def add_features(obs: np.ndarray, config: dict, rules) -> np.ndarray:
    """Rows of observations (n, d) -> (n, d + extra_size(config, rules)), float32, as the policy sees them."""
    obs = np.asarray(obs, dtype=np.float32)
    return policy_input(obs, dice_of_obs(obs, rules.dice), config, rules)


class InputFeatures(VecEnvWrapper):
    """A VecEnv whose observations (and terminal observations) carry the extra inputs of a config (a dict)."""

    def __init__(self, venv, config: dict, rules):
        self.config, self.rules = config, rules
        size = venv.observation_space.shape[0] + extra_size(config, rules)
        super().__init__(venv, observation_space=spaces.Box(0.0, 1.0, (size,), np.float32))

    def _add(self, obs):
        return add_features(obs, self.config, self.rules)

    def reset(self):
        return self._add(self.venv.reset())

    def step_wait(self):
        obs, rewards, dones, infos = self.venv.step_wait()
        for info in infos:
            if "terminal_observation" in info:
                info["terminal_observation"] = self._add(info["terminal_observation"][None])[0]
        return self._add(obs), rewards, dones, infos
