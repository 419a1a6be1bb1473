from crashprobe import scenario

SHOP = """
CREATE TABLE customers(id INTEGER PRIMARY KEY, email TEXT, credit INTEGER NOT NULL DEFAULT 0);
CREATE TABLE orders(id INTEGER PRIMARY KEY, customer_id INTEGER, total INTEGER, status TEXT);
CREATE TABLE refunds(id INTEGER PRIMARY KEY, order_id INTEGER UNIQUE, amount INTEGER);
CREATE TABLE accounts(id INTEGER PRIMARY KEY, balance INTEGER NOT NULL);
INSERT INTO customers VALUES (1, 'ada@example.com', 0);
INSERT INTO orders VALUES (7, 1, 50, 'paid');
INSERT INTO orders VALUES (8, 1, 30, 'pending');
INSERT INTO accounts VALUES (1, 100);
INSERT INTO accounts VALUES (2, 0);
INSERT INTO accounts VALUES (99, 0);
"""


@scenario("shop/refunds.py:refund_order")
def refund_a_paid_order(world):
    world.seed_sqlite("shop.db", SHOP)
    return {"conn": world.sqlite("shop.db"), "order_id": 7}


@scenario("shop/billing.py:mark_paid")
def pay_a_pending_order(world):
    world.seed_sqlite("shop.db", SHOP)
    return {"conn": world.sqlite("shop.db"), "mailer": world.email(), "order_id": 8}


def _money_is_kept(state):
    (total,) = state.db("shop.db").execute("SELECT SUM(balance) FROM accounts").fetchone()
    assert total == 100, f"money appeared or vanished: the accounts hold {total}, not 100"


# A transfer a client retries must move the money once: a double-apply is a defect here, posted inline.
@scenario("shop/wallet.py:transfer", check=_money_is_kept, idempotent=True)
def move_forty(world):
    world.seed_sqlite("shop.db", SHOP)
    return {"conn": world.sqlite("shop.db"), "source": 1, "target": 2, "amount": 40}
