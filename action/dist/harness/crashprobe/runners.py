"""How a run gets its process: forked from this warm server, or a fresh interpreter.

The runner waits for the run with a wall-clock limit, and ends it early as a
hang when, for about a second, it neither used CPU time nor moved its heartbeat
(heartbeat.py): every thread is blocked, so nothing will ever change.
"""
import dataclasses
import gc
import json
import os
import select
import signal
import subprocess
import sys
from typing import NamedTuple, Optional

from . import clock, heartbeat, run
from .intercept_sqlite import OPEN_CONNECTIONS
from .points import HARD_CRASH_EXIT, warm_real_paths
from .reports import RunReport, Status
from .run_spec import RunSpec

HANG_SECONDS = 1.0
_POLL = 0.05
# Most runs end within milliseconds: the hang watch reads /proc only once a run has lasted this long.
_WATCH_AFTER = 0.1
_IDLE_CPU_SHARE = 0.05  # below this share of one core, a run counts as idle
_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
_monotonic = clock.real_monotonic


class Ended(NamedTuple):
    status: int  # as os.waitpid gives it
    timed_out: bool = False
    hung: bool = False


def _cpu_ticks(pid: int) -> Optional[int]:
    """User + system CPU time of every thread of the process, in clock ticks."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            stat = handle.read()
    except OSError:
        return None
    fields = stat[stat.rindex(b")") + 2:].split()
    return int(fields[11]) + int(fields[12])


def _runnable(pid: int) -> bool:
    """True when a thread of the process is running or waiting for a CPU (state R), or waiting on
    the disk (state D, e.g. an fsync slowed by a busy disk): not blocked, only starved, e.g. a fork
    loop on a busy machine uses little CPU time of its own. A hang waits on a lock or a pipe (S)."""
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return False
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/stat", "rb") as handle:
                stat = handle.read()
        except OSError:
            continue
        if stat[stat.rindex(b")") + 2:stat.rindex(b")") + 3] in (b"R", b"D"):
            return True
    return False


class _HangWatch:
    def __init__(self, pid: int, beat_path: Optional[str]):
        self.pid = pid
        self.beat_path = beat_path
        self.started = _monotonic()
        self.mark = None

    def _beat(self):
        beat = heartbeat.read(self.beat_path) if self.beat_path else None
        return beat.hits if beat else None

    def hung(self) -> bool:
        now = _monotonic()
        if now - self.started < _WATCH_AFTER:
            return False
        ticks, beat = _cpu_ticks(self.pid), self._beat()
        if self.mark is None:
            self.mark = (now, ticks, beat)
            return False
        since, mark_ticks, mark_beat = self.mark
        if ticks is None or mark_ticks is None:
            return False
        busy = ticks - mark_ticks > _IDLE_CPU_SHARE * (now - since) * _TICK + 1
        if busy or beat != mark_beat or _runnable(self.pid):
            self.mark = (now, ticks, beat)
            return False
        return now - since >= HANG_SECONDS


def _wait(pid: int, timeout: float, beat_path: Optional[str] = None) -> Ended:
    """waitpid with a wall-clock limit and hang detection; the run's process group is killed at the end."""
    deadline = _monotonic() + timeout
    watch = _HangWatch(pid, beat_path)
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
                return Ended(status)
            left = deadline - _monotonic()
            hung = watch.hung()
            if left <= 0 or hung:
                _kill_group(pid)
                _, status = os.waitpid(pid, 0)
                return Ended(status, timed_out=not hung, hung=hung)
            if pidfd is not None:
                early = watch.started + _WATCH_AFTER - _monotonic()
                select.select([pidfd], [], [], max(0.0, min(left, _POLL if early <= 0 else early)))
            else:
                clock.real_sleep(min(delay, left))
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


def _finish(spec: RunSpec, ended: Ended) -> RunReport:
    try:
        with open(spec.report, "r", encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        data = None
    partial = RunReport.from_json(data) if data else None
    if ended.hung:
        # The run may have reached its crash point before it blocked (a worker thread died and
        # its caller waits): a soft crash writes a partial report saying so.
        beat = heartbeat.read(spec.heartbeat) if spec.heartbeat else None
        return RunReport(Status.HANG, trace=partial.trace if partial else [],
                         crashed=partial.crashed if partial else None,
                         error=f"the run hangs: every thread blocked for {HANG_SECONDS:.0f} s with nothing changing"
                               + (f" (after {beat.hits} intercepted calls)" if beat else ""))
    if ended.timed_out:
        return RunReport(Status.LIMIT, trace=partial.trace if partial else [],
                         crashed=partial.crashed if partial else None,
                         error=f"the run did not finish within the {spec.limits['wall_seconds']} s wall-clock limit")
    status = ended.status
    if partial is None:
        if os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
            reason = {signal.SIGXCPU: "CPU-time limit", signal.SIGKILL: "killed (memory or CPU limit)",
                      signal.SIGSEGV: "segmentation fault"}.get(sig, f"signal {sig}")
            return RunReport(Status.LIMIT, error=f"the run ended by {reason}")
        return RunReport(Status.LIMIT, error=f"the run ended with exit code {os.WEXITSTATUS(status)} and no report")
    if partial.status == Status.CRASHED_HARD and not (os.WIFEXITED(status) and os.WEXITSTATUS(status) == HARD_CRASH_EXIT):
        partial.error = "hard crash exit code mismatch"
    return partial


def _prepare(spec: RunSpec) -> None:
    if os.path.exists(spec.report):
        os.remove(spec.report)
    if spec.heartbeat:
        heartbeat.create(spec.heartbeat)


class ForkRunner:
    isolation = "fork"

    def __init__(self, scenario_index: dict):
        self._scenarios = scenario_index  # name -> (scenario, target)
        warm_real_paths()

    def run(self, spec: RunSpec) -> RunReport:
        if len(OPEN_CONNECTIONS):
            raise RuntimeError("the harness holds an open SQLite connection; it must never fork with one")
        scenario, target = self._scenarios[spec.scenario]
        _prepare(spec)
        sys.stdout.flush()
        sys.stderr.flush()
        # The server's objects go to the permanent generation for the fork: a collection in the
        # run then never walks (and so copies) the server's memory page by page.
        gc.freeze()
        pid = os.fork()
        if pid == 0:
            run.execute(spec, scenario, target)
        gc.unfreeze()
        return _finish(spec, _wait(pid, spec.limits["wall_seconds"], spec.heartbeat))


# A group of its own, as a forked run gets (run.py); Python before 3.11 has only a new session.
_OWN_GROUP = {"process_group": 0} if sys.version_info >= (3, 11) else {"start_new_session": True}


class SpawnRunner:
    isolation = "spawn"

    def __init__(self, scenario_file: str, env: dict):
        self._file = scenario_file
        self._env = env

    def run(self, spec: RunSpec) -> RunReport:
        _prepare(spec)
        payload = dataclasses.replace(spec, scenario_file=self._file).to_json()
        process = subprocess.Popen(
            [sys.executable, "-m", "crashprobe.child"],
            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            env=self._env, **_OWN_GROUP,
        )
        process.stdin.write(json.dumps(payload).encode("utf-8"))
        process.stdin.close()
        ended = _wait(process.pid, spec.limits["wall_seconds"] + 5, spec.heartbeat)
        process.returncode = 0  # reaped by _wait
        return _finish(spec, ended)


class CountingRunner:
    """A runner that counts the runs it starts, for the protocol's `done` message."""

    def __init__(self, runner):
        self.runner = runner
        self.isolation = runner.isolation
        self.runs = 0

    def run(self, spec: RunSpec) -> RunReport:
        self.runs += 1
        return self.runner.run(spec)
