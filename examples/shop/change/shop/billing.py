def mark_paid(conn, mailer, order_id):
    email, status = conn.execute(
        "SELECT c.email, o.status FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.id = ?",
        (order_id,),
    ).fetchone()
    if status != "pending":
        return
    mailer.send(email, f"Receipt for order {order_id}", "Thank you, your payment was received.")
    conn.execute("UPDATE orders SET status = 'paid' WHERE id = ?", (order_id,))
    conn.commit()
