import os


def delete_attachment(conn, storage_dir, attachment_id):
    row = conn.execute(
        "SELECT message_id, stored_path FROM attachments WHERE id = ?", (attachment_id,)
    ).fetchone()
    if row is None:
        return False
    message_id, stored_path = row

    os.remove(os.path.join(storage_dir, stored_path))
    conn.execute("DELETE FROM attachments WHERE id = ?", (attachment_id,))
    conn.execute(
        "UPDATE messages SET attachment_count = attachment_count - 1 WHERE id = ?", (message_id,)
    )
    conn.commit()
    return True
