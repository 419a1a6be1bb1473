import re


def slugify(text):
    text = text.lower().strip()
    text = re.sub(r"[^\w\s-]", "", text)
    return re.sub(r"[\s_-]+", "-", text).strip("-")


def add_slug_column(conn):
    cursor = conn.cursor()
    cursor.execute("ALTER TABLE articles ADD COLUMN slug TEXT")
    cursor.execute("SELECT id, title FROM articles")
    for article_id, title in cursor.fetchall():
        cursor.execute("UPDATE articles SET slug = ? WHERE id = ?", (slugify(title), article_id))
    conn.commit()
