import { sendBeforeRecord } from '../../../../src/core/python/rules/send-before-record.ts';
import { testRule } from './rule-tester.ts';

testRule(sendBeforeRecord, {
  valid: [
    {
      name: 'an idempotency key is passed',
      code: `
        def mark_paid(conn, mailer, order_id):
            mailer.send(to="a@b.c", subject="Paid", idempotency_key=f"paid-{order_id}")
            conn.execute("UPDATE orders SET status = 'paid' WHERE id = ?", (order_id,))
            conn.commit()
      `,
    },
    {
      name: 'an Idempotency-Key header on an HTTP POST',
      code: `
        def charge(conn, order_id):
            requests.post(URL, json={"order": order_id}, headers={"Idempotency-Key": str(order_id)})
            conn.execute("UPDATE orders SET charged = 1 WHERE id = ?", (order_id,))
      `,
    },
    {
      name: 'record first, then send',
      code: `
        def invite(conn, mailer, email):
            conn.execute("INSERT INTO invites (email) VALUES (?)", (email,))
            conn.commit()
            mailer.send(to=email, subject="Join us")
      `,
    },
    {
      name: 'claimed and committed before the send (at most once)',
      code: `
        def send_queued(conn, mailer, msg_id, to):
            conn.execute("UPDATE outbox SET status = 'sending' WHERE id = ?", (msg_id,))
            conn.commit()
            mailer.send(to=to, body="hi")
            conn.execute("UPDATE outbox SET status = 'sent' WHERE id = ?", (msg_id,))
            conn.commit()
      `,
    },
    {
      name: 'a write only on the error path records the failure, not the send',
      code: `
        def notify(conn, mailer, user):
            try:
                mailer.send(to=user, body="hi")
            except SMTPException:
                conn.execute("INSERT INTO failures (user) VALUES (?)", (user,))
      `,
    },
    {
      name: 'a GET is no send',
      code: `
        def refresh(conn, url):
            data = requests.get(url).json()
            conn.execute("INSERT INTO cache (url, body) VALUES (?, ?)", (url, data))
      `,
    },
  ],
  invalid: [
    {
      name: 'email, then the database records it',
      code: `
        def cancel_subscription(conn, mailer, sub_id, email):
            mailer.send(to=email, subject="Cancelled")
            conn.execute("UPDATE subscriptions SET status = 'cancelled' WHERE id = ?", (sub_id,))
            conn.commit()
      `,
      errors: [{ messageId: 'sendBeforeRecord', line: 2 }],
    },
    {
      name: 'HTTP POST before an f-string insert',
      code: `
        def push(conn, table, item):
            requests.post("https://hooks.example/x", json=item)
            conn.execute(f"INSERT INTO {table}_sent (id) VALUES (?)", (item["id"],))
      `,
      errors: [{ messageId: 'sendBeforeRecord', line: 2 }],
    },
    {
      name: 'the write is made before the send but committed after it',
      code: `
        def mark_paid(conn, mailer, order_id, email):
            conn.execute("UPDATE orders SET status = 'paid' WHERE id = ?", (order_id,))
            mailer.send_email(email, "Paid")
            conn.commit()
      `,
      errors: [{ messageId: 'sendBeforeCommit', line: 3 }],
    },
    {
      name: 'the send happens in a helper',
      code: `
        def notify(mailer, email):
            mailer.send(to=email, subject="Welcome")

        def invite(conn, mailer, email):
            notify(mailer, email)
            conn.execute("INSERT INTO invites (email) VALUES (?)", (email,))
      `,
      errors: [{ messageId: 'sendBeforeRecord', line: 5 }],
    },
    {
      name: 'an idempotency key built from the clock changes on the re-run (reference mark_order_paid/clock_idempotency_key)',
      code: `
        def mark_paid(conn, mailer, order_id, email):
            mailer.send(email, "Receipt", idempotency_key=f"receipt-{order_id}-{int(time.time())}")
            conn.execute("UPDATE orders SET receipt_sent = 1 WHERE id = ?", (order_id,))
            conn.commit()
      `,
      errors: [{ messageId: 'unstableIdempotencyKey', line: 2 }],
    },
    {
      name: 'a committed write to another column of the row is no claim of the send',
      code: `
        def mark_paid(conn, mailer, order_id, email):
            conn.execute("UPDATE orders SET status = 'paid' WHERE id = ?", (order_id,))
            conn.commit()
            mailer.send(email, "Receipt")
            conn.execute("UPDATE orders SET receipt_sent = 1 WHERE id = ?", (order_id,))
            conn.commit()
      `,
      errors: [{ messageId: 'sendBeforeRecord', line: 4 }],
    },
    {
      name: 'a random Idempotency-Key header',
      code: `
        def charge(conn, order_id):
            requests.post(URL, json={"order": order_id}, headers={"Idempotency-Key": str(uuid.uuid4())})
            conn.execute("UPDATE orders SET charged = 1 WHERE id = ?", (order_id,))
      `,
      errors: [{ messageId: 'unstableIdempotencyKey', line: 2 }],
    },
    {
      name: 'sends in a loop, recorded after',
      code: `
        def send_all(conn, smtp, rows):
            for msg_id, to, body in rows:
                smtp.sendmail("noreply@x", to, body)
            conn.execute("UPDATE outbox SET status = 'sent' WHERE status = 'queued'")
      `,
      errors: [{ messageId: 'sendBeforeRecord', line: 3 }],
    },
  ],
});
