class CardUnavailable(Exception):
    pass


def redeem_gift_card(conn, code, user_id):
    conn.execute("BEGIN IMMEDIATE")
    try:
        card = conn.execute(
            "SELECT amount, redeemed_by FROM gift_cards WHERE code = ?", (code,)).fetchone()
        if card is None:
            raise CardUnavailable(code)
        amount, redeemed_by = card
        if redeemed_by == user_id:  # this user already redeemed it: a repeat
            conn.execute("ROLLBACK")
            return 0
        if redeemed_by is not None:
            raise CardUnavailable(code)
        conn.execute("UPDATE gift_cards SET redeemed_by = ? WHERE code = ? AND redeemed_by IS NULL",
                     (user_id, code))
        conn.execute("UPDATE users SET balance = balance + ? WHERE id = ?", (amount, user_id))
        conn.execute("COMMIT")
        return amount
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
