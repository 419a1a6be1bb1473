def delete_user_data(conn, user_id):
    cur = conn.cursor()
    cur.execute("DELETE FROM sessions WHERE user_id = ?", (user_id,))
    cur.execute("DELETE FROM comments WHERE user_id = ?", (user_id,))
    cur.execute("DELETE FROM orders WHERE user_id = ?", (user_id,))
    cur.execute("DELETE FROM users WHERE id = ?", (user_id,))
    conn.commit()
