"""The state a run leaves: every table's rows, every file in the scenario's folder
by content, and the emails that took effect."""
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from typing import Dict, List, Tuple

from .intercept_files import _real_open
from .intercept_sqlite import _real_connect
from .outbox import read_outbox

SQLITE_MAGIC = b"SQLite format 3\x00"
_SIDE_FILES = ("-journal", "-wal", "-shm")
_LOCK_SUFFIXES = (".lock", ".lck")


def is_lock_file(name: str, size: int) -> bool:
    """A lock, not data: `*.lock` and `*.lck` files that are empty or hold at most an owner
    (a process id, a host name), and empty files named for a lock."""
    lower = name.lower()
    return (lower.endswith(_LOCK_SUFFIXES) and size <= 64) or (size == 0 and "lock" in lower)


@dataclass
class Table:
    columns: Tuple[str, ...]
    pk: Tuple[str, ...]
    rows: List[tuple]


@dataclass
class State:
    files: Dict[str, bytes] = field(default_factory=dict)
    dbs: Dict[str, Dict[str, Table]] = field(default_factory=dict)
    emails: List[dict] = field(default_factory=list)


def _read_db(path: str) -> Dict[str, Table]:
    has_side_files = any(os.path.exists(path + suffix) for suffix in _SIDE_FILES)
    scratch = None
    if has_side_files:
        # A hot journal is rolled back by whoever opens the database next; do it on a copy.
        scratch = tempfile.mkdtemp(prefix="crashprobe-db-")
        copy = os.path.join(scratch, "db")
        shutil.copyfile(path, copy)
        for suffix in _SIDE_FILES:
            if os.path.exists(path + suffix):
                shutil.copyfile(path + suffix, copy + suffix)
        conn = _real_connect(copy)
    else:
        conn = _real_connect(f"file:{path}?mode=ro&immutable=1", uri=True)
    try:
        tables: Dict[str, Table] = {}
        names = [
            row[0]
            for row in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name"
            )
        ]
        for name in names:
            info = conn.execute(f'PRAGMA table_info("{name}")').fetchall()
            columns = tuple(col[1] for col in info)
            pk = tuple(col[1] for col in sorted(info, key=lambda col: col[5]) if col[5])
            rows = conn.execute(f'SELECT * FROM "{name}"').fetchall()
            tables[name] = Table(columns, pk, rows)
        return tables
    finally:
        conn.close()
        if scratch:
            shutil.rmtree(scratch, ignore_errors=True)


def capture(folder: str, outbox_path: str) -> State:
    state = State()
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames.sort()
        for name in sorted(filenames):
            full = os.path.join(dirpath, name)
            rel = os.path.relpath(full, folder).replace(os.sep, "/")
            if any(name.endswith(suffix) and os.path.exists(full[: -len(suffix)]) for suffix in _SIDE_FILES):
                continue
            if not os.path.islink(full) and is_lock_file(name, os.path.getsize(full)):
                continue
            if os.path.islink(full):
                state.files[rel] = b"symlink:" + os.readlink(full).encode()
                continue
            with _real_open(full, "rb") as handle:
                data = handle.read()
            if data.startswith(SQLITE_MAGIC):
                state.dbs[rel] = _read_db(full)
            else:
                state.files[rel] = data
    state.emails = read_outbox(outbox_path)
    return state


class StateView:
    """What a scenario's `check=fn` receives: `db(name)`, `file(relpath)`, `emails`."""

    def __init__(self, folder: str, outbox_path: str, scratch: str):
        self._folder = folder
        self._scratch = scratch
        self._connections = []
        self.emails = read_outbox(outbox_path)

    def close(self) -> None:
        for conn in self._connections:
            conn.close()
        self._connections.clear()

    def db(self, name: str):
        source = os.path.join(self._folder, name)
        if not os.path.exists(source):
            raise AssertionError(f"database {name!r} does not exist in this state")
        copy = os.path.join(self._scratch, name.replace("/", "_"))
        shutil.copyfile(source, copy)
        for suffix in _SIDE_FILES:
            if os.path.exists(source + suffix):
                shutil.copyfile(source + suffix, copy + suffix)
        conn = _real_connect(copy)
        conn.execute("PRAGMA query_only = ON")
        self._connections.append(conn)
        return conn

    def file(self, relpath: str):
        full = os.path.join(self._folder, relpath)
        if not os.path.isfile(full):
            return None
        with _real_open(full, "rb") as handle:
            return handle.read()
