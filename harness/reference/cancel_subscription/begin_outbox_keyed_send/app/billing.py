def cancel_subscription(conn, mailer, subscription_id):
    """Cancel and queue the confirmation in one transaction, then deliver it.
    A re-run delivers a confirmation that is still pending; the stable
    idempotency key makes a resend after a crash harmless."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        email, status = conn.execute(
            "SELECT email, status FROM subscriptions WHERE id = ?", (subscription_id,)).fetchone()
        if status == "active":
            conn.execute("UPDATE subscriptions SET status = 'cancelled' WHERE id = ?", (subscription_id,))
            conn.execute(
                "INSERT INTO notifications(subscription_id, kind, status) VALUES (?, 'cancelled', 'pending')",
                (subscription_id,))
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    pending = conn.execute(
        "SELECT id FROM notifications WHERE subscription_id = ? AND kind = 'cancelled' AND status = 'pending'",
        (subscription_id,)).fetchone()
    if pending:
        mailer.send(email, "Your subscription is cancelled",
                    "We're sorry to see you go. Your plan ends today.",
                    idempotency_key="subscription-%d-cancelled" % subscription_id)
        conn.execute("UPDATE notifications SET status = 'sent' WHERE id = ?", (pending[0],))
        conn.commit()
