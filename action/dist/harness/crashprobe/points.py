"""Crash points: every intercepted call that changes the outside world reports here.

During a run the tracker records each hit as a site and its repetition, and
crashes when the hit is the one the run was asked to crash at: a soft crash
raises the error the call raises on failure (in whichever thread made the
call); a hard crash ends the process at once, no `finally`, no buffer flushed.

A site is the innermost line of the repository's code on the calling thread's
stack, the call, the statement (for SQL, normalised) and the repository lines
that led there (`via`), so that statements sent through one helper are sites
of their own. Hits from several threads are counted under a lock.
"""
import os
import re
import sys
import threading
from typing import Callable, Dict, List, Optional, Tuple

from . import heartbeat
from .verdicts import Crash

HARD_CRASH_EXIT = 86
_real_exit = os._exit
_HARNESS_DIR = os.path.dirname(os.path.abspath(__file__))
_VIA_DEPTH = 4
_SQL_LITERAL = re.compile(r"'(?:[^']|'')*'|\b\d+(?:\.\d+)?\b")
_SPACE = re.compile(r"\s+")
# Real paths of code files, filled in the server by warm_real_paths() before it forks, so a
# run finds them here instead of walking symlinks at every crash point it passes.
_REAL_PATHS: Dict[str, str] = {}


def real_path(filename: str) -> str:
    if filename.startswith("<"):
        return filename
    real = _REAL_PATHS.get(filename)
    if real is None:
        real = _REAL_PATHS[filename] = os.path.realpath(filename)
    return real


def warm_real_paths() -> None:
    """The real path of every loaded module's file (a repository's code files are read-only to runs)."""
    for module in list(sys.modules.values()):
        filename = getattr(module, "__file__", None)
        if isinstance(filename, str):
            real_path(filename)
POINT_FIELDS = ("path", "line", "call", "statement", "via", "repetition")


def statement_text(sql) -> Optional[str]:
    """A statement as a site names it: whitespace collapsed, literals as `?`, at most 80 characters."""
    if not isinstance(sql, str):
        return None
    text = _SPACE.sub(" ", _SQL_LITERAL.sub("?", sql)).strip()
    return text if len(text) <= 80 else text[:77] + "..."


def same_point(a: dict, b: dict) -> bool:
    return all(a.get(k) == b.get(k) for k in POINT_FIELDS)


class Tracker:
    def __init__(self) -> None:
        self.active = False
        self.in_run = False  # set in a run's process before the scenario function is called
        self.root = ""
        self.writable: Tuple[str, ...] = ()
        self.crash: Optional[dict] = None  # a point plus "kind"
        self.counts: Dict[tuple, int] = {}
        self.trace: List[dict] = []
        self.crashed: Optional[dict] = None
        self.refused: Optional[str] = None
        self.on_hard_crash: Optional[Callable[[], None]] = None
        self.on_soft_crash: Optional[Callable[[], None]] = None
        self._lock = threading.RLock()

    @property
    def run_dir(self) -> str:
        return self.writable[0] if self.writable else ""

    def start(self, root: str, writable, crash: Optional[dict], on_hard_crash, on_soft_crash=None) -> None:
        self.root = os.path.realpath(root)
        self.writable = tuple(os.path.realpath(p) for p in writable)
        self.crash = crash
        self.counts = {}
        self.trace = []
        self.crashed = None
        self.refused = None
        self.on_hard_crash = on_hard_crash
        self.on_soft_crash = on_soft_crash
        self.active = True

    def stop(self) -> None:
        self.active = False

    def site_of_caller(self) -> Tuple[str, int, Tuple[str, ...]]:
        """The innermost repository line on this thread's stack, and the repository lines that called it."""
        frame = sys._getframe(2)
        fallback = None
        found = None
        via: List[str] = []
        while frame is not None:
            filename = frame.f_code.co_filename
            if not filename.startswith(_HARNESS_DIR):
                real = real_path(filename)
                if real.startswith(self.root + os.sep):
                    rel = os.path.relpath(real, self.root).replace(os.sep, "/")
                    if found is None:
                        found = (rel, frame.f_lineno)
                    elif len(via) < _VIA_DEPTH:
                        via.append(f"{rel}:{frame.f_lineno}")
                    else:
                        break
                elif fallback is None and found is None:
                    fallback = (filename, frame.f_lineno)
            frame = frame.f_back
        if found is None:
            found = fallback or ("<unknown>", 0)
        return found[0], found[1], tuple(via)

    def _register(self, call: str, statement: Optional[str], site, record: bool = True) -> bool:
        """Counts one hit at `site`; True when it is the hit this run crashes at."""
        path, line, via = site
        key = (path, line, call, statement, via)
        with self._lock:
            repetition = self.counts.get(key, 0) + 1
            self.counts[key] = repetition
            point = {"path": path, "line": line, "call": call, "repetition": repetition}
            if statement is not None:
                point["statement"] = statement
            if via:
                point["via"] = list(via)
            if record:
                self.trace.append(point)
            crash = self.crash
            if crash is not None and self.crashed is None and same_point(crash, point):
                self.crashed = dict(crash)
                return True
        heartbeat.hit()
        return False

    def fire(self, call: str, soft_error) -> None:
        """Crashes now: the point registered as the crash point was reached."""
        crash = self.crashed or {}
        if crash.get("kind") == Crash.HARD:
            self.active = False
            if self.on_hard_crash is not None:
                self.on_hard_crash()
            _real_exit(HARD_CRASH_EXIT)
        if self.on_soft_crash is not None:
            self.on_soft_crash()
        raise soft_error(f"crashprobe: simulated crash before {call} at {crash.get('path')}:{crash.get('line')}")

    def hit(self, call: str, soft_error, statement: Optional[str] = None) -> None:
        """Called just before a call that changes the outside world.

        `soft_error` builds the exception the call raises on failure.
        """
        if not self.active:
            return
        if self._register(call, statement, self.site_of_caller()):
            self.fire(call, soft_error)

    def hits(self, call: str, statements: List[Optional[str]]) -> Optional[int]:
        """Several crash points of one call (the rows of `executemany`, the statements of
        `executescript`): registers them in order and returns the index of the one this run
        crashes at, or None. The caller does the work before that index, then calls `fire`."""
        if not self.active:
            return None
        site = self.site_of_caller()
        last = len(statements) - 1
        for index, statement in enumerate(statements):
            # Only this call's first, middle and last hits go into the trace (a bulk insert of
            # a million rows stays a short report); every hit is counted.
            if self._register(call, statement, site, record=index in (0, last // 2, last)):
                return index
        return None

    def inside_writable(self, path) -> bool:
        try:
            real = os.path.realpath(os.fspath(path))
        except TypeError:
            return True
        return any(real == top or real.startswith(top + os.sep) for top in self.writable)

    inside_run_dir = inside_writable

    def refuse(self, path) -> None:
        if self.refused is None:
            self.refused = os.fspath(path) if not isinstance(path, bytes) else path.decode("utf-8", "replace")


TRACKER = Tracker()
