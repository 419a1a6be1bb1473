"""sqlitedict 2.1.0 (Debian's python3-sqlitedict; Apache-2.0, see SOURCE.md): every
statement runs on a worker thread (SqliteMultithread) that the caller waits for
through queues, after the worker has released the lock it holds until its
connection is open. With autocommit=True the worker's connection states
isolation_level=None, so each REPLACE of `update`'s executemany is saved on its own."""
from crashprobe import scenario


@scenario("sqlitedict.py:SqliteDict.update")
def update_three_settings(world):
    from sqlitedict import SqliteDict
    return {"self": SqliteDict(world.path("settings.sqlite"), autocommit=True),
            "items": {"theme": "dark", "lang": "fi", "tz": "Europe/Helsinki"}}


SETTINGS_SCHEMA = """
CREATE TABLE IF NOT EXISTS "unnamed" (key TEXT PRIMARY KEY, value BLOB);
INSERT INTO "unnamed" (key, value) VALUES ('theme', X'80049509000000000000008c056c69676874942e');
"""


@scenario("sqlitedict.py:SqliteDict.__setitem__")
def replace_one_setting(world):
    # 'theme' is already 'light' (pickled, as sqlitedict stores it): the change replaces a value.
    from sqlitedict import SqliteDict
    world.seed_sqlite("settings.sqlite", SETTINGS_SCHEMA)
    return {"self": SqliteDict(world.path("settings.sqlite"), autocommit=True),
            "key": "theme", "value": "dark"}
