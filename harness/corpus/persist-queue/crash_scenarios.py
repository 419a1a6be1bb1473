"""persist-queue 0.5.1 (Debian's python3-persist-queue; BSD-3-Clause, see SOURCE.md): a SQLite queue whose statements
are built by a decorator (`with_conditional_transaction`) from SQL templates held
in properties, on a WAL database; and a file queue that appends to a chunk file
opened in its constructor and saves its index through a temporary file and
os.replace."""
from crashprobe import scenario

QUEUE_SCHEMA = """
CREATE TABLE IF NOT EXISTS `queue_default` (_id INTEGER PRIMARY KEY AUTOINCREMENT, data BLOB, timestamp FLOAT);
INSERT INTO `queue_default` (data, timestamp) VALUES (X'80049509000000000000008c056a6f622d31942e', 1.0);
INSERT INTO `queue_default` (data, timestamp) VALUES (X'80049509000000000000008c056a6f622d32942e', 2.0);
"""


def _sqlite_queue(world):
    from persistqueue.sqlqueue import SQLiteQueue
    return SQLiteQueue(world.path(""), db_file_name="queue.db", auto_commit=True)


@scenario("persistqueue/sqlqueue.py:SQLiteQueue.put")
def put_one_job(world):
    world.seed_sqlite("queue.db", QUEUE_SCHEMA)
    return {"self": _sqlite_queue(world), "item": "job-3"}


# In 0.5.1, get() is SQLiteQueue's own (later versions moved it to sqlbase.SQLBase).
@scenario("persistqueue/sqlqueue.py:SQLiteQueue.get")
def get_one_job(world):
    world.seed_sqlite("queue.db", QUEUE_SCHEMA)
    return {"self": _sqlite_queue(world), "block": False}


@scenario("persistqueue/queue.py:Queue.put")
def put_to_file_queue(world):
    from persistqueue.queue import Queue
    folder = world.path("fq")
    # The index is saved through a temporary file in the queue's own folder, then os.replace.
    return {"self": Queue(folder, tempdir=folder), "item": "job-1"}
