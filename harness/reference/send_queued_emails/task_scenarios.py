"""Task (finishes interrupted work): a worker that sends every pending
message in the `outbox` table and marks it sent (the paper's Figure 3). The
email client drops a repeated idempotency_key. Resumable: judged after the
re-run."""
from crashprobe import scenario

SCHEMA = """
CREATE TABLE outbox(id INTEGER PRIMARY KEY, to_addr TEXT NOT NULL, subject TEXT, body TEXT,
                    status TEXT NOT NULL DEFAULT 'pending');
INSERT INTO outbox VALUES (1, 'a@example.com', 'Welcome', 'Hi A', 'sent'),
                          (2, 'b@example.com', 'Welcome', 'Hi B', 'pending'),
                          (3, 'c@example.com', 'Your code', '123456', 'pending'),
                          (4, 'd@example.com', 'Reminder', 'Do not forget', 'pending');
"""


def each_message_once(state):
    tos = [m["to"] for m in state.emails]
    dupes = sorted({t for t in tos if tos.count(t) > 1})
    assert not dupes, "sent more than once to %s" % dupes


@scenario("app/mailer_worker.py:send_queued_emails", resumable=True, check=each_message_once)
def three_pending(world):
    world.seed_sqlite("outbox.db", SCHEMA)
    return {"conn": world.sqlite("outbox.db"), "mailer": world.email()}
