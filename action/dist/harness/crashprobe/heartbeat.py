"""A run's heartbeat: a counter in a shared page that the run moves at every
intercepted call, so the runner can tell a run that is blocked (every thread
waiting, nothing changing) from one that is slowly working.

Layout of the page: two little-endian 64-bit counters, `hits` (intercepted
calls) and `sleeps` (sleeps since the last hit). The runner reads it with
`read(path)`; a run attaches with `attach(path)`.
"""
import mmap
import os
import struct
from typing import NamedTuple, Optional

SIZE = 16
_page: Optional[mmap.mmap] = None
_hits = 0
_sleeps = 0


class Beat(NamedTuple):
    hits: int
    sleeps: int


def create(path: str) -> None:
    """Called by the runner before the run starts."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o666)
    try:
        os.ftruncate(fd, SIZE)
    finally:
        os.close(fd)


def attach(path: Optional[str]) -> None:
    global _page, _hits, _sleeps
    _hits = 0
    _sleeps = 0
    _page = None
    if not path:
        return
    try:
        fd = os.open(path, os.O_RDWR)
    except OSError:
        return
    try:
        _page = mmap.mmap(fd, SIZE)
    finally:
        os.close(fd)


def _publish() -> None:
    if _page is not None:
        _page[0:SIZE] = struct.pack("<qq", _hits, _sleeps)


def hit() -> None:
    global _hits, _sleeps
    _hits += 1
    _sleeps = 0
    _publish()


def slept() -> int:
    """Counts a sleep; returns how many sleeps there were since the last hit."""
    global _sleeps
    _sleeps += 1
    if _page is not None and _sleeps % 64 == 1:
        _publish()
    return _sleeps


def read(path: str) -> Optional[Beat]:
    try:
        with open(path, "rb") as handle:
            data = handle.read(SIZE)
    except OSError:
        return None
    if len(data) < SIZE:
        return None
    return Beat(*struct.unpack("<qq", data))
