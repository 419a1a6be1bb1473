def send_queued_emails(conn, mailer):
    pending = conn.execute(
        "SELECT id, to_addr, subject, body FROM outbox WHERE status = 'pending'"
    ).fetchall()
    for email_id, to, subject, body in pending:
        mailer.send(to, subject, body)
        conn.execute("UPDATE outbox SET status = 'sent'"
                     " WHERE id = ?", (email_id,))
        conn.commit()
