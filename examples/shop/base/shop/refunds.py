def refund_order(conn, order_id):
    total, customer, status = conn.execute(
        "SELECT total, customer_id, status FROM orders WHERE id = ?", (order_id,)
    ).fetchone()
    if status != "paid":
        raise ValueError("order is not paid")
    conn.execute("UPDATE customers SET credit = credit + ? WHERE id = ?", (total, customer))
    conn.execute("UPDATE orders SET status = 'refunded' WHERE id = ?", (order_id,))
    conn.commit()
