"""Crash points: every intercepted call that changes the outside world reports here.

During a run the tracker records each hit as a site (file, line, call) and its
repetition, and crashes when the hit is the one the run was asked to crash at:
a soft crash raises the error the call raises on failure; a hard crash ends the
process at once, no `finally`, no buffer flushed.
"""
import os
import sys
from typing import Dict, List, Optional, Tuple

HARD_CRASH_EXIT = 86
_real_exit = os._exit
_HARNESS_DIR = os.path.dirname(os.path.abspath(__file__))


class Tracker:
    def __init__(self) -> None:
        self.active = False
        self.root = ""
        self.run_dir = ""
        self.crash: Optional[dict] = None  # {"path","line","call","repetition","kind"}
        self.counts: Dict[Tuple[str, int, str], int] = {}
        self.trace: List[dict] = []
        self.crashed: Optional[dict] = None
        self.on_hard_crash = None  # callable(report) -> None, writes the run report

    def start(self, root: str, run_dir: str, crash: Optional[dict], on_hard_crash) -> None:
        self.root = os.path.realpath(root)
        self.run_dir = os.path.realpath(run_dir)
        self.crash = crash
        self.counts = {}
        self.trace = []
        self.crashed = None
        self.on_hard_crash = on_hard_crash
        self.active = True

    def stop(self) -> None:
        self.active = False

    def site_of_caller(self) -> Tuple[str, int]:
        frame = sys._getframe(2)
        fallback = None
        while frame is not None:
            filename = frame.f_code.co_filename
            if not filename.startswith(_HARNESS_DIR):
                real = os.path.realpath(filename) if not filename.startswith("<") else filename
                if real.startswith(self.root + os.sep):
                    return os.path.relpath(real, self.root).replace(os.sep, "/"), frame.f_lineno
                if fallback is None:
                    fallback = (filename, frame.f_lineno)
            frame = frame.f_back
        return fallback or ("<unknown>", 0)

    def hit(self, call: str, soft_error) -> None:
        """Called just before a call that changes the outside world.

        `soft_error` builds the exception the call raises on failure.
        """
        if not self.active:
            return
        path, line = self.site_of_caller()
        key = (path, line, call)
        repetition = self.counts.get(key, 0) + 1
        self.counts[key] = repetition
        self.trace.append({"path": path, "line": line, "call": call, "repetition": repetition})
        crash = self.crash
        if (
            crash is not None
            and self.crashed is None
            and crash["path"] == path
            and crash["line"] == line
            and crash["call"] == call
            and crash["repetition"] == repetition
        ):
            self.crashed = dict(crash)
            if crash["kind"] == "hard":
                self.active = False
                if self.on_hard_crash is not None:
                    self.on_hard_crash()
                _real_exit(HARD_CRASH_EXIT)
            raise soft_error(
                f"crashprobe: simulated crash before {call} at {path}:{line}"
            )

    def inside_run_dir(self, path) -> bool:
        try:
            real = os.path.realpath(os.fspath(path))
        except TypeError:
            return True
        return real == self.run_dir or real.startswith(self.run_dir + os.sep)


TRACKER = Tracker()
