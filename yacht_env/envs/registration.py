"""Register the Gymnasium ids `Yacht-v0` (solitaire, batched via `make_vec`) and `YachtVs-v0`."""
import gymnasium as gym


def register_envs() -> None:
    """Register the ids once (imports no env module until an env is made)."""
    if "Yacht-v0" not in gym.registry:
        gym.register(id="Yacht-v0", entry_point="yacht_env.envs.env:YachtEnv",
                     vector_entry_point="yacht_env.envs.vector:YachtVectorEnv")
    if "YachtVs-v0" not in gym.registry:
        gym.register(id="YachtVs-v0", entry_point="yacht_env.envs.vs_env:YachtVsEnv",
                     vector_entry_point="yacht_env.envs.vs_vector:YachtVsVectorEnv")
