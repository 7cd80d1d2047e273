"""jit_cache.drop_stale flushes numba caches when the sources they depend on change."""
from types import SimpleNamespace

from yacht_env.jit_cache import drop_stale


def test_drop_stale_flushes_only_when_sources_change(tmp_path):
    flushed = []
    cache = SimpleNamespace(cache_path=str(tmp_path / "cache"), flush=lambda: flushed.append(1))
    fn = SimpleNamespace(_cache=cache)
    src = tmp_path / "kernel.py"
    src.write_text("a = 1\n")
    assert drop_stale([fn, fn], [src], tag="t") is True and len(flushed) == 2
    assert drop_stale([fn], [src], tag="t") is False and len(flushed) == 2
    src.write_text("a = 2\n")
    assert drop_stale([fn], [src], tag="t") is True and len(flushed) == 3
    assert (tmp_path / "cache" / "t.deps").exists()


def test_drop_stale_ignores_uncached_functions(tmp_path):
    src = tmp_path / "k.py"
    src.write_text("")
    assert drop_stale([SimpleNamespace(_cache=SimpleNamespace(cache_path=None))], [src], tag="t") is False
