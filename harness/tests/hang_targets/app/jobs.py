"""The 405 s campaign's shape: a job claimed in a file is handed to a worker thread and the
caller waits on a queue for its result. A crash kills the worker (a soft crash) or the whole
run (a hard one) and leaves the claim; every re-run then waits on the queue for a worker that
no process has, forever, with every thread blocked."""
import os
import queue
import sqlite3
import threading

_results: "queue.Queue[str]" = queue.Queue()


def _work(db_path):
    conn = sqlite3.connect(db_path)
    with conn:
        conn.execute("UPDATE jobs SET done = 1 WHERE id = 1")
    conn.close()
    _results.put("done")


def run_job(db_path, claim_path):
    if not os.path.exists(claim_path):
        with open(claim_path, "w") as claim:
            claim.write("claimed")
        threading.Thread(target=_work, args=(db_path,)).start()
    _results.get()
    os.remove(claim_path)
