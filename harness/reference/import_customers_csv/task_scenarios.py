"""Task (finishes interrupted work): import customers from a CSV file
(email,name) into `customers`, and note the file in `imports`. Customers are
unique by email. Resumable: judged after the re-run."""
from crashprobe import scenario

SCHEMA = """
CREATE TABLE customers(id INTEGER PRIMARY KEY, email TEXT UNIQUE NOT NULL, name TEXT);
CREATE TABLE imports(filename TEXT PRIMARY KEY, rows INTEGER NOT NULL);
INSERT INTO customers(email, name) VALUES ('old@example.com', 'Old Customer');
"""

CSV = """email,name
ann@example.com,Ann Lee
raj@example.com,Raj Patel
mia@example.com,Mia Wong
tom@example.com,Tom Berg
eva@example.com,Eva Diaz
"""


def all_imported_once(state):
    db = state.db("crm.db")
    n = db.execute("SELECT COUNT(*) FROM customers").fetchone()[0]
    assert n == 6, "%s customers, expected 6" % n


@scenario("app/importer.py:import_customers", resumable=True, check=all_imported_once)
def five_new_customers(world):
    world.seed_sqlite("crm.db", SCHEMA)
    world.seed_file("incoming/customers.csv", CSV)
    return {"conn": world.sqlite("crm.db"), "csv_path": world.path("incoming/customers.csv")}
