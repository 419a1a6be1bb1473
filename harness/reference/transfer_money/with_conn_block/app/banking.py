def transfer(conn, from_id, to_id, amount, request_id):
    with conn:
        if conn.execute("SELECT 1 FROM transfers WHERE request_id = ?",
                        (request_id,)).fetchone():
            return  # already processed
        cur = conn.execute("SELECT balance FROM accounts WHERE id = ?", (from_id,))
        if cur.fetchone()[0] < amount:
            raise ValueError("insufficient funds")
        conn.execute("UPDATE accounts SET balance = balance - ? WHERE id = ?",
                     (amount, from_id))
        conn.execute("UPDATE accounts SET balance = balance + ? WHERE id = ?",
                     (amount, to_id))
        conn.execute("INSERT INTO transfers (request_id, from_id, to_id, amount)"
                     " VALUES (?, ?, ?, ?)", (request_id, from_id, to_id, amount))
