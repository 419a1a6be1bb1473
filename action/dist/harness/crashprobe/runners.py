"""How a run gets its process: forked from this warm server, or a fresh interpreter."""
import json
import os
import select
import signal
import subprocess
import sys
import time

from . import run
from .intercept_sqlite import OPEN_CONNECTIONS
from .points import HARD_CRASH_EXIT


def _wait(pid: int, timeout: float):
    """waitpid with a wall-clock limit; on timeout the run's process group is killed."""
    deadline = time.monotonic() + timeout
    pidfd = None
    if hasattr(os, "pidfd_open"):
        try:
            pidfd = os.pidfd_open(pid)
        except OSError:
            pidfd = None
    try:
        delay = 0.0005
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                _kill_group(pid)  # whatever the run left behind (forked children) goes with it
                return status, False
            left = deadline - time.monotonic()
            if left <= 0:
                _kill_group(pid)
                _, status = os.waitpid(pid, 0)
                return status, True
            if pidfd is not None:
                select.select([pidfd], [], [], left)
            else:
                time.sleep(min(delay, left))
                delay = min(delay * 2, 0.02)
    finally:
        if pidfd is not None:
            os.close(pidfd)


def _kill_group(pid: int) -> None:
    for target in (lambda: os.killpg(pid, signal.SIGKILL), lambda: os.kill(pid, signal.SIGKILL)):
        try:
            target()
        except OSError:
            pass


def _finish(spec: dict, status: int, timed_out: bool) -> dict:
    try:
        with open(spec["report"], "r", encoding="utf-8") as handle:
            report = json.load(handle)
    except (OSError, ValueError):
        report = None
    if timed_out:
        return {"status": "limit", "trace": (report or {}).get("trace", []),
                "error": f"the run did not finish within the {spec['limits']['wall_seconds']} s wall-clock limit"}
    if report is None:
        if os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
            reason = {signal.SIGXCPU: "CPU-time limit", signal.SIGKILL: "killed (memory or CPU limit)",
                      signal.SIGSEGV: "segmentation fault"}.get(sig, f"signal {sig}")
            return {"status": "limit", "trace": [], "error": f"the run ended by {reason}"}
        return {"status": "limit", "trace": [], "error": f"the run ended with exit code {os.WEXITSTATUS(status)} and no report"}
    if report.get("status") == "crashed-hard" and not (os.WIFEXITED(status) and os.WEXITSTATUS(status) == HARD_CRASH_EXIT):
        report["error"] = "hard crash exit code mismatch"
    return report


class ForkRunner:
    isolation = "fork"

    def __init__(self, scenario_index: dict):
        self._scenarios = scenario_index  # name -> (scenario, target)

    def run(self, spec: dict) -> dict:
        if len(OPEN_CONNECTIONS):
            raise RuntimeError("the harness holds an open SQLite connection; it must never fork with one")
        scenario, target = self._scenarios[spec["scenario"]]
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            run.execute(spec, scenario, target)
        status, timed_out = _wait(pid, spec["limits"]["wall_seconds"])
        return _finish(spec, status, timed_out)


class SpawnRunner:
    isolation = "spawn"

    def __init__(self, scenario_file: str, env: dict):
        self._file = scenario_file
        self._env = env

    def run(self, spec: dict) -> dict:
        payload = dict(spec, scenario_file=self._file)
        process = subprocess.Popen(
            [sys.executable, "-m", "crashprobe.child"],
            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            env=self._env, start_new_session=True,
        )
        process.stdin.write(json.dumps(payload).encode("utf-8"))
        process.stdin.close()
        status, timed_out = _wait(process.pid, spec["limits"]["wall_seconds"] + 5)
        process.returncode = 0  # reaped by _wait
        return _finish(spec, status, timed_out)
