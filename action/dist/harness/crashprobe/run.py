"""One run of a target, in a process of its own: the first run, a crash run, or a re-run.

The run writes its report (status, error, the crash points it passed) to a file
with raw `os` calls, also when it is hard-crashed, then ends with `os._exit`.
A soft crash writes a partial report first, so a run that then blocks (a worker
thread died at the crash, its caller waits for it) still says it crashed.
"""
import json
import os
import sys
import tempfile
import threading
import time
import traceback

from . import clock, heartbeat, intercept_files, intercept_sqlite, sandbox
from .intercept_files import real_os_close, real_os_open, real_os_write
from .points import TRACKER
from .reports import RunReport, Status
from .run_spec import RunSpec
from .usage import Recorder
from .verdicts import Mode
from .world import World

_JOIN_SECONDS = 30.0  # non-daemon threads are joined as at interpreter exit; the runner ends a hang first


_owner_pid = 0  # the run's own process: a process the target forks writes no report


def _write_report(path: str, report: RunReport) -> None:
    if os.getpid() != _owner_pid:
        # A process the target forked came back through here: the run's report is not its to write.
        os._exit(0)
    fd = real_os_open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
    try:
        real_os_write(fd, json.dumps(report.to_json()).encode("utf-8"))
    finally:
        real_os_close(fd)


def describe_error(exc: BaseException, root: str) -> str:
    where = ""
    for frame, line in traceback.walk_tb(exc.__traceback__):
        filename = os.path.realpath(frame.f_code.co_filename)
        if filename.startswith(os.path.realpath(root) + os.sep):
            where = f" (at {os.path.relpath(filename, root)}:{line})"
    message = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {message}{where}" if message else f"{type(exc).__name__}{where}"


def _temp_folder(spec: RunSpec) -> str:
    """The run's own system temp folder: `tempfile` and `TMPDIR` point here, with or without
    bubblewrap, so temp files behave alike everywhere. It is not part of the judged state."""
    folder = os.path.join(spec.control, "tmp")
    os.makedirs(folder, mode=0o777, exist_ok=True)
    for name in ("TMPDIR", "TEMP", "TMP"):
        os.environ[name] = folder
    tempfile.tempdir = folder
    return folder


def _join_threads() -> None:
    """What interpreter exit does before it ends: wait for the threads that are not daemons."""
    me = threading.current_thread()
    for thread in threading.enumerate():
        if thread is not me and not thread.daemon and thread is not threading.main_thread():
            thread.join(_JOIN_SECONDS)


def _own_process_group() -> None:
    """A process group of its own, so the runner's killpg ends whatever the run leaves behind.
    Under a server that leads a session without a terminal (server.py), a group is enough: a new
    session per run costs milliseconds (the kernel makes each one a scheduler autogroup)."""
    if os.getpgid(0) == os.getpid():  # a spawned run was started in a group (or session) of its own
        return
    if os.getsid(0) == os.getppid():
        os.setpgid(0, 0)
    else:
        os.setsid()


def execute(spec: RunSpec, scenario, target) -> None:
    """Never returns."""
    global _owner_pid
    report_path = spec.report
    started = clock.real_perf_counter()
    _owner_pid = os.getpid()
    try:
        _own_process_group()
        log = os.open(spec.log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o666)
        os.dup2(log, 1)
        os.dup2(log, 2)
        temp = _temp_folder(spec)
        sandbox.apply(spec.limits, [spec.folder, spec.control])
        heartbeat.attach(spec.heartbeat)
        os.chdir(spec.folder)
        clock.set_run(spec.clock, spec.seed)
        intercept_sqlite.set_mode(spec.mode == Mode.AUTOCOMMIT)
        world = World(spec.folder, spec.outbox, seeding=spec.seed_only)
        TRACKER.in_run = not spec.seed_only
        try:
            kwargs = scenario.fn(world)
        except BaseException as exc:  # the scenario itself is broken
            _write_report(report_path, RunReport(Status.SCENARIO_RAISED, error=describe_error(exc, spec.root)))
            os._exit(0)
        if spec.seed_only:
            intercept_files.close_all()
            intercept_sqlite.close_all()
            _write_report(report_path, RunReport(Status.OK))
            os._exit(0)
        if not isinstance(kwargs, dict):
            _write_report(report_path, RunReport(
                Status.SCENARIO_RAISED,
                error=f"the scenario returned {type(kwargs).__name__}, not a dict of keyword arguments"))
            os._exit(0)

        def on_hard_crash():
            _write_report(report_path, RunReport(Status.CRASHED_HARD, trace=TRACKER.trace, crashed=TRACKER.crashed))

        def on_soft_crash():
            _write_report(report_path, RunReport(Status.LIMIT, trace=TRACKER.trace, crashed=TRACKER.crashed,
                                                 error="the run did not end after its soft crash"))

        recorder = Recorder(spec.root) if spec.record_usage else None
        TRACKER.start(spec.root, [spec.folder, temp], spec.crash, on_hard_crash, on_soft_crash)
        if recorder:
            recorder.start()
        status, error = Status.OK, None
        try:
            target(**kwargs)
        except BaseException as exc:
            status, error = Status.RAISED, describe_error(exc, spec.root)
        _join_threads()
        if recorder:
            recorder.stop()
        TRACKER.stop()
        intercept_files.close_all()
        intercept_sqlite.close_all()
        _write_report(report_path, RunReport(
            status, error=error, trace=TRACKER.trace, crashed=TRACKER.crashed,
            seconds=clock.real_perf_counter() - started, refused=TRACKER.refused,
            imports=recorder.imports() if recorder else [], executed=sorted(recorder.executed) if recorder else []))
    except BaseException as exc:  # a harness failure inside the run: report it, never hang
        try:
            _write_report(report_path, RunReport(Status.HARNESS_ERROR, error=describe_error(exc, spec.root)))
        except BaseException:
            pass
    finally:
        sys.stdout.flush() if not sys.stdout.closed else None
        os._exit(0)
