def mark_order_paid(conn, mailer, order_id, payment_ref):
    conn.execute("BEGIN IMMEDIATE")
    try:
        email, total, status, receipt_sent = conn.execute(
            "SELECT email, total, status, receipt_sent FROM orders WHERE id = ?", (order_id,)).fetchone()
        if status == "pending":
            conn.execute("UPDATE orders SET status = 'paid', payment_ref = ? WHERE id = ?",
                         (payment_ref, order_id))
        elif status != "paid":
            raise ValueError("order %s is %s" % (order_id, status))
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    if not receipt_sent:
        # A stable key: if we crash after sending, the re-run's send is dropped.
        mailer.send(email, "Receipt for order #%d" % order_id,
                    "We received your payment of $%.2f. Thank you!" % (total / 100),
                    idempotency_key="order-%d-receipt" % order_id)
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("UPDATE orders SET receipt_sent = 1 WHERE id = ?", (order_id,))
        conn.execute("COMMIT")
