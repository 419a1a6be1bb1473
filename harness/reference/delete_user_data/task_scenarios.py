"""Task: delete a user and everything that belongs to them (sessions,
comments, orders). A repeat is recognisable by the stored state: the user
is gone."""
from crashprobe import scenario

SCHEMA = """
CREATE TABLE users(id INTEGER PRIMARY KEY, email TEXT UNIQUE);
CREATE TABLE sessions(token TEXT PRIMARY KEY, user_id INTEGER);
CREATE TABLE comments(id INTEGER PRIMARY KEY, user_id INTEGER, body TEXT);
CREATE TABLE orders(id INTEGER PRIMARY KEY, user_id INTEGER, total INTEGER);
INSERT INTO users VALUES (1, 'ann@example.com'), (2, 'ben@example.com');
INSERT INTO sessions VALUES ('s-1', 1), ('s-2', 1), ('s-3', 2);
INSERT INTO comments VALUES (1, 1, 'hi'), (2, 2, 'hello'), (3, 1, 'bye');
INSERT INTO orders VALUES (1, 1, 30), (2, 2, 12);
"""


def nothing_dangling(state):
    db = state.db("app.db")
    for table in ("sessions", "comments", "orders"):
        n = db.execute("SELECT COUNT(*) FROM %s WHERE user_id NOT IN (SELECT id FROM users)" % table).fetchone()[0]
        assert n == 0, "%s rows of a deleted user left in %s" % (n, table)


@scenario("app/gdpr.py:delete_user_data", check=nothing_dangling)
def erase_ann(world):
    world.seed_sqlite("app.db", SCHEMA)
    return {"conn": world.sqlite("app.db"), "user_id": 1}
