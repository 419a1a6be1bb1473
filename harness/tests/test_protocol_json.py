"""The protocol's edge: the JSON the results give (src/core/crash/protocol.ts checks it with zod).
Key order and which keys are left out are part of the protocol's bytes, so they are pinned here."""
import json
import unittest

from crashprobe import messages
from crashprobe.reports import RunReport, Status
from crashprobe.results import Failure, ModeResult, ScenarioVerdict, Usage
from crashprobe.run_spec import RunSpec
from crashprobe.runners import CountingRunner
from crashprobe.verdicts import Crash, Mode, Outcome, ScenarioClass

POINT = {"path": "app/bank.py", "line": 12, "call": "commit", "repetition": 1}


class FailureJson(unittest.TestCase):
    def test_a_crash_failure_keeps_its_field_order_and_a_null_error(self):
        failure = Failure(mode=Mode.DEFAULT, crash=Crash.HARD, point=POINT, outcome=Outcome.HALF_DONE,
                          half_updated=True, orphaned_files=[], reasons=["accounts: row (2,) missing"])
        self.assertEqual(json.dumps(failure.to_json()), json.dumps({
            "mode": "default", "crash": "hard", "point": POINT, "outcome": "half-done", "half_updated": True,
            "evidence": [], "error": None, "orphaned_files": [], "reasons": ["accounts: row (2,) missing"]}))

    def test_a_repeated_normal_run_has_a_null_point_and_no_crash_fields(self):
        failure = Failure(mode=Mode.AUTOCOMMIT, crash=Crash.NONE, point=None, outcome=Outcome.DOUBLE_APPLIED,
                          half_updated=False, detail="a normal run, repeated")
        self.assertEqual(list(failure.to_json()), ["mode", "crash", "point", "outcome", "half_updated", "evidence",
                                                   "detail", "error"])
        self.assertIsNone(failure.to_json()["point"])


class ModeResultJson(unittest.TestCase):
    def test_only_what_is_set_is_written_and_orphan_left_never(self):
        self.assertEqual(ModeResult(works=True, orphan_left=True).to_json(),
                         {"works": True, "half_updated": False, "crash_points": 0})
        full = ModeResult(works=False, crash_points=40, crash_points_capped=True, error="e",
                          calibration_notes=["n"], difference=[])
        self.assertEqual(list(full.to_json()), ["works", "half_updated", "crash_points", "crash_points_capped",
                                                "error", "calibration_notes", "difference"])


def unsafe_verdict() -> ScenarioVerdict:
    usage = Usage()
    usage.add(RunReport(Status.OK, imports=[{"path": "app/bank.py", "sha256": "ab"}], executed=["b", "a"]))
    return ScenarioVerdict(name="transfer", target="app/bank.py:transfer", resumable=False, idempotent=True,
                           scenario_class=ScenarioClass.UNSAFE, fully_crash_safe=False, double_applies=False,
                           modes={Mode.DEFAULT: ModeResult(works=True), Mode.AUTOCOMMIT: ModeResult(works=True)},
                           failures=[], notes=[], usage=usage)


class VerdictJson(unittest.TestCase):
    def test_the_scenario_message_keys_in_protocol_order(self):
        data = unsafe_verdict().to_json()
        self.assertEqual(list(data), ["name", "target", "resumable", "idempotent", "class", "fully_crash_safe",
                                      "double_applies", "modes", "failures", "notes", "imports", "executed"])
        self.assertEqual(data["class"], "unsafe")
        self.assertEqual(list(data["modes"]), ["default", "autocommit"])
        self.assertEqual(data["imports"], [{"path": "app/bank.py", "sha256": "ab"}])
        self.assertEqual(data["executed"], ["a", "b"])


class Messages(unittest.TestCase):
    def test_each_message_keeps_its_key_order(self):
        self.assertEqual(list(messages.note("n")), ["type", "message"])
        self.assertEqual(list(messages.progress("transfer", "default", 10, 40)),
                         ["type", "scenario", "mode", "done", "total"])
        self.assertEqual(list(messages.file_error("s.py", "m")), ["type", "file", "message"])
        self.assertEqual(list(messages.scenario_error("s.py", "transfer", 3, "m")),
                         ["type", "file", "scenario", "line", "message"])
        self.assertEqual(list(messages.done(3, 1.5)), ["type", "runs", "seconds"])

    def test_a_verdict_message_is_the_verdict_then_what_the_server_adds(self):
        message = messages.scenario_verdict(unsafe_verdict(), "s.py", 3, "1", "fork")
        self.assertEqual(list(message)[-5:], ["type", "file", "line", "harness_version", "isolation"])
        self.assertEqual((message["type"], message["class"]), ("scenario", "unsafe"))


class RunReportJson(unittest.TestCase):
    def test_a_report_reads_back_as_written(self):
        report = RunReport(Status.RAISED, error="ValueError: no", trace=[POINT], crashed=None, seconds=0.5,
                           refused="/etc/passwd", imports=[], executed=["app/bank.py:transfer"])
        self.assertEqual(RunReport.from_json(json.loads(json.dumps(report.to_json()))), report)

    def test_a_report_without_a_status_is_a_limit(self):
        self.assertEqual(RunReport.from_json({"trace": None}).status, Status.LIMIT)


class RunSpecJson(unittest.TestCase):
    def test_a_spec_reaches_a_fresh_interpreter_as_it_left(self):
        spec = RunSpec(scenario="transfer", root="/repo", folder="/w/scenario", control="/w/control",
                       outbox="/w/control/emails.jsonl", report="/w/control/report.json", heartbeat=None,
                       log="/w/control/output.log", mode=Mode.AUTOCOMMIT, clock=1.5, seed=7,
                       limits={"wall_seconds": 20}, crash=dict(POINT, kind=Crash.HARD), scenario_file="/s.py")
        self.assertEqual(RunSpec.from_json(json.loads(json.dumps(spec.to_json()))), spec)


class Counting(unittest.TestCase):
    def test_the_counting_runner_counts_and_passes_each_run_through(self):
        class Fake:
            isolation = "fork"

            def run(self, spec):
                return RunReport(Status.OK, seconds=spec["n"])

        runner = CountingRunner(Fake())
        self.assertEqual([runner.run({"n": n}).seconds for n in (1, 2, 3)], [1, 2, 3])
        self.assertEqual((runner.runs, runner.isolation), (3, "fork"))


if __name__ == "__main__":
    unittest.main()
