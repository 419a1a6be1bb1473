// Python snippets several rule tables share: the paper's refund (two updates
// a crash must not split), wrapped in whatever opens and ends a transaction.

export interface RefundOptions {
  /** The parameters of `refund_order`; the body always writes through `conn`. */
  params?: string;
  /** Lines before the two updates, as written in the body. */
  before?: string[];
  /** Lines after them. */
  after?: string[];
}

/** `def refund_order(...)` with the two updates on lines `2 + before.length` and the next. */
export function refund({ params = 'conn, order_id', before = [], after = [] }: RefundOptions = {}): string {
  return [
    `def refund_order(${params}):`,
    ...before.map((line) => `    ${line}`),
    `    conn.execute("UPDATE customers SET credit = credit + 1 WHERE id = ?", (order_id,))`,
    `    conn.execute("UPDATE orders SET status = 'refunded' WHERE id = ?", (order_id,))`,
    ...after.map((line) => `    ${line}`),
    '',
  ].join('\n');
}

/** The connection in autocommit, then an explicit BEGIN IMMEDIATE: safe in either mode. */
export const AUTOCOMMIT_THEN_BEGIN = ['conn = sqlite3.connect(path, isolation_level=None)', 'conn.execute("BEGIN IMMEDIATE")'];

/** The stdlib's test_dbm_sqlite3 CorruptDatabase.setUp: a `with cx:` whose only writes are DDL, the CREATE last (line 5). */
export const DROP_AND_CREATE_IN_WITH = `
  def setUp(self):
      with closing(sqlite3.connect(self.filename)) as cx:
          with cx:
              cx.execute("DROP TABLE IF EXISTS Dict")
              cx.execute("CREATE TABLE Dict (invalid_schema)")
`;
