"""Task: export a month's sales report as a CSV file under the reports
folder and register it in the `reports` table. A repeat is recognisable by
the stored state: the month is registered."""
from crashprobe import scenario

SCHEMA = """
CREATE TABLE sales(id INTEGER PRIMARY KEY, day TEXT NOT NULL, amount INTEGER NOT NULL);
CREATE TABLE reports(month TEXT PRIMARY KEY, filename TEXT NOT NULL, total INTEGER NOT NULL);
INSERT INTO sales(day, amount) VALUES ('2026-09-30', 70), ('2026-10-01', 120), ('2026-10-01', 80),
  ('2026-10-02', 45), ('2026-10-15', 300), ('2026-10-31', 99), ('2026-11-01', 10);
"""


def registered_reports_exist(state):
    db = state.db("sales.db")
    for (filename,) in db.execute("SELECT filename FROM reports"):
        content = state.file("reports/" + filename)
        assert content is not None, "registered report %s is missing" % filename
        assert content.rstrip().endswith(b"TOTAL,644"), "registered report %s is incomplete" % filename


@scenario("app/reports.py:export_sales_report", check=registered_reports_exist)
def october(world):
    world.seed_sqlite("sales.db", SCHEMA)
    world.seed_file("reports/README.txt", "monthly exports\n")
    return {"conn": world.sqlite("sales.db"), "out_dir": world.path("reports"), "month": "2026-10"}
