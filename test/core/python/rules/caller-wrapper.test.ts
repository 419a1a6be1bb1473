// ddl-outside-transaction and writes-rely-on-implicit-transaction on a top-level function whose
// every call in the repository runs inside the caller's wrapper transaction on the object it
// passes (caller-wrapper.ts): yoyo 8.2's internalmigrations/v2.upgrade, reached only through
// `schema_versions[next_version].upgrade(backend)` inside `with backend.transaction():`, and the
// near misses that must stay reported.
import { describe, expect, it } from 'vitest';
import { analyzeModule } from '../../../../src/core/python/analyze.ts';
import { buildRepoIndex } from '../../../../src/core/python/callgraph.ts';
import { parseModule } from '../../../../src/core/python/parse.ts';
import { dedent } from './rule-tester.ts';

/** yoyo 8.2's backends/base.py, cut to the transaction machinery and the internal schema upgrade's entry. */
function base(variant: { exit?: string; methods?: string; upgradeCall?: string } = {}): string {
  return `
import sqlite3
from itertools import count
from yoyo import internalmigrations

class TransactionManager:
    def __init__(self, backend, rollback_on_exit=False):
        self.backend = backend
        self.rollback_on_exit = rollback_on_exit

    def __enter__(self):
        self._do_begin()
        return self

    def __exit__(self, exc_type, value, traceback):
        ${variant.exit ?? `if exc_type:
            self._do_rollback()
            return None
        if self.rollback_on_exit:
            self._do_rollback()
        else:
            self._do_commit()`}

    def _do_begin(self):
        self.backend.begin()

    def _do_commit(self):
        self.backend.commit()

    def _do_rollback(self):
        self.backend.rollback()


class SavepointTransactionManager(TransactionManager):
    id = None
    id_generator = count(1)

    def _do_begin(self):
        self.id = "sp_{}".format(next(self.id_generator))
        self.backend.savepoint(self.id)

    def _do_commit(self):
        """Released with the outer transaction."""

    def _do_rollback(self):
        self.backend.savepoint_rollback(self.id)


class DatabaseBackend:
    _in_transaction = False
    migration_table_quoted = '"_yoyo_migration"'
    log_table_quoted = '"_yoyo_log"'

    def __init__(self, path):
        self._connection = sqlite3.connect(path, isolation_level=None)

    def transaction(self, rollback_on_exit=False):
        if not self._in_transaction:
            return TransactionManager(self, rollback_on_exit=rollback_on_exit)
        else:
            return SavepointTransactionManager(self, rollback_on_exit=rollback_on_exit)

    def lock(self):
        return self._connection

    def execute(self, sql, params=None):
        cursor = self._connection.cursor()
        cursor.execute(sql, params or {})
        return cursor

    def begin(self):
        self._in_transaction = True
        self.execute("BEGIN")

    def commit(self):
        self._connection.commit()
        self._in_transaction = False

    def rollback(self):
        self._connection.rollback()
        self._in_transaction = False

    def savepoint(self, id):
        self.execute("SAVEPOINT {}".format(id))

    def savepoint_rollback(self, id):
        self.execute("ROLLBACK TO SAVEPOINT {}".format(id))

    def ensure_internal_schema_updated(self):
        with self.lock():
            ${variant.upgradeCall ?? 'internalmigrations.upgrade(self)'}
            self._connection.commit()
${variant.methods ?? ''}`;
}

/** internalmigrations/__init__.py: the steps run in a loop inside the backend's wrapper. */
function migrations(variant: { table?: string; loop?: string; mark?: string; extra?: string } = {}): string {
  return `
from . import v1
from . import v2

${variant.table ?? 'schema_versions = {0: None, 1: v1, 2: v2}'}

def upgrade(backend, version=None):
    current_version = get_current_version(backend)
    ${variant.loop ?? `with backend.transaction():
        while current_version < 2:
            next_version = current_version + 1
            schema_versions[next_version].upgrade(backend)
            current_version = next_version
            mark_schema_version(backend, current_version)`}

def get_current_version(backend):
    cursor = backend.execute("SELECT max(version) FROM _yoyo_version")
    return cursor.fetchone()[0]

def mark_schema_version(backend, version):
    backend.execute("INSERT INTO _yoyo_version VALUES (:version)", {"version": version})
    ${variant.mark ?? ''}
${variant.extra ?? ''}`;
}

const V1 = `
def upgrade(backend):
    create_migration_table(backend)

def create_migration_table(backend):
    backend.execute("CREATE TABLE {0.migration_table_quoted} (id VARCHAR(191) NOT NULL PRIMARY KEY, ctime TIMESTAMP)".format(backend))
`;

/** v2.upgrade: DDL through helpers, writes per migration, DROP and re-CREATE, copy back. */
function v2(extra = ''): string {
  return `
def upgrade(backend):
    create_log_table(backend)
    cursor = backend.execute("SELECT id, ctime FROM {}".format(backend.migration_table_quoted))
    for migration_id, created_at in iter(cursor.fetchone, None):
        backend.execute("INSERT INTO {0.log_table_quoted} (id, created_at_utc) VALUES (:id, :created_at_utc)".format(backend), {"id": migration_id, "created_at_utc": created_at})
    ${extra}
    backend.execute("DROP TABLE {0.migration_table_quoted}".format(backend))
    backend.execute("INSERT INTO {0.migration_table_quoted} SELECT id, created_at_utc FROM {0.log_table_quoted}".format(backend))

def create_log_table(backend):
    backend.execute("CREATE TABLE {0.log_table_quoted} (id VARCHAR(36), created_at_utc TIMESTAMP, PRIMARY KEY (id))".format(backend))
`;
}

type Modules = Record<string, string>;

/** Scanned from inside the package, as the corpus scans yoyo/. */
const repo = (overrides: Modules = {}): Modules => ({
  '__init__.py': '',
  'backends/__init__.py': '',
  'backends/base.py': base(),
  'internalmigrations/__init__.py': migrations(),
  'internalmigrations/v1.py': V1,
  'internalmigrations/v2.py': v2(),
  ...overrides,
});

const RULES = ['ddl-outside-transaction', 'writes-rely-on-implicit-transaction'];

/** The two rules' findings in internalmigrations/v2.py's upgrade, as `rule:line`. */
function v2Findings(modules: Modules, withIndex = true): string[] {
  const parsed = Object.entries(modules).map(([path, code]) => parseModule(path, dedent(code)));
  const checked = parsed.find((module) => module.path === 'internalmigrations/v2.py')!;
  const reports = withIndex ? analyzeModule(checked, buildRepoIndex(parsed)) : analyzeModule(checked);
  return reports
    .filter((report) => report.fn.qualname === 'upgrade')
    .flatMap((report) => report.findings.filter((finding) => RULES.includes(finding.ruleId)).map((finding) => `${finding.ruleId}:${finding.range.startLine}`));
}

const REPORTED = ['ddl-outside-transaction:2', 'writes-rely-on-implicit-transaction:5'];

interface Case {
  name: string;
  modules: Modules;
  /** The findings when not both (a function that commits is commit-without-begin's to speak for, not writes-rely's). */
  reported?: string[];
}

const valid: Case[] = [
  { name: 'yoyo: every call runs v2.upgrade inside with backend.transaction(), backend being a DatabaseBackend', modules: repo() },
  {
    name: 'the step list is a list of imported modules',
    modules: repo({ 'internalmigrations/__init__.py': migrations({ table: 'schema_versions = [None, v1, v2]' }) }),
  },
  {
    name: 'a second caller that also runs it inside the wrapper, on self',
    modules: repo({
      'backends/base.py': base({
        methods: `
    def repair(self):
        from yoyo.internalmigrations import v2
        with self.transaction():
            v2.upgrade(self)
`,
      }),
    }),
  },
];

valid.push(
  {
    name: 'a yield in a nested function of v2.upgrade that never sees the backend (v2.upgrade itself runs at its call)',
    modules: repo({ 'internalmigrations/v2.py': v2('def later():\n        yield 1') }),
  },
  {
    name: 'a list comprehension inside the wrapper runs the step at once',
    modules: repo({
      'internalmigrations/__init__.py': migrations({
        loop: `with backend.transaction():
        [schema_versions[step].upgrade(backend) for step in (2,)]`,
      }),
    }),
  },
);

/** The object `same = backend` aliases, with a method that commits: `same.checkpoint()` is no call on `backend` by name. */
const CHECKPOINT = `
    def checkpoint(self):
        self._connection.commit()
        self._in_transaction = False
`;

const invalid: Case[] = [
  {
    name: 'near miss: a finally between the wrapper and the call commits before the wrapper exits',
    modules: repo({
      'internalmigrations/__init__.py': migrations({
        loop: `with backend.transaction():
        try:
            schema_versions[2].upgrade(backend)
        finally:
            backend.commit()`,
      }),
    }),
  },
  {
    // Sound over precise: what a finally runs is not followed, so any finally between gives no answer.
    name: 'no answer: a finally between the wrapper and the call that only prints (finally clauses are not followed)',
    modules: repo({
      'internalmigrations/__init__.py': migrations({
        loop: `with backend.transaction():
        try:
            schema_versions[2].upgrade(backend)
        finally:
            print("done")`,
      }),
    }),
  },
  {
    name: 'near miss: the call sits in a generator expression made inside the wrapper and run after it',
    modules: repo({
      'internalmigrations/__init__.py': migrations({
        loop: `with backend.transaction():
        steps = (schema_versions[2].upgrade(backend) for _ in range(1))
    for _ in steps:
        pass`,
      }),
    }),
  },
  {
    name: 'near miss: the caller aliases the backend and commits through the alias inside the wrapper',
    modules: repo({
      'backends/base.py': base({ methods: CHECKPOINT }),
      'internalmigrations/__init__.py': migrations({
        loop: `same = backend
    with backend.transaction():
        same.checkpoint()
        schema_versions[2].upgrade(backend)`,
      }),
    }),
  },
  {
    name: 'near miss: v2.upgrade aliases the backend and commits through the alias before its last writes',
    modules: repo({ 'backends/base.py': base({ methods: CHECKPOINT }), 'internalmigrations/v2.py': v2('same = backend\n    same.checkpoint()') }),
  },
  {
    name: 'near miss: the caller puts the backend in a list and commits through the element inside the wrapper',
    modules: repo({
      'backends/base.py': base({ methods: CHECKPOINT }),
      'internalmigrations/__init__.py': migrations({
        loop: `with backend.transaction():
        held = [backend]
        held[0].checkpoint()
        schema_versions[2].upgrade(backend)`,
      }),
    }),
  },
  {
    name: 'near miss: v2.upgrade binds the backend with a walrus and commits through it',
    modules: repo({ 'backends/base.py': base({ methods: CHECKPOINT }), 'internalmigrations/v2.py': v2('(same := backend).checkpoint()') }),
  },
  {
    name: 'near miss: a return in a finally between the wrapper and the call swallows the step\'s exception, and the wrapper commits',
    modules: repo({
      'internalmigrations/__init__.py': migrations({
        loop: `with backend.transaction():
        try:
            schema_versions[2].upgrade(backend)
        finally:
            return`,
      }),
    }),
  },
  {
    name: 'near miss: a break in a finally (leaving the loop around the try) swallows the step\'s exception',
    modules: repo({
      'internalmigrations/__init__.py': migrations({
        loop: `with backend.transaction():
        while current_version < 2:
            try:
                schema_versions[2].upgrade(backend)
            finally:
                break`,
      }),
    }),
  },
  {
    name: 'near miss: a continue in a finally swallows the step\'s exception',
    modules: repo({
      'internalmigrations/__init__.py': migrations({
        loop: `with backend.transaction():
        for step in (2,):
            try:
                schema_versions[step].upgrade(backend)
            finally:
                continue`,
      }),
    }),
  },
  {
    name: 'near miss: the wrapper\'s with statement holds another manager, which may suppress the exception before the wrapper exits',
    modules: repo({
      'internalmigrations/__init__.py': migrations({
        loop: `with backend.transaction(), contextlib.suppress(Exception):
        schema_versions[2].upgrade(backend)`,
      }),
    }),
  },
  {
    name: 'near miss: v2.upgrade takes the bound commit as a value and calls it before its last writes',
    modules: repo({ 'internalmigrations/v2.py': v2('done = backend.commit\n    done()') }),
  },
  {
    name: 'near miss: the caller takes the bound commit before the call and calls it',
    modules: repo({
      'internalmigrations/__init__.py': migrations({
        loop: `with backend.transaction():
        done = backend.commit
        done()
        schema_versions[2].upgrade(backend)`,
      }),
    }),
  },
  {
    name: 'near miss: the caller takes the bound commit before the with and calls it inside, before the call',
    modules: repo({
      'internalmigrations/__init__.py': migrations({
        loop: `done = backend.commit
    with backend.transaction():
        done()
        schema_versions[2].upgrade(backend)`,
      }),
    }),
  },
  {
    name: 'near miss: the caller makes a lambda that commits before the with and calls it inside, before the call',
    modules: repo({
      'internalmigrations/__init__.py': migrations({
        loop: `done = lambda: backend.commit()
    with backend.transaction():
        done()
        schema_versions[2].upgrade(backend)`,
      }),
    }),
  },
  {
    name: 'near miss: the caller is a generator that yields inside the wrapper before the call (whoever iterates it may commit meanwhile)',
    modules: repo({
      'internalmigrations/__init__.py': migrations({
        loop: `with backend.transaction():
        yield current_version
        schema_versions[2].upgrade(backend)`,
      }),
    }),
  },
  {
    name: 'near miss: v2.upgrade is a generator (its body runs when iterated, maybe after the with has ended)',
    modules: repo({ 'internalmigrations/v2.py': v2('yield') }),
  },
  {
    name: 'near miss: v2.upgrade is async (its body runs when awaited, maybe after the with has ended)',
    modules: repo({ 'internalmigrations/v2.py': v2().replace('def upgrade', 'async def upgrade') }),
  },
  {
    name: 'near miss: the loop runs outside the wrapper',
    modules: repo({
      'internalmigrations/__init__.py': migrations({
        loop: `while current_version < 2:
        next_version = current_version + 1
        schema_versions[next_version].upgrade(backend)
        current_version = next_version`,
      }),
    }),
  },
  {
    name: 'near miss: another module calls v2.upgrade outside any wrapper',
    modules: repo({ 'scripts/fix.py': 'from yoyo.internalmigrations import v2\n\ndef fix(backend):\n    v2.upgrade(backend)\n' }),
  },
  {
    name: 'near miss: a call spelled upgrade on an object of unknown type, outside any wrapper',
    modules: repo({ 'scripts/fix.py': 'def fix(steps, backend):\n    steps[0].upgrade(backend)\n' }),
  },
  {
    name: 'near miss: the function escapes as a value (a callback list)',
    modules: repo({ 'scripts/fix.py': 'from yoyo.internalmigrations import v2\n\nSTEPS = [v2.upgrade]\n' }),
  },
  {
    name: 'near miss: the wrapper is on another object than the one passed',
    modules: repo({
      'internalmigrations/__init__.py': migrations({
        loop: `with backend.other.transaction():
        schema_versions[2].upgrade(backend)`,
      }),
    }),
  },
  {
    name: 'near miss: the caller swallows the step\'s exception inside the wrapper, which then commits the half-done step',
    modules: repo({
      'internalmigrations/__init__.py': migrations({
        loop: `with backend.transaction():
        try:
            schema_versions[2].upgrade(backend)
        except Exception:
            pass`,
      }),
    }),
  },
  {
    name: 'near miss: another manager between the wrapper and the call (it may suppress the exception)',
    modules: repo({
      'internalmigrations/__init__.py': migrations({
        loop: `with backend.transaction():
        with contextlib.suppress(Exception):
            schema_versions[2].upgrade(backend)`,
      }),
    }),
  },
  {
    name: 'near miss: mark_schema_version commits, and the loop runs v2.upgrade after it',
    modules: repo({ 'internalmigrations/__init__.py': migrations({ mark: 'backend.commit()' }) }),
  },
  {
    name: 'near miss: v1.upgrade, run in the loop before v2, commits through the connection',
    modules: repo({ 'internalmigrations/v1.py': `${V1}\n    backend.commit()\n`.replace('def create_migration_table', 'def create_migration_table') }),
  },
  {
    name: 'near miss: v2.upgrade commits on the object before its last writes',
    modules: repo({ 'internalmigrations/v2.py': v2('backend.commit()') }),
    reported: ['ddl-outside-transaction:2'],
  },
  {
    name: 'near miss: the step table is changed by another module (its steps are unknown)',
    modules: repo({ 'scripts/fix.py': 'from yoyo import internalmigrations\n\ninternalmigrations.schema_versions[3] = object()\n' }),
  },
  {
    name: 'near miss: the wrapper commits even when the block raised (no rollback)',
    modules: repo({ 'backends/base.py': base({ exit: 'self._do_commit()' }) }),
  },
  {
    name: 'near miss: the backend passed is not self (its class is unknown)',
    modules: repo({ 'backends/base.py': base({ upgradeCall: 'internalmigrations.upgrade(make_backend())' }) }),
  },
  {
    name: 'near miss: a subclass runs execute() on another connection than the wrapper',
    modules: repo({
      'backends/other.py': `
import sqlite3
from yoyo.backends.base import DatabaseBackend

class LoggingBackend(DatabaseBackend):
    def __init__(self, path):
        super().__init__(path)
        self._log = sqlite3.connect(path + ".log", isolation_level=None)

    def execute(self, sql, params=None):
        return self._log.execute(sql, params or {})
`,
    }),
  },
];

describe('writes of a function every repository call runs inside the caller\'s wrapper transaction', () => {
  describe('valid', () => {
    for (const testCase of valid) {
      it(testCase.name, () => {
        // Without the index the callers are unknown: the findings stand, so a quiet case shows the callers at work.
        expect(v2Findings(testCase.modules, false)).toEqual(REPORTED);
        expect(v2Findings(testCase.modules)).toEqual([]);
      });
    }
  });
  describe('invalid', () => {
    for (const testCase of invalid) {
      it(testCase.name, () => {
        expect(v2Findings(testCase.modules)).toEqual(testCase.reported ?? REPORTED);
      });
    }
  });
});
