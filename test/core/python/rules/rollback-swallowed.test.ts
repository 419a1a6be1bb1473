import { rollbackSwallowed } from '../../../../src/core/python/rules/rollback-swallowed.ts';
import { testRule } from './rule-tester.ts';

testRule(rollbackSwallowed, {
  valid: [
    {
      name: 'roll back and re-raise',
      code: `
        def transfer(conn, a, b):
            try:
                conn.execute("BEGIN")
                conn.execute("UPDATE accounts SET balance = balance - 1 WHERE id = ?", (a,))
                conn.execute("UPDATE accounts SET balance = balance + 1 WHERE id = ?", (b,))
                conn.execute("COMMIT")
            except Exception:
                conn.rollback()
                raise
      `,
    },
    {
      name: 'roll back and raise a domain error',
      code: `
        def transfer(conn, a, b):
            try:
                conn.execute("UPDATE accounts SET balance = balance - 1 WHERE id = ?", (a,))
            except sqlite3.Error as exc:
                conn.execute("ROLLBACK")
                raise TransferFailed(a, b) from exc
      `,
    },
    {
      name: 'roll back and return a failure',
      code: `
        def try_insert(conn, key):
            try:
                conn.execute("INSERT INTO kv (key) VALUES (?)", (key,))
            except Exception:
                conn.rollback()
                return False
            return True
      `,
    },
    {
      name: 'a specific, expected error handled on purpose',
      code: `
        def insert_once(conn, key):
            try:
                conn.execute("INSERT INTO kv (key) VALUES (?)", (key,))
                conn.commit()
            except sqlite3.IntegrityError:
                conn.rollback()
      `,
    },
    {
      name: 'an except that hides the error but undoes nothing',
      code: `
        def best_effort(conn):
            try:
                conn.execute("DELETE FROM cache")
            except Exception:
                log.warning("cache not cleared")
      `,
    },
    {
      name: 'the handler hands the error to a helper that rolls back and re-raises it in a finally (pony commit)',
      code: `
        import sys

        def reraise(exc_type, exc, tb):
            try:
                raise exc.with_traceback(tb)
            finally:
                del exc, tb

        def rollback_and_reraise(conn, exc_info):
            try:
                conn.rollback()
            finally:
                reraise(*exc_info)

        def commit(conn, caches):
            try:
                for cache in caches:
                    cache.flush()
            except:
                rollback_and_reraise(conn, sys.exc_info())
            conn.commit()
      `,
    },
    {
      name: 'the re-raising helper is called from a method and from a nested function (pony _commit_or_rollback, wrapped_interact)',
      code: `
        import sys

        def reraise(exc_type, exc, tb):
            try:
                raise exc.with_traceback(tb)
            finally:
                del exc, tb

        def rollback_and_reraise(conn, exc_info):
            try:
                conn.rollback()
            finally:
                reraise(*exc_info)

        class DBSession:
            def _commit_or_rollback(self, conn, exc):
                try: can_commit = self.allowed_exceptions(exc)
                except: rollback_and_reraise(conn, sys.exc_info())

        def wrap(conn, gen):
            def wrapped_interact(value):
                try:
                    return gen.send(value)
                except:
                    rollback_and_reraise(conn, sys.exc_info())
            return wrapped_interact
      `,
    },
    {
      name: 'rolled back in the handler, then a helper raises the collected errors (pony transact_reraise)',
      code: `
        import sys

        def reraise(exc_type, exc, tb):
            try:
                raise exc.with_traceback(tb)
            finally:
                del exc, tb

        def transact_reraise(exc_class, exceptions):
            cls, exc, tb = exceptions[0]
            new_exc = None
            try:
                msg = " ".join(str(arg) for arg in exc.args)
                if not issubclass(cls, TransactionError): msg = '%s: %s' % (cls.__name__, msg)
                new_exc = exc_class(msg, exceptions)
                reraise(exc_class, new_exc, tb)
            finally: del exceptions, exc, tb, new_exc

        def commit(primary, others):
            exceptions = []
            try:
                primary.commit()
            except:
                exceptions.append(sys.exc_info())
                for conn in others:
                    try: conn.rollback()
                    except: exceptions.append(sys.exc_info())
                transact_reraise(CommitException, exceptions)
      `,
    },
    {
      name: 'a re-raise helper imported from another module is trusted by its name (pony utils.reraise, six.reraise)',
      code: `
        import sys
        from pony.utils import reraise

        def rollback_and_reraise(conn, exc_info):
            try:
                conn.rollback()
            finally:
                reraise(*exc_info)

        def commit(conn):
            try:
                conn.execute("UPDATE t SET x = 1")
            except:
                rollback_and_reraise(conn, sys.exc_info())
      `,
    },
    {
      name: 'a helper that raises on every branch of an if/else',
      code: `
        def fail(conn, exc, retryable):
            conn.rollback()
            if retryable:
                raise RetryLater() from exc
            else:
                raise Fatal() from exc

        def save(conn, row):
            try:
                conn.execute("INSERT INTO t VALUES (?)", (row,))
                conn.commit()
            except Exception as exc:
                fail(conn, exc, True)
      `,
    },
    {
      name: 'rolled back, then the process exits',
      code: `
        import sys

        def main(conn):
            try:
                conn.execute("DELETE FROM jobs")
                conn.commit()
            except Exception:
                conn.rollback()
                sys.exit(1)
      `,
    },
  ],
  invalid: [
    {
      name: 'rollback and log',
      code: `
        def transfer(conn, a, b):
            try:
                conn.execute("UPDATE accounts SET balance = balance - 1 WHERE id = ?", (a,))
                conn.execute("UPDATE accounts SET balance = balance + 1 WHERE id = ?", (b,))
                conn.commit()
            except Exception as exc:
                conn.rollback()
                log.error("transfer failed: %s", exc)
      `,
      errors: [{ messageId: 'rollbackSwallowed', line: 6 }],
    },
    {
      name: 'bare except with ROLLBACK as SQL',
      code: `
        def archive(conn, table):
            try:
                conn.execute(f"INSERT INTO {table}_old SELECT * FROM {table}")
                conn.execute(f"DELETE FROM {table}")
            except:
                conn.execute("ROLLBACK")
      `,
      errors: [{ messageId: 'rollbackSwallowed', line: 5 }],
    },
    {
      name: 'an undo helper, then return None',
      code: `
        def store_upload(conn, path, data):
            try:
                write_file(path, data)
                conn.execute("INSERT INTO uploads (path) VALUES (?)", (path,))
            except (OSError, sqlite3.Error):
                undo_write(path)
                return None
      `,
      errors: [{ messageId: 'rollbackSwallowed', line: 5 }],
    },
    {
      name: 'per-item rollback inside a loop, and the loop goes on',
      code: `
        def process(conn, jobs):
            for job in jobs:
                try:
                    conn.execute("UPDATE jobs SET status = 'done' WHERE id = ?", (job,))
                    conn.commit()
                except Exception:
                    conn.rollback()
                    continue
      `,
      errors: [{ messageId: 'rollbackSwallowed', line: 6 }],
    },
    {
      name: 'a helper that only sometimes raises',
      code: `
        def rollback_and_maybe_raise(conn, exc, strict):
            conn.rollback()
            if strict:
                raise exc

        def save(conn, row):
            try:
                conn.execute("INSERT INTO t VALUES (?)", (row,))
                conn.commit()
            except Exception as exc:
                rollback_and_maybe_raise(conn, exc, False)
      `,
      errors: [{ messageId: 'rollbackSwallowed', line: 10 }],
    },
    {
      name: 'a helper that rolls back, logs and returns',
      code: `
        import sys

        def rollback_and_log(conn, exc_info):
            try:
                conn.rollback()
            finally:
                log.error("failed", exc_info=exc_info)

        def save(conn, row):
            try:
                conn.execute("INSERT INTO t VALUES (?)", (row,))
            except Exception:
                rollback_and_log(conn, sys.exc_info())
      `,
      errors: [{ messageId: 'rollbackSwallowed', line: 12 }],
    },
    {
      name: 'a helper whose raise its own except catches, or whose finally returns',
      code: `
        import sys

        def rollback_and_reraise(conn, exc_info):
            try:
                conn.rollback()
                raise exc_info[1]
            except Exception:
                log.error("swallowed")

        def rollback_quietly(conn, exc):
            try:
                conn.rollback()
                raise exc
            finally:
                return None

        def save(conn, row):
            try:
                conn.execute("INSERT INTO t VALUES (?)", (row,))
            except Exception:
                rollback_and_reraise(conn, sys.exc_info())

        def update(conn, row):
            try:
                conn.execute("UPDATE t SET x = ?", (row,))
            except Exception as exc:
                rollback_quietly(conn, exc)
      `,
      errors: [
        { messageId: 'rollbackSwallowed', line: 20 },
        { messageId: 'rollbackSwallowed', line: 26 },
      ],
    },
    {
      name: 'a raise the helper makes inside a with block, a generator, or a mutual recursion: not trusted',
      code: `
        def under_manager(conn, exc):
            conn.rollback()
            with contextlib.suppress(Exception):
                raise exc

        def generator(conn, exc):
            conn.rollback()
            yield
            raise exc

        def ping(conn, exc):
            conn.rollback()
            pong(conn, exc)

        def pong(conn, exc):
            ping(conn, exc)

        def a(conn, row):
            try:
                conn.execute("INSERT INTO t VALUES (?)", (row,))
            except Exception as exc:
                under_manager(conn, exc)

        def b(conn, row):
            try:
                conn.execute("INSERT INTO t VALUES (?)", (row,))
            except Exception as exc:
                generator(conn, exc)

        def c(conn, row):
            try:
                conn.execute("INSERT INTO t VALUES (?)", (row,))
            except Exception as exc:
                ping(conn, exc)
      `,
      errors: [
        { messageId: 'rollbackSwallowed', line: 21 },
        { messageId: 'rollbackSwallowed', line: 27 },
        { messageId: 'rollbackSwallowed', line: 33 },
      ],
    },
    {
      name: 'a re-raise on one branch of the handler only, or through a call the rule cannot follow',
      code: `
        import sys

        def rollback_and_reraise(conn, exc_info):
            try:
                conn.rollback()
            finally:
                raise exc_info[1]

        def save(conn, row, strict):
            try:
                conn.execute("INSERT INTO t VALUES (?)", (row,))
            except Exception:
                if strict:
                    rollback_and_reraise(conn, sys.exc_info())
                conn.rollback()

        def resume(conn, gen, row):
            try:
                conn.execute("INSERT INTO t VALUES (?)", (row,))
            except Exception as exc:
                conn.rollback()
                gen.throw(exc)

        def report(conn, row):
            try:
                conn.execute("INSERT INTO t VALUES (?)", (row,))
            except Exception:
                conn.rollback()
                handle_error(sys.exc_info())
      `,
      errors: [
        { messageId: 'rollbackSwallowed', line: 12 },
        { messageId: 'rollbackSwallowed', line: 20 },
        { messageId: 'rollbackSwallowed', line: 27 },
      ],
    },
  ],
});
