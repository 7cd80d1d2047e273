"""Runs one external bot and ends everything it started (used by agents/external.py).

    python -I -S bot_supervisor.py SETTINGS_JSON -- COMMAND...

The supervisor is a small process between the harness and the bot, written against the standard
library only (it starts in a few milliseconds). On Linux it makes itself a child subreaper, so
every orphaned descendant of the bot -- a grandchild that left the bot's session with setsid()
and whose parent exited, say -- is re-parented to the supervisor instead of to init. It starts the
bot in a new session, inside the cgroup SETTINGS names (if any) and with the resource limits of
SETTINGS applied, and then waits for one of two things:

  - the bot's main process exits: the supervisor kills every remaining descendant (so nothing keeps
    the bot's stdout open) and exits with the bot's status (a bot killed by a signal is mirrored by
    the same signal, so the harness sees the bot's own exit code);
  - the control pipe (file descriptor SETTINGS["control"]) reaches end of file, because the harness
    closed the bot or died in any way (even SIGKILL): the supervisor kills the bot and every
    descendant, then exits.

Every process is ended with SIGKILL: through the cgroup when there is one (nothing escapes a
cgroup short of a privileged write to another cgroup's `cgroup.procs`), and by walking /proc for
the supervisor's descendants until none is left; on systems without /proc, the bot's process group
while the bot runs. A process is pinned by a pidfd before it is signalled, so a pid that was freed
and reused meanwhile is never hit.

SETTINGS: {"control": fd, "cgroup": path or null, "limits": {"RLIMIT_AS": n, ...}} -- each limit is
set as both soft and hard limit in the bot before exec, except RLIMIT_CPU, whose hard limit is one
second above the soft one (SIGXCPU at the limit, SIGKILL a second later). Core files are off.
"""
import ctypes
import json
import os
import resource
import select
import signal
import sys
import time

PR_SET_CHILD_SUBREAPER = 36
KILL_PATIENCE = 10.0     # seconds to keep killing and reaping before giving up (a process stuck in the kernel)


# ---- cgroups (also used by the harness, which creates and removes the bot's cgroup) ----------------
def _cgroup_roots() -> list[tuple[str, bool]]:
    """(folder of this process's own cgroup, is_v2) for the unified hierarchy and the v1 `pids` one."""
    try:
        with open("/proc/self/mountinfo") as f:
            mounts = [line.split() for line in f]
        with open("/proc/self/cgroup") as f:
            own = [line.rstrip("\n").split(":", 2) for line in f]
    except OSError:
        return []
    roots = []
    for v2 in (True, False):
        for fields in mounts:
            sep = fields.index("-")
            fstype, options = fields[sep + 1], fields[sep + 3].split(",")
            if (fstype == "cgroup2") if v2 else (fstype == "cgroup" and "pids" in options):
                mount_root, mount_point = fields[3], fields[4]
                for _, controllers, path in own:
                    if (controllers == "" and v2) or (not v2 and "pids" in controllers.split(",")):
                        rel = os.path.relpath(path, mount_root)
                        if not rel.startswith(".."):
                            roots.append((os.path.normpath(os.path.join(mount_point, rel)), v2))
                break
    return roots


_made = 0


def make_cgroup(procs: int | None) -> str | None:
    """A new, empty cgroup for one bot, next to this process's own, or None where none is writable.

    With `procs`, only a cgroup that can hold a `pids.max` limit will do, and the limit is set.
    """
    global _made
    for root, _ in _cgroup_roots():
        _made += 1
        path = os.path.join(root, f"yacht-bot-{os.getpid()}-{_made}")
        try:
            os.mkdir(path)
        except OSError:
            continue
        try:
            if procs is not None:
                with open(os.path.join(path, "pids.max"), "w") as f:
                    f.write(str(procs))
            return path
        except OSError:
            _remove(path)
    return None


def cgroup_members(path: str) -> list[int]:
    try:
        with open(os.path.join(path, "cgroup.procs")) as f:
            return [int(x) for x in f.read().split()]
    except (OSError, ValueError):
        return []


def kill_cgroup(path: str, patience: float = KILL_PATIENCE) -> None:
    """SIGKILL every process in the cgroup until it is empty, then remove the cgroup. It reaps nothing
    (the harness calls it too, and only a process's parent may reap it)."""
    end = time.monotonic() + patience
    while not _remove(path) and time.monotonic() < end:
        _kill_members(path)
        time.sleep(0.002)


def _kill_members(path: str) -> list[int]:
    """Kill every process in the cgroup (at once where the kernel can: cgroup v2, Linux 5.14+);
    return the members found."""
    try:
        with open(os.path.join(path, "cgroup.kill"), "w") as f:
            f.write("1")
    except OSError:
        pass
    name = os.path.basename(path)
    members = cgroup_members(path)
    for pid in members:
        kill_exact(pid, lambda p: name in _read(f"/proc/{p}/cgroup"))
    return members


def _remove(path: str) -> bool:
    try:
        os.rmdir(path)
        return True
    except FileNotFoundError:
        return True
    except OSError:     # still populated for a moment while the killed processes exit
        return False


# ---- processes ---------------------------------------------------------------------------------
def _read(path: str) -> str:
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return ""


def _signal(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except OSError:
        pass


def kill_exact(pid: int, still_it) -> None:
    """SIGKILL process `pid` if `still_it(pid)` holds once the process is pinned by a pidfd (Linux 5.3+),
    so that a pid freed and taken by another process in the meantime is never signalled."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return
    except (AttributeError, OSError):          # no pidfds here: check, then signal
        if still_it(pid):
            _signal(pid, signal.SIGKILL)
        return
    try:
        if still_it(pid):
            signal.pidfd_send_signal(fd, signal.SIGKILL)
    except OSError:
        pass
    finally:
        os.close(fd)


def _stat(pid: int) -> tuple[bytes, int, int] | None:
    """(state, parent pid, start time) of a process, from /proc/PID/stat."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
    except OSError:
        return None
    fields = stat[stat.rfind(b")") + 2:].split()
    return fields[0], int(fields[1]), int(fields[19])


def descendants(root: int) -> list[tuple[int, bool, int]]:
    """(pid, is_zombie, start time) of every descendant of `root`, from /proc (empty without /proc)."""
    children: dict[int, list[tuple[int, bool, int]]] = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return []
    for name in names:
        if name.isdigit() and (stat := _stat(int(name))) is not None:
            state, ppid, start = stat
            children.setdefault(ppid, []).append((int(name), state == b"Z", start))
    found, todo = [], [root]
    while todo:
        for child in children.get(todo.pop(), ()):
            found.append(child)
            todo.append(child[0])
    return found


_statuses: dict[int, int] = {}


def _reap() -> bool:
    """Reap every child that has exited (keeping their wait statuses); True if children remain."""
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return False
        if pid == 0:
            return True
        _statuses[pid] = status


def end_all(bot: int, cgroup: str | None) -> None:
    """Kill the bot and every descendant, reap them all, and remove the bot's cgroup."""
    if bot not in _statuses:             # not reaped yet, so its pid is still the bot's group
        _signal(-bot, signal.SIGKILL)
    end = time.monotonic() + KILL_PATIENCE
    while time.monotonic() < end:
        live = [(pid, start) for pid, zombie, start in descendants(os.getpid()) if not zombie]
        for pid, start in live:
            kill_exact(pid, lambda p, start=start: (_stat(p) or (b"", 0, -1))[2] == start)
        members = _kill_members(cgroup) if cgroup else []
        if not _reap() and not live and not members:
            break
        time.sleep(0.002)
    if cgroup:
        kill_cgroup(cgroup)


# ---- the bot -----------------------------------------------------------------------------------
def _exec_bot(argv: list[str], cgroup: str | None, limits: dict, keep_closed: list[int]) -> None:
    """In the forked child: new session, cgroup, limits, default signals, then exec the bot."""
    try:
        os.setsid()
        for sig in (signal.SIGPIPE, signal.SIGXFSZ, signal.SIGCHLD, signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, signal.SIG_DFL)
        signal.set_wakeup_fd(-1)
        for fd in keep_closed:
            os.close(fd)
        if cgroup:
            with open(os.path.join(cgroup, "cgroup.procs"), "w") as f:
                f.write(str(os.getpid()))
        for name, value in limits.items():
            which = getattr(resource, name)
            cap = resource.getrlimit(which)[1]             # a limit cannot be raised above the hard one
            soft = value if cap == resource.RLIM_INFINITY else min(value, cap)
            hard = soft + 1 if name == "RLIMIT_CPU" else soft
            resource.setrlimit(which, (soft, hard if cap == resource.RLIM_INFINITY else min(hard, cap)))
        os.execvp(argv[0], argv)
    except BaseException as e:  # noqa: BLE001 - whatever stops the start, the bot's stderr says it
        os.write(2, f"yacht bot supervisor: cannot start {argv[0]!r}: {e}\n".encode())
    os._exit(127)


def _wait(bot: int, control: int, wakeup: int) -> None:
    """Until the bot exits or the control pipe ends (or SIGTERM / SIGHUP arrives)."""
    while True:
        _reap()
        if bot in _statuses or _stop:
            return
        ready, _, _ = select.select([control, wakeup], [], [], 1.0)
        if wakeup in ready:
            os.read(wakeup, 4096)
        if control in ready:
            return          # end of file: the harness is done with the bot, or gone


_stop = False


def _on_stop(signum, frame) -> None:
    global _stop
    _stop = True


def main(args: list[str]) -> None:
    settings, sep, argv = json.loads(args[0]), args[1], args[2:]
    if sep != "--" or not argv:
        sys.exit("usage: bot_supervisor.py SETTINGS_JSON -- COMMAND...")
    control, cgroup = settings["control"], settings.get("cgroup")
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_r, False)
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda signum, frame: None)   # a handler, so SIGCHLD writes the wake-up fd
    signal.signal(signal.SIGTERM, _on_stop)
    signal.signal(signal.SIGHUP, _on_stop)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    bot = os.fork()
    if bot == 0:
        _exec_bot(argv, cgroup, settings.get("limits") or {}, [control, wake_r, wake_w])
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):             # hold none of the bot's pipes: its exit must close them
        os.dup2(devnull, fd)
    _wait(bot, control, wake_r)
    end_all(bot, cgroup)
    status = _statuses.get(bot)
    if status is None:
        os._exit(0)
    code = os.waitstatus_to_exitcode(status)
    if code < 0:                     # killed by a signal: end the same way
        signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
        code = 128 - code
    os._exit(code)


if __name__ == "__main__":
    main(sys.argv[1:])
