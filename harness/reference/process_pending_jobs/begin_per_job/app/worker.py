def process_pending_jobs(conn):
    """Each job is applied and marked done in its own transaction, so a crash
    loses at most the job in flight, which stays pending for the next run."""
    processed = 0
    job_ids = [r[0] for r in conn.execute("SELECT id FROM jobs WHERE status = 'pending' ORDER BY id")]
    for job_id in job_ids:
        conn.execute("BEGIN IMMEDIATE")
        try:
            job = conn.execute(
                "SELECT account_id, amount FROM jobs WHERE id = ? AND status = 'pending'", (job_id,)
            ).fetchone()
            if job is not None:
                conn.execute("UPDATE accounts SET balance = balance + ? WHERE id = ?", (job[1], job[0]))
                conn.execute("UPDATE jobs SET status = 'done' WHERE id = ?", (job_id,))
                processed += 1
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
    return processed
