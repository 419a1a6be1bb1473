"""Task (finishes interrupted work): a worker that processes every pending
job in the `jobs` queue (apply the job's balance change to its account) and
marks it done. Resumable: judged after the re-run."""
from crashprobe import scenario

SCHEMA = """
CREATE TABLE accounts(id INTEGER PRIMARY KEY, balance INTEGER NOT NULL);
CREATE TABLE jobs(id INTEGER PRIMARY KEY, account_id INTEGER NOT NULL, amount INTEGER NOT NULL,
                  status TEXT NOT NULL DEFAULT 'pending');
INSERT INTO accounts VALUES (1, 100), (2, 50);
INSERT INTO jobs(id, account_id, amount, status) VALUES
  (1, 1, -30, 'done'), (2, 1, 20, 'pending'), (3, 2, -15, 'pending'),
  (4, 1, 5, 'pending'), (5, 2, 40, 'pending');
"""


def applied_exactly_once(state):
    db = state.db("queue.db")
    for acc, start in ((1, 100), (2, 50)):
        bal = db.execute("SELECT balance FROM accounts WHERE id = ?", (acc,)).fetchone()[0]
        done = db.execute("SELECT COALESCE(SUM(amount), 0) FROM jobs WHERE account_id = ? AND id > 1"
                          " AND status = 'done'", (acc,)).fetchone()[0]
        assert bal == start + done, "account %s: balance %s, done jobs %s" % (acc, bal, done)
    left = db.execute("SELECT COUNT(*) FROM jobs WHERE status != 'done'").fetchone()[0]
    assert left == 0, "%s jobs not done" % left


@scenario("app/worker.py:process_pending_jobs", resumable=True, check=applied_exactly_once)
def four_pending(world):
    world.seed_sqlite("queue.db", SCHEMA)
    return {"conn": world.sqlite("queue.db")}
