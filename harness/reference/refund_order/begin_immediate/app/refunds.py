def refund_order(conn, order_id):
    """Refund a paid order exactly once; a repeat is a no-op."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        row = conn.execute(
            "SELECT total, customer_id, status FROM orders WHERE id = ?", (order_id,)
        ).fetchone()
        if row is None:
            raise LookupError("no order %s" % order_id)
        total, customer_id, status = row
        if status == "refunded":
            conn.execute("ROLLBACK")
            return False
        if status != "paid":
            raise ValueError("order %s is %s, not paid" % (order_id, status))
        conn.execute("UPDATE customers SET credit = credit + ? WHERE id = ?", (total, customer_id))
        conn.execute("UPDATE orders SET status = 'refunded' WHERE id = ?", (order_id,))
        conn.execute("INSERT INTO refunds(order_id, amount) VALUES (?, ?)", (order_id, total))
        conn.execute("COMMIT")
        return True
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
