// commit-in-loop on loops whose every item's writes are idempotent (idempotent-items.ts,
// idempotent-writes.ts): quiet when a re-run after a crash mid-loop converges, reported on each
// near miss. The valid buku case is BukuDb.importdb as in buku 4.7 (/usr/bin/buku 545-709, 2660-2667).
import { commitInLoop } from '../../../../src/core/python/rules/commit-in-loop.ts';
import { dedent, testRule, type InvalidCase } from './rule-tester.ts';
import { buku, type BukuParts } from './buku-importdb-fixture.ts';

/** The line of importdb's call to append_tag_at_index, whose commit is the loop's. */
function commitLine(code: string): number {
  return dedent(code).split('\n').findIndex((line) => line.includes('self.append_tag_at_index(rec_id, ')) + 1;
}

/** buku with one part swapped: still reported, at append_tag_at_index's call (a filtered read guards the loop, so as resumable). */
function bukuNearMiss(name: string, parts: BukuParts): InvalidCase {
  const code = buku(parts);
  return { name: `near miss: ${name}`, code, errors: [{ messageId: 'commitPerItemResumable', line: commitLine(code) }] };
}

/** importdb's loop with its insert call, its test before the merge, or a statement after it swapped. */
function loopWith({ insert = 'self.add_rec(*item)', test = "add_rec_res == -1 and append_tags_resp == 'y'", merged = 'item[2]', inBranch = '', after = '' }): string {
  return `
        for item in items:
            add_rec_res = ${insert}
            if ${test}:
                rec_id = self.get_rec_id(item[0])${inBranch}
                self.append_tag_at_index(rec_id, ${merged})${after}`;
}

testRule(commitInLoop, {
  valid: [
    { name: "buku's importdb: add_rec skips a URL it finds, append_tag_at_index merges tags through a dedup", code: buku() },
    {
      name: 'INSERT OR IGNORE per item on the primary key, committed per item',
      code: `
        SCHEMA = "CREATE TABLE IF NOT EXISTS kv (key TEXT PRIMARY KEY, value TEXT)"
        def load(conn, rows):
            for key, value in rows:
                conn.execute("INSERT OR IGNORE INTO kv (key, value) VALUES (?, ?)", (key, value))
                conn.commit()
      `,
    },
    {
      name: 'a plain insert before the loop, committed before it',
      code: `
        SCHEMA = "CREATE TABLE IF NOT EXISTS kv (key TEXT PRIMARY KEY, value TEXT)"
        def load(conn, run, rows):
            conn.execute("INSERT INTO runs (name) VALUES (?)", (run,))
            conn.commit()
            for key, value in rows:
                conn.execute("INSERT OR IGNORE INTO kv (key, value) VALUES (?, ?)", (key, value))
                conn.commit()
      `,
    },
    {
      name: 'ON CONFLICT (key) DO NOTHING per item (the target names the key)',
      code: `
        def load(conn, rows):
            for key, value in rows:
                conn.execute("INSERT INTO kv (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING", (key, value))
                conn.commit()
      `,
    },
    {
      name: 'an UPDATE that sets literal values (every job marked done again on a re-run)',
      code: `
        def process_all(conn):
            for (job_id,) in conn.execute("SELECT id FROM jobs").fetchall():
                conn.execute("UPDATE jobs SET status = 'done' WHERE id = ?", (job_id,))
                conn.commit()
      `,
    },
    {
      name: 'an UPDATE that binds literal values',
      code: `
        def reset(conn, ids):
            for job_id in ids:
                conn.execute("UPDATE jobs SET status = ?, tries = ? WHERE id = ?", ('new', 0, job_id))
                conn.commit()
      `,
    },
  ],
  invalid: [
    bukuNearMiss('the merge keeps duplicates (no set in parse_tags)', { dedup: 'sorted(orig_tags)' }),
    bukuNearMiss('an UPDATE that increments (appends to the old tags in SQL)', { appendSql: "'UPDATE bookmarks SET tags = tags || ? WHERE id = ?'" }),
    bukuNearMiss('add_rec inserts without a key check', { guard: "if url.startswith('javascript:'):" }),
    bukuNearMiss('the key check looks up another value than the inserted URL', { keyArgument: 'title_in' }),
    bukuNearMiss('the key check reads another connection than the insert writes', { lookupReceiver: 'self.other_cur' }),
    bukuNearMiss('the key check depends on a parameter the caller sets', { guard: 'if skip_existing and id != -1:' }),
    bukuNearMiss('add_rec writes a second row after its key check (whether both commit together is not read, so refused)', {
      insertExtra: "self.cur.execute('INSERT OR IGNORE INTO history(URL) VALUES (?)', (url,))",
    }),
    bukuNearMiss('the loop also deletes a file per item', { loop: loopWith({ after: '\n            os.remove(item[0])' }) }),
    bukuNearMiss('a helper two calls down appends to a file per item', { outputMode: 'a' }),
    bukuNearMiss('the tags are merged only for a row just inserted (a re-run skips them)', { loop: loopWith({ test: 'add_rec_res != -1' }) }),
    bukuNearMiss('the key of the insert is made fresh per run, so its check never matches', {
      loop: loopWith({ insert: 'self.add_rec(str(uuid.uuid4()), item[1], item[2], None, 0, True, False)' }),
    }),
    bukuNearMiss('the key of the insert is built from a uuid made before the loop', {
      loop: `
        batch = str(uuid.uuid4())${loopWith({ insert: "self.add_rec(batch + item[0], item[1], item[2], None, 0, True, False)" })}`,
    }),
    bukuNearMiss('the merge adds a token made fresh on every run', { mergeInput: "row[1] + tags_in[1:] + str(time.time()) + ','" }),
    bukuNearMiss("the key check's answer is not the query's rows", { lookupAnswer: 'self.cache' }),
    bukuNearMiss("the 'already there' branch merges other tags than the insert wrote (a re-run adds them to rows it inserted)", {
      loop: loopWith({ merged: 'newtag' }),
    }),
    bukuNearMiss("the 'already there' branch also sets a flag (a re-run flags rows the first run inserted)", {
      loop: loopWith({ inBranch: "\n                self.cur.execute('UPDATE bookmarks SET flags = 1 WHERE id = ?', (rec_id,))" }),
    }),
    bukuNearMiss('a continue after the insert skips the merge on a re-run', {
      loop: `
        for item in items:
            add_rec_res = self.add_rec(*item)
            if add_rec_res != -1:
                continue
            rec_id = self.get_rec_id(item[0])
            self.append_tag_at_index(rec_id, item[2])`,
    }),
    {
      name: 'near miss: an UPDATE whose value is computed from the row it read (an increment in Python)',
      code: `
        def bump(conn):
            for job_id, tries in conn.execute("SELECT id, tries FROM jobs").fetchall():
                conn.execute("UPDATE jobs SET tries = ? WHERE id = ?", (tries + 1, job_id))
                conn.commit()
      `,
      errors: [{ messageId: 'commitInLoop', line: 4 }],
    },
    {
      name: "near miss: an UPDATE whose values the caller passes (sqlite-utils' convert computes them from the old values)",
      code: `
        def convert_all(conn, pk_to_values):
            for pk, value in pk_to_values.items():
                conn.execute("UPDATE t SET x = ? WHERE id = ?", (value, pk))
                conn.commit()
      `,
      errors: [{ messageId: 'commitInLoop', line: 4 }],
    },
    {
      name: 'near miss: over rows a query picks, an item marked done is skipped on a re-run before its second write',
      code: `
        SCHEMA = "CREATE TABLE IF NOT EXISTS results (job_id INTEGER UNIQUE, output TEXT)"
        def finish(conn):
            for (job_id,) in conn.execute("SELECT id FROM jobs WHERE status = 'new'").fetchall():
                conn.execute("UPDATE jobs SET status = 'done' WHERE id = ?", (job_id,))
                conn.commit()
                conn.execute("INSERT OR IGNORE INTO results (job_id) VALUES (?)", (job_id,))
                conn.commit()
      `,
      errors: [
        { messageId: 'commitPerItemResumable', line: 5 },
        { messageId: 'commitPerItemResumable', line: 7 },
      ],
    },
    {
      name: 'near miss: a test on rows read before the loop skips the second write on a re-run',
      code: `
        SCHEMA = """
            CREATE TABLE IF NOT EXISTS seen (url TEXT PRIMARY KEY);
            CREATE TABLE IF NOT EXISTS queue (id INTEGER PRIMARY KEY, url TEXT, UNIQUE (url));
        """
        def sync(conn, urls):
            known = {row[0] for row in conn.execute("SELECT url FROM seen").fetchall()}
            for url in urls:
                if url not in known:
                    conn.execute("INSERT OR IGNORE INTO seen (url) VALUES (?)", (url,))
                    conn.commit()
                    conn.execute("INSERT OR IGNORE INTO queue (url) VALUES (?)", (url,))
                    conn.commit()
      `,
      errors: [
        { messageId: 'commitPerItemResumable', line: 10 },
        { messageId: 'commitPerItemResumable', line: 12 },
      ],
    },
    {
      name: 'near miss: an outer loop inserts a plain row per batch, which the inner commits take with them',
      code: `
        SCHEMA = "CREATE TABLE IF NOT EXISTS kv (key TEXT PRIMARY KEY, value TEXT)"
        def load(conn, batches):
            for name, rows in batches:
                conn.execute("INSERT INTO batches (name) VALUES (?)", (name,))
                for key, value in rows:
                    conn.execute("INSERT OR IGNORE INTO kv (key, value) VALUES (?, ?)", (key, value))
                    conn.commit()
      `,
      errors: [{ messageId: 'commitPerItemResumable', line: 7 }],
    },
    {
      name: "near miss: a plain insert before the loop, which the loop's first commit takes",
      code: `
        SCHEMA = "CREATE TABLE IF NOT EXISTS kv (key TEXT PRIMARY KEY, value TEXT)"
        def load(conn, run, rows):
            conn.execute("INSERT INTO runs (name) VALUES (?)", (run,))
            for key, value in rows:
                conn.execute("INSERT OR IGNORE INTO kv (key, value) VALUES (?, ?)", (key, value))
                conn.commit()
      `,
      errors: [{ messageId: 'commitPerItemResumable', line: 6 }],
    },
    {
      name: 'near miss: INSERT OR IGNORE into a table whose only key is an id the insert leaves out (no conflict, a duplicate per run)',
      code: `
        SCHEMA = "CREATE TABLE IF NOT EXISTS events (id INTEGER PRIMARY KEY, name TEXT)"
        def load(conn, names):
            for name in names:
                conn.execute("INSERT OR IGNORE INTO events (name) VALUES (?)", (name,))
                conn.commit()
      `,
      errors: [{ messageId: 'commitPerItemResumable', line: 5 }],
    },
    {
      name: 'near miss: a bare ON CONFLICT DO NOTHING, no schema in the module to show a key',
      code: `
        def load(conn, names):
            for name in names:
                conn.execute("INSERT INTO events (name) VALUES (?) ON CONFLICT DO NOTHING", (name,))
                conn.commit()
      `,
      errors: [{ messageId: 'commitPerItemResumable', line: 4 }],
    },
    {
      name: 'near miss: a plain INSERT per item',
      code: `
        def load(conn, rows):
            for key, value in rows:
                conn.execute("INSERT INTO kv (key, value) VALUES (?, ?)", (key, value))
                conn.commit()
      `,
      errors: [{ messageId: 'commitInLoop', line: 4 }],
    },
    {
      name: 'near miss: ON CONFLICT DO UPDATE that increments',
      code: `
        def load(conn, rows):
            for key in rows:
                conn.execute("INSERT INTO counts (key, n) VALUES (?, 1) ON CONFLICT (key) DO UPDATE SET n = n + 1", (key,))
                conn.commit()
      `,
      errors: [{ messageId: 'commitPerItemResumable', line: 4 }],
    },
  ],
});
