import csv
import os

BATCH_SIZE = 2  # commit in batches so a big file doesn't hold one huge transaction


def import_customers(conn, csv_path):
    cur = conn.cursor()
    imported = 0
    with open(csv_path, newline="") as f:
        for row in csv.DictReader(f):
            cur.execute("INSERT INTO customers (email, name) VALUES (?, ?)",
                        (row["email"].strip().lower(), row["name"].strip()))
            imported += 1
            if imported % BATCH_SIZE == 0:
                conn.commit()
    cur.execute("INSERT INTO imports (filename, rows) VALUES (?, ?)",
                (os.path.basename(csv_path), imported))
    conn.commit()
    return imported
