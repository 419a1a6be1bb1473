CHILD_TABLES = ("sessions", "comments", "orders")


def delete_user_data(conn, user_id):
    """Erase a user and their rows in one unit; works inside a caller's transaction too."""
    conn.execute("SAVEPOINT delete_user")
    try:
        for table in CHILD_TABLES:
            conn.execute(f"DELETE FROM {table} WHERE user_id = ?", (user_id,))
        conn.execute("DELETE FROM users WHERE id = ?", (user_id,))
    except BaseException:
        conn.execute("ROLLBACK TO delete_user")
        conn.execute("RELEASE delete_user")
        raise
    conn.execute("RELEASE delete_user")  # outermost savepoint: this commits
