def add_comment(conn, post_id, author, body, request_id):
    with conn:
        exists = conn.execute(
            "SELECT id FROM comments WHERE request_id = ?", (request_id,)
        ).fetchone()
        if exists:
            return exists[0]
        cur = conn.execute(
            "INSERT INTO comments (post_id, author, body, request_id) VALUES (?, ?, ?, ?)",
            (post_id, author, body, request_id),
        )
        conn.execute(
            "UPDATE posts SET comment_count = comment_count + 1 WHERE id = ?", (post_id,)
        )
        return cur.lastrowid
