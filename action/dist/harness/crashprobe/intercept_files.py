"""File interception: `open`/`io.open` in write modes and the writes on the file
they return, `os.open` with write flags and `os.write` on such descriptors,
`os.replace`, `os.rename`, `os.remove`, `os.unlink`, `os.rmdir`. `pathlib`,
`shutil` and `tempfile` reach the outside world through these, looked up at
call time, so they are covered too.

A write outside the scenario's folder (and the run's own temp folder) is
refused with PermissionError and recorded as a harness refusal: the scenario's
folder is the only place a crash run may change.

Files opened for writing before the target runs (by the scenario function, or
by a constructor it calls) are tracked too: their writes during the target's
call are crash points.
"""
import builtins
import errno
import io
import os
import weakref

from .points import TRACKER

# The functions as they were before install(): the harness reads and writes state with these.
real_open = builtins.open
real_os_open = os.open
real_os_write = os.write
real_os_close = os.close
_real = {name: getattr(os, name) for name in ("replace", "rename", "remove", "unlink", "rmdir")}
OPEN_FILES = weakref.WeakSet()
_write_fds = set()
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND


def _crash_error(message):
    return OSError(errno.EIO, message)


def _guard(path) -> None:
    if isinstance(path, int) or not TRACKER.active:
        return
    if not TRACKER.inside_writable(path):
        TRACKER.refuse(path)
        raise PermissionError(
            errno.EACCES,
            f"crashprobe: a crash run may only write inside its scenario folder, not {os.fspath(path)!r}",
        )


def _writes(mode: str) -> bool:
    return any(flag in mode for flag in "wax+")


class TrackedFile:
    """The file object of a write-mode `open`: each write is a crash point."""

    def __init__(self, raw):
        object.__setattr__(self, "_raw", raw)

    def write(self, data):
        TRACKER.hit("write", _crash_error)
        return self._raw.write(data)

    def writelines(self, lines):
        TRACKER.hit("write", _crash_error)
        return self._raw.writelines(lines)

    def __enter__(self):
        self._raw.__enter__()
        return self

    def __exit__(self, *exc):
        return self._raw.__exit__(*exc)

    def __iter__(self):
        return iter(self._raw)

    def __next__(self):
        return next(self._raw)

    def __getattr__(self, name):
        return getattr(self._raw, name)

    def __setattr__(self, name, value):
        setattr(self._raw, name, value)

    def __repr__(self):
        return repr(self._raw)


def tracked_open(file, mode="r", *args, **kwargs):
    if not TRACKER.in_run or not _writes(mode):
        return real_open(file, mode, *args, **kwargs)
    if TRACKER.active:
        _guard(file)
        TRACKER.hit("open", _crash_error)
    raw = real_open(file, mode, *args, **kwargs)
    OPEN_FILES.add(raw)
    return TrackedFile(raw)


def tracked_os_open(path, flags, *args, **kwargs):
    if not TRACKER.in_run or not flags & _WRITE_FLAGS:
        return real_os_open(path, flags, *args, **kwargs)
    if TRACKER.active:
        if kwargs.get("dir_fd") is None:
            _guard(path)
        TRACKER.hit("os.open", _crash_error)
    fd = real_os_open(path, flags, *args, **kwargs)
    _write_fds.add(fd)
    return fd


def tracked_os_write(fd, data):
    if TRACKER.active and fd in _write_fds:
        TRACKER.hit("os.write", _crash_error)
    return real_os_write(fd, data)


def tracked_os_close(fd):
    _write_fds.discard(fd)
    return real_os_close(fd)


def _path_call(name):
    real = _real[name]

    def call(*args, **kwargs):
        if TRACKER.active:
            if kwargs.get("dir_fd") is None and kwargs.get("src_dir_fd") is None:
                for path in args[:2] if name in ("replace", "rename") else args[:1]:
                    _guard(path)
            TRACKER.hit(f"os.{name}", _crash_error)
        return real(*args, **kwargs)

    call.__name__ = name
    return call


def close_all() -> None:
    """What interpreter exit does for files left open: flush and close them."""
    for raw in list(OPEN_FILES):
        try:
            raw.close()
        except Exception:
            pass
    _write_fds.clear()


def install() -> None:
    builtins.open = tracked_open
    io.open = tracked_open
    os.open = tracked_os_open
    os.write = tracked_os_write
    os.close = tracked_os_close
    for name in _real:
        setattr(os, name, _path_call(name))
