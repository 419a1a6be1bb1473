"""Limits every crash run gets, with or without bubblewrap around the harness."""
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


def apply(limits: dict, writable_dirs) -> None:
    cpu = int(limits.get("cpu_seconds", 20))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    address_space = int(limits.get("memory_mb", 1024)) * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (address_space, address_space))
    file_size = int(limits.get("file_size_mb", 64)) * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_FSIZE, (file_size, file_size))
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a too-large write then fails with EFBIG
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if limits.get("drop_privileges"):
        for top in writable_dirs:
            _chown_tree(top, NOBODY)
        nproc = int(limits.get("processes", 64))
        resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))
        os.setgroups([])
        os.setgid(NOBODY)
        os.setuid(NOBODY)
    socket.socket = _NoNetwork
    _limit_forks(int(limits.get("processes", 64)))


def _limit_forks(most: int) -> None:
    # A guard for where the process-count limit cannot apply (runs that keep root).
    real_fork = os.fork
    count = [0]

    def fork():
        count[0] += 1
        if count[0] > most:
            raise BlockingIOError(f"crashprobe: a crash run may start at most {most} processes")
        pid = real_fork()
        if pid == 0:
            count[0] = most  # the budget is the run's, not each child's: no fork tree
        return pid

    os.fork = fork
