"""A repeated consume (issue 10, item 6): a re-run whose get/pop takes out a second item leaves
one row or file fewer than one run does; that is doing the work twice, not half of it."""
import unittest
from collections import Counter

from crashprobe.judge import Masks, outcome, rows_consumed_again
from crashprobe.state import State, Table


def queue(*items, keyed=True):
    rows = [(i, item) for i, item in items]
    return State(dbs={"q.db": {"queue": Table(("id", "item"), ("id",) if keyed else (), rows)}})


BEFORE = ((1, "a"), (2, "b"), (3, "c"))


class ConsumedAgain(unittest.TestCase):
    def test_a_keyed_table_popped_twice_is_double_applied(self):
        result, reasons = outcome(queue(*BEFORE[2:]), queue(*BEFORE[1:]), queue(*BEFORE), Masks())
        self.assertEqual(result, "double-applied")
        self.assertIn("queue: row (2,) taken out as well", reasons)

    def test_a_table_without_a_key_popped_twice_is_double_applied(self):
        result, reasons = outcome(queue(*BEFORE[2:], keyed=False), queue(*BEFORE[1:], keyed=False),
                                  queue(*BEFORE, keyed=False), Masks())
        self.assertEqual(result, "double-applied")
        self.assertEqual(reasons, ["queue: 1 more row(s) taken out than one run takes"])

    def test_a_file_queue_read_twice_is_double_applied(self):
        before = State(files={"q/0001": b"a", "q/0002": b"b", "q/0003": b"c"})
        normal = State(files={"q/0002": b"b", "q/0003": b"c"})
        after = State(files={"q/0003": b"c"})
        result, reasons = outcome(after, normal, before, Masks())
        self.assertEqual(result, "double-applied")
        self.assertEqual(reasons, ["file q/0002 taken away as well"])

    def test_a_row_lost_from_a_table_no_run_takes_from_is_half_done(self):
        # An insert-only table: a row the normal run added and the re-run did not is missing, not consumed.
        before = queue((1, "a"))
        normal = queue((1, "a"), (2, "b"))
        self.assertEqual(outcome(before, normal, before, Masks())[0], "half-done")
        unkeyed = queue((1, "a"), keyed=False)
        self.assertEqual(outcome(unkeyed, queue((1, "a"), (2, "b"), keyed=False), unkeyed, Masks())[0], "half-done")

    def test_the_count_is_zero_unless_every_missing_row_was_there_before(self):
        before, normal = Counter(["a", "b", "c"]), Counter(["b", "c"])
        self.assertEqual(rows_consumed_again(Counter(["b"]), before, normal), 1)
        self.assertEqual(rows_consumed_again(Counter(["b", "new"]), before, normal), 0)
        self.assertEqual(rows_consumed_again(Counter(["b"]), before, before), 0)


if __name__ == "__main__":
    unittest.main()
