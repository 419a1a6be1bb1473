FEE = 1


def transfer(conn, source, target, amount):
    conn.execute("BEGIN")
    try:
        (balance,) = conn.execute("SELECT balance FROM accounts WHERE id = ?", (source,)).fetchone()
        if balance < amount + FEE:
            raise ValueError("insufficient funds")
        conn.execute("UPDATE accounts SET balance = balance - ? WHERE id = ?", (amount + FEE, source))
        conn.execute("UPDATE accounts SET balance = balance + ? WHERE id = ?", (amount, target))
        conn.execute("UPDATE accounts SET balance = balance + ? WHERE id = 99", (FEE,))
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
