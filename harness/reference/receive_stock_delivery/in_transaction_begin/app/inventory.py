def receive_delivery(conn, delivery_no, supplier, lines):
    """Book a delivery once. Joins the caller's transaction if there is one."""
    opened = False
    if not conn.in_transaction:
        conn.execute("BEGIN IMMEDIATE")
        opened = True
    try:
        seen = conn.execute("SELECT 1 FROM deliveries WHERE delivery_no = ?", (delivery_no,)).fetchone()
        if not seen:
            conn.execute("INSERT INTO deliveries VALUES (?, ?, ?)", (delivery_no, supplier, len(lines)))
            for sku, qty in lines:
                conn.execute("UPDATE products SET stock = stock + ? WHERE sku = ?", (qty, sku))
                conn.execute("INSERT INTO stock_moves VALUES (?, ?, ?)", (delivery_no, sku, qty))
        if opened:
            conn.execute("COMMIT")
    except BaseException:
        if opened:
            conn.execute("ROLLBACK")
        raise
