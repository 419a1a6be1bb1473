"""Re-runs shared by crash points that leave the same state (rerun_cache.py): what counts as
the same start, and what is never reused. Run by `npm test` (test/harness/unittest.test.ts)."""
import os
import shutil
import tempfile
import unittest

from crashprobe.rerun_cache import RerunCache, start_key
from crashprobe.reports import RunReport, Status
from crashprobe.state import capture


class StartKey(unittest.TestCase):
    def setUp(self):
        self.top = tempfile.mkdtemp(prefix="crashprobe-test-")
        self.folder = os.path.join(self.top, "scenario")
        self.temp = os.path.join(self.top, "control", "tmp")
        self.outbox = os.path.join(self.top, "control", "emails.jsonl")
        os.makedirs(self.folder)
        os.makedirs(self.temp)
        self.write(self.folder, "a.txt", b"one", mtime=1_000)
        self.write(self.folder, "b.txt", b"two", mtime=2_000)

    def tearDown(self):
        shutil.rmtree(self.top, ignore_errors=True)

    def write(self, where, name, data, mtime=None):
        path = os.path.join(where, name)
        with open(path, "wb") as handle:
            handle.write(data)
        if mtime is not None:
            os.utime(path, ns=(mtime, mtime))

    def key(self, mode="default"):
        return start_key(mode, capture(self.folder, self.outbox), self.folder, self.temp)

    def test_the_same_state_gives_the_same_key_whatever_the_real_mtimes(self):
        first = self.key()
        # The same files written again later: other mtimes, the same order.
        self.write(self.folder, "a.txt", b"one", mtime=5_000)
        self.write(self.folder, "b.txt", b"two", mtime=6_000)
        self.assertEqual(first, self.key())

    def test_content_mode_order_temp_files_and_mode_each_change_the_key(self):
        first = self.key()
        self.assertNotEqual(first, self.key("autocommit"))
        self.write(self.folder, "a.txt", b"three", mtime=1_000)
        self.assertNotEqual(first, self.key())
        self.write(self.folder, "a.txt", b"one", mtime=3_000)  # now newer than b.txt
        self.assertNotEqual(first, self.key())
        self.write(self.folder, "a.txt", b"one", mtime=1_000)
        self.assertEqual(first, self.key())
        os.chmod(os.path.join(self.folder, "a.txt"), 0o600)
        self.assertNotEqual(first, self.key())
        os.chmod(os.path.join(self.folder, "a.txt"), 0o644)
        os.chmod(os.path.join(self.folder, "b.txt"), 0o644)
        base = self.key()
        self.write(self.temp, "left-behind", b"x")  # the crashed run's temp file: the re-run may read it
        self.assertNotEqual(base, self.key())
        os.remove(os.path.join(self.temp, "left-behind"))
        self.write(self.folder, "a.txt.lock", b"", mtime=1_500)  # a lock is not state, but code can see it
        self.assertNotEqual(base, self.key())


class Cache(unittest.TestCase):
    def test_a_rerun_stopped_by_a_limit_is_never_reused(self):
        cache = RerunCache()
        empty = tempfile.mkdtemp(prefix="crashprobe-test-")
        self.addCleanup(shutil.rmtree, empty, True)
        state = capture(empty, os.path.join(empty, "no-outbox"))
        cache.put(b"k1", RunReport(Status.LIMIT, error="wall clock"), state)
        cache.put(b"k2", RunReport(Status.OK), state)
        self.assertIsNone(cache.get(b"k1"))
        self.assertEqual(cache.get(b"k2").report.status, Status.OK)
        self.assertIsNone(cache.get(None))


if __name__ == "__main__":
    unittest.main()
