"""Task: place an order: record the order and its lines and take the items
out of stock. The checkout sends a request id, so a retried checkout must not
place a second order."""
from crashprobe import scenario

SCHEMA = """
CREATE TABLE products(id INTEGER PRIMARY KEY, name TEXT, price INTEGER, stock INTEGER NOT NULL);
CREATE TABLE orders(id INTEGER PRIMARY KEY, customer_id INTEGER, request_id TEXT UNIQUE, total INTEGER);
CREATE TABLE order_items(order_id INTEGER, product_id INTEGER, qty INTEGER, price INTEGER);
INSERT INTO products VALUES (1, 'mug', 8, 10), (2, 'tee', 20, 5), (3, 'cap', 15, 2);
"""


def stock_matches_orders(state):
    db = state.db("shop.db")
    for pid, start in ((1, 10), (2, 5), (3, 2)):
        stock = db.execute("SELECT stock FROM products WHERE id = ?", (pid,)).fetchone()[0]
        sold = db.execute("SELECT COALESCE(SUM(qty), 0) FROM order_items WHERE product_id = ?", (pid,)).fetchone()[0]
        assert stock + sold == start, "product %s: stock %s + sold %s != %s" % (pid, stock, sold, start)
    n = db.execute("SELECT COUNT(*) FROM orders WHERE id NOT IN (SELECT order_id FROM order_items)").fetchone()[0]
    assert n == 0, "order without lines"


@scenario("app/checkout.py:place_order", check=stock_matches_orders)
def two_items(world):
    world.seed_sqlite("shop.db", SCHEMA)
    return {"conn": world.sqlite("shop.db"), "customer_id": 42,
            "items": [(1, 2), (3, 1)], "request_id": "chk-91a0"}
