import csv
import os


def export_sales_report(conn, out_dir, month):
    if conn.execute("SELECT 1 FROM reports WHERE month = ?", (month,)).fetchone():
        return
    rows = conn.execute(
        "SELECT day, SUM(amount) FROM sales WHERE day LIKE ? GROUP BY day ORDER BY day",
        (month + "-%",),
    ).fetchall()
    total = sum(r[1] for r in rows)
    filename = f"sales-{month}.csv"
    conn.execute("INSERT INTO reports (month, filename, total) VALUES (?, ?, ?)",
                 (month, filename, total))
    conn.commit()

    with open(os.path.join(out_dir, filename), "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["day", "amount"])
        for day, amount in rows:
            writer.writerow([day, amount])
        writer.writerow(["TOTAL", total])
