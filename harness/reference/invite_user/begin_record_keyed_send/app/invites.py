import secrets


def invite_user(conn, mailer, email, invited_by):
    email = email.strip().lower()
    conn.execute("BEGIN IMMEDIATE")
    try:
        if conn.execute("SELECT 1 FROM users WHERE email = ?", (email,)).fetchone():
            raise ValueError("%s is already a member" % email)
        row = conn.execute("SELECT id, token, status FROM invitations WHERE email = ?", (email,)).fetchone()
        if row is None:
            token = secrets.token_urlsafe(16)
            cur = conn.execute(
                "INSERT INTO invitations(email, token, invited_by, status) VALUES (?, ?, ?, 'pending')",
                (email, token, invited_by))
            row = (cur.lastrowid, token, "pending")
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    invitation_id, token, status = row
    if status == "pending":
        mailer.send(email, "You're invited",
                    "Join the team: https://app.example.com/join?token=%s" % token,
                    idempotency_key="invitation-%d" % invitation_id)
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("UPDATE invitations SET status = 'sent' WHERE id = ?", (invitation_id,))
        conn.execute("COMMIT")
    return invitation_id
