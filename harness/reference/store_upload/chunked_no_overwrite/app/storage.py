import hashlib
import os

CHUNK_SIZE = 64 * 1024


def store_upload(conn, upload_dir, upload_id, filename, data):
    stored_as = f"{upload_id}-{os.path.basename(filename)}"
    dest = os.path.join(upload_dir, stored_as)
    if not os.path.exists(dest):  # never overwrite a stored file
        with open(dest, "wb") as out:
            for start in range(0, len(data), CHUNK_SIZE):
                out.write(data[start:start + CHUNK_SIZE])
    conn.execute(
        "INSERT OR IGNORE INTO uploads (upload_id, filename, stored_as, size, sha256)"
        " VALUES (?, ?, ?, ?, ?)",
        (upload_id, filename, stored_as, len(data), hashlib.sha256(data).hexdigest()),
    )
    conn.commit()
    return stored_as
