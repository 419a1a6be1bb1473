def place_order(conn, customer_id, items, request_id):
    existing = conn.execute(
        "SELECT id FROM orders WHERE request_id = ?", (request_id,)
    ).fetchone()
    if existing:
        return existing[0]

    total = 0
    for product_id, qty in items:
        price, stock = conn.execute(
            "SELECT price, stock FROM products WHERE id = ?", (product_id,)
        ).fetchone()
        if stock < qty:
            raise ValueError(f"not enough stock for product {product_id}")
        total += price * qty

    cur = conn.execute(
        "INSERT INTO orders (customer_id, request_id, total) VALUES (?, ?, ?)",
        (customer_id, request_id, total),
    )
    order_id = cur.lastrowid
    for product_id, qty in items:
        price = conn.execute("SELECT price FROM products WHERE id = ?", (product_id,)).fetchone()[0]
        conn.execute(
            "INSERT INTO order_items (order_id, product_id, qty, price) VALUES (?, ?, ?, ?)",
            (order_id, product_id, qty, price),
        )
        conn.execute("UPDATE products SET stock = stock - ? WHERE id = ?", (qty, product_id))
    conn.commit()
    return order_id
