"""Crash points (issue 10, item 7): writes through a file the scenario opened before the target
runs, the rows of `executemany` (first, middle, last) and the statements of `executescript`."""
import inspect
import os
import shutil
import sqlite3
import sys
import tempfile
import unittest

from crashprobe import intercept_files
from crashprobe.campaign import select_points
from crashprobe.intercept_sqlite import connect_in_mode, set_mode
from crashprobe.points import TRACKER

TARGETS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "point_targets")
sys.path.insert(0, TARGETS)
import targets  # noqa: E402


class _Run(unittest.TestCase):
    """A run of the tracker in this process, the targets' folder as the repository root."""

    def setUp(self):
        self.folder = tempfile.mkdtemp(prefix="crashprobe-points-")
        self.db = os.path.join(self.folder, "app.db")
        TRACKER.in_run = True
        set_mode(True)  # autocommit: every row a statement of its own

    def tearDown(self):
        TRACKER.stop()
        TRACKER.in_run = False
        set_mode(False)
        intercept_files.close_all()
        shutil.rmtree(self.folder, ignore_errors=True)

    def run_target(self, target, argument, crash=None):
        TRACKER.start(TARGETS, [self.folder], crash, on_hard_crash=None)
        try:
            target(argument)
        finally:
            TRACKER.stop()

    def connection(self):
        conn = connect_in_mode(self.db)
        self.addCleanup(conn.close)
        return conn


class FileOpenedBeforeTheTarget(_Run):
    def test_each_write_to_it_is_a_crash_point_and_a_crash_stops_the_write(self):
        path = os.path.join(self.folder, "ledger.txt")
        with intercept_files.tracked_open(path, "a") as handle:  # opened by the scenario, before the target
            self.run_target(targets.append_two_lines, handle)
        self.assertEqual([(hit["call"], hit["line"]) for hit in TRACKER.trace], [("write", line) for line in _lines_of(targets.append_two_lines, "handle.write")])
        second = dict(TRACKER.trace[1], kind="soft")
        os.remove(path)
        with intercept_files.tracked_open(path, "a") as handle:
            with self.assertRaises(OSError):
                self.run_target(targets.append_two_lines, handle, second)
        with open(path) as f:
            self.assertEqual(f.read(), "debit\n")


class ExecuteMany(_Run):
    def test_its_first_middle_and_last_rows_are_the_points_and_a_crash_keeps_the_rows_before(self):
        self.connection().execute("CREATE TABLE t (n INTEGER)")
        self.run_target(lambda conn: targets.insert_rows(conn, range(9)), self.connection())
        points, capped = select_points(TRACKER.trace, 40)
        self.assertFalse(capped)
        self.assertEqual([(p["call"], p["repetition"], p["statement"]) for p in points],
                         [("executemany", rep, "INSERT INTO t (n) VALUES (?)") for rep in (1, 5, 9)])

        self.connection().execute("DELETE FROM t")
        with self.assertRaises(sqlite3.OperationalError):
            self.run_target(lambda conn: targets.insert_rows(conn, range(9)), self.connection(),
                            dict(points[1], kind="soft"))
        self.assertEqual(targets.count(self.db, "SELECT n FROM t"), [(n,) for n in range(4)])  # the rows before the fifth


class ExecuteScript(_Run):
    def test_a_crash_point_before_each_statement_that_writes(self):
        self.run_target(targets.run_script, self.connection())
        self.assertEqual([hit["statement"] for hit in TRACKER.trace],
                         ["CREATE TABLE a (n);", "INSERT INTO a VALUES (?);", "CREATE TABLE b (n);"])
        last = dict(TRACKER.trace[2], kind="soft")

        os.remove(self.db)
        with self.assertRaises(sqlite3.OperationalError):
            self.run_target(targets.run_script, self.connection(), last)
        tables = "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"
        self.assertEqual(targets.count(self.db, tables), [("a",)])  # the statements before the crash ran, not the last
        self.assertEqual(targets.count(self.db, "SELECT n FROM a"), [(1,)])


class OneHelper(_Run):
    def test_statements_sent_through_one_helper_are_sites_of_their_own(self):
        self.connection().execute("CREATE TABLE t (n INTEGER)")
        self.run_target(targets.insert_then_insert_again, self.connection())
        points, _ = select_points(TRACKER.trace, 40)
        # Same helper line, same statement text: the calling line tells them apart.
        lines = _lines_of(targets.send, "conn.execute(sql)") + _lines_of(targets.insert_then_insert_again, "send(")
        self.assertEqual([(p["line"], p["via"][0], p["repetition"]) for p in points],
                         [(lines[0], f"targets.py:{lines[1]}", 1), (lines[0], f"targets.py:{lines[2]}", 1)])


def _lines_of(function, text):
    source, first = inspect.getsourcelines(function)
    return [first + i for i, line in enumerate(source) if text in line]


if __name__ == "__main__":
    unittest.main()
