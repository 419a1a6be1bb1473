import { describe, expect, it } from 'vitest';
import { journalOff } from '../../../../src/core/python/rules/journal-off.ts';
import { lint, testRule } from './rule-tester.ts';

/** A module-level write, so the module writes to a database whatever the function under test does. */
const WRITER = `
        def save(conn, key, value):
            conn.execute("INSERT INTO kv (key, value) VALUES (?, ?)", (key, value))
            conn.commit()
`;

testRule(journalOff, {
  valid: [
    ...['WAL', 'DELETE', 'TRUNCATE', 'PERSIST', "'wal'"].map((mode) => ({
      name: `journal_mode=${mode}: crash-safe`,
      code: `
        def connect(path):
            conn = sqlite3.connect(path)
            conn.execute("PRAGMA journal_mode=${mode}")
            return conn
${WRITER}`,
    })),
    {
      name: 'PRAGMA journal_mode with no value: a query',
      code: `
        def mode(conn):
            return conn.execute("PRAGMA journal_mode").fetchone()[0]
${WRITER}`,
    },
    {
      name: 'synchronous=OFF: risks power loss and OS crashes only, not a process crash',
      code: `
        def connect(path):
            conn = sqlite3.connect(path)
            conn.execute("PRAGMA synchronous=OFF")
            return conn
${WRITER}`,
    },
    {
      name: 'a read-only module: no write, no transaction to tear',
      code: `
        def open_cache(path):
            conn = sqlite3.connect(path)
            conn.execute("PRAGMA journal_mode=OFF")
            conn.execute("PRAGMA synchronous=OFF")
            return conn

        def lookup(conn, key):
            return conn.execute("SELECT value FROM kv WHERE key = ?", (key,)).fetchone()
      `,
    },
    {
      name: 'an in-memory database: nothing on disk to corrupt',
      code: `
        def scratch():
            conn = sqlite3.connect(":memory:")
            conn.execute("PRAGMA journal_mode=OFF")
            conn.execute("CREATE TABLE t (x)")
            return conn
      `,
    },
    {
      name: 'f-string whose mode is a placeholder: not resolved (partial)',
      code: `
        def connect(path, mode):
            conn = sqlite3.connect(path)
            conn.execute(f"PRAGMA journal_mode={mode}")
            return conn
${WRITER}`,
    },
    {
      name: 'a log line that mentions the pragma is not a statement',
      code: `
        def connect(path):
            log.info("not using PRAGMA journal_mode=OFF here")
            return sqlite3.connect(path)
${WRITER}`,
    },
  ],
  invalid: [
    {
      name: 'journal_mode=OFF on the connection',
      code: `
        def connect(path):
            conn = sqlite3.connect(path)
            conn.execute("PRAGMA journal_mode = OFF")
            return conn
${WRITER}`,
      errors: [{ messageId: 'journalOff', line: 3 }],
    },
    {
      name: 'coverage 6.5 SqliteDb: lower case, through its own execute wrapper, writes elsewhere in the module',
      code: `
        class SqliteDb:
            def _connect(self):
                if self.con is not None:
                    return
                self.con = sqlite3.connect(self.filename, check_same_thread=False)
                self.execute("pragma journal_mode=off").close()
                self.execute("pragma synchronous=off").close()

            def execute(self, sql, parameters=()):
                return self.con.execute(sql, parameters)

        class CoverageData:
            def add_lines(self, rows):
                with self._connect() as con:
                    con.executemany("INSERT OR IGNORE INTO line_bits (file_id, context_id, numbits) VALUES (?, ?, ?)", rows)
      `,
      errors: [{ messageId: 'journalOff', line: 6 }],
    },
    {
      name: 'a wrapper that is no execute method (coverage 7: execute_void), quoted value',
      code: `
        class SqliteDb:
            def _connect(self):
                self.con = sqlite3.connect(self.filename)
                self.execute_void("PRAGMA journal_mode='off'")

            def execute_void(self, sql):
                self._execute(sql).close()

            def _execute(self, sql):
                return self.con.execute(sql)
      `,
      errors: [{ messageId: 'journalOff', line: 4 }],
    },
    {
      name: 'MEMORY: the journal lives only in the crashing process',
      code: `
        def connect(path):
            conn = sqlite3.connect(path)
            conn.execute('PRAGMA main.journal_mode="MEMORY"')
            return conn
${WRITER}`,
      errors: [{ messageId: 'journalOff', line: 3 }],
    },
    {
      name: 'a module constant holding the pragma',
      code: `
        FAST = "PRAGMA journal_mode=OFF"

        def connect(path):
            conn = sqlite3.connect(path)
            conn.execute(FAST)
            return conn
${WRITER}`,
      errors: [{ messageId: 'journalOff', line: 5 }],
    },
    {
      name: 'an f-string with the mode written out, in a script with the schema (pragma call form)',
      code: `
        def setup(conn, table):
            conn.executescript(f"PRAGMA journal_mode(OFF); CREATE TABLE IF NOT EXISTS {table} (key, value);")
      `,
      errors: [{ messageId: 'journalOff', line: 2 }],
    },
    {
      name: 'either branch may set it: the OFF one is reported',
      code: `
        def connect(path, fast):
            conn = sqlite3.connect(path)
            conn.execute("PRAGMA journal_mode=OFF" if fast else "PRAGMA journal_mode=WAL")
            return conn
${WRITER}`,
      errors: [{ messageId: 'journalOff', line: 3 }],
    },
  ],
});

describe('journal-off message', () => {
  it('names the mode and says the file goes corrupt, not half-updated', () => {
    const [finding] = lint(
      `
        def connect(path):
            conn = sqlite3.connect(path)
            conn.execute("pragma journal_mode=memory")
            conn.execute("INSERT INTO t VALUES (1)")
      `,
      [journalOff],
    );
    expect(finding?.message).toContain('journal_mode=MEMORY');
    expect(finding?.message).toMatch(/very likely go corrupt.*not merely half-updated/);
    expect(finding?.severity).toBe('error');
    expect(finding?.hint).toMatch(/DELETE.*WAL/);
  });

  it('reports once per place that sets it, not in the callers of that function', () => {
    const findings = lint(
      `
        def connect(path):
            conn = sqlite3.connect(path)
            conn.execute("PRAGMA journal_mode=OFF")
            return conn

        def save(path, rows):
            conn = connect(path)
            conn.executemany("INSERT INTO t VALUES (?)", rows)
            conn.commit()
      `,
      [journalOff],
    );
    expect(findings.map((finding) => `${finding.function}:${finding.range.startLine}`)).toEqual(['connect:3']);
  });
});
