import hashlib
import os


def store_upload(conn, upload_dir, upload_id, filename, data):
    row = conn.execute("SELECT stored_as FROM uploads WHERE upload_id = ?", (upload_id,)).fetchone()
    if row:
        return row[0]  # retried request: already stored
    stored_as = "%s-%s" % (upload_id, os.path.basename(filename))
    final = os.path.join(upload_dir, stored_as)
    tmp = final + ".part"
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, final)
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.execute(
            "INSERT INTO uploads(upload_id, filename, stored_as, size, sha256) VALUES (?, ?, ?, ?, ?)",
            (upload_id, filename, stored_as, len(data), hashlib.sha256(data).hexdigest()))
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return stored_as
