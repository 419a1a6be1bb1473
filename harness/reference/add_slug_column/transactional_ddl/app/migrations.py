import re


def slugify(title):
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")


def add_slug_column(conn):
    """Add and backfill articles.slug. SQLite DDL is transactional, so the
    ALTER and the backfill commit together; safe to run again."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        columns = [row[1] for row in conn.execute("PRAGMA table_info(articles)")]
        if "slug" not in columns:
            conn.execute("ALTER TABLE articles ADD COLUMN slug TEXT")
        rows = conn.execute("SELECT id, title FROM articles WHERE slug IS NULL").fetchall()
        for article_id, title in rows:
            conn.execute("UPDATE articles SET slug = ? WHERE id = ?", (slugify(title), article_id))
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
