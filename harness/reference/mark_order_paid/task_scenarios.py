"""Task (finishes interrupted work): mark an order paid (with the payment
reference) and email the customer a receipt. The email client drops a
repeated idempotency_key. Resumable: judged after the re-run."""
from crashprobe import scenario

SCHEMA = """
CREATE TABLE orders(id INTEGER PRIMARY KEY, email TEXT NOT NULL, total INTEGER NOT NULL,
                    status TEXT NOT NULL, payment_ref TEXT,
                    receipt_sent INTEGER NOT NULL DEFAULT 0);
INSERT INTO orders(id, email, total, status) VALUES (501, 'sam@example.com', 1999, 'pending'),
                                                    (502, 'ria@example.com', 500, 'pending');
"""


def one_receipt(state):
    receipts = [m for m in state.emails if m["to"] == "sam@example.com"]
    assert len(receipts) <= 1, "%s receipts sent" % len(receipts)


@scenario("app/payments.py:mark_order_paid", resumable=True, check=one_receipt)
def card_payment(world):
    world.seed_sqlite("shop.db", SCHEMA)
    return {"conn": world.sqlite("shop.db"), "mailer": world.email(),
            "order_id": 501, "payment_ref": "pi_3NqX9"}
