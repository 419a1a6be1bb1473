import os


def delete_attachment(conn, storage_dir, attachment_id):
    conn.execute("BEGIN IMMEDIATE")
    try:
        row = conn.execute("SELECT message_id FROM attachments WHERE id = ?", (attachment_id,)).fetchone()
        if row is not None:
            conn.execute("DELETE FROM attachments WHERE id = ?", (attachment_id,))
            conn.execute("UPDATE messages SET attachment_count = attachment_count - 1 WHERE id = ?", (row[0],))
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    # Nothing points at the blob any more. Blobs live in <storage>/<id>/, so a
    # re-run also removes what an interrupted call left behind.
    folder = os.path.join(storage_dir, str(attachment_id))
    if os.path.isdir(folder):
        for name in os.listdir(folder):
            os.remove(os.path.join(folder, name))
        os.rmdir(folder)
