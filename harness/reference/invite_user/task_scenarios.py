"""Task (finishes interrupted work): invite someone by email: store an
invitation with a random token and email them the join link. The email
client drops a repeated idempotency_key. Resumable: judged after the
re-run. The token is random, so the harness masks it."""
from crashprobe import scenario

SCHEMA = """
CREATE TABLE users(id INTEGER PRIMARY KEY, email TEXT UNIQUE NOT NULL);
CREATE TABLE invitations(id INTEGER PRIMARY KEY, email TEXT UNIQUE NOT NULL, token TEXT NOT NULL,
                         invited_by INTEGER NOT NULL, status TEXT NOT NULL);
INSERT INTO users VALUES (1, 'owner@example.com');
"""


def one_invite_email(state):
    sent = [m for m in state.emails if m["to"] == "new@example.com"]
    assert len(sent) <= 1, "%s invitation emails" % len(sent)


@scenario("app/invites.py:invite_user", resumable=True, check=one_invite_email)
def invite_new_member(world):
    world.seed_sqlite("team.db", SCHEMA)
    return {"conn": world.sqlite("team.db"), "mailer": world.email(),
            "email": "new@example.com", "invited_by": 1}
