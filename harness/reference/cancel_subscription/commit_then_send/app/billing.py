def cancel_subscription(conn, mailer, subscription_id):
    sub = conn.execute(
        "SELECT email, status FROM subscriptions WHERE id = ?", (subscription_id,)
    ).fetchone()
    if sub is None:
        raise ValueError("subscription not found")
    email, status = sub
    if status == "cancelled":
        return False  # nothing to do

    conn.execute("UPDATE subscriptions SET status = 'cancelled' WHERE id = ?", (subscription_id,))
    conn.commit()

    mailer.send(
        email,
        "Your subscription is cancelled",
        "We're sorry to see you go. Your plan ends today.",
    )
    return True
