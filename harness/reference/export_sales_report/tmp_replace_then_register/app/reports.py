import csv
import os


def export_sales_report(conn, out_dir, month):
    if conn.execute("SELECT 1 FROM reports WHERE month = ?", (month,)).fetchone():
        return None  # already exported
    rows = conn.execute(
        "SELECT day, SUM(amount) FROM sales WHERE substr(day, 1, 7) = ? GROUP BY day ORDER BY day",
        (month,)).fetchall()
    total = sum(amount for _, amount in rows)
    filename = "sales-%s.csv" % month
    path = os.path.join(out_dir, filename)
    tmp = path + ".tmp"
    with open(tmp, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["day", "amount"])
        writer.writerows(rows)
        writer.writerow(["TOTAL", total])
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)  # the file appears complete or not at all
    conn.execute("BEGIN IMMEDIATE")
    conn.execute("INSERT OR REPLACE INTO reports(month, filename, total) VALUES (?, ?, ?)",
                 (month, filename, total))
    conn.execute("COMMIT")
    return path
