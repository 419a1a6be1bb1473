def process_pending_jobs(conn):
    jobs = conn.execute(
        "SELECT id, account_id, amount FROM jobs WHERE status = 'pending' ORDER BY id"
    ).fetchall()
    for job_id, account_id, amount in jobs:
        conn.execute("UPDATE accounts SET balance = balance + ? WHERE id = ?",
                     (amount, account_id))
        conn.execute("UPDATE jobs SET status = 'done' WHERE id = ?", (job_id,))
        conn.commit()
    return len(jobs)
