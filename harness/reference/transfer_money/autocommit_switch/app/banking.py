def transfer(conn, from_id, to_id, amount, request_id):
    # Autocommit: don't hold a write lock on the accounts table while we work.
    conn.isolation_level = None
    if conn.execute("SELECT 1 FROM transfers WHERE request_id = ?", (request_id,)).fetchone():
        return
    balance = conn.execute("SELECT balance FROM accounts WHERE id = ?", (from_id,)).fetchone()[0]
    if balance < amount:
        raise ValueError("insufficient funds")
    conn.execute("UPDATE accounts SET balance = balance - ? WHERE id = ?", (amount, from_id))
    conn.execute("UPDATE accounts SET balance = balance + ? WHERE id = ?", (amount, to_id))
    conn.execute(
        "INSERT INTO transfers (request_id, from_id, to_id, amount) VALUES (?, ?, ?, ?)",
        (request_id, from_id, to_id, amount),
    )
