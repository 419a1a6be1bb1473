def archive_old_orders(conn, cutoff):
    """Move every order placed before `cutoff` (YYYY-MM-DD) to orders_archive."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.execute(
            "INSERT INTO orders_archive (id, customer_id, total, placed_on)"
            " SELECT id, customer_id, total, placed_on FROM orders WHERE placed_on < ?",
            (cutoff,),
        )
        moved = conn.execute("DELETE FROM orders WHERE placed_on < ?", (cutoff,)).rowcount
        conn.execute("COMMIT")
    except Exception:
        conn.execute("ROLLBACK")
        raise
    return moved
