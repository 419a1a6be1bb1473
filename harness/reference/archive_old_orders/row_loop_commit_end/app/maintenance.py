def archive_old_orders(conn, cutoff):
    rows = conn.execute(
        "SELECT id, customer_id, total, placed_on FROM orders WHERE placed_on < ?",
        (cutoff,),
    ).fetchall()
    for row in rows:
        conn.execute("INSERT INTO orders_archive VALUES (?, ?, ?, ?)", row)
        conn.execute("DELETE FROM orders WHERE id = ?", (row[0],))
    conn.commit()
    return len(rows)
