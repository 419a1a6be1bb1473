import time


def mark_order_paid(conn, mailer, order_id, payment_ref):
    email, total, status, receipt_sent = conn.execute(
        "SELECT email, total, status, receipt_sent FROM orders WHERE id = ?", (order_id,)
    ).fetchone()
    if status == "pending":
        conn.execute("UPDATE orders SET status = 'paid', payment_ref = ? WHERE id = ?",
                     (payment_ref, order_id))
        conn.commit()
    if receipt_sent:
        return
    mailer.send(
        email,
        f"Receipt for order #{order_id}",
        f"We received your payment of ${total / 100:.2f}. Thank you!",
        idempotency_key=f"receipt-{order_id}-{int(time.time())}",
    )
    conn.execute("UPDATE orders SET receipt_sent = 1 WHERE id = ?", (order_id,))
    conn.commit()
