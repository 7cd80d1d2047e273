"""Pause Python's cyclic garbage collector while building many small acyclic objects (move logs, game
records read or written as JSON): its passes over a heap that grows by thousands of dicts cost more
than the building itself, and such objects free themselves by reference counting anyway."""
import gc
from contextlib import contextmanager


@contextmanager
def gc_paused():
    """Within the block the collector does not run (it runs again afterwards if it was on)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()
