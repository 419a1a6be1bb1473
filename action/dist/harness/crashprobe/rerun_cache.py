"""Re-runs by the state they start from (issue 13: one re-run per distinct crash outcome).

A re-run always runs the same code with the same simulated clock and seed (campaign.py), so
what it does depends only on what it finds: the scenario folder (files, side files, locks,
folders, links), the outbox, its system temp folder, and the files' modes and which of them
is newer than which (the real mtimes differ from run to run; their order is what code can
act on). Crash points whose crash leaves exactly the same of all that (a soft and a hard crash
before the first write, a crash after the last commit and the normal run) then share one
re-run instead of each starting a process that can only do the same again.

Not reused: a re-run stopped by a limit (wall clock, CPU, memory): that depends on the machine's
load, not on the state. A target whose re-run is nondeterministic (threads racing) gets the first
re-run's result for later equal states, as a second campaign could have got any one of them.
"""
import hashlib
import os
from typing import Dict, NamedTuple, Optional

from .intercept_files import real_open
from .reports import RunReport, Status
from .state import State


class Rerun(NamedTuple):
    report: RunReport
    after: State


def _tree(digest, top: str, contents: bool) -> None:
    """Names, kinds, modes and the order of the mtimes under `top`; file bytes when `contents`."""
    stamps = []
    for dirpath, dirnames, filenames in os.walk(top):
        dirnames.sort()
        for name in dirnames + sorted(filenames):
            full = os.path.join(dirpath, name)
            rel = os.path.relpath(full, top).encode("utf-8", "surrogateescape")
            try:
                info = os.lstat(full)
            except OSError:
                continue
            digest.update(b"e" + rel + b"\0" + info.st_mode.to_bytes(4, "little"))
            stamps.append((info.st_mtime_ns, rel))
            if os.path.islink(full):
                digest.update(os.readlink(full).encode("utf-8", "surrogateescape") + b"\0")
            elif contents and name in filenames:
                with real_open(full, "rb") as handle:
                    data = handle.read()
                digest.update(len(data).to_bytes(8, "little") + data)
    digest.update(b"order\0" + b"\0".join(rel for _, rel in sorted(stamps)))


def start_key(mode: str, start: State, folder: str, temp: str) -> Optional[bytes]:
    """What a re-run in `mode` can see before it starts; None when the state has no digest."""
    if start.digest is None:
        return None
    digest = hashlib.blake2b(digest_size=20)
    digest.update(mode.encode() + b"\0" + start.digest)  # folder and outbox contents (state.capture)
    _tree(digest, folder, contents=False)
    digest.update(b"\0temp\0")
    _tree(digest, temp, contents=True)
    return digest.digest()


class RerunCache:
    def __init__(self) -> None:
        self._seen: Dict[bytes, Rerun] = {}

    def get(self, key: Optional[bytes]) -> Optional[Rerun]:
        return self._seen.get(key) if key is not None else None

    def put(self, key: Optional[bytes], report: RunReport, after: State) -> None:
        if key is not None and report.status != Status.LIMIT:
            self._seen[key] = Rerun(report, after)
