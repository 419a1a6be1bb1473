"""sqlitedict (Apache-2.0, see SOURCE.md): every statement runs on a worker thread
(SqliteMultithread) that the caller waits for through queues, after polling with
time.sleep until the thread has started. With autocommit=True the worker's
connection states isolation_level=None, so each REPLACE of `update`'s
executemany is saved on its own."""
from crashprobe import scenario


@scenario("sqlitedict.py:SqliteDict.update")
def update_three_settings(world):
    from sqlitedict import SqliteDict
    return {"self": SqliteDict(world.path("settings.sqlite"), autocommit=True),
            "items": {"theme": "dark", "lang": "fi", "tz": "Europe/Helsinki"}}
