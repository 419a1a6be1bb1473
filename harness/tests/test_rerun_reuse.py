"""Re-runs shared by crash points that leave the same state (issue 13): the harness server on
reference solutions with and without reuse gives the same verdicts, byte for byte, in fewer runs.
Run by `npm test` (test/harness/unittest.test.ts)."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

HARNESS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REFERENCE = os.path.join(HARNESS, "reference")
# A SQLite target and a file target, each with crash points before its first write.
SOLUTIONS = ("add_comment/with_conn_block", "count_page_view/json_dump_in_place")


def run_server(root: str, reuse: bool):
    with tempfile.TemporaryDirectory(prefix="crashprobe-reuse-") as work:
        os.chmod(work, 0o777)
        request = {"scenario_file": os.path.join(root, "crash_scenarios.py"), "root": root, "work": work,
                   "isolation": "fork", "max_points": 40, "reuse_reruns": reuse,
                   "limits": {"wall_seconds": 20, "cpu_seconds": 20, "memory_mb": 1024,
                              "file_size_mb": 64, "processes": 64}}
        env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "PYTHONPATH": HARNESS, "PYTHONHASHSEED": "0",
               "PYTHONDONTWRITEBYTECODE": "1", "TZ": "UTC", "LANG": "C.UTF-8", "HOME": "/tmp"}
        done = subprocess.run([sys.executable, "-m", "crashprobe.server"], input=json.dumps(request), cwd=root,
                              env=env, capture_output=True, text=True, timeout=600)
    messages = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    verdicts = [json.dumps(m, sort_keys=True) for m in messages if m["type"] == "scenario"]
    runs = next(m["runs"] for m in messages if m["type"] == "done")
    return verdicts, runs, done.stderr


@unittest.skipUnless(os.path.isdir(REFERENCE), "the reference suite is not here")
class RerunReuse(unittest.TestCase):
    def test_the_same_verdicts_in_fewer_runs(self):
        for solution in SOLUTIONS:
            root = os.path.join(REFERENCE, solution)
            with self.subTest(solution=solution):
                every, every_runs, stderr = run_server(root, reuse=False)
                shared, shared_runs, _ = run_server(root, reuse=True)
                self.assertTrue(every, stderr)
                self.assertEqual(shared, every)
                self.assertLess(shared_runs, every_runs)


if __name__ == "__main__":
    unittest.main()
