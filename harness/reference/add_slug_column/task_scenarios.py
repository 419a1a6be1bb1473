"""Task (finishes interrupted work): add a `slug` column to `articles` and
fill it from each title. A schema change: sqlite3 opens no implicit
transaction before DDL. Resumable: judged after the re-run."""
from crashprobe import scenario

SCHEMA = """
CREATE TABLE articles(id INTEGER PRIMARY KEY, title TEXT NOT NULL, body TEXT);
INSERT INTO articles(id, title, body) VALUES
  (1, 'Hello World', '...'), (2, 'Crash Safety 101', '...'),
  (3, 'Why  SQLite?', '...'), (4, 'Ten Tips & Tricks', '...');
"""


def every_article_has_slug(state):
    db = state.db("cms.db")
    cols = [r[1] for r in db.execute("PRAGMA table_info(articles)")]
    assert "slug" in cols, "no slug column"
    n = db.execute("SELECT COUNT(*) FROM articles WHERE slug IS NULL OR slug = ''").fetchone()[0]
    assert n == 0, "%s articles without a slug" % n


@scenario("app/migrations.py:add_slug_column", resumable=True, check=every_article_has_slug)
def four_articles(world):
    world.seed_sqlite("cms.db", SCHEMA)
    return {"conn": world.sqlite("cms.db")}
