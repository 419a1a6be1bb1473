// default-mode-connection.ts through commit-without-begin (and with-conn-opens-no-transaction): sqlite3's connect
// under another name (gPodder's `from sqlite3 import dbapi2 as sqlite`, `from sqlite3 import connect as open_db`) and
// a parameter rebound to the function's own connection (gPodder's convert_gpodder2_db), with the near misses.
import { describe, expect, it } from 'vitest';
import { commitWithoutBegin } from '../../../../src/core/python/rules/commit-without-begin.ts';
import { withConnOpensNoTransaction } from '../../../../src/core/python/rules/with-conn-opens-no-transaction.ts';
import { lint, testRule } from './rule-tester.ts';

interface StoreVariant {
  imports?: string;
  connect?: string;
  /** The body of close(), at 8 spaces. */
  close?: string;
}

/** gPodder's embedded minidb Store, cut down: move() is two writes and a commit (line 11). */
function store(variant: StoreVariant = {}): string {
  return `
import sqlite3
${variant.imports ?? ''}

class Store(object):
    def __init__(self, filename):
        self.db = ${variant.connect ?? 'sqlite3.connect(filename)'}

    def move(self, a, b):
        self.db.execute("DELETE FROM items WHERE id = ?", (a,))
        self.db.execute("INSERT INTO items (id) VALUES (?)", (b,))
        self.db.commit()

    def close(self):
${variant.close ?? '        self.db.close()'}
`;
}

const MOVE_COMMIT = 11;

/** `from sqlite3 import connect as open_db`; move() opens its connection as `opening` (its statements at 8 spaces) and writes twice, then commits (line 10). */
function openDbMove(opening: string): string {
  return `
    from sqlite3 import connect as open_db

    def move(path, fast, a, b):
${opening}
        conn.execute("DELETE FROM items WHERE id = ?", (a,))
        conn.execute("INSERT INTO items (id) VALUES (?)", (b,))
        conn.commit()
  `;
}

const BRANCHED_OPEN = (autocommit: string): string => `        if fast:
            conn = ${autocommit}
        else:
            conn = open_db(path)`;

testRule(commitWithoutBegin, {
  valid: [
    {
      name: "gPodder's import: `from sqlite3 import dbapi2 as sqlite`, connected as sqlite.connect",
      code: store({ imports: 'from sqlite3 import dbapi2 as sqlite', connect: 'sqlite.connect(filename)' }),
    },
    {
      name: '`from sqlite3 import connect as open_db`, open in the default mode everywhere',
      code: openDbMove('        conn = open_db(path)'),
    },
    {
      name: "gPodder's convert_gpodder2_db: the parameter rebound to the function's own connection, at its top level",
      code: `
        from sqlite3 import dbapi2 as sqlite

        def convert(old_db, new_db):
            new_db = sqlite.connect(new_db)
            new_db.execute("INSERT INTO podcast (id) VALUES (1)")
            new_db.execute("UPDATE episode SET podcast_id = 1")
            new_db.commit()
      `,
    },
  ],
  invalid: [
    {
      name: "gPodder's close() switches to autocommit around VACUUM (no try): the module may change the mode, move() stays reported",
      code: store({
        close: `        self.db.isolation_level = None
        self.db.execute('VACUUM')
        self.db.isolation_level = ''`,
      }),
      errors: [{ messageId: 'commitWithoutBegin', line: MOVE_COMMIT }],
    },
    {
      name: 'near miss: the alias may be another driver (a second import of the name)',
      code: store({
        imports: 'from sqlite3 import dbapi2 as sqlite\nif CIPHER:\n    from pysqlcipher3 import dbapi2 as sqlite',
        connect: 'sqlite.connect(filename)',
      }),
      // The two more import lines move move()'s commit down.
      errors: [{ messageId: 'commitWithoutBegin', line: MOVE_COMMIT + 2 }],
    },
    {
      name: 'near miss: open_db(path, isolation_level=None) in one branch (the last binding alone is read): the alias may open in autocommit',
      code: openDbMove(BRANCHED_OPEN('open_db(path, isolation_level=None)')),
      // Reported in the default mode's words: the rule's own autocommit reading knows sqlite3.connect by that name only.
      errors: [{ messageId: 'commitWithoutBegin', line: 10 }],
    },
    {
      name: 'near miss: open_db(path, **opts) in one branch, open_db also bound by a star import (the tracer still reads sqlite3.connect in the other)',
      code: openDbMove(BRANCHED_OPEN('open_db(path, **opts)').replace('            conn = open_db(path)', '            conn = sqlite3.connect(path)'))
        .replace('from sqlite3 import connect as open_db', 'import sqlite3\n    from sqlite3 import *\n    from sqlite3 import connect as open_db'),
      errors: [{ messageId: 'commitWithoutBegin', line: 12 }],
    },
    {
      name: 'near miss: sqlite3.connect under a name no import gives (`opener = sqlite3.connect`), called with isolation_level=None in one branch',
      code: openDbMove(BRANCHED_OPEN('opener(path, isolation_level=None)').replace('            conn = open_db(path)', '            conn = sqlite3.connect(path)'))
        .replace('from sqlite3 import connect as open_db', 'import sqlite3\n    opener = sqlite3.connect'),
      errors: [{ messageId: 'commitWithoutBegin', line: 11 }],
    },
    {
      name: 'the same with sqlite3.connect spelled out: said as autocommit',
      code: openDbMove(BRANCHED_OPEN('sqlite3.connect(path, isolation_level=None)')).replace('from sqlite3 import connect as open_db', 'import sqlite3\n    from sqlite3 import connect as open_db'),
      errors: [{ messageId: 'commitInAutocommit', line: 11 }],
    },
    {
      name: 'near miss: open_db(path, **opts) in one branch: keywords the reader cannot see may be the mode',
      code: openDbMove(BRANCHED_OPEN('open_db(path, **opts)')),
      errors: [{ messageId: 'commitWithoutBegin', line: 10 }],
    },
    {
      name: 'near miss: the parameter is rebound only in a branch (the caller may pass its own connection, in autocommit)',
      code: `
        from sqlite3 import dbapi2 as sqlite

        def convert(old_db, new_db):
            if isinstance(new_db, str):
                new_db = sqlite.connect(new_db)
            new_db.execute("INSERT INTO podcast (id) VALUES (1)")
            new_db.execute("UPDATE episode SET podcast_id = 1")
            new_db.commit()
      `,
      errors: [{ messageId: 'commitWithoutBegin', line: 8 }],
    },
    {
      name: 'near miss: the parameter is rebound twice (the second value is not traced)',
      code: `
        from sqlite3 import dbapi2 as sqlite

        def convert(old_db, new_db):
            new_db = sqlite.connect(new_db)
            new_db = wrap(new_db)
            new_db.execute("INSERT INTO podcast (id) VALUES (1)")
            new_db.execute("UPDATE episode SET podcast_id = 1")
            new_db.commit()
      `,
      errors: [{ messageId: 'commitWithoutBegin', line: 8 }],
    },
    {
      name: 'near miss: the parameter is rebound again by a match capture (`case sqlite3.Connection() as new_db`), to a connection of any mode',
      code: `
        import sqlite3

        def convert(old_db, new_db, target=None):
            new_db = sqlite3.connect(new_db)
            match target:
                case sqlite3.Connection() as new_db:
                    pass
            new_db.execute("INSERT INTO podcast (id) VALUES (1)")
            new_db.execute("UPDATE episode SET podcast_id = 1")
            new_db.commit()
      `,
      errors: [{ messageId: 'commitWithoutBegin', line: 10 }],
    },
  ],
});

// with-conn-opens-no-transaction has messages this file does not exercise, so its case is read directly.
describe('with-conn-opens-no-transaction on the open_db alias', () => {
  it('near miss: open_db(path, isolation_level=None) in one branch, then `with conn:` stays reported', () => {
    const code = `
      from sqlite3 import connect as open_db

      def move(path, fast, a, b):
          if fast:
              conn = open_db(path, isolation_level=None)
          else:
              conn = open_db(path)
          with conn:
              conn.execute("DELETE FROM items WHERE id = ?", (a,))
              conn.execute("INSERT INTO items (id) VALUES (?)", (b,))
    `;
    expect(lint(code, [withConnOpensNoTransaction]).map((finding) => ({ messageId: finding.messageId, line: finding.range.startLine }))).toEqual([
      // As commit-without-begin, in the default mode's words.
      { messageId: 'withConnNoBegin', line: 8 },
    ]);
  });
});
