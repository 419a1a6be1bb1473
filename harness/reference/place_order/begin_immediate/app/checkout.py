class OutOfStock(Exception):
    pass


def place_order(conn, customer_id, items, request_id):
    """items: list of (product_id, qty). Returns the order id (same id on a retry)."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        row = conn.execute("SELECT id FROM orders WHERE request_id = ?", (request_id,)).fetchone()
        if row:
            conn.execute("COMMIT")
            return row[0]
        total = 0
        for product_id, qty in items:
            price, stock = conn.execute(
                "SELECT price, stock FROM products WHERE id = ?", (product_id,)).fetchone()
            if stock < qty:
                raise OutOfStock(product_id)
            total += price * qty
        order_id = conn.execute(
            "INSERT INTO orders(customer_id, request_id, total) VALUES (?, ?, ?)",
            (customer_id, request_id, total)).lastrowid
        for product_id, qty in items:
            conn.execute("UPDATE products SET stock = stock - ? WHERE id = ?", (qty, product_id))
            conn.execute(
                "INSERT INTO order_items SELECT ?, id, ?, price FROM products WHERE id = ?",
                (order_id, qty, product_id))
        conn.execute("COMMIT")
        return order_id
    except BaseException:
        conn.execute("ROLLBACK")
        raise
