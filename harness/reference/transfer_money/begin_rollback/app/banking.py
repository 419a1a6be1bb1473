class InsufficientFunds(Exception):
    pass


def transfer(conn, from_id, to_id, amount, request_id):
    conn.execute("BEGIN")
    try:
        done = conn.execute("SELECT 1 FROM transfers WHERE request_id = ?", (request_id,)).fetchone()
        if done:
            conn.execute("ROLLBACK")
            return "duplicate"
        (balance,) = conn.execute("SELECT balance FROM accounts WHERE id = ?", (from_id,)).fetchone()
        if balance < amount:
            raise InsufficientFunds(from_id)
        conn.execute("UPDATE accounts SET balance = balance - ? WHERE id = ?", (amount, from_id))
        conn.execute("UPDATE accounts SET balance = balance + ? WHERE id = ?", (amount, to_id))
        conn.execute(
            "INSERT INTO transfers(request_id, from_id, to_id, amount) VALUES (?, ?, ?, ?)",
            (request_id, from_id, to_id, amount),
        )
        conn.execute("COMMIT")
        return "ok"
    except Exception:
        conn.execute("ROLLBACK")
        raise
