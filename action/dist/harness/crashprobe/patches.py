"""Installs every interception, once per process, before any target is imported."""
_installed = False


def install() -> None:
    global _installed
    if _installed:
        return
    # Imported before the clock is installed, so their timed waits (Event.wait, Condition.wait,
    # Queue.get(timeout=)) keep the real monotonic clock they bind at import: a simulated
    # second slept on another thread never makes them time out early.
    import queue  # noqa: F401
    import threading  # noqa: F401
    import concurrent.futures  # noqa: F401

    from . import clock, intercept_files, intercept_sqlite

    intercept_sqlite.install()
    intercept_files.install()
    clock.install()
    _installed = True
