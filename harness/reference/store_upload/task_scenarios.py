"""Task (finishes interrupted work): store an uploaded file under the
uploads folder and record it in `uploads`. The client sends an upload id (a
request id); a retried upload must not be stored twice. Resumable: judged
after the re-run."""
import hashlib

from crashprobe import scenario

SCHEMA = """
CREATE TABLE uploads(id INTEGER PRIMARY KEY, upload_id TEXT UNIQUE NOT NULL, filename TEXT,
                     stored_as TEXT NOT NULL, size INTEGER, sha256 TEXT);
"""

DATA = bytes(range(256)) * 600  # 150 KiB, a few chunks


def recorded_uploads_intact(state):
    db = state.db("files.db")
    rows = db.execute("SELECT stored_as, size, sha256 FROM uploads").fetchall()
    assert len(rows) <= 1, "upload recorded %s times" % len(rows)
    for stored_as, size, digest in rows:
        content = state.file("uploads/" + stored_as)
        assert content is not None, "recorded upload %s is missing" % stored_as
        assert len(content) == size and hashlib.sha256(content).hexdigest() == digest, "upload %s is damaged" % stored_as


@scenario("app/storage.py:store_upload", resumable=True, check=recorded_uploads_intact)
def photo_upload(world):
    world.seed_sqlite("files.db", SCHEMA)
    world.seed_file("uploads/.keep", "")
    return {"conn": world.sqlite("files.db"), "upload_dir": world.path("uploads"),
            "upload_id": "up-77", "filename": "photo.jpg", "data": DATA}
