"""Solved tables on disk: one ``.npz`` per rule set, keyed by its hash and `SOLVER_VERSION`.

The folder is ``$YACHT_CACHE_DIR`` when set, else ``~/.cache/yacht-arena``. The package also ships the
table of the `yacht` preset (`SHIPPED`, package data, the same file name and format, compressed; made by
scripts/ship_data.py), read when the cache folder has none, so a first run of the main job solves nothing.

A file holds ``values`` (float64, one per state) and ``meta`` (JSON: version, rules hash, state space,
summary figures and the SHA-256 of the values). Reading checks all of it before the values are
used, and reads the array headers before any array, so a cut-off, empty, wrong-shaped or garbage
file is a cache miss: the table is solved again and the file replaced. Files are written to a
unique temporary name, fsynced and renamed over the old one, so readers and concurrent writers
(two processes solving the same rules) only ever see whole files.
"""
import hashlib
import json
import os
import zipfile
from importlib.resources import files
from pathlib import Path

import numpy as np
import numpy.lib.format as npy

from ..config import finite
from ..rules import load, rules_hash
from ..safe_file import FileRefused, NoSuchFile, atomic_writer, build_lock, open_read
from .distribution import Distributions, build
from .solution import Solution
from ..rules import solitaire_rules
from .solve import solve
from .space import MAX_BOXES, MAX_SOLVE_BYTES, STATE_BYTES, StateSpace, check_distributions, check_solvable

SOLVER_VERSION = 1
DISTRIBUTION_VERSION = 3    # the score distributions' files (2: summed in float32; 3: the data's checksum in the
                            # index); an older file is built again
SHIPPED = "tables"          # package data: solved tables shipped with the package (see the module docstring)
MAX_META_BYTES = 1 << 16
MAX_FILE_BYTES = 8 << 30      # the largest state space the solver takes, in float64, with room
HEADERS = {(1, 0): npy.read_array_header_1_0, (2, 0): npy.read_array_header_2_0}
LONG_SOLVE_BYTES = 1 << 30   # a solve holding more is a long one (Maxi Yatzy: 3.6 GB, about ten minutes; yatzy: 0.1 GB)
SUMMARY = ("expected_score", "std", "p_upper_bonus", "p_yacht_50", "expected_extra_yachts", "seconds")


class DamagedCache(ValueError):
    """A cache file that cannot be used; the message says why."""


def cache_dir() -> Path:
    return Path(os.environ.get("YACHT_CACHE_DIR") or Path.home() / ".cache" / "yacht-arena")


def cache_path(rules) -> Path:
    """Where the table of `rules` (as a one-column solitaire game) is stored."""
    return cache_dir() / f"solver-v{SOLVER_VERSION}-{rules_hash(solitaire_rules(rules))}.npz"


def shipped_path(rules) -> Path:
    """Where the package ships the table of `rules`, if it ships one (a file name as `cache_path`'s)."""
    return Path(str(files(__package__) / SHIPPED / cache_path(rules).name))


def long_solve_bytes(rules) -> int:
    """The memory the solve of the table of `rules` (of its one column) would hold when that solve is a long
    one: not solved yet (neither in the cache folder nor shipped) and holding more than `LONG_SOLVE_BYTES`;
    0 otherwise. Cheap: the state space's size and two file names."""
    column = load(rules, columns=1) if rules.columns > 1 else rules
    need = StateSpace.of(column.tables).size * STATE_BYTES
    if need <= LONG_SOLVE_BYTES or cache_path(column).exists() or shipped_path(column).exists():
        return 0
    return need


def _digest(values: np.ndarray) -> str:
    """SHA-256 of the values as little-endian float64, read in place (no copy of a table of hundreds of MB)."""
    return hashlib.sha256(np.ascontiguousarray(values, dtype="<f8").view(np.uint8)).hexdigest()


def save(solution: Solution, path: Path, compressed: bool = False) -> None:
    """Write `solution` to `path` atomically (temporary file, fsync, rename; `yacht_env.safe_file`); OSError
    if it cannot, FileRefused when the name holds a link or another kind of file (never written through).
    compressed: deflate the members (a third of the size, for shipping; slower to write)."""
    path = Path(path)
    values = np.ascontiguousarray(solution.values, dtype="<f8")
    meta = {"version": SOLVER_VERSION, "rules_key": solution.rules_key, "space": solution.space.meta(),
            "sha256": _digest(values), **solution.summary()}
    with atomic_writer(path, "solver cache file") as f:   # readers never see a half-written file
        (np.savez_compressed if compressed else np.savez)(f, values=values, meta=np.array(json.dumps(meta)))


def read_file(path: Path, rules=None) -> Solution:
    """The solution stored at `path`, checked: the zip members, the meta JSON and its fields, the state
    space (that of `rules` when given, else within the solver's limits), the values' dtype and shape
    (from the array header, before the array is read), finite values and their checksum.
    Raises FileNotFoundError when there is no file and DamagedCache when it cannot be used (also when it
    is not a regular file: a FIFO, a device or a folder is never read)."""
    expected = StateSpace.of(solitaire_rules(rules).tables) if rules is not None else None
    try:
        handle = open_read(path, "solver cache file", MAX_FILE_BYTES)
    except NoSuchFile:
        raise FileNotFoundError(str(path)) from None
    except FileRefused as e:
        raise DamagedCache(e.problem) from None
    try:
        with handle, zipfile.ZipFile(handle) as z:
            names = set(z.namelist())
            if names != {"values.npy", "meta.npy"}:
                raise DamagedCache(f"members {sorted(names)[:4]}, expected meta.npy and values.npy")
            if z.getinfo("meta.npy").file_size > MAX_META_BYTES:
                raise DamagedCache("meta.npy is too large")
            if z.getinfo("values.npy").file_size > MAX_FILE_BYTES:
                raise DamagedCache("values.npy is too large")
            with z.open("meta.npy") as f:
                meta_text = npy.read_array(f, allow_pickle=False)
            meta = _meta(meta_text, rules)
            space = StateSpace.from_meta(meta["space"])
            if expected is not None and space != expected:
                raise DamagedCache(f"state space {space}, expected {expected}")
            if not (1 <= space.n_boxes <= MAX_BOXES and space.n_upper <= 1 << 10 and space.n_flag in (1, 2) and
                    space.n_saved >= 1 and space.size * STATE_BYTES <= MAX_SOLVE_BYTES):
                raise DamagedCache(f"state space {space} is out of the solver's range")
            with z.open("values.npy") as f:
                header = HEADERS.get(npy.read_magic(f))
                if header is None:
                    raise DamagedCache("values.npy has an unknown format version")
                shape, fortran, dtype = header(f)
            if shape != (space.size,) or dtype != np.dtype("<f8") or fortran:
                raise DamagedCache(f"values of shape {shape} and type {dtype}, expected ({space.size},) float64")
            if z.getinfo("values.npy").file_size > space.size * 8 + 4096:    # decompressed: header and values
                raise DamagedCache("values.npy is larger than its header says")
            with z.open("values.npy") as f:
                values = npy.read_array(f, allow_pickle=False)
    except (FileNotFoundError, DamagedCache):
        raise
    except Exception as e:  # noqa: BLE001 - whatever makes a cache file unreadable, it is solved again
        raise DamagedCache(f"unreadable ({type(e).__name__}: {str(e)[:120]})") from None
    if values.shape != (space.size,) or not np.isfinite(values).all():
        raise DamagedCache("values cut short or not finite")
    if _digest(values) != meta["sha256"]:
        raise DamagedCache("values do not match their checksum")
    return Solution(rules_key=meta["rules_key"], space=space, values=values,
                    **{k: float(meta[k]) for k in SUMMARY})


def _meta(text, rules) -> dict:
    if text.shape != () or text.dtype.kind != "U":
        raise DamagedCache("meta is not one JSON string")
    try:
        meta = json.loads(str(text))
    except (ValueError, RecursionError):
        raise DamagedCache("meta is not valid JSON") from None
    if not isinstance(meta, dict):
        raise DamagedCache("meta is not a JSON object")
    if meta.get("version") != SOLVER_VERSION:
        raise DamagedCache(f"solver version {str(meta.get('version'))[:20]}, this solver is {SOLVER_VERSION}")
    if rules is not None and meta.get("rules_key") != rules_hash(solitaire_rules(rules)):
        raise DamagedCache("written for other rules")
    if not isinstance(meta.get("rules_key"), str) or not isinstance(meta.get("sha256"), str):
        raise DamagedCache("meta lacks its rules key or checksum")
    space = meta.get("space")
    if not isinstance(space, dict) or set(space) | {"n_saved"} != set(StateSpace._fields) or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in space.values()):
        raise DamagedCache("meta has no valid state space")
    for key in SUMMARY:
        v = meta.get(key)
        if not finite(v):
            raise DamagedCache(f"meta field {key} is not a finite number")
    return meta


_LOADED: dict = {}   # path -> (the file's identity when read, its Solution): one read per process


def load_file(path: Path, rules=None) -> Solution | None:
    """The solution stored at `path` (checked as in `read_file`), or None when it is missing or unusable.
    A file already read by this process, unchanged since (same inode, size and modification time), is
    not read again; its table is shared read-only."""
    try:
        st = path.stat()
    except OSError:
        return None
    ident = (st.st_ino, st.st_size, st.st_mtime_ns)
    seen = _LOADED.get(path)
    if seen is not None and seen[0] == ident and (
            rules is None or seen[1].rules_key == rules_hash(solitaire_rules(rules))):
        return seen[1]
    try:
        solution = read_file(path, rules)
    except (FileNotFoundError, DamagedCache):
        return None
    solution.values.flags.writeable = False
    _LOADED[path] = (ident, solution)
    return solution


def solution_for(rules, use_cache: bool = True, progress: bool = True) -> Solution:
    """The solved table of a one-column rule set: from the cache, else the one the package ships, else solved
    now and stored in the cache (replacing a damaged file). A solve holds the lock file beside the table
    (`<stem>.lock`, `safe_file.build_lock`): processes that miss the cache together solve once, and the others
    read what it stored."""
    return solution_with_source(rules, use_cache, progress)[0]


SOURCES = {"cache": "read from the cache", "shipped": "shipped with the package", "solved": "solved now"}


def solution_with_source(rules, use_cache: bool = True, progress: bool = True) -> tuple[Solution, str]:
    """`solution_for`'s table and where it came from: "cache" (the cache folder's file, also one another
    process stored while this one waited for its lock), "shipped" (the package's) or "solved" (solved now)."""
    check_solvable(rules)
    rules = solitaire_rules(rules)
    path = cache_path(rules)
    if use_cache:
        found = load_file(path, rules)
        if found is not None:
            return found, "cache"
        found = load_file(shipped_path(rules), rules)
        if found is not None:
            return found, "shipped"
    solved = []

    def build():
        solved.append(solve(rules, progress=progress))
        return solved[0]
    # a read-only or full cache folder, or a planted link, only costs a re-solve next time
    solution = _built_once(path.with_suffix(".lock"), "solver table's lock", use_cache, lambda: load_file(path, rules),
                           build, lambda solution: save(solution, path), (OSError, FileRefused))
    return solution, "solved" if solved else "cache"


def _built_once(lock, what: str, use_cache: bool, look, build, store, forgiven: tuple):
    """What `build()` makes, holding the build lock `lock` (`safe_file.build_lock`), unless `look()` finds it
    once the lock is held (another process built it while this one waited; with use_cache). The result is
    `store`d; an error in `forgiven` while storing only costs a rebuild next time."""
    with build_lock(lock, what):
        if use_cache:
            found = look()
            if found is not None:
                return found
        made = build()
        try:
            store(made)
        except forgiven:
            pass
    return made


# ---- score distributions ------------------------------------------------------------------------
# Beside a table's values: ``<stem>.dist.npy`` (the float32 pmfs, opened memory-mapped so the processes
# of a run share one copy) and ``<stem>.dist.npz`` (per-state offset, length, lowest score, lost mass,
# and meta: versions, rules hash, state space, the data's length, the SHA-256 of the index arrays and that of
# the data), and ``<stem>.dist.lock``, held by the one process building them.
# The index is checked whole; the data file by its header (dtype, shape) and its content (the checksum, read
# once per process and file: `_DATA_CHECKED`); a mismatch is a miss, and the files are built again.

def distribution_paths(rules, risk: float = 0.0) -> tuple[Path, Path]:
    """(data, index) files of the score distributions of `rules` (as a one-column solitaire game); risk > 0:
    of its exponential-utility policy with that risk (`risk`)."""
    stem = cache_path(rules).with_suffix("")
    name = stem.name + (f".risk{float(risk)!r}" if risk else "")
    return stem.with_name(name + ".dist.npy"), stem.with_name(name + ".dist.npz")


INDEX = ("offset", "length", "lo", "lost")


def _index_digest(arrays) -> str:
    h = hashlib.sha256()
    for a in arrays:
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()


def _data_digest(data: np.ndarray) -> str:
    """SHA-256 of the distributions' data as stored (float32, little-endian), read in chunks of 16 MiB."""
    h = hashlib.sha256()
    step = 4 << 20
    for i in range(0, len(data), step):
        h.update(np.ascontiguousarray(data[i:i + step], "<f4").tobytes())
    return h.hexdigest()


_DATA_CHECKED: dict = {}   # data file path -> its identity (inode, size, mtime) when its checksum last matched


def save_distributions(dist, rules, risk: float = 0.0) -> None:
    """Write the distributions of `rules` (risk > 0: of its exponential-utility policy) beside its values (data
    first, then the index that names it)."""
    data_path, index_path = distribution_paths(rules, risk)
    arrays = [getattr(dist, k) for k in INDEX]
    meta = {"version": SOLVER_VERSION, "distribution_version": DISTRIBUTION_VERSION, "risk": float(risk),
            "rules_key": rules_hash(solitaire_rules(rules)),
            "space": dist.space.meta(), "entries": int(len(dist.data)), "sha256": _index_digest(arrays),
            "data_sha256": _data_digest(dist.data), "seconds": dist.seconds}
    with atomic_writer(data_path, "score distributions") as f:
        np.save(f, np.ascontiguousarray(dist.data, "<f4"))
    with atomic_writer(index_path, "score distributions' index") as f:
        np.savez(f, meta=np.array(json.dumps(meta)), **dict(zip(INDEX, arrays)))


def load_distributions(rules, risk: float = 0.0):
    """The cached distributions of `rules` (risk > 0: of its exponential-utility policy), or None when missing
    or unusable."""
    data_path, index_path = distribution_paths(rules, risk)
    space = StateSpace.of(solitaire_rules(rules).tables)
    try:
        with open_read(index_path, "score distributions' index", MAX_FILE_BYTES) as f, \
                np.load(f, allow_pickle=False) as z:
            if set(z.files) != {"meta", *INDEX}:
                return None
            meta = json.loads(str(z["meta"]))
            arrays = [z[k] for k in INDEX]
        with open_read(data_path, "score distributions", MAX_FILE_BYTES) as f:   # regular files only
            header = HEADERS.get(npy.read_magic(f))
            if header is None:
                return None
            shape, fortran, dtype = header(f)
            if fortran or len(shape) != 1:
                return None
            data = np.memmap(f, dtype=dtype, mode="r", offset=f.tell(), shape=shape)   # outlives the file
            st = os.fstat(f.fileno())
    except Exception:  # noqa: BLE001 - whatever makes the files unreadable, they are built again
        return None
    if not isinstance(meta, dict) or meta.get("version") != SOLVER_VERSION or \
            meta.get("distribution_version") != DISTRIBUTION_VERSION or meta.get("risk", 0.0) != float(risk) or \
            meta.get("rules_key") != rules_hash(solitaire_rules(rules)) or meta.get("space") != space.meta() or \
            meta.get("sha256") != _index_digest(arrays) or data.dtype != np.dtype("<f4") or \
            data.shape != (meta.get("entries"),) or any(a.shape != (space.size,) for a in arrays):
        return None
    offset, length, lo, lost = arrays
    if ((offset + length.astype(np.int64)).max(initial=0) > len(data) or (offset < -1).any() or
            (length[offset >= 0] < 1).any()):   # every pmf within the data (-1: an unreachable state)
        return None
    ident = (st.st_ino, st.st_size, st.st_mtime_ns, meta.get("data_sha256"))
    if _DATA_CHECKED.get(data_path) != ident:
        try:
            if meta.get("data_sha256") != _data_digest(data):
                return None
        except OSError:            # the file cut short under the map
            return None
        _DATA_CHECKED[data_path] = ident
    return Distributions(space=space, offset=offset, length=length, lo=lo, lost=lost, data=data,
                         seconds=float(meta.get("seconds", 0.0)))


def distributions_for(rules, use_cache: bool = True, progress: bool = True, risk: float = 0.0):
    """The score distributions of a one-column rule set (`yacht_env.solver.distribution`): from the cache,
    else built from its solved values (solved first if need be) and stored. risk > 0: those of its
    exponential-utility policy with that risk (`yacht_env.solver.risk`). A build holds the lock file beside
    the files (`<stem>.dist.lock`, `safe_file.build_lock`): processes that miss the cache together build
    once, the others wait and read what it wrote."""
    return distributions_with_source(rules, use_cache, progress, risk)[0]


def distributions_with_source(rules, use_cache: bool = True, progress: bool = True, risk: float = 0.0):
    """`distributions_for`'s distributions and where they came from: "cache" or "built" (built now). Unsolvable
    when they are out of reach (`space.check_distributions`)."""
    check_distributions(rules)
    rules = solitaire_rules(rules)
    if use_cache:
        found = load_distributions(rules, risk)
        if found is not None:
            return found, "cache"
    data_path, _ = distribution_paths(rules, risk)
    built = []

    def make():
        built.append(build(rules, solution_for(rules, use_cache=use_cache, progress=progress), progress=progress,
                           risk=risk))
        return built[0]
    # a read-only or full cache folder only costs a rebuild next time
    dist = _built_once(data_path.with_suffix(".lock"), "score distributions' lock", use_cache,
                       lambda: load_distributions(rules, risk), make,
                       lambda d: save_distributions(d, rules, risk), (OSError,))
    return dist, "built" if built else "cache"
