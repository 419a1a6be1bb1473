"""Task: book a supplier delivery into stock: add each line's quantity to
the product and record the delivery. The delivery note's number is the
request id: the same delivery must not be booked twice."""
from crashprobe import scenario

SCHEMA = """
CREATE TABLE products(sku TEXT PRIMARY KEY, stock INTEGER NOT NULL);
CREATE TABLE deliveries(delivery_no TEXT PRIMARY KEY, supplier TEXT, lines INTEGER);
CREATE TABLE stock_moves(delivery_no TEXT, sku TEXT, qty INTEGER);
INSERT INTO products VALUES ('A-100', 3), ('B-200', 0), ('C-300', 12);
"""


def moves_match_stock(state):
    db = state.db("stock.db")
    start = {"A-100": 3, "B-200": 0, "C-300": 12}
    for sku, stock in db.execute("SELECT sku, stock FROM products"):
        moved = db.execute("SELECT COALESCE(SUM(qty), 0) FROM stock_moves WHERE sku = ?", (sku,)).fetchone()[0]
        assert stock == start[sku] + moved, "%s: stock %s, moves %s" % (sku, stock, moved)
    orphan = db.execute("SELECT COUNT(*) FROM stock_moves WHERE delivery_no NOT IN (SELECT delivery_no FROM deliveries)").fetchone()[0]
    assert orphan == 0, "stock moved for an unrecorded delivery"


@scenario("app/inventory.py:receive_delivery", check=moves_match_stock)
def delivery_dn_881(world):
    world.seed_sqlite("stock.db", SCHEMA)
    return {"conn": world.sqlite("stock.db"), "delivery_no": "DN-881", "supplier": "Acme",
            "lines": [("A-100", 10), ("B-200", 4), ("C-300", 6)]}
