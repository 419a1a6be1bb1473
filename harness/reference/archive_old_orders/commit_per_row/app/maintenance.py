def archive_old_orders(conn, cutoff):
    cur = conn.cursor()
    cur.execute("SELECT * FROM orders WHERE placed_on < ?", (cutoff,))
    old_orders = cur.fetchall()
    archived = 0
    for order in old_orders:
        cur.execute("INSERT OR REPLACE INTO orders_archive VALUES (?, ?, ?, ?)", order)
        cur.execute("DELETE FROM orders WHERE id = ?", (order[0],))
        conn.commit()  # commit as we go so a big archive run doesn't hold the lock
        archived += 1
    return archived
