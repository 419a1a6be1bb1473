"""Limits every crash run gets, with or without bubblewrap around the harness.

`limit_server` runs first in the harness server, before anything from the repository is
imported (scenario files, targets, `check=` code): memory, file size, process count, a CPU
budget for the whole file, no core files, no network, the drop to `nobody` when the server
is root, and no ptrace of the server. `apply` then narrows the limits for each run.
"""
import os
import resource
import signal
import socket

NOBODY = 65534


def _world_readable(path: str) -> bool:
    path = os.path.realpath(path)
    while True:
        try:
            if not os.stat(path).st_mode & 0o005:
                return False
        except OSError:
            return False
        parent = os.path.dirname(path)
        if parent == path:
            return True
        path = parent


def can_drop_privileges(paths) -> bool:
    """As root the process-count limit is not enforced, so runs drop to `nobody`,
    which only works where the interpreter and the code are readable by others."""
    return os.geteuid() == 0 and all(_world_readable(p) for p in paths)


def _chown_tree(top: str, uid: int) -> None:
    os.chown(top, uid, uid)
    for dirpath, dirnames, filenames in os.walk(top):
        for name in dirnames + filenames:
            try:
                os.lchown(os.path.join(dirpath, name), uid, uid)
            except OSError:
                pass


class _NoNetwork(socket.socket):
    def connect(self, *args, **kwargs):
        raise PermissionError("crashprobe: crash runs have no network")

    connect_ex = connect


def _lower(which: int, value: int) -> None:
    """Sets a limit to `value`, or to the hard limit already in force when that is lower."""
    _soft, hard = resource.getrlimit(which)
    if hard != resource.RLIM_INFINITY:
        value = min(value, hard)
    resource.setrlimit(which, (value, value))


def _set_cpu(soft: int, hard: int) -> None:
    _now, current_hard = resource.getrlimit(resource.RLIMIT_CPU)
    if current_hard != resource.RLIM_INFINITY:
        hard = min(hard, current_hard)
        soft = min(soft, hard)
    resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))


def _not_dumpable() -> None:
    """PR_SET_DUMPABLE 0: a run (same uid) can neither ptrace the server nor read its /proc files."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0)
    except Exception:  # no ctypes or no prctl (not Linux): the pid namespace still hides everything else
        pass


def _host_uid() -> int:
    """The uid this process is on the host: the outer end of its user namespace's map."""
    try:
        with open("/proc/self/uid_map", "r", encoding="ascii") as handle:
            for line in handle:
                inside, outside, count = (int(x) for x in line.split())
                if inside <= os.getuid() < inside + count:
                    return outside + os.getuid() - inside
    except (OSError, ValueError):
        pass
    return os.getuid()


def limit_server(limits: dict, file_cpu_seconds: int, readable_paths, work: str):
    """Limits and privilege drop of the harness server, before any repository code loads.

    The CPU soft limit is the per-run budget while the scenario file and its targets import
    (SIGXCPU then ends the server: a spinning import is a per-file error), raised to the
    whole-file budget by `imports_done`; the hard limit is the whole-file budget throughout, so
    code that raises its own soft limit is still stopped there. Returns notes for the review."""
    notes = []
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    address_space = int(limits.get("memory_mb", 1024)) * 1024 * 1024
    _lower(resource.RLIMIT_AS, address_space)
    file_size = int(limits.get("file_size_mb", 64)) * 1024 * 1024
    _lower(resource.RLIMIT_FSIZE, file_size)
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a too-large write then fails with EFBIG
    signal.signal(signal.SIGXCPU, signal.SIG_DFL)
    budget = max(1, int(file_cpu_seconds))
    _set_cpu(min(budget, int(limits.get("cpu_seconds", 20))), budget + 1)
    nproc = int(limits.get("processes", 64))
    if os.geteuid() == 0:
        # The work folder need not be readable by others: it is handed to `nobody` just below.
        others = [p for p in readable_paths if os.path.realpath(p) != os.path.realpath(work)]
        if limits.get("drop_privileges") and can_drop_privileges(others):
            _chown_tree(work, NOBODY)
            _lower(resource.RLIMIT_NPROC, nproc)
            os.setgroups([])
            os.setgid(NOBODY)
            os.setuid(NOBODY)
        else:
            limits["drop_privileges"] = False
            notes.append("runs keep the root user here (the interpreter or the code is not readable by others), "
                         "so the process-count limit is only the harness's own guard")
    else:
        _lower(resource.RLIMIT_NPROC, nproc)
        if _host_uid() == 0:
            notes.append("bubblewrap runs as root here (its user namespace maps to the host's root), "
                         "so the process-count limit is only the harness's own guard")
    limits["drop_privileges"] = False  # done here, once: runs need not (and, as nobody, cannot) do it again
    _not_dumpable()
    from . import syscall_filter

    refused = syscall_filter.install()
    if refused:
        notes.append(refused)
    socket.socket = _NoNetwork
    return notes


def imports_done(file_cpu_seconds: int) -> None:
    """After the scenario file and its targets imported: the rest of the whole-file CPU budget."""
    budget = max(1, int(file_cpu_seconds))
    _set_cpu(budget, budget + 1)


def apply(limits: dict, writable_dirs) -> None:
    cpu = int(limits.get("cpu_seconds", 20))
    _set_cpu(cpu, cpu + 1)
    address_space = int(limits.get("memory_mb", 1024)) * 1024 * 1024
    _lower(resource.RLIMIT_AS, address_space)
    file_size = int(limits.get("file_size_mb", 64)) * 1024 * 1024
    _lower(resource.RLIMIT_FSIZE, file_size)
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a too-large write then fails with EFBIG
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    nproc = int(limits.get("processes", 64))
    if limits.get("drop_privileges") and os.geteuid() == 0:
        for top in writable_dirs:
            _chown_tree(top, NOBODY)
        _lower(resource.RLIMIT_NPROC, nproc)
        os.setgroups([])
        os.setgid(NOBODY)
        os.setuid(NOBODY)
    elif os.geteuid() != 0:
        _lower(resource.RLIMIT_NPROC, nproc)
    socket.socket = _NoNetwork
    _limit_forks(nproc)


def _limit_forks(most: int) -> None:
    # A guard for where the process-count limit cannot apply (runs that keep root).
    real_fork = os.fork
    count = 0

    def fork():
        nonlocal count
        count += 1
        if count > most:
            raise BlockingIOError(f"crashprobe: a crash run may start at most {most} processes")
        pid = real_fork()
        if pid == 0:
            count = most  # the budget is the run's, not each child's: no fork tree
        return pid

    os.fork = fork
