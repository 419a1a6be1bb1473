"""Task: delete a message attachment: its database row (and the message's
attachment counter) and the stored file. Blobs are stored under
<storage>/<attachment id>/<filename>. A repeat is recognisable by the
stored state: the row is gone."""
from crashprobe import scenario

SCHEMA = """
CREATE TABLE messages(id INTEGER PRIMARY KEY, subject TEXT, attachment_count INTEGER NOT NULL);
CREATE TABLE attachments(id INTEGER PRIMARY KEY, message_id INTEGER NOT NULL, filename TEXT,
                         stored_path TEXT NOT NULL);
INSERT INTO messages VALUES (1, 'Q3 numbers', 2);
INSERT INTO attachments VALUES (31, 1, 'report.pdf', '31/report.pdf'),
                               (32, 1, 'chart.png', '32/chart.png');
"""


def rows_point_at_files(state):
    db = state.db("mail.db")
    for (stored,) in db.execute("SELECT stored_path FROM attachments"):
        assert state.file("storage/" + stored) is not None, "row points at missing file %s" % stored
    count = db.execute("SELECT attachment_count FROM messages WHERE id = 1").fetchone()[0]
    rows = db.execute("SELECT COUNT(*) FROM attachments WHERE message_id = 1").fetchone()[0]
    assert count == rows, "attachment_count %s, rows %s" % (count, rows)


@scenario("app/attachments.py:delete_attachment", check=rows_point_at_files)
def delete_report(world):
    world.seed_sqlite("mail.db", SCHEMA)
    world.seed_file("storage/31/report.pdf", b"%PDF-1.4 quarterly report\n")
    world.seed_file("storage/32/chart.png", b"\x89PNG chart\n")
    return {"conn": world.sqlite("mail.db"), "storage_dir": world.path("storage"), "attachment_id": 31}
