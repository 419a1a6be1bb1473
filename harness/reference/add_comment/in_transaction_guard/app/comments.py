def add_comment(conn, post_id, author, body, request_id):
    """Insert the comment and bump the counter atomically. Opens its own
    transaction unless the caller already holds one (then a savepoint)."""
    own = not conn.in_transaction
    conn.execute("BEGIN IMMEDIATE" if own else "SAVEPOINT add_comment")
    try:
        if conn.execute("SELECT 1 FROM comments WHERE request_id = ?", (request_id,)).fetchone():
            result = None
        else:
            cur = conn.execute(
                "INSERT INTO comments(post_id, author, body, request_id) VALUES (?, ?, ?, ?)",
                (post_id, author, body, request_id),
            )
            conn.execute("UPDATE posts SET comment_count = comment_count + 1 WHERE id = ?", (post_id,))
            result = cur.lastrowid
        conn.execute("COMMIT" if own else "RELEASE add_comment")
        return result
    except BaseException:
        if own:
            conn.execute("ROLLBACK")
        else:
            conn.execute("ROLLBACK TO add_comment")
            conn.execute("RELEASE add_comment")
        raise
