"""Task: append an entry to a CSV ledger file and keep its closing TOTAL
line up to date. Each entry has an id (a request id): the same entry must
not be added twice. Files only."""
from crashprobe import scenario

LEDGER = """entry_id,amount,memo
e-001,100,opening balance
e-002,-20,coffee beans
TOTAL,80
"""


def total_line_matches(state):
    lines = state.file("books/ledger.csv").decode().splitlines()
    assert lines and lines[0] == "entry_id,amount,memo", "header lost"
    assert lines[-1].startswith("TOTAL,"), "TOTAL line lost"
    amounts = [int(l.split(",")[1]) for l in lines[1:-1]]
    assert int(lines[-1].split(",")[1]) == sum(amounts), "TOTAL does not match the entries"


@scenario("app/ledger.py:append_entry", check=total_line_matches)
def pay_rent(world):
    world.seed_file("books/ledger.csv", LEDGER)
    return {"path": world.path("books/ledger.csv"), "entry_id": "e-003", "amount": -45, "memo": "printer ink"}
