import csv
import os


def import_customers(conn, csv_path):
    filename = os.path.basename(csv_path)
    with conn:
        if conn.execute("SELECT 1 FROM imports WHERE filename = ?", (filename,)).fetchone():
            return 0  # this file was imported already
        conn.execute("INSERT INTO imports (filename, rows) VALUES (?, 0)", (filename,))
        count = 0
        with open(csv_path, newline="") as f:
            for row in csv.DictReader(f):
                conn.execute("INSERT INTO customers (email, name) VALUES (?, ?)",
                             (row["email"].lower(), row["name"]))
                count += 1
        conn.execute("UPDATE imports SET rows = ? WHERE filename = ?", (count, filename))
    return count
