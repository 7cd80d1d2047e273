"""Test session set-up: one solver cache folder for the whole run, shared by pytest-xdist workers, and the
agents' cache folder (solved tables, the levels' dial settings) for every test that does not pick its own,
and Hypothesis without deadlines or speed checks (the suite runs on loaded machines); the `victim` fixture (a
user's file a planted link points to, tests/planted.py) for every folder; under pytest-xdist, numba compiles a
function in one worker at a time, so the other loads it from numba's cache rather than compiling it too
(tests/compile_once.py).

The tests are packages (`tests`, `tests.core`, ...: an empty __init__.py in each folder), so pytest puts the
project root on sys.path, a test module's name is its dotted path (two folders may each hold a test_x.py),
and the shared helpers are imported as `tests.<helper>`."""
import os
import shutil
import tempfile

from tests.compile_once import compile_one_at_a_time
from tests.planted import victim  # noqa: F401 - a fixture, shared by the hostile-input tests of every folder

CACHE_ENV = "YACHT_TEST_SOLVER_CACHE"
LOCKS_ENV = "YACHT_TEST_COMPILE_LOCKS"     # the xdist workers' numba compile locks (tests/compile_once.py)

try:    # no verdict may depend on the machine's speed: no deadline, no health check on slow generation
    from hypothesis import HealthCheck, settings
except ImportError:
    pass
else:
    settings.register_profile("any-load", deadline=None, suppress_health_check=[HealthCheck.too_slow])
    settings.load_profile("any-load")


def pytest_configure(config):
    # runs in the controlling process before xdist starts its workers, which inherit the variables
    worker = hasattr(config, "workerinput")
    if CACHE_ENV not in os.environ and not worker:
        os.environ[CACHE_ENV] = tempfile.mkdtemp(prefix="yacht-solver-tests-")
        config._yacht_cache_owner = True
    if CACHE_ENV in os.environ:
        os.environ["YACHT_CACHE_DIR"] = os.environ[CACHE_ENV]
    if LOCKS_ENV not in os.environ and not worker:
        os.environ[LOCKS_ENV] = tempfile.mkdtemp(prefix="yacht-compile-locks-")
        config._yacht_locks_owner = True
    if worker and LOCKS_ENV in os.environ:
        compile_one_at_a_time(os.environ[LOCKS_ENV])


def pytest_unconfigure(config):
    if getattr(config, "_yacht_cache_owner", False):
        shutil.rmtree(os.environ.pop(CACHE_ENV), ignore_errors=True)
    if getattr(config, "_yacht_locks_owner", False):
        shutil.rmtree(os.environ.pop(LOCKS_ENV), ignore_errors=True)
