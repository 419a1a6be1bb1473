"""Task (finishes interrupted work): cancel a subscription and email the
customer a confirmation. The email client drops a repeated
idempotency_key. Resumable: judged after the re-run (the email may go out
late, but exactly once)."""
from crashprobe import scenario

SCHEMA = """
CREATE TABLE subscriptions(id INTEGER PRIMARY KEY, email TEXT NOT NULL, plan TEXT,
                           status TEXT NOT NULL);
CREATE TABLE notifications(id INTEGER PRIMARY KEY, subscription_id INTEGER NOT NULL,
                           kind TEXT NOT NULL, status TEXT NOT NULL,
                           UNIQUE(subscription_id, kind));
INSERT INTO subscriptions VALUES (11, 'lee@example.com', 'pro', 'active'),
                                 (12, 'kim@example.com', 'basic', 'active');
"""


def one_confirmation(state):
    sent = [m for m in state.emails if m["to"] == "lee@example.com"]
    assert len(sent) <= 1, "%s cancellation emails" % len(sent)


@scenario("app/billing.py:cancel_subscription", resumable=True, check=one_confirmation)
def cancel_pro_plan(world):
    world.seed_sqlite("billing.db", SCHEMA)
    return {"conn": world.sqlite("billing.db"), "mailer": world.email(), "subscription_id": 11}
