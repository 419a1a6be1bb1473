// The pull request the end-to-end test serves from its fake GitHub: one added
// Python file whose function e-mails before it records (a finding the static checks make).
export const ORDERS_PY = [
  'import sqlite3',
  '',
  '',
  'def refund(conn, order_id, mailer):',
  '    mailer.send("refund issued", order_id)',
  '    conn.execute("INSERT INTO refunds (order_id) VALUES (?)", (order_id,))',
  '    conn.execute("UPDATE orders SET refunded = 1 WHERE id = ?", (order_id,))',
  '    conn.commit()',
  '',
].join('\n');

export const ORDERS_PATCH = `@@ -0,0 +1,${ORDERS_PY.split('\n').length - 1} @@\n` + ORDERS_PY.split('\n').slice(0, -1).map((line) => `+${line}`).join('\n');

export const CONFIG_YML = 'harness:\n  enabled: false\n';
