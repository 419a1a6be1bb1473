"""Installs every interception, once per process, before any target is imported."""
_installed = []


def install() -> None:
    if _installed:
        return
    from . import clock, intercept_files, intercept_sqlite

    intercept_sqlite.install()
    intercept_files.install()
    clock.install()
    _installed.append(True)
