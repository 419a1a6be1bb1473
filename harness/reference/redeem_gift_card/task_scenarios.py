"""Task: redeem a gift card onto a user's balance. A card can be redeemed
once; a repeat is recognisable by the stored state (the card says who
redeemed it)."""
from crashprobe import scenario

SCHEMA = """
CREATE TABLE users(id INTEGER PRIMARY KEY, name TEXT, balance INTEGER NOT NULL DEFAULT 0);
CREATE TABLE gift_cards(code TEXT PRIMARY KEY, amount INTEGER NOT NULL, redeemed_by INTEGER);
INSERT INTO users VALUES (1, 'dana', 5);
INSERT INTO gift_cards VALUES ('GIFT-25', 25, NULL), ('GIFT-10', 10, NULL);
"""


def balance_matches_cards(state):
    db = state.db("shop.db")
    balance = db.execute("SELECT balance FROM users WHERE id = 1").fetchone()[0]
    used = db.execute("SELECT COALESCE(SUM(amount), 0) FROM gift_cards WHERE redeemed_by = 1").fetchone()[0]
    assert balance == 5 + used, "balance %s but redeemed cards worth %s" % (balance, used)


@scenario("app/giftcards.py:redeem_gift_card", check=balance_matches_cards)
def redeem_25(world):
    world.seed_sqlite("shop.db", SCHEMA)
    return {"conn": world.sqlite("shop.db"), "code": "GIFT-25", "user_id": 1}
