"""litequeue (MIT, see SOURCE.md): a queue on one SQLite table in WAL mode, its
connection in autocommit (stated), `pop` inside an explicit BEGIN IMMEDIATE ...
COMMIT with UPDATE ... RETURNING; message ids are UUIDv7 (clock and random bits)."""
from crashprobe import scenario

QUEUE_SCHEMA = """
CREATE TABLE IF NOT EXISTS [Queue] (data TEXT NOT NULL, message_id TEXT NOT NULL, status INTEGER NOT NULL,
                                    in_time INTEGER NOT NULL, lock_time INTEGER, done_time INTEGER);
INSERT INTO [Queue] VALUES ('job-1', '0188f0a0-0000-7000-8000-000000000001', 0, 1000, NULL, NULL);
INSERT INTO [Queue] VALUES ('job-2', '0188f0a0-0000-7000-8000-000000000002', 0, 2000, NULL, NULL);
"""


def _queue(world):
    from litequeue import LiteQueue
    return LiteQueue(world.path("queue.db"))


@scenario("litequeue.py:LiteQueue.put")
def put_one_message(world):
    world.seed_sqlite("queue.db", QUEUE_SCHEMA)
    return {"self": _queue(world), "data": "job-3"}


@scenario("litequeue.py:LiteQueue._pop_returning")
def pop_one_message(world):
    world.seed_sqlite("queue.db", QUEUE_SCHEMA)
    return {"self": _queue(world)}
