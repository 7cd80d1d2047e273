"""numba's on-disk cache, keyed by the source of the whole project.

numba keys a cached function by its own file's time stamp only: when a kernel it inlines or calls
changes in another file, the old machine code still loads. So every cached function of the project
lives in one folder named after a hash of the compiled source (with numba's and Python's versions):
every file of `yacht_env`, whose kernels and tables everything compiled reads, and the files of
`agents` that use numba. Any edit there starts a fresh folder, and a stale function can never load.

The folder is ``$NUMBA_CACHE_DIR/<hash>`` when numba's variable is set, else
``~/.cache/yacht-arena/numba/<hash>``. It does not follow ``$YACHT_CACHE_DIR`` (the solved tables'
folder, which tests and scripts point at fresh folders): compiled code is keyed by its source, so one
folder serves every run of the same source. Folders of other hashes are removed once they are a day
old (another checkout of the project may still be using a recent one).
"""
import hashlib
import os
import platform
import shutil
import time
from pathlib import Path

import numba

ROOT = Path(__file__).resolve().parent.parent
ENGINE = "yacht_env"   # every file counts
AGENTS = "agents"      # the files that use numba count
STALE_SECONDS = 24 * 3600


def source_stamp(root: Path = ROOT) -> str:
    """A hash of the compiled source under `root` (see the module docstring), numba's and Python's versions."""
    digest = hashlib.sha256(f"numba {numba.__version__} python {platform.python_version()}".encode())
    for package in (ENGINE, AGENTS):
        for path in sorted((root / package).rglob("*.py")):
            text = path.read_bytes()
            if package == ENGINE or b"numba" in text:
                digest.update(str(path.relative_to(root)).encode() + b"\0" + text + b"\0")
    return digest.hexdigest()[:20]


def numba_cache_dir(stamp: str) -> Path:
    """Where the compiled functions of the source with this stamp are kept."""
    user = os.environ.get("NUMBA_CACHE_DIR")
    return (Path(user) if user else Path.home() / ".cache" / "yacht-arena" / "numba") / stamp


def _remove_stale(base: Path, keep: str) -> None:
    try:
        others = [p for p in base.iterdir() if p.name != keep and len(p.name) == len(keep)
                  and all(c in "0123456789abcdef" for c in p.name)]
    except OSError:
        return
    for p in others:
        try:
            if p.is_dir() and not p.is_symlink() and time.time() - p.stat().st_mtime > STALE_SECONDS:
                shutil.rmtree(p, ignore_errors=True)
        except OSError:
            pass


def use_project_cache() -> Path:
    """Point numba's cache at this source's folder; call before any ``cache=True`` function is defined."""
    stamp = source_stamp()
    folder = numba_cache_dir(stamp)
    numba.config.CACHE_DIR = str(folder)
    _remove_stale(folder.parent, stamp)
    return folder
