import csv
import os


def import_customers(conn, csv_path):
    """Import the file in one transaction; customers already present are
    skipped, so an interrupted or repeated import is simply run again."""
    with open(csv_path, newline="") as f:
        rows = [(r["email"].strip().lower(), r["name"].strip()) for r in csv.DictReader(f)]
    conn.execute("BEGIN")
    try:
        conn.executemany("INSERT OR IGNORE INTO customers(email, name) VALUES (?, ?)", rows)
        conn.execute(
            "INSERT OR REPLACE INTO imports(filename, rows) VALUES (?, ?)",
            (os.path.basename(csv_path), len(rows)),
        )
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return len(rows)
