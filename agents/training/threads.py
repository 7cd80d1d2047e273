"""The learner's thread settings, held for the whole run: `set_torch_threads(n)`.

torch and numba's parallel loops (the solver, `strong`'s plans, evaluation) share one OpenMP runtime
(libgomp). Two things of that runtime are decided once:

- its wait policy (`OMP_WAIT_POLICY`) is read when libgomp loads, so it must be in the environment before
  torch is imported: `yacht_env` sets PASSIVE (idle workers sleep instead of spinning) on import, and this
  module imports `yacht_env` before torch, so a trainer that imports it first gets the policy whatever
  order its other imports come in;
- numba's pool, when it starts, sets the calling thread's OpenMP thread count to numba's own (the number
  of cores), which is also what torch reads as its thread count. A pool started by the first evaluation
  would turn a 1-thread learner into a 2-thread one that waits at a barrier each operation. So
  `set_torch_threads` starts numba's pool first, then sets torch's count, which then holds.
"""
import numba

import yacht_env  # noqa: F401 - sets OMP_WAIT_POLICY before torch loads the OpenMP runtime

import torch  # after yacht_env, for the reason above


def set_torch_threads(n: int) -> None:
    """Give torch `n` intra-op threads for the rest of the process, evaluations included."""
    numba.get_num_threads()          # starts numba's parallel pool (its one-time OpenMP setting) now
    torch.set_num_threads(n)
