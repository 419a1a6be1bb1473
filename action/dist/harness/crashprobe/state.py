"""The state a run leaves: every table's rows, every file in the scenario's folder
by content, and the emails that took effect."""
import hashlib
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

from .intercept_files import real_open
from .intercept_sqlite import real_connect
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
    # A digest of everything a `check=fn` can see (every file, lock and side file, every folder,
    # the outbox's bytes): equal digests, equal check results. Never part of a comparison.
    digest: Optional[bytes] = field(default=None, compare=False)


# Tables by the bytes of a database and its side files: most runs leave one of a few databases,
# and reading the same bytes again gives the same tables. Callers never change a Table.
_DB_CACHE: Dict[bytes, Dict[str, Table]] = {}
_DB_CACHE_MOST = 512


def _read_db_cached(path: str, data: bytes) -> Dict[str, Table]:
    key = hashlib.blake2b(data, digest_size=20)
    for suffix in _SIDE_FILES:
        side = path + suffix
        if os.path.exists(side):
            with real_open(side, "rb") as handle:
                side_data = handle.read()
            key.update(suffix.encode() + b"\0" + len(side_data).to_bytes(8, "little") + side_data)
    key = key.digest()
    tables = _DB_CACHE.get(key)
    if tables is None:
        if len(_DB_CACHE) >= _DB_CACHE_MOST:
            _DB_CACHE.clear()
        tables = _DB_CACHE[key] = _read_db(path)
    return tables


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
        conn = real_connect(copy)
    else:
        conn = real_connect(f"file:{path}?mode=ro&immutable=1", uri=True)
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


def _entry(digest, kind: bytes, rel: str, data: bytes = b"") -> None:
    digest.update(kind + rel.encode("utf-8", "surrogateescape") + b"\0" + len(data).to_bytes(8, "little") + data)


def capture(folder: str, outbox_path: str) -> State:
    state = State()
    digest = hashlib.blake2b(digest_size=20)
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames.sort()
        _entry(digest, b"d", os.path.relpath(dirpath, folder))
        for name in dirnames:
            if os.path.islink(os.path.join(dirpath, name)):
                _entry(digest, b"L", name, os.readlink(os.path.join(dirpath, name)).encode("utf-8", "surrogateescape"))
        for name in sorted(filenames):
            full = os.path.join(dirpath, name)
            rel = os.path.relpath(full, folder).replace(os.sep, "/")
            if any(name.endswith(suffix) and os.path.exists(full[: -len(suffix)]) for suffix in _SIDE_FILES):
                if not os.path.islink(full):
                    with real_open(full, "rb") as handle:
                        _entry(digest, b"s", rel, handle.read())
                continue  # read with its database
            if os.path.islink(full):
                target = os.readlink(full).encode("utf-8", "surrogateescape")
                _entry(digest, b"l", rel, target)
                state.files[rel] = b"symlink:" + target
                continue
            with real_open(full, "rb") as handle:
                data = handle.read()
            _entry(digest, b"f", rel, data)
            if is_lock_file(name, len(data)):
                continue
            if data.startswith(SQLITE_MAGIC):
                state.dbs[rel] = _read_db_cached(full, data)
            else:
                state.files[rel] = data
    try:
        with real_open(outbox_path, "rb") as handle:
            _entry(digest, b"o", "", handle.read())
    except (OSError, ValueError):  # no outbox (the seeding run's state names none)
        pass
    state.emails = read_outbox(outbox_path)
    state.digest = digest.digest()
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
        conn = real_connect(copy)
        conn.execute("PRAGMA query_only = ON")
        self._connections.append(conn)
        return conn

    def file(self, relpath: str):
        full = os.path.join(self._folder, relpath)
        if not os.path.isfile(full):
            return None
        with real_open(full, "rb") as handle:
            return handle.read()
