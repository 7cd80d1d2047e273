"""Calling a compiled kernel without numba's per-call type dispatch, for callers whose arguments keep
their types from call to call.

At every call numba's dispatcher works out the type of each argument and looks the compiled version up:
about 30 ns an array, more inside a plain tuple, and a named tuple is typed in Python (about 2 us for
nine arrays). `direct(kernel, args)` takes the compiled version for the types of `args` once
(`Dispatcher.compile(signature)`, which compiles it or loads it from numba's cache, returns it); calling
that skips the dispatcher: the one-seat step's 18 arguments cost about 0.6 us where the dispatcher
takes 1.7 us (BENCHMARKS.md, "issue 24, s31").

The compiled version converts its arguments to the types it was made for and checks none of them: an
array of another dtype, number of dimensions or layout is read as if it had the expected one. Use it
only where the caller owns the arguments (the same arrays every call, as the single `Yacht-v0` step).
"""


def direct(kernel, args: tuple):
    """The compiled `kernel` for the types of `args` (numba's `compile` with their signature), callable
    as kernel(*args) but without type dispatch; call it only with arguments of exactly these types."""
    return kernel.compile(tuple(kernel.typeof_pyval(a) for a in args))


class Entries:
    """Compiled versions of kernels for callers whose argument types a cheap key names (`direct` per
    (kernel, key), taken at the key's first call): a caller that builds its named structures anew at
    every call passes a key that determines their types (`yacht_env.envs.board.board_key`) instead of
    having numba's dispatcher type them (about 0.7 us a field of a named tuple)."""

    def __init__(self):
        self._by = {}

    def __call__(self, kernel, key, args: tuple):
        """The compiled `kernel` for `args`, whose types `key` determines."""
        fn = self._by.get((kernel, key))
        if fn is None:
            fn = self._by[(kernel, key)] = direct(kernel, args)
        return fn
