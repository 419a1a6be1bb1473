def cancel_subscription(conn, mailer, subscription_id):
    email, status = conn.execute(
        "SELECT email, status FROM subscriptions WHERE id = ?", (subscription_id,)
    ).fetchone()
    if status == "active":
        conn.execute("UPDATE subscriptions SET status = 'cancelled' WHERE id = ?",
                     (subscription_id,))
        conn.execute("INSERT INTO notifications (subscription_id, kind, status)"
                     " VALUES (?, 'cancelled', 'pending')", (subscription_id,))
        conn.commit()

    # deliver the confirmation if it hasn't gone out yet
    row = conn.execute("SELECT id FROM notifications WHERE subscription_id = ?"
                       " AND kind = 'cancelled' AND status = 'pending'",
                       (subscription_id,)).fetchone()
    if row:
        mailer.send(email, "Your subscription is cancelled",
                    "We're sorry to see you go. Your plan ends today.",
                    idempotency_key=f"subscription-{subscription_id}-cancelled")
        conn.execute("UPDATE notifications SET status = 'sent' WHERE id = ?", (row[0],))
        conn.commit()
