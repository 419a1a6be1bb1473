// writes-rely-on-implicit-transaction and ddl-outside-transaction around
// `with self.transaction():` when `transaction` is the module's own wrapper
// around BEGIN ... COMMIT (yoyo-migrations 8.2's backends/base.py), and the
// near-misses that must stay reported. In a file of its own: both rules'
// table tests are being edited by others.
import { describe, expect, it } from 'vitest';
import { writesRelyOnImplicitTransaction } from '../../../../src/core/python/rules/writes-rely-on-implicit-transaction.ts';
import { ddlOutsideTransaction } from '../../../../src/core/python/rules/ddl-outside-transaction.ts';
import { dedent, lint } from './rule-tester.ts';
import { analyzeModule } from '../../../../src/core/python/analyze.ts';
import { buildRepoIndex } from '../../../../src/core/python/callgraph.ts';
import { parseModule } from '../../../../src/core/python/parse.ts';

interface YoyoVariant {
  /** TransactionManager.__exit__'s body. */
  exit?: string;
  /** DatabaseBackend.begin's body. */
  begin?: string;
  /** DatabaseBackend.transaction's body. */
  transaction?: string;
  /** Methods added to DatabaseBackend. */
  methods?: string;
}

const YOYO_EXIT = `if exc_type:
            self._do_rollback()
            return None
        if self.rollback_on_exit:
            self._do_rollback()
        else:
            self._do_commit()`;

const YOYO_TRANSACTION = `if not self._in_transaction:
            return TransactionManager(self, rollback_on_exit=rollback_on_exit)
        else:
            return SavepointTransactionManager(self, rollback_on_exit=rollback_on_exit)`;

/** yoyo 8.2's backends/base.py, cut to the transaction machinery; the backend's sqlite3 connection is in autocommit. */
function yoyo(variant: YoyoVariant = {}): string {
  return `
import sqlite3
from contextlib import contextmanager
from itertools import count

class TransactionManager:
    def __init__(self, backend, rollback_on_exit=False):
        self.backend = backend
        self.rollback_on_exit = rollback_on_exit

    def __enter__(self):
        self._do_begin()
        return self

    def __exit__(self, exc_type, value, traceback):
        ${variant.exit ?? YOYO_EXIT}

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
    lock_table = "yoyo_lock"

    def __init__(self, path):
        self._connection = sqlite3.connect(path, isolation_level=None)

    def transaction(self, rollback_on_exit=False):
        ${variant.transaction ?? YOYO_TRANSACTION}

    def execute(self, sql, params=None):
        cursor = self._connection.cursor()
        cursor.execute(sql, params or {})
        return cursor

    def begin(self):
        ${variant.begin ?? `self._in_transaction = True
        self.execute("BEGIN")`}

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
${variant.methods ?? ''}`;
}

/**
 * Two writes that must go together, inside the wrapper (the shape of yoyo's internal schema upgrade).
 * On the connection itself: a direct `self.execute(sql)` resolves to the helper, whose SQL is not known.
 */
const MOVE_LOG = `
    def upgrade_log(self):
        with self.transaction():
            self._connection.execute("INSERT INTO _yoyo_log SELECT * FROM _yoyo_migration")
            self._connection.execute("DELETE FROM _yoyo_migration")
`;

/** DDL followed by a write inside the wrapper. */
const CREATE_AND_FILL = `
    def create_version_table(self):
        with self.transaction():
            self._connection.execute("CREATE TABLE _yoyo_version (version INT, installed_at_utc TIMESTAMP)")
            self._connection.execute("INSERT INTO _yoyo_version VALUES (2, '1970-01-01')")
`;

/** yoyo's init_database: the DDL comes from a helper that opens the wrapper (create_lock_table), then more writes follow. */
const INIT_DATABASE = `
    def init_database(self):
        self.create_lock_table()
        self.has_transactional_ddl = self._check_transactional_ddl()

    def create_lock_table(self):
        try:
            with self.transaction():
                self.execute("CREATE TABLE yoyo_lock (locked INT DEFAULT 1, pid INT NOT NULL)")
        except sqlite3.DatabaseError:
            pass

    def _check_transactional_ddl(self):
        try:
            with self.transaction(rollback_on_exit=True):
                self.execute("CREATE TABLE yoyo_tmp_1 (id INT PRIMARY KEY)")
        except sqlite3.DatabaseError:
            return False
        try:
            with self.transaction():
                self.execute("DROP TABLE yoyo_tmp_1")
        except sqlite3.DatabaseError:
            return True
        return False
`;

interface Case {
  name: string;
  code: string;
  /** Line of each expected finding, per rule; none means the rule is silent. */
  writes?: number[];
  ddl?: number[];
}

function findingLines(code: string, rule: typeof writesRelyOnImplicitTransaction | typeof ddlOutsideTransaction): number[] {
  return lint(code, [rule]).map((finding) => finding.range.startLine);
}

/** The line of the first line of `code` that contains `text` (1-based, after lint's dedent of the leading newline). */
function lineOf(code: string, text: string, after = 0): number {
  const index = code.replace(/^\n/, '').split('\n').findIndex((line, at) => at >= after && line.includes(text));
  if (index < 0) throw new Error(`no line holds ${text}`);
  return index + 1;
}

const cases: Case[] = [
  // In a transaction: the wrapper BEGINs on enter, commits on exit, rolls back when the block raised.
  { name: 'yoyo: two writes inside with self.transaction() (class manager -> _do_begin -> backend.begin -> BEGIN)', code: yoyo({ methods: MOVE_LOG }) },
  { name: 'yoyo: DDL and a write inside with self.transaction()', code: yoyo({ methods: CREATE_AND_FILL }) },
  {
    name: 'yoyo init_database: the DDL comes from a helper whose with self.transaction() holds it',
    code: yoyo({ methods: INIT_DATABASE }),
  },
  {
    name: '@contextmanager wrapper that BEGINs through self.begin(), commits after the yield and rolls back in except',
    code: yoyo({
      methods: `
    def _end(self, ok):
        if ok:
            self.commit()
        else:
            self.rollback()

    @contextmanager
    def atomic(self):
        self.begin()
        try:
            yield self
        except BaseException:
            self._end(False)
            raise
        else:
            self._end(True)

    def upgrade_log(self):
        with self.atomic():
            self._connection.execute("INSERT INTO _yoyo_log SELECT * FROM _yoyo_migration")
            self._connection.execute("DELETE FROM _yoyo_migration")
`,
    }),
  },
  {
    name: 'a subclass in the same module: transaction() found on the base class',
    code: `${yoyo()}
class SQLiteBackend(DatabaseBackend):
    def upgrade_log(self):
        with self.transaction():
            self._connection.execute("INSERT INTO _yoyo_log SELECT * FROM _yoyo_migration")
            self._connection.execute("DELETE FROM _yoyo_migration")
`,
  },
];

/** A private step run only inside the caller's wrapper (yoyo's internalmigrations.upgrade runs v2.upgrade so, across modules). */
function upgradeStep(name: string, extraCall = ''): string {
  return yoyo({
    methods: `
    def upgrade(self):
        with self.transaction():
            self.${name}()
            self._connection.execute("INSERT INTO _yoyo_version VALUES (2, '1970-01-01')")
${extraCall}
    def ${name}(self):
        self._connection.execute("CREATE TABLE _yoyo_log (id VARCHAR(36), migration_id VARCHAR(255))")
        self._connection.execute("INSERT INTO _yoyo_log SELECT id, id FROM _yoyo_migration")
        self._connection.execute("DROP TABLE _yoyo_migration")
`,
  });
}
const calledOutsideToo = upgradeStep(
  '_upgrade_v2',
  `
    def repair(self):
        self._upgrade_v2()
`,
);
const publicStep = upgradeStep('upgrade_v2');
cases.push({ name: 'a private step whose only call is inside with self.transaction()', code: upgradeStep('_upgrade_v2') });

const yoyoNoBegin = yoyo({ begin: 'self._in_transaction = True', methods: MOVE_LOG });
const yoyoNoRollback = yoyo({ exit: 'self._do_commit()', methods: MOVE_LOG });
const yoyoSavepointOnly = yoyo({ transaction: 'return SavepointTransactionManager(self, rollback_on_exit=rollback_on_exit)', methods: MOVE_LOG });
const yoyoDdlNoBegin = yoyo({ begin: 'self._in_transaction = True', methods: CREATE_AND_FILL });
const yieldFirst = yoyo({
  methods: `
    def _end(self, ok):
        if ok:
            self.commit()
        else:
            self.rollback()

    @contextmanager
    def atomic(self):
        try:
            yield self
        except BaseException:
            self._end(False)
            raise
        self.begin()
        self._end(True)

    def upgrade_log(self):
        with self.atomic():
            self._connection.execute("INSERT INTO _yoyo_log SELECT * FROM _yoyo_migration")
            self._connection.execute("DELETE FROM _yoyo_migration")
`,
});
const contextmanagerNoRollback = yoyo({
  methods: `
    def _end(self, ok):
        if ok:
            self.commit()
        else:
            self.rollback()

    @contextmanager
    def atomic(self):
        self.begin()
        yield self
        self._end(True)

    def upgrade_log(self):
        with self.atomic():
            self._connection.execute("INSERT INTO _yoyo_log SELECT * FROM _yoyo_migration")
            self._connection.execute("DELETE FROM _yoyo_migration")
`,
});
const savepointContextManager = yoyo({
  methods: `
    def _end(self, ok):
        if ok:
            self.commit()
        else:
            self.savepoint_rollback("sp_outer")

    @contextmanager
    def atomic(self):
        self.savepoint("sp_outer")
        try:
            yield self
        except BaseException:
            self._end(False)
            raise
        else:
            self._end(True)

    def upgrade_log(self):
        with self.atomic():
            self._connection.execute("INSERT INTO _yoyo_log SELECT * FROM _yoyo_migration")
            self._connection.execute("DELETE FROM _yoyo_migration")
`,
});
const partOfTheWrites = yoyo({
  methods: `
    def upgrade_log(self):
        with self.transaction():
            self._connection.execute("INSERT INTO _yoyo_log SELECT * FROM _yoyo_migration")
        self._connection.execute("DELETE FROM _yoyo_migration")
`,
});
const ddlBeforeTheWith = yoyo({
  methods: `
    def create_version_table(self):
        self._connection.execute("CREATE TABLE _yoyo_version (version INT, installed_at_utc TIMESTAMP)")
        with self.transaction():
            self._connection.execute("INSERT INTO _yoyo_version VALUES (2, '1970-01-01')")
`,
});
/** The wrapper lives in another module (yoyo's RedshiftBackend inherits it from base.py): unknown here. */
const otherModule = `
import sqlite3
from yoyo.backends.base import DatabaseBackend

class RedshiftBackend(DatabaseBackend):
    def __init__(self, path):
        self._connection = sqlite3.connect(path, isolation_level=None)

    def upgrade_log(self):
        with self.transaction():
            self._connection.execute("INSERT INTO _yoyo_log SELECT * FROM _yoyo_migration")
            self._connection.execute("DELETE FROM _yoyo_migration")
`;

cases.push(
  { name: 'near miss: begin() sets a flag but runs no BEGIN', code: yoyoNoBegin, writes: [lineOf(yoyoNoBegin, 'INSERT INTO _yoyo_log')] },
  {
    name: 'near miss: begin() runs no BEGIN, DDL then a write',
    code: yoyoDdlNoBegin,
    ddl: [lineOf(yoyoDdlNoBegin, 'CREATE TABLE _yoyo_version')],
  },
  { name: 'near miss: __exit__ commits even when the block raised (no rollback)', code: yoyoNoRollback, writes: [lineOf(yoyoNoRollback, 'INSERT INTO _yoyo_log')] },
  { name: 'near miss: the wrapper only ever opens a SAVEPOINT', code: yoyoSavepointOnly, writes: [lineOf(yoyoSavepointOnly, 'INSERT INTO _yoyo_log')] },
  { name: 'near miss: @contextmanager that yields before BEGIN', code: yieldFirst, writes: [lineOf(yieldFirst, 'INSERT INTO _yoyo_log')] },
  {
    name: 'near miss: @contextmanager with no rollback on error',
    code: contextmanagerNoRollback,
    writes: [lineOf(contextmanagerNoRollback, 'INSERT INTO _yoyo_log')],
  },
  {
    name: 'near miss: @contextmanager that opens a SAVEPOINT, not a BEGIN',
    code: savepointContextManager,
    writes: [lineOf(savepointContextManager, 'INSERT INTO _yoyo_log')],
  },
  { name: 'near miss: the with holds only one of the two writes', code: partOfTheWrites, writes: [lineOf(partOfTheWrites, 'INSERT INTO _yoyo_log')] },
  { name: 'near miss: the DDL runs before the with', code: ddlBeforeTheWith, ddl: [lineOf(ddlBeforeTheWith, 'CREATE TABLE _yoyo_version')] },
  {
    name: 'near miss: the private step is also called outside the wrapper',
    code: calledOutsideToo,
    ddl: [lineOf(calledOutsideToo, 'self._upgrade_v2()', lineOf(calledOutsideToo, 'def repair')), lineOf(calledOutsideToo, 'CREATE TABLE _yoyo_log')],
  },
  {
    name: 'near miss: a public step may be called from anywhere',
    code: publicStep,
    ddl: [lineOf(publicStep, 'CREATE TABLE _yoyo_log')],
  },
  { name: 'near miss: a wrapper from another module is unknown', code: otherModule, writes: [lineOf(otherModule, 'INSERT INTO _yoyo_log')] },
);

// A second reading's near-misses (each was quiet before the narrowing): the wrapper must hold its
// transaction on the write's own connection, for every class `self` may be, and for every error.

/** A second connection on the backend, opened in autocommit like the first. */
const AUX = `
    def open_aux(self, path):
        self._aux = sqlite3.connect(path, isolation_level=None)
`;
const otherConnection = yoyo({
  methods: `${AUX}
    def upgrade_log(self):
        with self.transaction():
            self._aux.execute("INSERT INTO _yoyo_log SELECT * FROM _yoyo_migration")
            self._aux.execute("DELETE FROM _yoyo_migration")
`,
});
const privateStepOtherConnection = yoyo({
  methods: `${AUX}
    def upgrade(self):
        with self.transaction():
            self._move_log()

    def _move_log(self):
        self._aux.execute("INSERT INTO _yoyo_log SELECT * FROM _yoyo_migration")
        self._aux.execute("DELETE FROM _yoyo_migration")
`,
});
/** A subclass whose transaction() opens nothing: `self` in upgrade_log may be one. */
const NO_TRANSACTION = `
class NoTransaction:
    def __enter__(self):
        return self

    def __exit__(self, exc_type, value, traceback):
        return None


class AutocommitBackend(DatabaseBackend):
    def transaction(self, rollback_on_exit=False):
        return NoTransaction()
`;
const overriddenBySubclass = `${yoyo({ methods: MOVE_LOG })}${NO_TRANSACTION}`;
const narrowExit = yoyo({ exit: YOYO_EXIT.replace('if exc_type:', 'if exc_type is sqlite3.IntegrityError:'), methods: MOVE_LOG });
const exitOnValue = yoyo({ exit: YOYO_EXIT.replace('if exc_type:', 'if not (value is None):'), methods: MOVE_LOG });
const conditionalBegin = yoyo({
  begin: `self._in_transaction = True
        if self.lock_table != "yoyo_lock":
            self.execute("BEGIN")`,
  methods: MOVE_LOG,
});
const beginAfterReturn = yoyo({
  begin: `self._in_transaction = True
        if self.lock_table != "yoyo_lock":
            return
        self.execute("BEGIN")`,
  methods: MOVE_LOG,
});
/** k1: a manager that joins (opens nothing, rolls back on error), chosen by `if <test>:`. */
function joining(test: string): string {
  return `
import sqlite3

class Begin:
    def __init__(self, backend):
        self.backend = backend

    def __enter__(self):
        self.backend.conn.execute("BEGIN")
        return self

    def __exit__(self, exc_type, value, traceback):
        if exc_type:
            self.backend.conn.execute("ROLLBACK")
            return None
        self.backend.conn.execute("COMMIT")


class Join:
    def __init__(self, backend):
        self.backend = backend

    def __enter__(self):
        return self

    def __exit__(self, exc_type, value, traceback):
        if exc_type:
            self.backend.conn.execute("ROLLBACK")


class Backend:
    _in_transaction = False

    def __init__(self, path, fast=False):
        self.fast = fast
        self.conn = sqlite3.connect(path, isolation_level=None)

    def transaction(self):
        if ${test}:
            return Join(self)
        return Begin(self)

    def mark(self, a):
        with self.transaction():
            self.conn.execute("INSERT INTO moves VALUES (?)", (a,))
            self.conn.execute("DELETE FROM pending WHERE id = ?", (a,))
`;
}
const joinsOnAFlag = joining('self.fast');
const commitInTheBlock = yoyo({
  methods: `
    def create_tables(self):
        with self.transaction():
            self._connection.execute("CREATE TABLE _yoyo_version (version INT)")
            self.commit()
            self._connection.execute("CREATE TABLE _yoyo_log (id VARCHAR(36))")
            self._connection.execute("INSERT INTO _yoyo_log VALUES ('x')")
`,
});

cases.push(
  { name: 'the joining manager chosen while a transaction is open (`if self._in_transaction:`)', code: joining('self._in_transaction') },
  { name: '__exit__ rolls back under `if not (value is None):` (the exception value, as written)', code: exitOnValue },
  {
    name: 'near miss: the writes run on another connection of the backend than the one the wrapper BEGINs on',
    code: otherConnection,
    writes: [lineOf(otherConnection, 'INSERT INTO _yoyo_log')],
  },
  {
    name: 'near miss: a private step called only inside the wrapper writes on another connection',
    code: privateStepOtherConnection,
    // The caller's call of the step and the step itself: both see the two writes.
    writes: [lineOf(privateStepOtherConnection, 'self._move_log()'), lineOf(privateStepOtherConnection, 'INSERT INTO _yoyo_log')],
  },
  {
    name: 'near miss: a subclass in the module overrides transaction() with a manager that opens nothing',
    code: overriddenBySubclass,
    writes: [lineOf(overriddenBySubclass, 'INSERT INTO _yoyo_log')],
  },
  { name: 'near miss: __exit__ rolls back only for one exception type', code: narrowExit, writes: [lineOf(narrowExit, 'INSERT INTO _yoyo_log')] },
  { name: 'near miss: begin() runs BEGIN only under an if', code: conditionalBegin, writes: [lineOf(conditionalBegin, 'INSERT INTO _yoyo_log')] },
  { name: 'near miss: begin() may return before its BEGIN', code: beginAfterReturn, writes: [lineOf(beginAfterReturn, 'INSERT INTO _yoyo_log')] },
  {
    name: 'near miss: the joining manager is chosen by a flag, not by an open transaction',
    code: joinsOnAFlag,
    writes: [lineOf(joinsOnAFlag, 'INSERT INTO moves')],
  },
  {
    name: 'near miss: a commit inside the with block ends the transaction before the next DDL',
    code: commitInTheBlock,
    ddl: [lineOf(commitInTheBlock, 'CREATE TABLE _yoyo_log')],
  },
);

describe('writes and DDL inside a same-module wrapper transaction', () => {
  for (const testCase of cases) {
    it(testCase.name, () => {
      expect(findingLines(testCase.code, writesRelyOnImplicitTransaction)).toEqual(testCase.writes ?? []);
      expect(findingLines(testCase.code, ddlOutsideTransaction)).toEqual(testCase.ddl ?? []);
    });
  }
});

// The wrapper inherited from a base class in another module of the repository (yoyo 8.2's
// RedshiftBackend -> PostgresqlBackend in backends/core/postgresql.py -> DatabaseBackend in
// backends/base.py), found through the repository index; a lone module keeps the finding.

/** yoyo's postgresql.py, cut down: begin/commit/rollback overridden, reaching the base's through super(). */
const POSTGRESQL = `
from yoyo.backends.base import DatabaseBackend

class PostgresqlBackend(DatabaseBackend):
    def commit(self):
        self.execute("COMMIT")
        super().commit()

    def rollback(self):
        self.execute("ROLLBACK")
        super().rollback()

    def begin(self):
        return super().begin()
`;

/** yoyo's redshift.py, cut down: no savepoints (the nested manager joins the open transaction), the lock row written inside the wrapper. */
function redshift(imports: string, base: string): string {
  return `
import sqlite3
${imports}

class RedshiftBackend(${base}):
    def __init__(self, path):
        self._connection = sqlite3.connect(path, isolation_level=None)

    def savepoint(self, id):
        pass

    def savepoint_rollback(self, id):
        self.rollback()

    def _insert_lock_row(self, pid):
        with self.transaction():
            self._connection.execute("LOCK yoyo_lock")
            self._connection.execute("INSERT INTO yoyo_lock (locked, pid) VALUES (1, ?)", (pid,))
            self._connection.execute("DELETE FROM yoyo_tmp")
`;
}
const REDSHIFT = redshift('from yoyo.backends.core.postgresql import PostgresqlBackend', 'PostgresqlBackend');

interface RepoCase {
  name: string;
  /** path -> source; the last module is the one whose findings are checked. */
  modules: Record<string, string>;
  /** Reported with the repository index too (a near miss). */
  reported: boolean;
}

function writesFindings(modules: Record<string, string>, withIndex: boolean): number[] {
  const parsed = Object.entries(modules).map(([path, code]) => parseModule(path, dedent(code)));
  const checked = parsed[parsed.length - 1]!;
  const reports = withIndex ? analyzeModule(checked, buildRepoIndex(parsed)) : analyzeModule(checked);
  return reports.flatMap((report) => report.findings.filter((finding) => finding.ruleId === writesRelyOnImplicitTransaction.meta.id).map((finding) => finding.range.startLine));
}

const yoyoRepo = (overrides: Record<string, string> = {}): Record<string, string> => ({
  'yoyo/__init__.py': '',
  'yoyo/backends/base.py': yoyo(),
  'yoyo/backends/core/postgresql.py': POSTGRESQL,
  'yoyo/backends/contrib/redshift.py': REDSHIFT,
  ...overrides,
});

const repoCases: RepoCase[] = [
  { name: 'Redshift -> Postgresql (other module) -> DatabaseBackend (a third): the inherited wrapper holds the writes', modules: yoyoRepo(), reported: false },
  {
    name: 'scanned from inside the package (as the corpus scans yoyo/): `yoyo.backends.base` is backends/base.py',
    modules: { '__init__.py': '', 'backends/base.py': yoyo(), 'backends/core/postgresql.py': POSTGRESQL, 'backends/contrib/redshift.py': REDSHIFT },
    reported: false,
  },
  {
    name: '`import pkg.mod as m` and `class X(m.Base)`',
    modules: yoyoRepo({ 'yoyo/backends/contrib/redshift.py': redshift('import yoyo.backends.core.postgresql as pg', 'pg.PostgresqlBackend') }),
    reported: false,
  },
  {
    name: 'a base re-exported by the package __init__',
    modules: {
      'yoyo/backends/__init__.py': 'from .core.postgresql import PostgresqlBackend\n',
      ...yoyoRepo({ 'yoyo/backends/contrib/redshift.py': redshift('from yoyo.backends import PostgresqlBackend', 'PostgresqlBackend') }),
    },
    reported: false,
  },
  {
    name: 'near miss: the base in another module commits even when the block raised (no rollback)',
    modules: yoyoRepo({ 'yoyo/backends/base.py': yoyo({ exit: 'self._do_commit()' }) }),
    reported: true,
  },
  {
    name: 'near miss: the base comes from a module outside the repository',
    modules: yoyoRepo({ 'yoyo/backends/contrib/redshift.py': redshift('from vendor.backends.core.postgresql import PostgresqlBackend', 'PostgresqlBackend') }),
    reported: true,
  },
  {
    name: 'near miss: a same-named class in a module the subclass does not import',
    modules: yoyoRepo({ 'yoyo/backends/contrib/redshift.py': redshift('', 'PostgresqlBackend') }),
    reported: true,
  },
  {
    name: 'near miss: a base that cannot be read comes first and may define transaction() itself',
    modules: yoyoRepo({
      'yoyo/backends/contrib/redshift.py': redshift('import vendor\nfrom yoyo.backends.core.postgresql import PostgresqlBackend', 'vendor.TransactionMixin, PostgresqlBackend'),
    }),
    reported: true,
  },
  {
    name: 'near miss: bases importing each other in a cycle define no wrapper (and the chase ends)',
    modules: {
      'app/a.py': 'from app.b import B\n\nclass A(B):\n    pass\n',
      'app/b.py': 'from app.a import A\n\nclass B(A):\n    pass\n',
      'app/c.py': redshift('from app.a import A', 'A'),
    },
    reported: true,
  },
];

describe('writes inside a wrapper inherited from another module of the repository', () => {
  for (const testCase of repoCases) {
    it(testCase.name, () => {
      const insert = lineOf(testCase.modules[Object.keys(testCase.modules).at(-1)!]!, 'LOCK yoyo_lock');
      // Without the index the wrapper is unknown: the writes are reported, so a quiet case shows the index at work.
      expect(writesFindings(testCase.modules, false)).toEqual([insert]);
      expect(writesFindings(testCase.modules, true)).toEqual(testCase.reported ? [insert] : []);
    });
  }
});

describe('a subclass in another module of the repository that overrides the wrapper', () => {
  it('near miss: quiet in the lone module, reported once the index shows AutocommitBackend overriding transaction()', () => {
    const modules = {
      'yoyo/__init__.py': '',
      'yoyo/backends/autocommit.py': `from yoyo.backends.base import DatabaseBackend\n${NO_TRANSACTION}`,
      'yoyo/backends/base.py': yoyo({ methods: MOVE_LOG }),
    };
    expect(writesFindings(modules, false)).toEqual([]);
    expect(writesFindings(modules, true)).toEqual([lineOf(modules['yoyo/backends/base.py'], 'INSERT INTO _yoyo_log')]);
  });
});
