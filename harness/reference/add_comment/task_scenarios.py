"""Task: add a comment to a post and keep the post's comment counter in
step. The client sends a request id with each comment, so a retried request
must not add it twice."""
from crashprobe import scenario

SCHEMA = """
CREATE TABLE posts(id INTEGER PRIMARY KEY, title TEXT, comment_count INTEGER NOT NULL DEFAULT 0);
CREATE TABLE comments(id INTEGER PRIMARY KEY, post_id INTEGER NOT NULL, author TEXT,
                      body TEXT, request_id TEXT UNIQUE);
INSERT INTO posts VALUES (1, 'Hello world', 1);
INSERT INTO comments VALUES (1, 1, 'bob', 'first!', 'req-000');
"""


def counter_matches(state):
    db = state.db("blog.db")
    count = db.execute("SELECT comment_count FROM posts WHERE id = 1").fetchone()[0]
    rows = db.execute("SELECT COUNT(*) FROM comments WHERE post_id = 1").fetchone()[0]
    assert count == rows, "comment_count %s but %s comments" % (count, rows)


@scenario("app/comments.py:add_comment", check=counter_matches)
def new_comment(world):
    world.seed_sqlite("blog.db", SCHEMA)
    return {"conn": world.sqlite("blog.db"), "post_id": 1, "author": "carol",
            "body": "Nice post", "request_id": "req-7d2e"}
