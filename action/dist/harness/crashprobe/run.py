"""One run of a target, in a process of its own: the first run, a crash run, or a re-run.

The run writes its report (status, error, the crash points it passed) to a file
with raw `os` calls, also when it is hard-crashed, then ends with `os._exit`.
"""
import json
import os
import sys
import time
import traceback

from . import clock, intercept_files, intercept_sqlite, sandbox
from .points import TRACKER
from .world import World

_real_os_open = intercept_files._real_os_open
_real_os_write = intercept_files._real_os_write
_real_os_close = intercept_files._real_os_close


_owner = [0]


def _write_report(path: str, report: dict) -> None:
    if os.getpid() != _owner[0]:
        # A process the target forked came back through here: the run's report is not its to write.
        os._exit(0)
    fd = _real_os_open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
    try:
        _real_os_write(fd, json.dumps(report).encode("utf-8"))
    finally:
        _real_os_close(fd)


def describe_error(exc: BaseException, root: str) -> str:
    where = ""
    for frame, line in traceback.walk_tb(exc.__traceback__):
        filename = os.path.realpath(frame.f_code.co_filename)
        if filename.startswith(os.path.realpath(root) + os.sep):
            where = f" (at {os.path.relpath(filename, root)}:{line})"
    message = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {message}{where}" if message else f"{type(exc).__name__}{where}"


def execute(spec: dict, scenario, target) -> None:
    """Never returns."""
    report_path = spec["report"]
    started = time.perf_counter()
    _owner[0] = os.getpid()
    try:
        if os.getsid(0) != os.getpid():  # a spawned run already leads its own session
            os.setsid()
        log = os.open(spec["log"], os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o666)
        os.dup2(log, 1)
        os.dup2(log, 2)
        sandbox.apply(spec["limits"], [spec["folder"], spec["control"]])
        os.chdir(spec["folder"])
        clock.set_run(spec["clock"], spec["seed"])
        intercept_sqlite.set_mode(spec["mode"] == "autocommit")
        world = World(spec["folder"], spec["outbox"], seeding=spec.get("seed_only", False))
        try:
            kwargs = scenario.fn(world)
        except BaseException as exc:  # the scenario itself is broken
            _write_report(report_path, {"status": "scenario-raised", "error": describe_error(exc, spec["root"]),
                                        "trace": []})
            os._exit(0)
        if spec.get("seed_only"):
            intercept_files.close_all()
            intercept_sqlite.close_all()
            _write_report(report_path, {"status": "ok", "trace": []})
            os._exit(0)
        if not isinstance(kwargs, dict):
            _write_report(report_path, {"status": "scenario-raised", "trace": [],
                                        "error": f"the scenario returned {type(kwargs).__name__}, not a dict of keyword arguments"})
            os._exit(0)

        def on_hard_crash():
            _write_report(report_path, {"status": "crashed-hard", "trace": TRACKER.trace, "crashed": TRACKER.crashed})

        TRACKER.start(spec["root"], spec["folder"], spec.get("crash"), on_hard_crash)
        status, error = "ok", None
        try:
            target(**kwargs)
        except BaseException as exc:
            status, error = "raised", describe_error(exc, spec["root"])
        TRACKER.stop()
        intercept_files.close_all()
        intercept_sqlite.close_all()
        _write_report(report_path, {"status": status, "error": error, "trace": TRACKER.trace,
                                    "crashed": TRACKER.crashed, "seconds": time.perf_counter() - started})
    except BaseException as exc:  # a harness failure inside the run: report it, never hang
        try:
            _write_report(report_path, {"status": "harness-error", "error": describe_error(exc, spec["root"]),
                                        "trace": []})
        except BaseException:
            pass
    finally:
        sys.stdout.flush() if not sys.stdout.closed else None
        os._exit(0)
