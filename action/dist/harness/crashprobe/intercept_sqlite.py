"""SQLite interception: a Connection subclass given to `sqlite3.connect(factory=...)`.

`conn.execute` does not go through `cursor()`, and `with conn:` commits from C
without calling a Python `commit`, so `execute*`, `commit`, `rollback`,
`__exit__` and the cursor's `execute*` are all overridden. Code that calls
`sqlite3.connect` without stating a mode gets the mode under test.
"""
import sqlite3
import weakref

from .points import TRACKER, statement_text
from .sql_kind import is_plain_read, split_script

# sqlite3.connect before install(): the harness reads and seeds databases with it.
real_connect = sqlite3.connect
OPEN_CONNECTIONS = weakref.WeakSet()
_autocommit = False  # the mode under test


def set_mode(autocommit: bool) -> None:
    global _autocommit
    _autocommit = autocommit


def _crash_error(message):
    return sqlite3.OperationalError(message)


def _before_statement(sql, call):
    if isinstance(sql, str) and not is_plain_read(sql):
        TRACKER.hit(call, _crash_error, statement_text(sql))


class _StatementMixin:
    """`execute*` on a connection or a cursor: every statement that is not a plain read is a
    crash point; `executemany` is one per row (the first, middle and last are crashed at),
    `executescript` one per statement that is not a plain read."""

    def execute(self, sql, *args, **kwargs):
        _before_statement(sql, "execute")
        return super().execute(sql, *args, **kwargs)

    def executemany(self, sql, seq_of_parameters, *args, **kwargs):
        if not TRACKER.active or not isinstance(sql, str) or is_plain_read(sql):
            return super().executemany(sql, seq_of_parameters, *args, **kwargs)
        rows = list(seq_of_parameters)
        crash_at = TRACKER.hits("executemany", [statement_text(sql)] * max(len(rows), 1))
        if crash_at is None:
            return super().executemany(sql, rows, *args, **kwargs)
        if crash_at:
            super().executemany(sql, rows[:crash_at], *args, **kwargs)
        TRACKER.fire("executemany", _crash_error)

    def executescript(self, script, *args, **kwargs):
        if not TRACKER.active or not isinstance(script, str):
            return super().executescript(script, *args, **kwargs)
        statements = split_script(script)
        writes = [i for i, s in enumerate(statements) if not is_plain_read(s)]
        crash_at = TRACKER.hits("executescript", [statement_text(statements[i]) for i in writes]) if writes else None
        if crash_at is None:
            return super().executescript(script, *args, **kwargs)
        done = statements[: writes[crash_at]]
        if done:
            super().executescript("\n".join(done), *args, **kwargs)
        TRACKER.fire("executescript", _crash_error)


class _CursorMixin(_StatementMixin):
    pass


class CrashCursor(_CursorMixin, sqlite3.Cursor):
    pass


_combined_classes = {}


def _crash_class(factory, base, crash_class, mixin):
    """The class to instantiate for a `factory=` the code passes: ours, or theirs with our mixin in front."""
    if factory is None or factory is base:
        return crash_class
    if issubclass(factory, mixin):
        return factory
    if factory not in _combined_classes:
        _combined_classes[factory] = type("Crash" + factory.__name__, (mixin, factory), {})
    return _combined_classes[factory]


class _ConnectionMixin(_StatementMixin):
    def cursor(self, factory=None):
        return super().cursor(_crash_class(factory, sqlite3.Cursor, CrashCursor, _CursorMixin))

    def commit(self):
        TRACKER.hit("commit", _crash_error)
        return super().commit()

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            TRACKER.hit("commit", _crash_error)
        return super().__exit__(exc_type, exc, tb)


class CrashConnection(_ConnectionMixin, sqlite3.Connection):
    pass


def connect(database, *args, **kwargs):
    """`sqlite3.connect` for code under test: the mode under test unless the code states one."""
    kwargs["factory"] = _crash_class(kwargs.get("factory"), sqlite3.Connection, CrashConnection, _ConnectionMixin)
    states_mode = "isolation_level" in kwargs or "autocommit" in kwargs or len(args) >= 3  # database, timeout, detect_types, isolation_level
    if not states_mode and _autocommit:
        kwargs["isolation_level"] = None
    conn = real_connect(database, *args, **kwargs)
    OPEN_CONNECTIONS.add(conn)
    return conn


def connect_in_mode(database):
    """`world.sqlite(name)`: always the mode under test."""
    kwargs = {"factory": CrashConnection}
    if _autocommit:
        kwargs["isolation_level"] = None
    conn = real_connect(database, **kwargs)
    OPEN_CONNECTIONS.add(conn)
    return conn


def close_all() -> None:
    """What interpreter exit does: close every connection; uncommitted work rolls back."""
    for conn in list(OPEN_CONNECTIONS):
        try:
            conn.close()
        except Exception:
            pass


def install() -> None:
    sqlite3.connect = connect
    import sqlite3.dbapi2 as dbapi2

    dbapi2.connect = connect
