import secrets


def invite_user(conn, mailer, email, invited_by):
    if conn.execute("SELECT 1 FROM invitations WHERE email = ?", (email,)).fetchone():
        raise ValueError(f"{email} has already been invited")

    token = secrets.token_urlsafe(16)
    conn.execute(
        "INSERT INTO invitations (email, token, invited_by, status) VALUES (?, ?, ?, 'sent')",
        (email, token, invited_by),
    )
    conn.commit()

    link = f"https://app.example.com/join?token={token}"
    mailer.send(email, "You're invited", f"Join the team: {link}")
    return token
