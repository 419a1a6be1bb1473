"""Task: refund an order. Credit the order total to the customer, mark the
order refunded and record the refund. A repeat is recognisable by the
order's status."""
from crashprobe import scenario

SCHEMA = """
CREATE TABLE customers(id INTEGER PRIMARY KEY, credit INTEGER NOT NULL DEFAULT 0);
CREATE TABLE orders(id INTEGER PRIMARY KEY, customer_id INTEGER, total INTEGER, status TEXT);
CREATE TABLE refunds(id INTEGER PRIMARY KEY, order_id INTEGER UNIQUE, amount INTEGER);
INSERT INTO customers VALUES (1, 0);
INSERT INTO orders VALUES (7, 1, 50, 'paid');
INSERT INTO orders VALUES (8, 1, 20, 'paid');
"""


def credit_matches_refunds(state):
    db = state.db("shop.db")
    credit = db.execute("SELECT credit FROM customers WHERE id = 1").fetchone()[0]
    refunded = db.execute("SELECT COALESCE(SUM(amount), 0) FROM refunds").fetchone()[0]
    flagged = db.execute("SELECT COUNT(*) FROM orders WHERE status = 'refunded'").fetchone()[0]
    rows = db.execute("SELECT COUNT(*) FROM refunds").fetchone()[0]
    assert credit == refunded, "credit %s but refunds sum to %s" % (credit, refunded)
    assert flagged == rows, "%s orders refunded but %s refund rows" % (flagged, rows)


@scenario("app/refunds.py:refund_order", check=credit_matches_refunds)
def paid_order(world):
    world.seed_sqlite("shop.db", SCHEMA)
    return {"conn": world.sqlite("shop.db"), "order_id": 7}
