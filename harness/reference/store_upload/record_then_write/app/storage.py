import hashlib
import os


def store_upload(conn, upload_dir, upload_id, filename, data):
    if conn.execute("SELECT 1 FROM uploads WHERE upload_id = ?", (upload_id,)).fetchone():
        return  # duplicate request
    stored_as = f"{upload_id}-{os.path.basename(filename)}"
    conn.execute(
        "INSERT INTO uploads (upload_id, filename, stored_as, size, sha256) VALUES (?, ?, ?, ?, ?)",
        (upload_id, filename, stored_as, len(data), hashlib.sha256(data).hexdigest()),
    )
    conn.commit()
    with open(os.path.join(upload_dir, stored_as), "wb") as f:
        f.write(data)
