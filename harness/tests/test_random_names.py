"""Random names (issue 10, item 3): a value a library names at random, in a row and as a file,
is compared by the pattern two normal runs share, so a re-run that picks another name recovers."""
import unittest

from crashprobe import campaign
from crashprobe.judge import calibrate, half_updated, orphans, outcome
from crashprobe.state import State, Table


def cache(filename, *files):
    table = Table(("rowid", "key", "filename"), ("rowid",), [(1, "report", filename)] if filename else [])
    return State(files={f"cache/{f}": b"0123456789abcdef" for f in files}, dbs={"cache/cache.db": {"Cache": table}})


class RandomValueFiles(unittest.TestCase):
    before = cache(None)
    normal = cache("b6/71/2fac417a.val", "b6/71/2fac417a.val")
    masks = calibrate(normal, cache("0e/c4/9d3b7790.val", "0e/c4/9d3b7790.val"))

    def test_the_column_and_the_files_follow_one_pattern(self):
        self.assertEqual(self.masks.notes, [])
        self.assertEqual({str(p) for p in self.masks.values[("cache/cache.db", "Cache", "filename")]}, {"*/*/*.val"})
        self.assertEqual({str(p) for p in self.masks.names}, {"cache/*/*/*.val"})

    def test_a_rerun_that_names_its_file_anew_recovered(self):
        # Two-hex-character folders such as `ab` and `52` have different shapes: only the pattern matches them.
        after = cache("ab/52/77aa01ff.val", "ab/52/77aa01ff.val")
        self.assertEqual(outcome(after, self.normal, self.before, self.masks), ("recovered", []))

    def test_a_crash_before_the_row_leaves_an_orphan_not_a_half_update(self):
        crashed = cache(None, "2d/a9/a616f9ee.val")
        self.assertFalse(half_updated(crashed, self.before, self.normal, self.masks))
        rerun = cache("52/e2/0f79a3c0.val", "2d/a9/a616f9ee.val", "52/e2/0f79a3c0.val")
        self.assertEqual(orphans(rerun, self.before, self.normal, self.masks), {"cache/2d/a9/a616f9ee.val"})
        self.assertEqual(outcome(rerun, self.normal, self.before, self.masks)[0], "recovered")

    def test_a_value_that_breaks_the_pattern_is_still_a_difference(self):
        after = cache("b6/71/2fac417a.tmp", "b6/71/2fac417a.val")
        self.assertNotEqual(outcome(after, self.normal, self.before, self.masks)[0], "recovered")


class Seeds(unittest.TestCase):
    def test_every_kind_of_run_draws_its_own_random_numbers(self):
        seeds = [campaign.SEEDING_SEED, campaign.FIRST_RUN_SEED, campaign.RERUN_SEED,
                 campaign.CALIBRATION_SEED, campaign.CRASH_SEED]
        self.assertEqual(len(set(seeds)), len(seeds))


if __name__ == "__main__":
    unittest.main()
