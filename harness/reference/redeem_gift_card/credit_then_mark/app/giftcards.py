def redeem_gift_card(conn, code, user_id):
    card = conn.execute(
        "SELECT amount, redeemed_by FROM gift_cards WHERE code = ?", (code,)
    ).fetchone()
    if card is None:
        raise ValueError("invalid gift card")
    amount, redeemed_by = card
    if redeemed_by is not None:
        if redeemed_by == user_id:
            return 0
        raise ValueError("gift card already redeemed")
    conn.execute("UPDATE users SET balance = balance + ? WHERE id = ?", (amount, user_id))
    conn.execute("UPDATE gift_cards SET redeemed_by = ? WHERE code = ?", (user_id, code))
    conn.commit()
    return amount
