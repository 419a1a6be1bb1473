def receive_delivery(conn, delivery_no, supplier, lines):
    with conn:
        if conn.execute("SELECT 1 FROM deliveries WHERE delivery_no = ?",
                        (delivery_no,)).fetchone():
            return False
        for sku, qty in lines:
            conn.execute("UPDATE products SET stock = stock + ? WHERE sku = ?", (qty, sku))
            conn.execute("INSERT INTO stock_moves (delivery_no, sku, qty) VALUES (?, ?, ?)",
                         (delivery_no, sku, qty))
        conn.execute("INSERT INTO deliveries (delivery_no, supplier, lines) VALUES (?, ?, ?)",
                     (delivery_no, supplier, len(lines)))
    return True
