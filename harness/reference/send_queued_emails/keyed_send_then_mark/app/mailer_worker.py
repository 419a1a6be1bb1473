def send_queued_emails(conn, mailer):
    """Send each pending message, then mark it sent. The idempotency key is the
    outbox id, so a message re-sent after a crash is dropped by the provider."""
    pending = conn.execute(
        "SELECT id, to_addr, subject, body FROM outbox WHERE status = 'pending' ORDER BY id"
    ).fetchall()
    for email_id, to, subject, body in pending:
        mailer.send(to, subject, body, idempotency_key=f"outbox-{email_id}")
        conn.execute("BEGIN")
        conn.execute("UPDATE outbox SET status = 'sent' WHERE id = ?", (email_id,))
        conn.execute("COMMIT")
    return len(pending)
