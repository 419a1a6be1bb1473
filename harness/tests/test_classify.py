"""The contract's decision table (classify.py) on mode judgements built by hand: the class,
full crash safety and double-applying, and which failures and notes the verdict lists.
Run by `npm test` (test/harness/unittest.test.ts)."""
import unittest

from crashprobe.classify import classify
from crashprobe.registry import Scenario
from crashprobe.results import Failure, ModeJudgement, ModeResult, Usage
from crashprobe.verdicts import Crash, Mode, Outcome, ScenarioClass

SCENARIO = Scenario(target="app/bank.py:transfer", fn=lambda world: {}, name="transfer", line=7)
POINT = {"path": "app/bank.py", "line": 12, "call": "execute", "repetition": 1}


def failure(mode, outcome=Outcome.RECOVERED, half=False, crash=Crash.SOFT, orphaned=None, detail=None):
    return Failure(mode=mode, crash=crash, point=None if crash == Crash.NONE else POINT, outcome=outcome,
                   half_updated=half, orphaned_files=orphaned, detail=detail)


def mode(works=True, failures=(), notes=(), orphan_left=False):
    half = any(f.half_updated for f in failures)
    return ModeJudgement(ModeResult(works=works, half_updated=half, crash_points=len(failures),
                                    orphan_left=orphan_left), list(failures), list(notes))


def verdict(default, autocommit):
    return classify(SCENARIO, {Mode.DEFAULT: default, Mode.AUTOCOMMIT: autocommit}, Usage())


class Classes(unittest.TestCase):
    def test_no_failure_in_either_mode_is_safe_by_design_and_fully_crash_safe(self):
        result = verdict(mode(), mode())
        self.assertEqual(result.scenario_class, ScenarioClass.SAFE_BY_DESIGN)
        self.assertTrue(result.fully_crash_safe)
        self.assertFalse(result.double_applies)

    def test_a_half_update_in_the_default_mode_is_unsafe(self):
        result = verdict(mode(failures=[failure(Mode.DEFAULT, half=True)]), mode())
        self.assertEqual(result.scenario_class, ScenarioClass.UNSAFE)

    def test_a_half_update_only_in_autocommit_is_safe_by_accident(self):
        result = verdict(mode(), mode(failures=[failure(Mode.AUTOCOMMIT, half=True)]))
        self.assertEqual(result.scenario_class, ScenarioClass.SAFE_BY_ACCIDENT)

    def test_code_that_does_not_work_in_autocommit_is_safe_by_accident_not_fully_safe(self):
        result = verdict(mode(), mode(works=False))
        self.assertEqual(result.scenario_class, ScenarioClass.SAFE_BY_ACCIDENT)
        self.assertFalse(result.fully_crash_safe)

    def test_code_that_does_not_work_in_the_default_mode_is_not_working(self):
        result = verdict(mode(works=False), mode(works=False))
        self.assertEqual(result.scenario_class, ScenarioClass.NOT_WORKING)


class CrashSafety(unittest.TestCase):
    def test_a_rerun_that_applies_twice_double_applies_and_is_not_fully_safe(self):
        result = verdict(mode(failures=[failure(Mode.DEFAULT, Outcome.DOUBLE_APPLIED)]), mode())
        self.assertEqual(result.scenario_class, ScenarioClass.SAFE_BY_DESIGN)
        self.assertTrue(result.double_applies)
        self.assertFalse(result.fully_crash_safe)

    def test_a_repeated_normal_run_that_double_applies_keeps_full_crash_safety(self):
        # Not idempotent, but every crash is recovered from: the two questions are apart.
        repeated = failure(Mode.DEFAULT, Outcome.DOUBLE_APPLIED, crash=Crash.NONE)
        result = verdict(mode(failures=[repeated]), mode())
        self.assertTrue(result.double_applies)
        self.assertTrue(result.fully_crash_safe)

    def test_a_file_a_crash_leaves_behind_is_not_fully_safe(self):
        left = failure(Mode.DEFAULT, orphaned=["tmp/upload.part"])
        result = verdict(mode(failures=[left], orphan_left=True), mode())
        self.assertFalse(result.fully_crash_safe)

    def test_a_mode_that_does_not_work_is_not_counted(self):
        result = verdict(mode(), mode(works=False, failures=[failure(Mode.AUTOCOMMIT, Outcome.DOUBLE_APPLIED)]))
        self.assertFalse(result.double_applies)
        self.assertEqual(result.failures, [])


class Listed(unittest.TestCase):
    def test_a_crash_point_not_reached_is_a_note_not_a_failure(self):
        missed = failure(Mode.DEFAULT, Outcome.NOT_REACHED, crash=Crash.HARD, detail="the run did not reach it")
        result = verdict(mode(failures=[missed], notes=["default mode: a refused write"]), mode())
        self.assertEqual(result.failures, [])
        self.assertTrue(result.fully_crash_safe)
        self.assertEqual(result.notes, ["default hard crash at app/bank.py:12: the run did not reach it",
                                        "default mode: a refused write"])

    def test_failures_are_listed_default_mode_first(self):
        first, second = failure(Mode.DEFAULT, half=True), failure(Mode.AUTOCOMMIT, half=True)
        self.assertEqual(verdict(mode(failures=[first]), mode(failures=[second])).failures, [first, second])


if __name__ == "__main__":
    unittest.main()
