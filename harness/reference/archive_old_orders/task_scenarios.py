"""Task: move orders placed before a cutoff date from `orders` into
`orders_archive`. A repeat is recognisable by the stored state: archived
orders are no longer in `orders`."""
from crashprobe import scenario

SCHEMA = """
CREATE TABLE orders(id INTEGER PRIMARY KEY, customer_id INTEGER, total INTEGER, placed_on TEXT);
CREATE TABLE orders_archive(id INTEGER PRIMARY KEY, customer_id INTEGER, total INTEGER, placed_on TEXT);
INSERT INTO orders VALUES (1, 1, 10, '2025-01-03'), (2, 2, 25, '2025-02-11'),
                          (3, 1, 40, '2025-03-20'), (4, 3, 15, '2026-06-01'),
                          (5, 2, 30, '2026-09-09');
"""


def each_order_once(state):
    db = state.db("shop.db")
    live = {r[0] for r in db.execute("SELECT id FROM orders")}
    old = [r[0] for r in db.execute("SELECT id FROM orders_archive")]
    assert not live & set(old), "orders both live and archived: %s" % sorted(live & set(old))
    assert len(live) + len(old) == 5, "orders lost"


@scenario("app/maintenance.py:archive_old_orders", check=each_order_once)
def before_2026(world):
    world.seed_sqlite("shop.db", SCHEMA)
    return {"conn": world.sqlite("shop.db"), "cutoff": "2026-01-01"}
