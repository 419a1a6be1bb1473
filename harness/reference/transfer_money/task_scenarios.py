"""Task: transfer money between two accounts. The caller passes a transfer
id (a request id); a repeated request with the same id must not move the
money again."""
from crashprobe import scenario

SCHEMA = """
CREATE TABLE accounts(id INTEGER PRIMARY KEY, owner TEXT, balance INTEGER NOT NULL);
CREATE TABLE transfers(id INTEGER PRIMARY KEY, request_id TEXT UNIQUE NOT NULL,
                       from_id INTEGER, to_id INTEGER, amount INTEGER);
INSERT INTO accounts VALUES (1, 'alice', 100), (2, 'bob', 10);
"""


def money_is_conserved(state):
    db = state.db("bank.db")
    total = db.execute("SELECT SUM(balance) FROM accounts").fetchone()[0]
    assert total == 110, "money created or destroyed: total %s" % total


@scenario("app/banking.py:transfer", check=money_is_conserved)
def alice_pays_bob(world):
    world.seed_sqlite("bank.db", SCHEMA)
    return {"conn": world.sqlite("bank.db"), "from_id": 1, "to_id": 2,
            "amount": 30, "request_id": "tr-5f1c"}
