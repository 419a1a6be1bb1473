"""Evidence a maintainer reads at a glance (issue 10, item 8)."""
import os
import shutil
import tempfile
import unittest

from crashprobe.judge import EMPTY, Masks, calibrate, evidence
from crashprobe.state import State, Table, capture


def table(*rows):
    return {"app.db": {"items": Table(("id", "name"), ("id",), list(rows))}}


class Evidence(unittest.TestCase):
    def test_an_empty_value_says_empty(self):
        states = {"before": State(files={"a.txt": b"x"}), "after_crash": State(files={"a.txt": b""}),
                  "normal": State(files={"a.txt": b"y"})}
        self.assertEqual(evidence(states, Masks())[0]["values"]["after_crash"], EMPTY)

    def test_the_first_cell_is_one_neither_before_nor_normal(self):
        # Row 1 after the crash is as a normal run leaves it, row 2 as neither: row 2 is the example.
        states = {"before": State(dbs=table((1, "old"), (2, "old"))),
                  "after_crash": State(dbs=table((1, "new"), (2, "torn"))),
                  "after_rerun": State(dbs=table((1, "new"), (2, "new"))),
                  "normal": State(dbs=table((1, "new"), (2, "new")))}
        cells = evidence(states, Masks())
        self.assertEqual([c["key"] for c in cells], ["2", "1"])
        first = cells[0]["values"]
        self.assertNotIn(first["after_crash"], (first["before"], first["normal"]))

    def test_files_of_one_random_name_pattern_are_one_line(self):
        masks = calibrate(State(files={"v/ab/1f2e.val": b"v"}), State(files={"v/0c/77d1.val": b"v"}))
        states = {"before": State(), "after_rerun": State(files={"v/e2/9a9a.val": b"v", "v/4d/0b0b.val": b"v"}),
                  "normal": State(files={"v/ab/1f2e.val": b"v"})}
        self.assertEqual(evidence(states, masks), [{"file": "v/*/*.val", "values": {
            "before": "(absent)", "after_rerun": "(2 files)", "normal": "v"}}])


class LockFiles(unittest.TestCase):
    def test_a_lock_file_is_not_state(self):
        folder = tempfile.mkdtemp(prefix="crashprobe-locks-")
        self.addCleanup(shutil.rmtree, folder)
        for name, data in (("queue.lock", b"4242"), ("data.json", b"{}"), (".lockfile", b"")):
            with open(os.path.join(folder, name), "wb") as f:
                f.write(data)
        self.assertEqual(sorted(capture(folder, os.path.join(folder, "no-outbox")).files), ["data.json"])


if __name__ == "__main__":
    unittest.main()
