"""Keep numba's on-disk cache honest for compiled functions that use code from other modules.

Numba keys a cached function by its own source file only: when a kernel it inlines (or calls)
changes in another file, the stale machine code is still loaded. `drop_stale` flushes the given
dispatchers' caches whenever the listed source files change (a content hash kept beside the cache).
"""
import hashlib
from pathlib import Path

from .safe_file import FileRefused, read_text, write_atomic


def drop_stale(dispatchers, sources, tag: str) -> bool:
    """Flush the caches of `dispatchers` if `sources` changed since the last call; True if flushed."""
    digest = hashlib.sha256()
    for src in sources:
        digest.update(Path(src).read_bytes())
    stamp = digest.hexdigest()
    cache_path = getattr(dispatchers[0]._cache, "cache_path", None)
    if not cache_path:
        return False
    stamp_file = Path(cache_path) / f"{tag}.deps"
    try:
        if read_text(stamp_file, 1024, "compiled-code stamp") == stamp:
            return False
    except FileRefused:
        pass   # missing, or not a regular file: flush and write a fresh one
    for d in dispatchers:
        d._cache.flush()
    try:
        write_atomic(stamp_file, stamp, "compiled-code stamp")
    except (OSError, FileRefused):
        pass
    return True
