"""RLlib (Ray's RL library, new API stack) trains masked PPO on `Yacht-v0`, locally or on a Ray cluster.

    python scripts/rllib_ppo.py --iterations 50 --env-runners 2 --out runs/rllib          # a local Ray
    RAY_ADDRESS=auto python scripts/rllib_ppo.py --address auto ...                      # a `ray start` cluster
    yacht evaluate learned:runs/rllib/model.pt           # the exported policy plays as `learned:`

NOT INSTALLABLE BESIDE THE PROJECT'S PINS TODAY: `ray[rllib]==2.60.0` (the Ray of the tournament cluster)
requires `gymnasium==1.2.2`, and the project runs gymnasium 1.4.0 (`pip install -c constraints.txt
"ray[rllib]"` would downgrade gymnasium under every other extra). BENCHMARKS.md ("Beyond one machine")
gives the route that works; this script runs where RLlib is installed with its gymnasium, e.g. a separate
site folder put first on PYTHONPATH (`pip install --target SITE --no-deps "gymnasium==1.2.2" dm-tree lz4
ormsgpack pandas pyarrow pydantic scipy tensorboardX ...`), the project and torch coming from the venv.

The env is `Yacht-v0` with its mask in the observation, as RLlib's action-masking module reads it
(`{"observations": ..., "action_mask": ...}`); the module is RLlib's example `ActionMaskingTorchRLModule`
(PPO's default encoder, shared by its policy and value heads; illegal logits set to the float minimum).
`--out` gets the policy as a project model file (`agents.training.checkpoint.write_model`): the actor's
Linear layers become `mlp_extractor.policy_net` and `action_net`, the critic's `value_net`, so `learned:`
plays it.
"""
import argparse
from pathlib import Path

import gymnasium as gym
import numpy as np



class MaskedYacht(gym.Env):
    """`Yacht-v0` with its legal actions in the observation: {"observations": flat obs, "action_mask": float32}."""

    def __init__(self, config=None):
        from yacht_env.envs.env import YachtEnv        # imported in the env runner's process too
        self.env = YachtEnv(rules=(config or {}).get("rules", "yacht"))
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


def linear_layers(state: dict, prefixes) -> list[tuple]:
    """(weight, bias) of the Linear layers whose names start with one of `prefixes`, in the module's order."""
    names = [k[:-len(".weight")] for k in state if k.endswith(".weight") and k.startswith(tuple(prefixes))]
    return [(state[f"{n}.weight"], state[f"{n}.bias"]) for n in names]


def export(module, rules, out: Path, hidden: list[int], steps: int) -> Path:
    """The RLlib PPO module's weights as a project model file (actor -> policy, critic -> value)."""
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
    config = {"name": out.name, "algo": "ppo (RLlib, scripts/rllib_ppo.py)", "num_players": 1,
              "policy": {"pi": hidden, "vf": hidden, "activation": "tanh"}}
    return write_model(out / "model.pt", named, actor[0][0].shape[1], actor[-1][0].shape[0], steps, config,
                       rules.to_dict())


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--iterations", type=int, default=50)
    p.add_argument("--env-runners", type=int, default=2)
    p.add_argument("--batch", type=int, default=4000, help="env steps per training iteration")
    p.add_argument("--hidden", type=int, nargs="+", default=[256, 256])
    p.add_argument("--address", default="local", help="Ray address: local (a new local Ray) or auto / HOST:PORT")
    p.add_argument("--out", default="runs/rllib")
    args = p.parse_args()

    import ray
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core import DEFAULT_MODULE_ID
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

    from yacht_env.rules import load
    ray.init(address=args.address)
    config = (PPOConfig()
              .environment(MaskedYacht, env_config={"rules": "yacht"})
              .env_runners(num_env_runners=args.env_runners)
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
        print(f"iteration {i + 1}: {steps} steps, mean score {mean}", flush=True)
    out = Path(args.out)
    module = algo.learner_group._learner.module[DEFAULT_MODULE_ID] if algo.learner_group.is_local else \
        algo.get_module()                        # the learner's module: the one trained
    path = export(module, load("yacht"), out, list(args.hidden), steps)
    print(f"wrote {path}: yacht evaluate learned:{path}")
    algo.stop()
    ray.shutdown()


if __name__ == "__main__":
    main()
