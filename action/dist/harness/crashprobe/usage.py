"""What a normal run used: the repository files it imported (with their sha256) and the
repository functions it executed. A verdict cache keyed by these is re-judged when any
of them changes, also when the change is in code the target only calls.

Executed functions are recorded with `sys.setprofile` (and `threading.setprofile`, so
worker threads count): one look per code object, only code under the root is kept.
"""
import hashlib
import os
import sys
import threading
from typing import Dict, List, Optional

_HARNESS_DIR = os.path.dirname(os.path.abspath(__file__))


def _installed(path: str) -> bool:
    """A package installed into a virtual environment inside the root is not the repository's code."""
    return f"{os.sep}site-packages{os.sep}" in path or f"{os.sep}dist-packages{os.sep}" in path


class Recorder:
    def __init__(self, root: str):
        self.root = os.path.realpath(root)
        self._names: Dict[object, Optional[str]] = {}
        self.executed = set()

    def _name(self, code) -> Optional[str]:
        filename = code.co_filename
        if filename.startswith("<") or filename.startswith(_HARNESS_DIR):
            return None
        real = os.path.realpath(filename)
        if not real.startswith(self.root + os.sep) or _installed(real):
            return None
        rel = os.path.relpath(real, self.root).replace(os.sep, "/")
        return f"{rel}:{getattr(code, 'co_qualname', code.co_name)}"

    def _profile(self, frame, event, arg):
        if event != "call":
            return
        code = frame.f_code
        if code in self._names:
            return
        name = self._name(code)
        self._names[code] = name
        if name is not None:
            self.executed.add(name)

    def start(self) -> None:
        threading.setprofile(self._profile)
        sys.setprofile(self._profile)

    def stop(self) -> None:
        sys.setprofile(None)
        threading.setprofile(None)

    def imports(self) -> List[dict]:
        found = {}
        for module in list(sys.modules.values()):
            filename = getattr(module, "__file__", None)
            if not filename or not filename.endswith(".py"):
                continue
            real = os.path.realpath(filename)
            if real.startswith(_HARNESS_DIR) or not real.startswith(self.root + os.sep) or _installed(real):
                continue
            rel = os.path.relpath(real, self.root).replace(os.sep, "/")
            if rel in found:
                continue
            try:
                with open(real, "rb") as handle:
                    found[rel] = hashlib.sha256(handle.read()).hexdigest()
            except OSError:
                continue
        return [{"path": p, "sha256": found[p]} for p in sorted(found)]
