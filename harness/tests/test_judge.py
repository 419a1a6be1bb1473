"""The judge on states built by hand: calibration of what varies between two normal runs,
half-updates, and what a re-run makes of a crash. Run by `npm test` (test/harness/unittest.test.ts)."""
import unittest

from crashprobe.judge import (Effects, Masks, NamePattern, calibrate, compare_effects, half_updated, name_tokens,
                              outcome, shape)
from crashprobe.state import State, Table


def accounts(*balances):
    return {"app.db": {"accounts": Table(("id", "balance"), ("id",), [(i + 1, b) for i, b in enumerate(balances)])}}


class Shape(unittest.TestCase):
    def test_numbers_and_tokens_keep_only_their_shape(self):
        self.assertEqual(shape(12), "#num")
        self.assertEqual(shape("order 42 by deadbeef"), "order # by #")
        self.assertIsNone(shape(None))


class Calibrate(unittest.TestCase):
    def test_a_column_that_differs_between_two_normal_runs_is_masked(self):
        first = State(dbs={"app.db": {"t": Table(("id", "token"), ("id",), [(1, "a1b2c3d4e5")])}})
        second = State(dbs={"app.db": {"t": Table(("id", "token"), ("id",), [(1, "ffee0011aa")])}})
        self.assertEqual(calibrate(first, second).columns, {("app.db", "t", "token")})

    def test_random_folders_of_two_hex_characters_pair_up_as_one_name_pattern(self):
        # A disk cache stores a value under b6/71/2fac...val: the folders and the name are random.
        first = State(files={"cache/b6/71/2fac01.val": b"v"})
        second = State(files={"cache/0e/c4/9d3b77.val": b"v"})
        masks = calibrate(first, second)
        self.assertEqual(masks.notes, [])
        self.assertEqual(len(masks.names), 1)
        pattern = next(iter(masks.names))
        self.assertTrue(pattern.matches(name_tokens("cache/aa/bb/123456.val")))
        self.assertFalse(pattern.matches(name_tokens("other/aa/bb/123456.val")))

    def test_unpaired_files_are_said_not_hidden(self):
        masks = calibrate(State(files={"a.txt": b"1"}), State(files={"a.txt": b"1", "b.txt": b"2"}))
        self.assertIn("two normal runs leave different files", masks.notes)


class Judge(unittest.TestCase):
    before = State(dbs=accounts(100, 0))
    normal = State(dbs=accounts(50, 50))

    def test_a_crash_between_debit_and_credit_is_half_updated(self):
        masks = calibrate(self.normal, self.normal)
        self.assertTrue(half_updated(State(dbs=accounts(50, 0)), self.before, self.normal, masks))
        self.assertFalse(half_updated(self.before, self.before, self.normal, masks))
        self.assertFalse(half_updated(self.normal, self.before, self.normal, masks))

    def test_a_rerun_that_debits_again_double_applies(self):
        masks = calibrate(self.normal, self.normal)
        verdict, details = outcome(State(dbs=accounts(0, 50)), self.normal, self.before, masks)
        self.assertEqual(verdict, "double-applied")
        self.assertTrue(details)

    def test_a_rerun_that_reaches_the_normal_state_recovered(self):
        masks = calibrate(self.normal, self.normal)
        self.assertEqual(outcome(State(dbs=accounts(50, 50)), self.normal, self.before, masks), ("recovered", []))

    def test_a_file_the_rerun_never_wrote_is_half_done(self):
        masks = calibrate(State(files={"out.txt": b"done"}), State(files={"out.txt": b"done"}))
        verdict, _ = outcome(State(files={}), State(files={"out.txt": b"done"}), State(files={}), masks)
        self.assertEqual(verdict, "half-done")


class FileEffects(unittest.TestCase):
    """A re-run's file compared with the normal run's, from where both started."""
    masks = Masks()

    def effects(self, after: bytes, normal: bytes, before: bytes):
        return compare_effects(State(files={"f": after}), State(files={"f": normal}), State(files={"f": before}),
                               self.masks)

    def test_a_counter_moved_twice_is_an_effect_done_again(self):
        self.assertEqual(self.effects(b'{"n": 2}', b'{"n": 1}', b'{"n": 0}'),
                         Effects(["file f: a number moved further than one run moves it"], []))

    def test_a_log_written_twice_was_appended_to_again(self):
        self.assertEqual(self.effects(b"a\nb\nb\n", b"a\nb\n", b"a\n"), Effects(["file f was appended to again"], []))

    def test_other_content_is_missing_the_normal_runs(self):
        self.assertEqual(self.effects(b"a\nx\n", b"a\nb\n", b"a\n"),
                         Effects([], ["file f does not hold the normal run's content"]))

    def test_a_balance_moved_twice_in_a_keyed_table_is_done_again(self):
        more, less = compare_effects(State(dbs=accounts(0, 100)), State(dbs=accounts(50, 50)),
                                     State(dbs=accounts(100, 0)), Masks())
        self.assertCountEqual(more, ["accounts.balance of (1,) moved to 0, normal run: 50",
                                     "accounts.balance of (2,) moved to 100, normal run: 50"])
        self.assertEqual(less, [])


class Names(unittest.TestCase):
    def test_a_pattern_prints_as_its_parts(self):
        self.assertEqual(str(NamePattern(("a", "/", "*", ".", "val"))), "a/*.val")


if __name__ == "__main__":
    unittest.main()
