def mark_order_paid(conn, mailer, order_id, payment_ref):
    order = conn.execute(
        "SELECT email, total, status FROM orders WHERE id = ?", (order_id,)
    ).fetchone()
    if order is None:
        raise ValueError(f"order {order_id} not found")
    email, total, status = order
    if status == "paid":
        return

    mailer.send(
        email,
        f"Receipt for order #{order_id}",
        f"We received your payment of ${total / 100:.2f}. Thank you!",
    )
    conn.execute(
        "UPDATE orders SET status = 'paid', payment_ref = ?, receipt_sent = 1 WHERE id = ?",
        (payment_ref, order_id),
    )
    conn.commit()
