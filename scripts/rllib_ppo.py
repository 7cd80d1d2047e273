"""RLlib (Ray's RL library, new API stack) trains masked PPO on `Yacht-v0` or at a table, locally or on a Ray cluster.

    python scripts/rllib_ppo.py --iterations 50 --env-runners 2 --out runs/rllib          # a local Ray
    python scripts/rllib_ppo.py --players 4 --reward win ...         # every seat of a 4-player table, one policy
    RAY_AUTH_MODE=token python scripts/rllib_ppo.py --address HOST:6399 ...             # a `ray start` cluster
    yacht evaluate learned:runs/rllib/model.pt           # the exported policy plays as `learned:`
    python scripts/rllib_ppo.py --action-set distinct --dice-obs onehot ...   # env options, as gym.make takes them
    python scripts/rllib_ppo.py --players 3 --table-obs full ...     # every other sheet in full at the table

NOT INSTALLABLE BESIDE THE PROJECT'S PINS TODAY: `ray[rllib]==2.60.0` (the Ray of the tournament cluster)
requires `gymnasium==1.2.2`, and the project runs gymnasium 1.4.0 (`pip install -c constraints.txt
"ray[rllib]"` would downgrade gymnasium under every other extra). BENCHMARKS.md ("Beyond one machine")
gives the route that works; this script runs where RLlib is installed with its gymnasium, e.g. a separate
site folder put first on PYTHONPATH (`pip install --target SITE --no-deps "gymnasium==1.2.2" dm-tree lz4
ormsgpack pandas pyarrow pydantic scipy tensorboardX ...`), the project and torch coming from the venv.

The env is `Yacht-v0` with its mask in the observation, as RLlib's action-masking module reads it
(`{"observations": ..., "action_mask": ...}`); the module is RLlib's example `ActionMaskingTorchRLModule`
(PPO's default encoder, shared by its policy and value heads; illegal logits set to the float minimum).
With `--players N` (2-8) the env is the PettingZoo table (`yacht_env.integrations.pettingzoo.raw_env`) as an
RLlib turn-based multi-agent env: only the seat to move gets an observation, every seat gets its sheet's points
(or, with `--reward win`, +1 / 0 / -1 at the end) and one shared policy plays every seat. Its observation is
`YachtVs-v0`'s (every sheet of the table), so the exported model plays at tables of N sheets.

The env options (`yacht_env.envs.options`) go in the env config as `gym.make` takes them: `--action-set`
(distinct: one hold pattern per keep, masked), `--dice-obs` (onehot: the sorted dice one-hot after the
layout) and at a table `--table-obs` (full: every other sheet box by box); the model file records them as
`learned:` plays them (`distinct_holds`, `dice_onehot`, `table_obs`).

`--out` gets the policy as a project model file (`agents.training.checkpoint.write_model`): the actor's
Linear layers become `mlp_extractor.policy_net` and `action_net`, the critic's `value_net`, so `learned:`
plays it.
"""
import argparse
from pathlib import Path

import gymnasium as gym
import numpy as np

from yacht_env.envs.options import ACTIONS, DICE, TABLE


class MaskedYacht(gym.Env):
    """`Yacht-v0` with its legal actions in the observation: {"observations": flat obs, "action_mask": float32}."""

    def __init__(self, config=None):
        from yacht_env.envs.env import YachtEnv        # imported in the env runner's process too
        config = config or {}
        self.env = YachtEnv(rules=config.get("rules", "yacht"), action_set=config.get("action_set", "all"),
                            dice_obs=config.get("dice_obs", "scaled"))
        n = self.env.action_space.n
        self.action_space = self.env.action_space
        self.observation_space = gym.spaces.Dict({"observations": self.env.observation_space,
                                                  "action_mask": gym.spaces.Box(0.0, 1.0, (n,), np.float32)})

    def _obs(self, obs, info):
        return {"observations": obs, "action_mask": info["action_mask"].astype(np.float32)}

    def reset(self, *, seed=None, options=None):
        obs, info = self.env.reset(seed=seed)
        return self._obs(obs, info), info

    def step(self, action):
        obs, reward, terminated, truncated, info = self.env.step(action)
        return self._obs(obs, info), reward, terminated, truncated, info


class MaskedYachtTable:
    """The PettingZoo table as an RLlib turn-based `MultiAgentEnv`: {agent: {"observations", "action_mask"}} for the
    seat to move; at the end every seat's last observation and reward, and `terminateds["__all__"]`.
    (Made a MultiAgentEnv subclass by `table_env_class`, so this module imports without Ray.)"""

    def __init__(self, config=None):
        from yacht_env.integrations.pettingzoo import raw_env
        super().__init__()
        config = config or {}
        self.env = raw_env(num_players=config.get("players", 2), rules=config.get("rules", "yacht"),
                           reward=config.get("reward", "points"), action_set=config.get("action_set", "all"),
                           dice_obs=config.get("dice_obs", "scaled"), table_obs=config.get("table_obs", "summary"))
        self.agents = self.possible_agents = list(self.env.possible_agents)
        agent = self.agents[0]
        n = self.env.action_space(agent).n
        space = gym.spaces.Dict({"observations": self.env.observation_space(agent)["observation"],
                                 "action_mask": gym.spaces.Box(0.0, 1.0, (n,), np.float32)})
        self.observation_spaces = {a: space for a in self.agents}
        self.action_spaces = {a: self.env.action_space(a) for a in self.agents}
        self.seed = config.get("seed")

    def _obs(self, agent):
        o = self.env.observe(agent)
        return {"observations": o["observation"], "action_mask": o["action_mask"].astype(np.float32)}

    def reset(self, *, seed=None, options=None):
        self.env.reset(seed=seed if seed is not None else self.seed)
        self.seed = None                       # later resets continue the stream
        agent = self.env.agent_selection
        return {agent: self._obs(agent)}, {}

    def step(self, action_dict):
        agent = self.env.agent_selection
        self.env.step(int(action_dict[agent]))
        rewards = {a: float(r) for a, r in self.env.rewards.items()}   # every seat: RLlib holds those of waiting seats
        if all(self.env.terminations.values()):
            return ({a: self._obs(a) for a in self.agents}, rewards, {"__all__": True}, {"__all__": False},
                    {a: self.env.infos[a] for a in self.agents})
        nxt = self.env.agent_selection
        return {nxt: self._obs(nxt)}, rewards, {"__all__": False}, {"__all__": False}, {}


SHARED = "shared"      # the one policy every seat of the table plays (RLlib: a multi-agent config's module id)


def table_env_class():
    """`MaskedYachtTable` as a subclass of RLlib's `MultiAgentEnv` (imported here: Ray is needed only to train)."""
    from ray.rllib.env.multi_agent_env import MultiAgentEnv
    return type("MaskedYachtTable", (MaskedYachtTable, MultiAgentEnv), {})


def linear_layers(state: dict, prefixes) -> list[tuple]:
    """(weight, bias) of the Linear layers whose names start with one of `prefixes`, in the module's order."""
    names = [k[:-len(".weight")] for k in state if k.endswith(".weight") and k.startswith(tuple(prefixes))]
    return [(state[f"{n}.weight"], state[f"{n}.bias"]) for n in names]


def env_config(args) -> dict:
    """The env config of the command line: the rules, the env options (`yacht_env.envs.options`: `action_set`,
    `dice_obs`, and at a table `table_obs`) and, at a table, its seats and reward."""
    config = {"rules": "yacht", "action_set": args.action_set, "dice_obs": args.dice_obs}
    if args.players > 1:
        config.update(players=args.players, reward=args.reward, table_obs=args.table_obs)
    return config


def played_as(config: dict) -> dict:
    """The env options of an env config as the model file's config keys `learned:` plays them with
    (`agents.features`: `distinct_holds`, `dice_onehot`, `table_obs`)."""
    return {"distinct_holds": config.get("action_set", "all") == "distinct",
            "dice_onehot": config.get("dice_obs", "scaled") == "onehot",
            **({"table_obs": config["table_obs"]} if "table_obs" in config else {})}


def export(module, rules, out: Path, hidden: list[int], steps: int, players: int = 1, options=None) -> Path:
    """The RLlib PPO module's weights as a project model file (actor -> policy, critic -> value); `options`:
    the env config's options as `played_as` records them."""
    from agents.training.checkpoint import write_model
    state = module.state_dict()
    if not any(k.startswith("pi.") for k in state):
        raise SystemExit(f"rllib_ppo.py: error: the module has no policy head to export (keys: {list(state)[:6]})")
    actor = linear_layers(state, ("encoder.actor_encoder.", "encoder.encoder.", "pi."))   # encoder.encoder: shared
    critic = linear_layers(state, ("encoder.critic_encoder.", "encoder.encoder.", "vf."))
    named = {}
    for head, layers, last in (("policy_net", actor, "action_net"), ("value_net", critic, "value_net")):
        for i, (w, b) in enumerate(layers[:-1]):
            named[f"mlp_extractor.{head}.{2 * i}.weight"], named[f"mlp_extractor.{head}.{2 * i}.bias"] = w, b
        named[f"{last}.weight"], named[f"{last}.bias"] = layers[-1]
    config = {"name": out.name, "algo": "ppo (RLlib, scripts/rllib_ppo.py)", "num_players": players,
              "policy": {"pi": hidden, "vf": hidden, "activation": "tanh"}, **(options or {})}
    return write_model(out / "model.pt", named, actor[0][0].shape[1], actor[-1][0].shape[0], steps, config,
                       rules.to_dict())


def seconds(text: str) -> float:
    """A positive, finite number of seconds (argparse type)."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"a positive number of seconds is required, got {text[:40]!r}")
    return value


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--iterations", type=int, default=50)
    p.add_argument("--players", type=int, default=1, help="1: Yacht-v0; 2-8: every seat of the PettingZoo table")
    p.add_argument("--reward", choices=("points", "win"), default="points", help="the table's reward (--players 2+)")
    p.add_argument("--env-runners", type=int, default=2)
    p.add_argument("--batch", type=int, default=4000, help="env steps per training iteration")
    p.add_argument("--hidden", type=int, nargs="+", default=[256, 256])
    p.add_argument("--address", default="local", help="Ray address: local (a new local Ray) or auto / HOST:PORT")
    p.add_argument("--action-set", choices=ACTIONS, default="all", help="the env option action_set")
    p.add_argument("--dice-obs", choices=[d for d in DICE if d != "counts"], default="scaled",
                   help="the env option dice_obs (counts has no `learned:` input to export to)")
    p.add_argument("--table-obs", choices=TABLE, default="summary", help="the env option table_obs (--players 2+)")
    p.add_argument("--sample-timeout", type=seconds, default=600.0,
                   help="seconds an env runner may take to sample one batch (RLlib's 60 is short on a busy host)")
    p.add_argument("--out", default="runs/rllib")
    return p


def main():
    p = parser()
    args = p.parse_args()
    if args.players == 1 and args.table_obs != "summary":
        p.error("--table-obs shows the other sheets of a table: give --players 2 .. 8")

    import ray
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core import DEFAULT_MODULE_ID
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

    from yacht_env.rules import load
    ray.init(address=args.address)
    config = PPOConfig()
    options = env_config(args)
    if args.players == 1:
        config = config.environment(MaskedYacht, env_config=options)
    else:
        config = (config.environment(table_env_class(), env_config=options)
                  .multi_agent(policies={SHARED}, policy_mapping_fn=lambda agent, episode, **kw: SHARED))
    config = (config
              .env_runners(num_env_runners=args.env_runners, sample_timeout_s=args.sample_timeout)
              .training(train_batch_size_per_learner=args.batch, minibatch_size=min(1024, args.batch), lr=3e-4,
                        gamma=1.0, num_epochs=4)
              .rl_module(rl_module_spec=RLModuleSpec(module_class=ActionMaskingTorchRLModule,
                                                     model_config={"fcnet_hiddens": args.hidden,
                                                                   "head_fcnet_hiddens": []})))
    algo = config.build_algo()
    steps = 0
    for i in range(args.iterations):
        result = algo.train()
        steps = int(result.get("num_env_steps_sampled_lifetime", steps))
        mean = result.get("env_runners", {}).get("episode_return_mean")
        what = "mean score" if args.players == 1 else "mean return of a game, all seats summed"
        print(f"iteration {i + 1}: {steps} steps, {what} {mean}", flush=True)
    out = Path(args.out)
    module_id = DEFAULT_MODULE_ID if args.players == 1 else SHARED
    module = algo.learner_group._learner.module[module_id] if algo.learner_group.is_local else \
        algo.get_module(module_id)               # the learner's module: the one trained
    path = export(module, load("yacht"), out, list(args.hidden), steps, args.players, played_as(options))
    print(f"wrote {path}: yacht evaluate learned:{path}")
    algo.stop()
    ray.shutdown()


if __name__ == "__main__":
    main()
